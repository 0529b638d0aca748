"""Verdicts against the targets, and the Markdown page (docs/benchmarks.md)."""

from __future__ import annotations

import contextlib
import os
import platform
import sqlite3
from importlib import metadata
from pathlib import Path

from benchmarks.common import (
    EXPORT_PEAK_RSS_LIMIT_MIB,
    EXPORT_ROWS_PER_SECOND_TARGET,
    PAGE_TRANSFER_LIMIT_BYTES,
    RESULTS_GROWTH_LIMIT,
    RESULTS_MEDIAN_LIMIT_MS,
    TARGET_SIZE,
    THROUGHPUT_RATIO_TARGET,
    THROUGHPUT_TURNS,
)
from benchmarks.figures import BenchReport, DatabaseFigures, Verdict

# ----------------------------------------------------------------------------------- targets


def mib(value: float) -> str:
    return f"{value:,.1f} MB"


def kib(value: float) -> str:
    return f"{value / 1024:,.1f} KB"


def evaluate(figures: DatabaseFigures) -> dict[str, Verdict]:
    """PASS or MISS for every target, with how far a miss is from it."""
    verdicts: dict[str, Verdict] = {}
    if figures.latency:
        smallest, largest = figures.latency[0], figures.latency[-1]
        growth = largest.median_ms / smallest.median_ms if smallest.median_ms else float("inf")
        shortfalls = []
        if largest.median_ms > RESULTS_MEDIAN_LIMIT_MS:
            over = largest.median_ms - RESULTS_MEDIAN_LIMIT_MS
            shortfalls.append(
                f"median {largest.median_ms:.1f} ms is {over:.1f} ms "
                f"({over / RESULTS_MEDIAN_LIMIT_MS:.0%}) over {RESULTS_MEDIAN_LIMIT_MS:.0f} ms"
            )
        if growth > RESULTS_GROWTH_LIMIT:
            shortfalls.append(
                f"median grows {growth:.2f}x from N = {smallest.size:,} to N = {largest.size:,} "
                f"(limit {RESULTS_GROWTH_LIMIT:.0f}x): it must fall by "
                f"{1 - RESULTS_GROWTH_LIMIT / growth:.0%}"
            )
        verdicts["results_latency"] = Verdict(
            "results_latency", not shortfalls, "; ".join(shortfalls)
        )
    if figures.export:
        export = figures.export
        if export.error:
            verdicts["export_speed"] = Verdict("export_speed", False, export.error)
        elif export.rows_per_second < EXPORT_ROWS_PER_SECOND_TARGET:
            verdicts["export_speed"] = Verdict(
                "export_speed",
                False,
                f"{export.rows_per_second:,.0f} rows/s is "
                f"{1 - export.rows_per_second / EXPORT_ROWS_PER_SECOND_TARGET:.0%} below "
                f"{EXPORT_ROWS_PER_SECOND_TARGET:,} rows/s: it must be "
                f"{EXPORT_ROWS_PER_SECOND_TARGET / export.rows_per_second:.2f}x faster "
                f"({export.size / EXPORT_ROWS_PER_SECOND_TARGET:.1f} s instead of "
                f"{export.seconds:.1f} s for {export.size:,} rows)",
            )
        else:
            verdicts["export_speed"] = Verdict("export_speed", True)
        if export.error and export.rows == 0:
            verdicts["export_memory"] = Verdict(
                "export_memory", False, "not measured: the export failed", measured=False
            )
        elif not export.peak_rss_mib <= EXPORT_PEAK_RSS_LIMIT_MIB:
            over = export.peak_rss_mib - EXPORT_PEAK_RSS_LIMIT_MIB
            verdicts["export_memory"] = Verdict(
                "export_memory",
                False,
                f"peak {mib(export.peak_rss_mib)} is {mib(over)} "
                f"({over / EXPORT_PEAK_RSS_LIMIT_MIB:.0%}) over {mib(EXPORT_PEAK_RSS_LIMIT_MIB)} "
                f"(the worker held {mib(export.rss_before_mib)} before the export)",
            )
        else:
            verdicts["export_memory"] = Verdict("export_memory", True)
    ratio = figures.throughput_ratio
    if ratio is not None:
        app, bare = figures.app_throughput, figures.bare_throughput
        needed = THROUGHPUT_RATIO_TARGET * bare.per_second
        shortfall = ""
        if ratio < THROUGHPUT_RATIO_TARGET:
            shortfall = (
                f"{ratio:.0%} of bare Flask, {(THROUGHPUT_RATIO_TARGET - ratio) * 100:.0f} points "
                f"short of {THROUGHPUT_RATIO_TARGET:.0%}: {app.per_second:,.0f}/s must reach "
                f"{needed:,.0f}/s ({needed / max(app.per_second, 1e-9):.2f}x)"
            )
        if app.failed:
            shortfall = "; ".join(
                filter(None, [shortfall, f"{app.failed} submissions failed: {app.outcomes}"])
            )
        verdicts["throughput"] = Verdict("throughput", not shortfall, shortfall)
    if figures.page:
        page = figures.page
        shortfalls = []
        if page.transfer_bytes > PAGE_TRANSFER_LIMIT_BYTES:
            over = page.transfer_bytes - PAGE_TRANSFER_LIMIT_BYTES
            shortfalls.append(
                f"{kib(page.transfer_bytes)} is {kib(over)} "
                f"({over / PAGE_TRANSFER_LIMIT_BYTES:.0%}) over {kib(PAGE_TRANSFER_LIMIT_BYTES)}"
            )
        if page.external:
            shortfalls.append(f"{len(page.external)} external: {', '.join(page.external)}")
        if page.errors:
            shortfalls.append(f"failed requests: {', '.join(page.errors)}")
        verdicts["respondent_page"] = Verdict(
            "respondent_page", not shortfalls, "; ".join(shortfalls)
        )
    if figures.consistency:
        consistency = figures.consistency
        verdicts["consistency"] = Verdict(
            "consistency",
            consistency.consistent,
            ""
            if consistency.consistent
            else (
                f"seeded {consistency.seeded:,}, stored {consistency.stored_rows:,}, "
                f"respondents {consistency.respondents:,}, tallies match rows: "
                f"{consistency.tallies_match_rows}, tallies match seeded counts: "
                f"{consistency.tallies_match_seeded}"
            ),
        )
    return verdicts


