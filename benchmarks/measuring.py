"""The measures: results latency, the export, submission throughput, the respondent page."""

from __future__ import annotations

import gzip
import http.client
import json
import random
import re
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import brotli
import numpy as np

from benchmarks.common import BenchError
from benchmarks.figures import ExportFigures, PageFigures, Resource, ThroughputFigures
from benchmarks.harness import (
    HOST,
    Deployment,
    Fetched,
    Server,
    fetch,
    free_port,
    peak_rss_mib,
)
from benchmarks.seeding import SurveyShape


def bare_flask_app():
    """A minimal Flask app: one POST route that parses the JSON body and answers 201."""
    from flask import Flask, jsonify, request

    app = Flask("bare_flask")

    @app.post("/api/v1/surveys/<slug>/responses")
    def submit_response(slug: str):
        """Parse the submission and answer as the app does, storing nothing."""
        payload = request.get_json()
        return jsonify(submission_id=payload["submission_id"], status="recorded"), 201

    return app


def bare_flask_server(deployment: Deployment, workers: int) -> Server:
    """A gunicorn server of :func:`bare_flask_app`, set up as ``survey-app serve`` is."""
    return flask_app_server(
        deployment, workers, "bare Flask", "benchmarks.measuring:bare_flask_app"
    )


def flask_app_server(
    deployment: Deployment,
    workers: int,
    name: str,
    factory: str,
    env: dict[str, str] | None = None,
) -> Server:
    """A gunicorn server of the Flask app that ``factory`` (``module:function``) makes, set up
    as ``survey-app serve`` is, with ``env`` added to the deployment's environment."""
    port = free_port()
    code = (
        "from benchmarks.measuring import serve_flask_app; "
        f"serve_flask_app({factory!r}, '{HOST}', {port}, {workers})"
    )
    log_path = deployment.directory / f"server-{name.replace(' ', '-')}-{port}.log"
    argv = [sys.executable, "-c", code]
    return Server(name, argv, deployment.env | (env or {}), workers, log_path, port)


def serve_flask_app(factory: str, host: str, port: int, workers: int) -> None:
    """Serve the app ``factory`` makes exactly as ``survey-app serve`` serves the app.

    The app's own gunicorn application is reused with only the app it loads swapped, so the
    worker class, worker count, timeouts and logging are the same by construction.
    """
    import importlib

    from survey_app import server

    module, function = factory.split(":")
    make = getattr(importlib.import_module(module), function)
    server.SurveyServer.load = lambda self: make()
    server.serve(host=host, port=port, workers=workers)


# ----------------------------------------------------------------------------------- HTTP


def measure_results_latency(
    port: int, slug: str, token: str, requests: int, warmup: int
) -> tuple[list[float], int]:
    """Seconds of each of ``requests`` sequential results requests, and the respondents seen."""
    path = f"/api/v1/surveys/{slug}/results"
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    respondents = -1
    timings = []
    for index in range(warmup + requests):
        started = time.perf_counter()
        fetched = fetch(port, "GET", path, headers=headers)
        elapsed = time.perf_counter() - started
        if fetched.status != 200:
            raise BenchError(f"results API answered {fetched.status}: {fetched.body[:300]!r}")
        if index == 0:
            respondents = json.loads(fetched.body)["respondents"]
        if index >= warmup:
            timings.append(elapsed)
    return timings, respondents


def percentile(values: list[float], fraction: float) -> float:
    return float(np.percentile(np.asarray(values), fraction * 100))


def measure_export(port: int, slug: str, token: str, size: int, server: Server) -> ExportFigures:
    """Stream responses.csv over HTTP, count its lines, and read the worker's peak RSS."""
    path = f"/api/v1/surveys/{slug}/responses.csv"
    headers = {"Authorization": f"Bearer {token}"}
    workers = server.worker_pids()
    if len(workers) != 1:
        raise BenchError(f"the export server should have one worker, found {len(workers)}")
    (worker,) = workers
    rss_before = peak_rss_mib(worker)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    lines = 0
    received = 0
    error = None
    started = time.perf_counter()
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        if response.status == 200:
            while chunk := response.read(1 << 20):
                lines += chunk.count(b"\n")
                received += len(chunk)
        else:
            # Reported as a miss, with the rest of the figures, rather than ending the run.
            error = f"responses.csv answered HTTP {response.status}"
            logged = server.last_exception()
            if logged:
                error += f" (server log: `{logged}`)"
            lines = 1
    except (OSError, http.client.HTTPException) as failure:
        error = f"the download broke off: {type(failure).__name__}: {failure}"
    finally:
        connection.close()
    seconds = time.perf_counter() - started
    rows = max(lines - 1, 0)  # less the header row
    try:
        peak = peak_rss_mib(worker)
    except (OSError, BenchError):
        peak = float("nan")
        error = error or "the worker was gone after the export (killed by gunicorn's timeout?)"
    if rows != size and error is None:
        error = f"{rows:,} rows counted, {size:,} stored"
    return ExportFigures(
        size=size,
        rows=rows,
        seconds=seconds,
        bytes=received,
        rows_per_second=rows / seconds if seconds > 0 else 0.0,
        rss_before_mib=rss_before,
        peak_rss_mib=peak,
        error=error,
    )


