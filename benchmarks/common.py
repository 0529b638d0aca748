"""What every part of the benchmark shares: its targets, the benchmark survey, errors, the log."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.harness import HarnessError

DEFAULT_SIZES = (1_000, 100_000, 1_000_000)
DEFAULT_OUTPUT = Path("docs/benchmarks.md")
DEFAULT_POSTGRESQL_BIN = Path("/usr/lib/postgresql/15/bin")

# ----------------------------------------------------------------------------------- targets

RESULTS_MEDIAN_LIMIT_MS = 50.0
RESULTS_GROWTH_LIMIT = 3.0
EXPORT_ROWS_PER_SECOND_TARGET = 200_000
EXPORT_PEAK_RSS_LIMIT_MIB = 150.0
THROUGHPUT_RATIO_TARGET = 0.5
PAGE_TRANSFER_LIMIT_BYTES = 60 * 1024
#: Submission throughput: the app and the bare endpoint take this many turns each.
THROUGHPUT_TURNS = 5
#: The size the results and export targets are defined at.
TARGET_SIZE = 1_000_000

# ----------------------------------------------------------------------------------- the survey

#: 6 yes/no and 4 choice questions (3 to 5 options), interleaved as a real survey would be.
BENCH_DEFINITION = {
    "title": "Benchmark: academic integrity",
    "intro": "A survey seeded by the benchmark.",
    "flip_probability": 0.25,
    "questions": [
        {"text": "Have you ever copied homework?", "type": "yes_no"},
        {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]},
        {"text": "Have you used a phone in an exam?", "type": "yes_no"},
        {"text": "Have you shared exam questions?", "type": "yes_no"},
        {
            "text": "Which year are you in?",
            "type": "choice",
            "options": ["First", "Second", "Third", "Fourth"],
        },
        {"text": "Have you invented lab data?", "type": "yes_no"},
        {
            "text": "How much did the pressure to succeed weigh?",
            "type": "choice",
            "options": ["Not at all", "A little", "Somewhat", "Much", "Very much"],
        },
        {"text": "Have you bought an essay?", "type": "yes_no"},
        {"text": "Would you report a friend?", "type": "choice", "options": ["No", "Maybe", "Yes"]},
        {
            "type": "paired",
            "questions": [
                {"text": "Have you used an AI tool for an essay?", "type": "yes_no"},
                {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]},
            ],
        },
    ],
}

#: Distribution of the seeded (already randomized) values of each question, by value.
SEED_DISTRIBUTIONS = (
    (0.7, 0.3),
    (0.6, 0.3, 0.1),
    (0.85, 0.15),
    (0.75, 0.25),
    (0.3, 0.27, 0.23, 0.2),
    (0.9, 0.1),
    (0.2, 0.3, 0.25, 0.15, 0.1),
    (0.95, 0.05),
    (0.4, 0.35, 0.25),
    # The pair's 2 x 3 cells (No / Never ... Yes / Often): those who used an AI tool use it often.
    (0.45, 0.15, 0.05, 0.05, 0.1, 0.2),
)

#: Rows generated and written at a time while seeding (all sizes go in one transaction).
SEED_BATCH = 100_000
#: The seeded days: submitted_on is a day within this many days before today.
SEED_DAYS = 30
#: SQLite page cache of the seeding connection (KiB): random-key index inserts stay in memory.
SQLITE_SEED_CACHE_KIB = 512 * 1024

#: Rows of responses.csv read under cProfile or tracemalloc (enough to show the proportions).
PROFILE_EXPORT_ROWS = 200_000

_HEX_DIGITS = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


class BenchError(HarnessError):
    """The benchmark cannot go on; the message says why."""


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)
