"""Profiles (cProfile, in-process) of the paths whose targets were missed."""

from __future__ import annotations

import cProfile
import os
import pstats
import random
import re
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import PROFILE_EXPORT_ROWS, BenchError
from benchmarks.figures import DatabaseFigures
from benchmarks.harness import SOURCE_ROOT
from benchmarks.measuring import submission_body
from benchmarks.seeding import Fixtures

# ----------------------------------------------------------------------------------- profiles


def _where(key: tuple[str, int, str]) -> str:
    filename, line, function = key
    if filename == "~":
        return function
    suffix = f"({function})" if function else ""
    for marker in ("site-packages/", "lib/python3"):
        if marker in filename:
            filename = re.sub(r"^[\d.]*/", "", filename.split(marker, 1)[1])
            break
    else:
        root = str(SOURCE_ROOT) + os.sep
        filename = filename.removeprefix(root)
    return f"{filename}:{line}{suffix}"


def format_profile(profiler: cProfile.Profile, per: int, unit: str, top: int = 15) -> str:
    """The heaviest functions by own time, and the app's functions by cumulative time."""
    stats = pstats.Stats(profiler)
    rows = [
        (key, calls, own, cumulative)
        for key, (_primitive, calls, own, cumulative, _callers) in stats.stats.items()
    ]
    bench_file = str(Path(__file__).resolve())

    def table(selected) -> list[str]:
        lines = [f"{'own ms':>9} {'cum ms':>9} {'calls':>9}  function (per {unit})"]
        for key, calls, own, cumulative in selected:
            lines.append(
                f"{own * 1000 / per:9.3f} {cumulative * 1000 / per:9.3f} "
                f"{calls / per:9.1f}  {_where(key)}"
            )
        return lines

    by_own = sorted(rows, key=lambda row: row[2], reverse=True)[:top]
    app_rows = [
        row
        for row in rows
        if f"{os.sep}survey_app{os.sep}" in row[0][0] and row[0][0] != bench_file
    ]
    by_cumulative = sorted(app_rows, key=lambda row: row[3], reverse=True)[:top]
    return "\n".join(
        [
            "Where the time goes, by own time (profiled total "
            f"{stats.total_tt * 1000 / per:.2f} ms per {unit}):",
            "",
            "```",
            *table(by_own),
            "```",
            "",
            "The app's own functions, by cumulative time:",
            "",
            "```",
            *table(by_cumulative),
            "```",
        ]
    )


def profile_section(title: str, call: Callable[[], None], count: int, unit: str) -> str:
    """Time ``call`` ``count`` times (wall and CPU), then again under cProfile."""
    call()  # warm up: lazy imports, first queries, caches
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(count):
        call()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(count):
        call()
    profiler.disable()
    return "\n".join(
        [
            f"#### {title}",
            "",
            f"In-process (Flask test client, same database), {count:,} {unit}(s), without the "
            f"profiler: {wall * 1000 / count:.2f} ms wall, {cpu * 1000 / count:.2f} ms CPU per "
            f"{unit}. A wall time well above the CPU time is time spent waiting (disk, locks, "
            "the database server).",
            "",
            format_profile(profiler, count, unit),
        ]
    )


def consume_export(client, path: str, headers: dict[str, str], rows: int) -> int:
    """Read responses.csv through the test client until ``rows`` rows; return the lines read."""
    lines = 0
    try:
        response = client.get(path, headers=headers, buffered=False)
        try:
            if response.status_code != 200:
                raise BenchError(f"responses.csv answered HTTP {response.status_code} in-process")
            for chunk in response.response:
                lines += (chunk if isinstance(chunk, bytes) else chunk.encode()).count(b"\n")
                if lines > rows:
                    break
        finally:
            response.close()
    except BenchError:
        raise
    except Exception as error:  # the stream broke off; the server answers 500 then
        message = str(error).splitlines()[0] if str(error) else ""
        raise BenchError(
            f"responses.csv failed in-process: `{type(error).__name__}: {message}`"
        ) from error
    return lines


def profile_missed(
    app, figures: DatabaseFigures, fixtures: Fixtures, size: int, count: int, every: bool
) -> dict[str, str]:
    """Profile the path of every missed target (of every target with ``every``)."""
    client = app.test_client()
    auth = {"Authorization": f"Bearer {fixtures.token}"}
    seeded = fixtures.seeded.slug
    profiles: dict[str, str] = {}

    def wanted(key: str) -> bool:
        verdict = figures.verdicts.get(key)
        return every or (verdict is not None and not verdict.passed)

    if wanted("results_latency"):

        def results() -> None:
            response = client.get(f"/api/v1/surveys/{seeded}/results", headers=auth)
            assert response.status_code == 200, response.status_code

        profiles["results_latency"] = profile_section(
            f"Results API, N = {size:,}", results, count, "request"
        )
    export_rows = min(size, PROFILE_EXPORT_ROWS)
    export_path = f"/api/v1/surveys/{seeded}/responses.csv"
    export_title = f"responses.csv, the first {export_rows:,} of {size:,} rows"
    if wanted("export_speed"):
        try:
            profiles["export_speed"] = profile_section(
                export_title,
                lambda: consume_export(client, export_path, auth, export_rows),
                1,
                "export",
            )
        except BenchError as error:
            profiles["export_speed"] = f"#### {export_title}\n\nNot profiled: {error}."
    if wanted("export_memory"):
        tracemalloc.start(10)
        try:
            consume_export(client, export_path, auth, export_rows)
            current, peak = tracemalloc.get_traced_memory()
            snapshot = tracemalloc.take_snapshot()
        except BenchError as error:
            snapshot = None
            profiles["export_memory"] = f"#### {export_title}\n\nNot traced: {error}."
        finally:
            tracemalloc.stop()
    if wanted("export_memory") and snapshot is not None:
        top = snapshot.statistics("lineno")[:10]
        profiles["export_memory"] = "\n".join(
            [
                f"#### responses.csv memory, the first {export_rows:,} rows",
                "",
                f"tracemalloc, in-process: peak {peak / 2**20:.1f} MB of Python objects "
                f"allocated during the export, {current / 2**20:.1f} MB still held after it. "
                "Largest live allocations after the export:",
                "",
                "```",
                *(
                    f"{stat.size / 1024:9,.1f} KB {stat.count:7,} blocks  "
                    f"{_where((stat.traceback[0].filename, stat.traceback[0].lineno, ''))}"
                    for stat in top
                ),
                "```",
            ]
        )
    if wanted("throughput"):
        live = fixtures.live
        chooser = random.Random()

        def submit() -> None:
            response = client.post(
                f"/api/v1/surveys/{live.slug}/responses",
                data=submission_body(live, chooser),
                content_type="application/json",
            )
            assert response.status_code == 201, response.status_code

        profiles["throughput"] = profile_section(
            "Submissions (one client, in-process)", submit, count, "submission"
        )
    return profiles