def submission_body(shape: SurveyShape, chooser: random.Random) -> bytes:
    """A valid submission to ``shape``: a fresh UUID4 and a value in range for every question."""
    answers = {
        str(question_id): chooser.randrange(options)
        for question_id, options in zip(shape.question_ids, shape.option_counts, strict=True)
    }
    return json.dumps({"submission_id": str(uuid.uuid4()), "answers": answers}).encode()


def measure_throughput(
    port: int,
    shape: SurveyShape,
    seconds: float,
    threads: int,
    workers: int,
    warm_up: bool = True,
) -> ThroughputFigures:
    """Submissions accepted per second from ``threads`` clients posting for ``seconds``."""
    path = f"/api/v1/surveys/{shape.slug}/responses"
    headers = {"Content-Type": "application/json"}
    # Warm every worker up first: the first request of a worker pays for lazy imports.
    chooser = random.Random()
    for _ in range(2 * workers if warm_up else 0):
        fetch(port, "POST", path, submission_body(shape, chooser), headers)
    outcomes: list[Counter] = [Counter() for _ in range(threads)]
    start_together = threading.Barrier(threads + 1)
    deadline = 0.0

    def client(outcome: Counter) -> None:
        chooser = random.Random()
        start_together.wait()
        while time.perf_counter() < deadline:
            body = submission_body(shape, chooser)
            try:
                status = fetch(port, "POST", path, body, headers, timeout=30).status
                outcome[str(status)] += 1
            except (OSError, http.client.HTTPException) as failure:
                outcome[type(failure).__name__] += 1

    pool = [threading.Thread(target=client, args=(outcome,)) for outcome in outcomes]
    for thread in pool:
        thread.start()
    started = time.perf_counter()
    deadline = started + seconds
    start_together.wait()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - started
    total: Counter = sum(outcomes, Counter())
    accepted = total.get("201", 0)
    return ThroughputFigures(
        seconds=elapsed,
        client_threads=threads,
        workers=workers,
        accepted=accepted,
        failed=sum(total.values()) - accepted,
        per_second=accepted / elapsed if elapsed > 0 else 0.0,
        outcomes=dict(sorted(total.items())),
    )


def combined(slices: list[ThroughputFigures]) -> ThroughputFigures:
    """One figure for several windows of the same server: totals over their summed time."""
    seconds = sum(piece.seconds for piece in slices)
    accepted = sum(piece.accepted for piece in slices)
    outcomes: Counter = sum((Counter(piece.outcomes) for piece in slices), Counter())
    return ThroughputFigures(
        seconds=seconds,
        client_threads=slices[0].client_threads,
        workers=slices[0].workers,
        accepted=accepted,
        failed=sum(piece.failed for piece in slices),
        per_second=accepted / seconds if seconds > 0 else 0.0,
        outcomes=dict(sorted(outcomes.items())),
    )


# ----------------------------------------------------------------------------------- the page

#: ``<link rel=...>`` values that make the browser fetch the link.
FETCHED_LINK_RELS = {
    "stylesheet",
    "modulepreload",
    "preload",
    "prefetch",
    "icon",
    "apple-touch-icon",
    "manifest",
}
#: Attributes that load something, by element.
LOADING_ATTRIBUTES = {
    "script": ("src",),
    "img": ("src",),
    "iframe": ("src",),
    "source": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "track": ("src",),
}
JS_IMPORT = re.compile(
    r"""\b(?:import|export)\b[^;'"`]*?\bfrom\s*["']([^"']+)["']"""
    r"""|\bimport\s*["']([^"']+)["']"""
    r"""|\bimport\s*\(\s*["']([^"']+)["']\s*\)"""
)
CSS_URL = re.compile(r"""@import\s+["']([^"']+)["']|url\(\s*["']?([^"')]+?)["']?\s*\)""")


