"""The benchmark: a small run end to end, and the pieces it is built of.

The small run starts the real servers (and, when SURVEY_APP_TEST_DATABASE_URL is set, uses that
PostgreSQL server too) and checks that its figures are plausible. No timing is asserted: the
targets are for the full run on a quiet machine, not for a test suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

from benchmarks import common as bench_common
from benchmarks import figures as bench_figures
from benchmarks import measuring as bench_measuring
from benchmarks import report as bench_report
from benchmarks import run as bench_run
from benchmarks import seeding as bench_seeding

REPOSITORY = Path(__file__).resolve().parents[2]
#: Set by .ci/run for the PostgreSQL passes of the suite, on a PostgreSQL server it started.
TEST_DATABASE_URL = os.environ.get("SURVEY_APP_TEST_DATABASE_URL")

SIZES = [1_000, 10_000]
LATENCY_REQUESTS = 10
DATABASES = ["SQLite", "PostgreSQL"] if TEST_DATABASE_URL else ["SQLite"]
TARGET_KEYS = {
    "results_latency",
    "export_speed",
    "export_memory",
    "throughput",
    "respondent_page",
    "consistency",
}


PERSONS_NOTE = "## Notes\n\nWhy throughput rose: one statement per submission."


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """One small run for the module's tests: (exit status, Markdown report, figures)."""
    directory = tmp_path_factory.mktemp("bench")
    output = directory / "benchmarks.md"
    figures = directory / "benchmarks.json"
    # A page from an earlier run, with notes someone wrote into it.
    output.write_text(
        f"Stale figures.\n\n{bench_report.NOTES_START}\n{PERSONS_NOTE}\n{bench_report.NOTES_END}\n"
    )
    argv = [
        "--sizes",
        ",".join(str(size) for size in SIZES),
        "--latency-requests",
        str(LATENCY_REQUESTS),
        "--throughput-seconds",
        "0.5",
        "--workers",
        "2",
        "--profile",
        "all",
        "--seed",
        "6",
        "--output",
        str(output),
        "--json",
        str(figures),
    ]
    argv += ["--postgresql-url", TEST_DATABASE_URL] if TEST_DATABASE_URL else ["--skip-postgresql"]
    status = bench_run.main(argv)
    report = output.read_text(encoding="utf-8") if output.exists() else ""
    data = json.loads(figures.read_text(encoding="utf-8")) if figures.exists() else {}
    return status, report, data


@pytest.fixture(scope="module")
def databases(small_run) -> dict[str, dict]:
    status, _report, data = small_run
    assert status == 0
    return {figures["name"]: figures for figures in data["databases"]}


def test_the_small_run_measures_every_database(databases):
    assert sorted(databases) == sorted(DATABASES)


def test_the_report_has_the_machine_every_row_and_every_section(small_run):
    status, report, _data = small_run
    assert status == 0
    for heading in (
        "# Benchmarks",
        "## Machine",
        "## Method",
        "## Results",
        "## Targets missed",
        "## What the profile shows",
    ):
        assert f"\n{heading}\n" in f"\n{report}"
    for detail in ("- CPU: ", "logical CPUs", "- Memory: ", "- OS: ", "- Python: ", "- SQLite: "):
        assert detail in report
    if TEST_DATABASE_URL:
        assert "- PostgreSQL server: " in report
    header = next(line for line in report.splitlines() if line.startswith("| Measure |"))
    assert header == "| " + " | ".join(["Measure", "Target", *DATABASES]) + " |"
    measures = [
        *(f"Results API, N = {size:,}: median / p95" for size in SIZES),
        f"responses.csv, N = {SIZES[-1]:,}: rows per second",
        "responses.csv: peak RSS of the server worker",
        "Submissions per second: the app",
        "Submissions per second: bare Flask",
        "Submission throughput: app / bare Flask",
        "Respondent page: transfer size, requests, external requests",
        "Tallies and respondents consistent with the stored rows",
    ]
    rows = [line for line in report.splitlines() if line.startswith("| ")]
    for measure in measures:
        row = next((line for line in rows if line.startswith(f"| {measure} |")), None)
        assert row is not None, measure
        assert row.count(" | ") == 1 + len(DATABASES), row
    # Every target row says PASS or MISS for every database; the other rows neither.
    informative = {*measures[: len(SIZES) - 1], *measures[len(SIZES) + 2 : len(SIZES) + 4]}
    for measure in measures:
        row = next(line for line in rows if line.startswith(f"| {measure} |"))
        if measure in informative:
            assert "**" not in row, row
            continue
        statuses = ("**PASS**", "**MISS**", "**NOT MEASURED**")
        assert sum(row.count(status) for status in statuses) == len(DATABASES), row