# ----------------------------------------------------------------------------------- the report


def machine_details(versions: dict[str, str]) -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 2**20:.1f} GB"
                break
    system = platform.system()
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                system = line.split("=", 1)[1].strip().strip('"')
    details = {
        "CPU": f"{cpu}, {os.cpu_count()} logical CPUs",
        "Memory": memory,
        "OS": f"{system}, {platform.system()} {platform.release()}",
        "Python": platform.python_version(),
        "SQLite": sqlite3.sqlite_version,
    }
    details.update(versions)
    for package in ("Flask", "SQLAlchemy", "gunicorn", "psycopg"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            details[package] = metadata.version(package)
    return details


def _status(verdict: Verdict | None) -> str:
    if verdict is None:
        return ""
    if not verdict.measured:
        return " **NOT MEASURED**"
    return " **PASS**" if verdict.passed else " **MISS**"


def table_rows(report: BenchReport) -> list[tuple[str, str, list[str]]]:
    """(measure, target, one cell per database) for the results table."""
    databases = report.databases
    rows: list[tuple[str, str, list[str]]] = []
    sizes = [figure.size for figure in databases[0].latency] if databases else []
    largest = sizes[-1] if sizes else 0
    for index, size in enumerate(sizes):
        target = ""
        if index == len(sizes) - 1 and len(sizes) > 1:
            target = (
                f"median ≤ {RESULTS_MEDIAN_LIMIT_MS:.0f} ms and ≤ {RESULTS_GROWTH_LIMIT:.0f}x "
                f"the median at N = {sizes[0]:,}"
            )
            if size != TARGET_SIZE:
                target += f" (defined at N = {TARGET_SIZE:,})"
        cells = []
        for figures in databases:
            latency = figures.latency[index]
            cell = f"{latency.median_ms:.2f} / {latency.p95_ms:.2f} ms"
            if target:
                growth = latency.median_ms / figures.latency[0].median_ms
                cell += f" ({growth:.2f}x){_status(figures.verdicts.get('results_latency'))}"
            cells.append(cell)
        rows.append((f"Results API, N = {size:,}: median / p95", target, cells))
    rows.append(
        (
            f"responses.csv, N = {largest:,}: rows per second",
            f"≥ {EXPORT_ROWS_PER_SECOND_TARGET:,} rows/s",
            [
                (
                    f"failed after {f.export.rows:,} rows (see below)"
                    if f.export.error
                    else f"{f.export.rows_per_second:,.0f} "
                    f"({f.export.rows:,} rows in {f.export.seconds:.2f} s)"
                )
                + _status(f.verdicts.get("export_speed"))
                for f in databases
            ],
        )
    )
    rows.append(
        (
            "responses.csv: peak RSS of the server worker",
            f"≤ {EXPORT_PEAK_RSS_LIMIT_MIB:.0f} MB",
            [
                (
                    "n/a"
                    if not f.verdicts["export_memory"].measured
                    else f"{mib(f.export.peak_rss_mib)} ({mib(f.export.rss_before_mib)} before)"
                )
                + _status(f.verdicts.get("export_memory"))
                for f in databases
            ],
        )
    )
    rows.append(
        (
            "Submissions per second: the app",
            "",
            [
                f"{f.app_throughput.per_second:,.0f} ({f.app_throughput.failed} failed)"
                for f in databases
            ],
        )
    )
    rows.append(
        (
            "Submissions per second: bare Flask",
            "",
            [f"{f.bare_throughput.per_second:,.0f}" for f in databases],
        )
    )
    rows.append(
        (
            "Submission throughput: app / bare Flask",
            f"≥ {THROUGHPUT_RATIO_TARGET:.0%}",
            [f"{f.throughput_ratio:.0%}{_status(f.verdicts.get('throughput'))}" for f in databases],
        )
    )
    rows.append(
        (
            "Respondent page: transfer size, requests, external requests",
            f"≤ {kib(PAGE_TRANSFER_LIMIT_BYTES)}, no external request",
            [
                f"{kib(f.page.transfer_bytes)} ({kib(f.page.body_bytes)} of bodies), "
                f"{f.page.requests} requests, {len(f.page.external)} external"
                f"{_status(f.verdicts.get('respondent_page'))}"
                for f in databases
            ],
        )
    )
    rows.append(
        (
            "Tallies and respondents consistent with the stored rows",
            "exact",
            [
                f"{'yes' if f.consistency.consistent else 'NO'} "
                f"({f.consistency.stored_rows:,} rows)"
                f"{_status(f.verdicts.get('consistency'))}"
                for f in databases
            ],
        )
    )
    return rows


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def results_table(report: BenchReport) -> list[str]:
    header = ["Measure", "Target", *(f.name for f in report.databases)]
    return markdown_table(
        header, [[measure, target, *cells] for measure, target, cells in table_rows(report)]
    )


TARGET_NAMES = {
    "results_latency": "Results API latency",
    "export_speed": "responses.csv speed",
    "export_memory": "responses.csv memory",
    "throughput": "Submission throughput",
    "respondent_page": "Respondent page",
    "consistency": "Tallies consistency",
}


#: Hand-written notes between these markers survive when the benchmark rewrites its page.
NOTES_START = "<!-- notes: kept when the benchmark rewrites this page -->"
NOTES_END = "<!-- end of notes -->"


def kept_notes(previous_page: str) -> str | None:
    """The hand-written notes block of a page the benchmark wrote before, markers included."""
    start = previous_page.find(NOTES_START)
    end = previous_page.find(NOTES_END, start)
    if start < 0 or end < 0:
        return None
    return previous_page[start : end + len(NOTES_END)]


def render_markdown(report: BenchReport, notes: str | None = None) -> str:
    databases = report.databases
    options = report.options
    from survey_app.server import default_workers

    workers_note = " (2 x cores + 1)" if options["workers"] == default_workers() else ""
    lines = [
        "# Benchmarks",
        "",
        "Written by `python -m benchmarks` (from the source tree); run it again to refresh "
        "this page, which it overwrites.",
        "",
        f"Run: `{options['command']}`, {report.started}, {report.seconds / 60:.1f} minutes.",
        "",
        "## Machine",
        "",
        *(f"- {name}: {value}" for name, value in report.machine.items()),
        "",
        "## Method",
        "",
        f"- One 10-question survey (5 yes/no, 4 choice questions of 3 to 5 options, and a yes/no "
        "and a 3-option question asked as a pair, randomized together over their 6 cells) seeded "
        f"with random submissions up to N = {', '.join(f'{size:,}' for size in options['sizes'])}, "
        "cumulatively: SQLite `executemany` and PostgreSQL `COPY`, with the tallies and "
        "`respondents` updated in the same transaction. PostgreSQL then runs `VACUUM ANALYZE`, "
        "as autovacuum soon would after a bulk load; SQLite is used as the app leaves it.",
        f"- Every measure is taken over HTTP on loopback against `survey-app serve` (gunicorn, "
        f"sync workers), {options['workers']} workers{workers_note} unless said otherwise; "
        "the schema comes from `survey-app init-db`; rate limits are off. The clients run on "
        "the same machine.",
        f"- Results API: {options['latency_requests']} sequential `GET "
        "/api/v1/surveys/<slug>/results` with a bearer token, each on a new connection, after a "
        "warm-up of 2 requests a worker; median and 95th percentile of the time to the last byte.",
        "- responses.csv: the whole export streamed from a server with 1 worker, lines counted; "
        "peak RSS is the worker's `VmHWM` (which includes the app itself: the figure before the "
        "export is in brackets).",
        f"- Submissions: {options['client_threads']} client threads (Python `http.client`, a new "
        f"connection per request) post valid submissions (a fresh UUID4, every question answered) "
        f"for {options['throughput_seconds']:g} s to a second open survey of the same shape, and "
        "for the same time to a bare Flask app (one route that parses the JSON and answers 201) "
        "served by the same gunicorn setup and worker count; the two take turns, "
        f"{THROUGHPUT_TURNS} windows of {options['throughput_seconds'] / THROUGHPUT_TURNS:g} s "
        "each, so that a slow spell of the machine falls on both. The clients take CPU from the "
        "servers, more so from the faster one.",
        "- Respondent page: a phone's first visit (empty cache, scripts on): `/s/<slug>` and "
        "everything it loads (stylesheets, scripts, module preloads, the modules' static "
        "imports, recursively, each URL once; not what a `<noscript>` holds), asked for as a "
        "browser asks (`Accept-Encoding: gzip, deflate, br`); transfer = bodies as sent "
        "(stylesheets and scripts compressed) + response headers; 1 KB = 1,024 bytes, "
        "1 MB = 1,048,576 bytes.",
        "",
        "## Results",
        "",
        *results_table(report),
        "",
        "Seeding time (cumulative top-ups):",
        "",
    ]
    seed_rows = []
    for index, size in enumerate(options["sizes"]):
        previous = options["sizes"][index - 1] if index else 0
        cells = [f"{size:,} (+{size - previous:,})"]
        for figures in databases:
            seconds = figures.latency[index].seed_seconds
            rate = (size - previous) / seconds if seconds else 0
            cells.append(f"{seconds:.1f} s ({rate:,.0f} rows/s)")
        seed_rows.append(cells)
    lines += markdown_table(["N", *(f.name for f in databases)], seed_rows)
    lines += ["", "Respondent page, request by request:", ""]
    if databases and databases[0].page:
        page = databases[0].page
        lines += markdown_table(
            ["URL", "kind", "status", "body", "transfer"],
            [
                [r.url, r.kind, str(r.status), f"{r.body_bytes:,} B", f"{r.transfer_bytes:,} B"]
                for r in page.resources
            ],
        )
    lines += ["", "## Targets missed", ""]
    misses = [
        f"- **{TARGET_NAMES[key]}, {figures.name}**: {verdict.shortfall}."
        for figures in databases
        for key, verdict in figures.verdicts.items()
        if not verdict.passed
    ]
    lines += misses or ["None: every target passed."]
    if notes:
        lines += ["", notes]
    lines += [
        "",
        "## What the profile shows",
        "",
        "<!-- Written by the benchmark: cProfile (tracemalloc for memory) of each missed target's "
        "path, in-process through the Flask test client on the same database, each request in "
        "its own application context as in the server. cProfile slows Python code down; read "
        "the proportions, not the absolute times. -->",
        "",
    ]
    profiled = False
    for figures in databases:
        for key, text in figures.profiles.items():
            lines += [f"### {TARGET_NAMES[key]}, {figures.name}", "", text, ""]
            profiled = True
    if not profiled:
        lines += ["Nothing to profile: no target was missed.", ""]
    return "\n".join(lines).rstrip() + "\n"


def print_summary(report: BenchReport) -> None:
    print("\n".join(results_table(report)))
    print()
    for figures in report.databases:
        for key, verdict in figures.verdicts.items():
            if not verdict.passed:
                status = "MISS" if verdict.measured else "NOT MEASURED"
                print(f"{status} {TARGET_NAMES[key]}, {figures.name}: {verdict.shortfall}")