class ResourceLinks(HTMLParser):
    """The URLs an HTML page makes the browser load, with what kind of resource each is.

    The browser runs scripts (the respondent page needs them), so what a ``<noscript>`` holds
    is not loaded: a browser with scripts on reads it as text.
    """

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []
        self._in_style = False
        self._in_noscript = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "noscript":
            self._in_noscript = True
        if self._in_noscript:
            return
        attributes = {name: value or "" for name, value in attrs}
        if tag == "link":
            rels = set(attributes.get("rel", "").lower().split())
            if rels & FETCHED_LINK_RELS and attributes.get("href"):
                kind = "script" if "modulepreload" in rels else sorted(rels)[0]
                if "stylesheet" in rels:
                    kind = "stylesheet"
                self.links.append((kind, attributes["href"]))
        for name in LOADING_ATTRIBUTES.get(tag, ()):
            if attributes.get(name):
                self.links.append(("script" if tag == "script" else tag, attributes[name]))
        if tag == "style":
            self._in_style = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False
        if tag == "noscript":
            self._in_noscript = False  # a noscript holds no noscript

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.links.extend(("stylesheet", url) for url in css_urls(data))


def js_imports(source: str) -> list[str]:
    return [
        next(group for group in match.groups() if group) for match in JS_IMPORT.finditer(source)
    ]


def css_urls(source: str) -> list[str]:
    return [next(group for group in match.groups() if group) for match in CSS_URL.finditer(source)]


def is_external(raw_url: str, page_netloc: str) -> bool:
    """True for a URL to another site: another host, or scheme-relative (``//host/...``)."""
    url = raw_url.strip()
    if url.startswith(("//", "\\\\", "/\\", "\\/")):
        return True
    parts = urlsplit(url)
    if parts.scheme in ("http", "https", "ws", "wss"):
        return parts.netloc != page_netloc
    return False


#: What a phone's browser says it can decode.
BROWSER_ENCODINGS = "gzip, deflate, br"


def decoded(fetched) -> bytes:
    """A response's body as its sender meant it: gzip or Brotli undone."""
    encoding = fetched.headers.get("Content-Encoding", "identity")
    if encoding == "gzip":
        return gzip.decompress(fetched.body)
    if encoding == "br":
        return brotli.decompress(fetched.body)
    if encoding != "identity":
        raise BenchError(f"unexpected Content-Encoding {encoding!r}")
    return fetched.body


def measure_respondent_page(port: int, slug: str) -> PageFigures:
    """Fetch /s/<slug> from the server and, recursively, what it loads: a first visit."""
    return first_visit(
        lambda path, headers: fetch(port, "GET", path, headers=headers),
        f"http://{HOST}:{port}/s/{slug}",
    )


def first_visit(get: Callable[[str, dict[str, str]], Fetched], page_url: str) -> PageFigures:
    """Fetch a page and, recursively, what it loads, as a browser with an empty cache would;
    sum the bytes and count the requests.

    ``get(path, headers)`` makes one request: over HTTP in the benchmark, or to the app in
    process in a test (the same crawl and the same sums, without a server).
    """
    netloc = urlsplit(page_url).netloc
    queue: list[tuple[str, str, str]] = [("document", page_url, page_url)]
    seen: set[str] = set()
    resources: list[Resource] = []
    external: list[str] = []
    errors: list[str] = []
    while queue:
        kind, raw_url, base = queue.pop(0)
        if raw_url.strip().lower().startswith(("data:", "blob:", "about:", "#")):
            continue  # no request
        if is_external(raw_url, netloc):
            external.append(raw_url)
            continue
        absolute = urljoin(base, raw_url.strip()).split("#", 1)[0]
        if absolute in seen:
            continue  # the browser fetches a URL once
        seen.add(absolute)
        parts = urlsplit(absolute)
        if parts.scheme not in ("http", "https"):
            continue
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        # As a browser asks: compressed where the server offers it (the transfer counted).
        fetched = get(path, {"Accept-Encoding": BROWSER_ENCODINGS})
        resources.append(
            Resource(
                absolute.removeprefix(f"http://{netloc}"),
                kind,
                fetched.status,
                len(fetched.body),
                len(fetched.body) + fetched.header_bytes,
            )
        )
        if fetched.status != 200:
            errors.append(f"{path} answered {fetched.status}")
            continue
        text = decoded(fetched).decode("utf-8", errors="replace")
        if kind == "document":
            parser = ResourceLinks()
            parser.feed(text)
            queue.extend((found_kind, url, absolute) for found_kind, url in parser.links)
        elif kind == "script" or "javascript" in fetched.content_type:
            queue.extend(("script", url, absolute) for url in js_imports(text))
        elif kind == "stylesheet" or "css" in fetched.content_type:
            queue.extend(("resource", url, absolute) for url in css_urls(text))
    return PageFigures(
        requests=len(resources),
        body_bytes=sum(resource.body_bytes for resource in resources),
        transfer_bytes=sum(resource.transfer_bytes for resource in resources),
        resources=resources,
        external=external,
        errors=errors,
    )