def test_every_missed_target_says_by_how_much(small_run, databases):
    _status, report, _data = small_run
    for figures in databases.values():
        assert set(figures["verdicts"]) == TARGET_KEYS
        for key, verdict in figures["verdicts"].items():
            if verdict["passed"]:
                assert verdict["shortfall"] == ""
                continue
            if verdict["measured"]:
                assert any(character.isdigit() for character in verdict["shortfall"]), key
            else:
                assert verdict["shortfall"].startswith("not measured: "), key
            assert f"{bench_report.TARGET_NAMES[key]}, {figures['name']}**: " in report


def test_turns_are_combined_over_their_summed_time():
    first = bench_figures.ThroughputFigures(1.0, 16, 5, 900, 0, 900.0, {"201": 900})
    second = bench_figures.ThroughputFigures(3.0, 16, 5, 300, 2, 100.0, {"201": 300, "500": 2})
    both = bench_measuring.combined([first, second])
    assert (both.seconds, both.accepted, both.failed) == (4.0, 1_200, 2)
    assert both.per_second == 300.0  # not the mean of the two rates (500)
    assert both.outcomes == {"201": 1_200, "500": 2}


@pytest.mark.parametrize("database", DATABASES)
def test_results_latency_is_measured_at_every_size(databases, database):
    latency = databases[database]["latency"]
    assert [figures["size"] for figures in latency] == SIZES
    for figures in latency:
        assert figures["requests"] == LATENCY_REQUESTS
        assert 0 < figures["median_ms"] <= figures["p95_ms"]
        # The server saw the seeded submissions, and only them.
        assert figures["respondents_reported"] == figures["size"]
        assert figures["seed_seconds"] > 0


@pytest.mark.parametrize("database", DATABASES)
def test_the_export_counts_every_seeded_row(databases, database):
    export = databases[database]["export"]
    assert export["error"] is None
    assert export["size"] == SIZES[-1]
    assert export["rows"] == SIZES[-1]
    assert export["rows_per_second"] > 0
    # A row is at least a 36-character id, a date and ten values.
    assert export["bytes"] > SIZES[-1] * (36 + 10 + 20)
    assert 0 < export["rss_before_mib"] <= export["peak_rss_mib"]


@pytest.mark.parametrize("database", DATABASES)
def test_tallies_stay_consistent_with_the_seeded_rows(databases, database):
    consistency = databases[database]["consistency"]
    assert consistency == {
        "seeded": SIZES[-1],
        "stored_rows": SIZES[-1],
        "respondents": SIZES[-1],
        "tallies_match_rows": True,
        "tallies_match_seeded": True,
        "consistent": True,
    }


@pytest.mark.parametrize("database", DATABASES)
def test_submissions_are_accepted_by_the_app_and_the_bare_endpoint(databases, database):
    figures = databases[database]
    for label in ("app_throughput", "bare_throughput"):
        throughput = figures[label]
        assert throughput["client_threads"] == 16
        assert throughput["accepted"] > 0
        assert throughput["failed"] == 0, throughput["outcomes"]
        assert throughput["per_second"] > 0


@pytest.mark.parametrize("database", DATABASES)
def test_the_respondent_page_and_everything_it_loads_are_counted(databases, database):
    page = databases[database]["page"]
    urls = {resource["url"] for resource in page["resources"]}
    # Scripts may carry a version query (?v=<start of their hash>).
    paths = {url.split("?", 1)[0] for url in urls}
    assert {"/static/css/app.css", "/static/js/survey.js"} <= paths
    # Imported by survey.js (and preloaded): fetched once.
    assert "/static/js/randomized-response.js" in urls
    assert len(paths) == len(urls) == page["requests"] == len(page["resources"])
    assert all(resource["status"] == 200 for resource in page["resources"])
    assert page["external"] == [] and page["errors"] == []
    assert 0 < page["body_bytes"] < page["transfer_bytes"] <= bench_common.PAGE_TRANSFER_LIMIT_BYTES


