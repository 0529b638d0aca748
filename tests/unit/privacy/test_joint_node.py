"""A paired question in the browser: static/js/randomized-response.js's randomizePair, under Node.

The pair is randomized as one answer, k-option randomized response over the k1 k2 cells with
the choice question's exact thresholds: its keep threshold is the integer the server debiases
with (survey_app.privacy.joint), the browser's odds between two cells never exceed e^epsilon
(an exact rational check), and chosen 32-bit words give the cells they must.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from survey_app.privacy import JointRandomizedResponse, keep_threshold
from tests.unit.privacy.test_privacy import EPSILON_GRID
from tests.unit.respondents.test_randomized_response_node import STUB, WORDS, run_node

SHAPES = [(2, 2), (2, 3), (3, 2), (3, 3), (3, 4), (4, 3), (2, 6), (6, 2), (2, 5), (5, 2), (2, 4)]


def test_the_browsers_cells_never_exceed_epsilon_and_match_the_server(tmp_path):
    """For every p of the grid and every shape: the keep threshold randomizePair uses (the
    choice question's over k1 k2 cells) is the server's, and (k - 1) K / (2^32 - K), the most
    one report can favour one cell over another (every other cell has (1 - K / 2^32) / (k - 1),
    picked exactly uniformly), is at most (1 - p) / p, in exact rationals."""
    cells = sorted({k1 * k2 for k1, k2 in SHAPES})
    thresholds = run_node(
        tmp_path,
        f"""
        const ps = {json.dumps(EPSILON_GRID)};
        console.log(JSON.stringify(ps.map((p) => {json.dumps(cells)}.map((k) =>
          rr.keepThreshold(k, p)))));
        """,
    )
    for p, by_cells in zip(EPSILON_GRID, thresholds, strict=True):
        for k, keep in zip(cells, by_cells, strict=True):
            assert keep == keep_threshold(p, k)
            assert Fraction((k - 1) * keep, WORDS - keep) <= (1 - Fraction(p)) / Fraction(p)
            for shape in SHAPES:
                # (a p so close to 1/2 that the browser could not favour the true cell is refused)
                if shape[0] * shape[1] == k and keep * k > WORDS:
                    mechanism = JointRandomizedResponse(p, shape)
                    assert mechanism.probabilities[0] == keep / WORDS


def stubbed(tmp_path, calls: list[tuple[str, list[int]]]) -> list[dict]:
    body = ",\n".join(f"withWords({json.dumps(words)}, () => {call})" for call, words in calls)
    return run_node(tmp_path, f"{STUB}\nconsole.log(JSON.stringify([\n{body}\n]));")


def test_chosen_words_give_the_cells_they_must(tmp_path):
    """A word below K keeps the true cell a k2 + b; K itself reports another, the next word
    picking it uniformly among the k - 1 others (skipping the true cell)."""
    p, shape = 0.25, (3, 4)
    keep = keep_threshold(p, 12)
    calls = [
        ("rr.randomizePair(1, 2, 3, 4, 0.25)", [keep - 1]),  # kept: cell 6
        ("rr.randomizePair(1, 2, 3, 4, 0.25)", [keep, 5]),  # other 5 of 11: cell 5
        ("rr.randomizePair(1, 2, 3, 4, 0.25)", [keep, 6]),  # other 6: skips 6, cell 7
        ("rr.randomizePair(2, 3, 3, 4, 0.25)", [keep, 10]),  # other 10: cell 10
        ("rr.randomizePair(0, 1, 2, 2, 0.25)", [keep_threshold(p, 4) - 1]),  # kept: cell 1
    ]
    outputs = stubbed(tmp_path, calls)
    assert [o["output"] for o in outputs] == [6, 5, 7, 10, 1]
    assert [o["drawn"] for o in outputs] == [1, 2, 2, 2, 1]
    mechanism = JointRandomizedResponse(p, shape)
    assert mechanism.cell_answers(6) == (1, 2) and mechanism.cell_answers(7) == (1, 3)


BAD_PAIRS = [
    ("rr.randomizePair(0, 0, 1, 4, 0.25)", "k"),
    ("rr.randomizePair(0, 0, 3, 5, 0.25)", "k1 * k2"),
    ("rr.randomizePair(0, 0, 2, 7, 0.25)", "k1 * k2"),
    ("rr.randomizePair(0, 0, 2, 2, 0.5)", "flip_probability"),
    ("rr.randomizePair(0, 0, 2, 2)", "flip_probability"),
    ("rr.randomizePair(2, 0, 2, 2, 0.25)", "a"),
    ("rr.randomizePair(-1, 0, 2, 2, 0.25)", "a"),
    ("rr.randomizePair(0, 3, 2, 3, 0.25)", "b"),
    ("rr.randomizePair(0, 0.5, 2, 3, 0.25)", "b"),
    ('rr.randomizePair(0, "1", 2, 3, 0.25)', "b"),
]


def test_bad_arguments_throw_a_range_error_naming_the_parameter_before_any_draw(tmp_path):
    # No words are queued: a call that drew before checking would report the stub's Error.
    outputs = stubbed(tmp_path, [(call, []) for call, _ in BAD_PAIRS])
    for (call, parameter), output in zip(BAD_PAIRS, outputs, strict=True):
        assert output["output"].startswith(f"RangeError: {parameter} must "), call


@pytest.mark.parametrize("shape", [(2, 2), (3, 4)])
def test_real_crypto_reports_every_cell_and_only_cells(tmp_path, shape):
    k1, k2 = shape
    reports = run_node(
        tmp_path,
        f"""
        const out = [];
        for (let i = 0; i < 4000; i += 1) out.push(rr.randomizePair(1, 1, {k1}, {k2}, 0.25));
        console.log(JSON.stringify(out));
        """,
    )
    assert set(reports) == set(range(k1 * k2))
    # The true cell is kept with P (1/2 for 2x2, 3/14 for 3x4 at p = 0.25): within 5 standard
    # errors of 4,000 draws (unseeded crypto: this bound fails once in 3 million runs).
    keep = keep_threshold(0.25, k1 * k2) / WORDS
    share = reports.count(k2 + 1) / 4000
    assert abs(share - keep) <= 5 * (keep * (1 - keep) / 4000) ** 0.5