@pytest.mark.parametrize("database", DATABASES)
def test_profiles_are_written_for_every_path(small_run, databases, database):
    _status, report, _data = small_run
    profiles = databases[database]["profiles"]
    assert set(profiles) == {"results_latency", "export_speed", "export_memory", "throughput"}
    assert "survey_app/api/views.py" in profiles["results_latency"]
    assert "survey_app/results/exports.py" in profiles["export_speed"]
    assert "survey_app/respondents/submissions.py" in profiles["throughput"]
    for text in profiles.values():
        assert text in report


# ----------------------------------------------------------------------------------- pieces


def test_seeded_ids_are_canonical_random_uuid4s_in_order():
    ids = bench_seeding.random_uuid4_strings(np.random.default_rng(1), 2_000)
    assert len(set(ids)) == 2_000
    assert ids == sorted(ids)
    for text in ids:
        parsed = uuid.UUID(text)
        assert parsed.version == 4 and str(parsed) == text


def test_answers_are_encoded_as_the_app_stores_them():
    values = np.array([[1, 0, 2], [0, 4, 1]], dtype=np.uint8)
    assert bench_seeding.encode_answer_rows(values) == ["1,0,2", "0,4,1"]


def option_count(question: dict) -> int:
    """How many values a question of the benchmark's survey can report (a pair: its cells)."""
    if question["type"] == "paired":
        first, second = question["questions"]
        return option_count(first) * option_count(second)
    return 2 if question["type"] == "yes_no" else len(question["options"])


def test_seeded_values_fit_the_benchmark_survey():
    option_counts = [option_count(q) for q in bench_common.BENCH_DEFINITION["questions"]]
    # Yes/no and choice questions, and a pair of 2 x 3 cells: each value a single digit, as
    # the seeding writes them.
    assert option_counts.count(2) >= 5 and len(option_counts) == 10
    assert 6 in option_counts and max(option_counts) <= 10
    values = bench_seeding.draw_values(np.random.default_rng(2), 5_000, option_counts)
    assert values.shape == (5_000, 10)
    assert all(values[:, column].max() < options for column, options in enumerate(option_counts))


@pytest.mark.parametrize(
    ("url", "external"),
    [
        ("/static/js/survey.js", False),
        ("./randomized-response.js", False),
        ("http://127.0.0.1:5000/static/css/app.css", False),
        ("http://127.0.0.1:5001/static/css/app.css", True),
        ("https://cdn.example.com/library.js", True),
        ("//cdn.example.com/library.js", True),
        ("\\\\cdn.example.com/library.js", True),
    ],
)
def test_external_urls_are_recognised(url, external):
    assert bench_measuring.is_external(url, "127.0.0.1:5000") is external


def test_static_imports_are_found_in_modules():
    source = """
        import { randomizeBit, randomizeChoice } from "./randomized-response.js";
        import "./side-effect.js";
        import {
          a,
          b,
        } from './multi-line.js';
        export { c } from "./re-export.js";
        const later = import("./dynamic.js");
        const text = "import me";
    """
    assert bench_measuring.js_imports(source) == [
        "./randomized-response.js",
        "./side-effect.js",
        "./multi-line.js",
        "./re-export.js",
        "./dynamic.js",
    ]


def test_a_page_loads_what_its_tags_name_but_not_what_a_noscript_holds():
    """A phone with scripts on reads a ``<noscript>`` as text and fetches nothing in it."""
    parser = bench_measuring.ResourceLinks()
    parser.feed(
        '<link rel="stylesheet" href="/a.css"><link rel="modulepreload" href="/m.js">'
        '<noscript><link rel="stylesheet" href="/noscript.css"><img src="/i.png"></noscript>'
        '<link rel="icon" href="/icon.png"><script type="module" src="/s.js"></script>'
    )
    assert parser.links == [
        ("stylesheet", "/a.css"),
        ("script", "/m.js"),
        ("icon", "/icon.png"),
        ("script", "/s.js"),
    ]


def _figures(**overrides) -> bench_figures.DatabaseFigures:
    figures = bench_figures.DatabaseFigures(name="SQLite", version="3", workers=5)
    figures.latency = [
        bench_figures.LatencyFigures(1_000, 0.1, 200, 4.0, 5.0, 1_000),
        bench_figures.LatencyFigures(1_000_000, 9.0, 200, 20.0, 25.0, 1_000_000),
    ]
    figures.export = bench_figures.ExportFigures(
        1_000_000, 1_000_000, 10.0, 70_000_000, 100_000, 70, 90
    )
    figures.app_throughput = bench_figures.ThroughputFigures(
        10, 16, 5, 3_000, 0, 300.0, {"201": 3_000}
    )
    figures.bare_throughput = bench_figures.ThroughputFigures(10, 16, 5, 12_000, 0, 1_200.0, {})
    for name, value in overrides.items():
        setattr(figures, name, value)
    return figures


def test_the_rewritten_page_keeps_the_notes_and_nothing_else_of_the_old_one(small_run):
    _status, report, _data = small_run
    assert "Stale figures." not in report
    assert f"{bench_report.NOTES_START}\n{PERSONS_NOTE}\n{bench_report.NOTES_END}" in report
    assert report.index("## Targets missed") < report.index(PERSONS_NOTE)
    assert report.index(PERSONS_NOTE) < report.index("## What the profile shows")


@pytest.mark.parametrize(
    "page",
    [
        "",
        "no notes here",
        f"{bench_report.NOTES_START} never closed",
        f"{bench_report.NOTES_END} {bench_report.NOTES_START}",
    ],
)
def test_a_page_without_a_whole_notes_block_keeps_nothing(page):
    assert bench_report.kept_notes(page) is None


def test_misses_say_by_how_much():
    verdicts = bench_report.evaluate(_figures())
    latency = verdicts["results_latency"]
    assert not latency.passed
    assert "grows 5.00x" in latency.shortfall and "fall by 40%" in latency.shortfall
    export = verdicts["export_speed"]
    assert not export.passed
    assert "50% below" in export.shortfall and "2.00x faster" in export.shortfall
    assert verdicts["export_memory"].passed
    throughput = verdicts["throughput"]
    assert not throughput.passed
    assert "25% of bare Flask" in throughput.shortfall and "600/s (2.00x)" in throughput.shortfall


def test_targets_met_pass():
    fast = _figures(
        latency=[
            bench_figures.LatencyFigures(1_000, 0.1, 200, 4.0, 5.0, 1_000),
            bench_figures.LatencyFigures(1_000_000, 9.0, 200, 11.9, 15.0, 1_000_000),
        ],
        export=bench_figures.ExportFigures(1_000_000, 1_000_000, 4.0, 7e7, 250_000, 70, 150),
        app_throughput=bench_figures.ThroughputFigures(10, 16, 5, 6_000, 0, 600.0, {"201": 6_000}),
    )
    verdicts = bench_report.evaluate(fast)
    assert all(verdict.passed for verdict in verdicts.values()), verdicts


def test_python_m_benchmarks_runs_from_the_source_tree():
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--help"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m benchmarks")


def test_the_app_never_imports_the_benchmark():
    """A worker imports survey_app and its command line: nothing of the benchmark comes with."""
    code = (
        "import survey_app, survey_app.cli, sys; "
        "from survey_app import create_app; "
        "assert not any('bench' in m for m in sys.modules), sorted(sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_recorded_command_hides_the_database_password():
    url = "postgresql+psycopg://bench:s3cret@db.internal/survey"
    for argv in (["--postgresql-url", url], [f"--postgresql-url={url}"]):
        command = bench_run.parse_arguments(argv).command
        assert "s3cret" not in command and "bench:***@db.internal" in command


def test_a_failed_export_is_a_miss_and_its_memory_is_not_measured():
    failed = bench_figures.ExportFigures(
        1_000_000, 0, 0.1, 0, 0.0, 70, 70, error="responses.csv answered HTTP 500"
    )
    verdicts = bench_report.evaluate(_figures(export=failed))
    assert not verdicts["export_speed"].passed
    assert verdicts["export_speed"].shortfall == "responses.csv answered HTTP 500"
    memory = verdicts["export_memory"]
    assert not memory.passed and not memory.measured
