"""The browser's mechanism, static/js/randomized-response.js, run under Node (issue 2).

Each check writes a small .mjs script to tmp_path that imports the module by its absolute file
URL and prints JSON; Python compares the result with survey_app.privacy and with hand-computed
values. crypto.getRandomValues is replaced by a stub that hands out chosen 32-bit words, so the
outputs at the threshold words are exact.
"""

import json
import math
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

import survey_app.privacy as privacy
from tests.unit.privacy.test_privacy import EPSILON_GRID, OPTION_COUNTS

MODULE = Path(__file__).resolve().parents[3] / "static" / "js" / "randomized-response.js"
WORDS = 2**32

# Replaces crypto.getRandomValues with one that fills the array from `queue` (set per case),
# records every call, and throws when the queue runs dry, so an extra draw cannot go unnoticed.
STUB = """
const queue = [];
const calls = [];
globalThis.crypto.getRandomValues = (array) => {
  calls.push({ type: array.constructor.name, length: array.length });
  if (queue.length === 0) throw new Error("no more stubbed words");
  array[0] = queue.shift();
  return array;
};
function withWords(words, thunk) {
  queue.length = 0;
  calls.length = 0;
  queue.push(...words);
  let output;
  try {
    output = thunk();
  } catch (error) {
    output = `${error.name}: ${error.message}`;
  }
  return { output, drawn: calls.length, left: queue.length, calls: [...calls] };
}
"""


def run_node(tmp_path: Path, body: str):
    """Run ``body`` as an ES module that has the mechanism imported as ``rr``; return its JSON.

    ``body`` must print exactly one JSON document with console.log.
    """
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (Node.js 20) is not on PATH; it is needed to test the browser module")
    script = tmp_path / "check.mjs"
    script.write_text(f'import * as rr from "{MODULE.as_uri()}";\n{body}\n', encoding="utf-8")
    completed = subprocess.run(
        [node, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


# --------------------------------------------------------------------------- thresholds


def test_thresholds_match_python_bit_for_bit_over_the_grid(tmp_path):
    """flipThreshold(p) and keepThreshold(k, p) are the integers survey_app.privacy debiases
    with, for every p of the epsilon grid (the survey's bounds included) and every k = 2 .. 12."""
    ks = list(OPTION_COUNTS)
    result = run_node(
        tmp_path,
        f"""
        const ps = {json.dumps(EPSILON_GRID)};
        const ks = {json.dumps(ks)};
        console.log(JSON.stringify(ps.map((p) => ({{
          flip: rr.flipThreshold(p),
          keep: ks.map((k) => rr.keepThreshold(k, p)),
        }}))));
        """,
    )
    assert len(result) == len(EPSILON_GRID) > 200
    for p, js in zip(EPSILON_GRID, result, strict=True):
        assert js["flip"] == privacy.flip_threshold(p), p
        assert js["keep"] == [privacy.keep_threshold(p, k) for k in ks], p
        # What the browser does is what survey_app.privacy bounds: its epsilon is at most the
        # stated one.
        for k, keep in zip(ks, js["keep"], strict=True):
            assert Fraction((k - 1) * keep, WORDS - keep) <= (1 - Fraction(p)) / Fraction(p)


def test_hand_computed_thresholds(tmp_path):
    result = run_node(
        tmp_path,
        """console.log(JSON.stringify({
          flips: [0.25, 0.1, 1 / 3, 0.4].map(rr.flipThreshold),
          keeps: [[3, 0.25], [4, 0.25], [4, 0.1], [2, 0.1]].map(([k, p]) => rr.keepThreshold(k, p)),
        }));""",
    )
    # 0.25 * 2^32 = 2^30; 0.1 * 2^32 = 429496729.6 -> 429496730; 2^32 / 3 = 1431655765.33 and
    # 0.4 * 2^32 = 1717986918.4 round up (to nearest they would round down, raising epsilon).
    assert result["flips"] == [2**30, 429496730, 1431655766, 1717986919]
    # k = 3, p = 1/4: floor(0.6 * 2^32); k = 4, p = 1/4: 2^31; k = 4, p = 0.1: see test_privacy;
    # k = 2: 2^32 - T.
    assert result["keeps"] == [T_KEEP_3_QUARTER, 2**31, T_KEEP_4_TENTH, WORDS - 429496730]


# --------------------------------------------------------------------------- stubbed words

T_QUARTER = 2**30  # flip threshold of p = 0.25
T_TENTH = 429496730  # flip threshold of p = 0.1: 0.1 * 2^32 = 429496729.6 rounded up
# Keep thresholds: k = 4, p = 0.1 (eps = ln 9), 0.75 * 2^32 - 5/6 rounded down; k = 3, p = 0.25
# (eps = ln 3), 0.6 * 2^32 rounded down.
T_KEEP_4_TENTH = 3221225471
T_KEEP_3_QUARTER = 2576980377

# (JavaScript call, words handed out, expected output, words drawn)
STUBBED_CASES = [
    # randomizeBit flips when the word is below T.
    ("rr.randomizeBit(1, 0.25)", [T_QUARTER - 1], 0, 1),
    ("rr.randomizeBit(1, 0.25)", [T_QUARTER], 1, 1),
    ("rr.randomizeBit(0, 0.25)", [T_QUARTER - 1], 1, 1),
    ("rr.randomizeBit(0, 0.25)", [T_QUARTER], 0, 1),
    ("rr.randomizeBit(0, 0.25)", [0], 1, 1),
    ("rr.randomizeBit(1, 0.25)", [WORDS - 1], 1, 1),
    ("rr.randomizeBit(1, 0.1)", [T_TENTH - 1], 0, 1),
    ("rr.randomizeBit(1, 0.1)", [T_TENTH], 1, 1),
    ("rr.randomizeBit(0, 0.1)", [T_TENTH - 1], 1, 1),
    ("rr.randomizeBit(0, 0.1)", [T_TENTH], 0, 1),
    # randomizeChoice keeps the true option when the first word is below K, with one draw.
    ("rr.randomizeChoice(2, 4, 0.1)", [T_KEEP_4_TENTH - 1], 2, 1),
    ("rr.randomizeChoice(0, 4, 0.1)", [0], 0, 1),
    # Otherwise it picks one of the k - 1 = 3 others: uniformBelow(3) gives word % 3, and
    # values at or above the true index move up by one.
    ("rr.randomizeChoice(2, 4, 0.1)", [T_KEEP_4_TENTH, 0], 0, 2),  # 0 % 3 = 0 -> 0
    ("rr.randomizeChoice(2, 4, 0.1)", [T_KEEP_4_TENTH, 4], 1, 2),  # 4 % 3 = 1 -> 1
    ("rr.randomizeChoice(2, 4, 0.1)", [T_KEEP_4_TENTH, 5], 3, 2),  # 5 % 3 = 2 -> 3
    ("rr.randomizeChoice(0, 4, 0.1)", [T_KEEP_4_TENTH, 3], 1, 2),  # 3 % 3 = 0 -> 1
    ("rr.randomizeChoice(3, 4, 0.1)", [WORDS - 2, 7], 1, 2),  # 7 % 3 = 1 -> 1
    # Rejection: 2^32 % 3 = 1, so the limit is 2^32 - 1 and the word 2^32 - 1 is drawn again;
    # 2^32 - 2 is accepted: (2^32 - 2) % 3 = 2 -> 3 (true index 1).
    ("rr.randomizeChoice(1, 4, 0.1)", [T_KEEP_4_TENTH, WORDS - 1, WORDS - 2], 3, 3),
    ("rr.randomizeChoice(1, 4, 0.1)", [T_KEEP_4_TENTH, WORDS - 1, WORDS - 1, 6], 0, 4),
    # k = 3, p = 0.25 (eps = ln 3): kept at K - 1, not at K; the single other option needs no
    # rejection (m = 2 divides 2^32): word % 2.
    ("rr.randomizeChoice(1, 3, 0.25)", [T_KEEP_3_QUARTER - 1], 1, 1),
    ("rr.randomizeChoice(1, 3, 0.25)", [T_KEEP_3_QUARTER, 0], 0, 2),
    ("rr.randomizeChoice(1, 3, 0.25)", [T_KEEP_3_QUARTER, WORDS - 1], 2, 2),
    # k = 8, m = 7: 2^32 % 7 = 4, limit 2^32 - 4; the words 2^32 - 4 .. 2^32 - 1 are rejected
    # and 2^32 - 5 = 7 * 613566756 + 6 gives 6 -> 7 (true index 0).
    ("rr.randomizeChoice(0, 8, 0.3)", [WORDS - 1, WORDS - 1, WORDS - 4, WORDS - 5], 7, 4),
    ("rr.randomizeChoice(0, 8, 0.3)", [WORDS - 1, WORDS - 3, WORDS - 2, 13], 7, 4),
    # uniformBelow on its own.
    ("rr.uniformBelow(7)", [WORDS - 4, WORDS - 5], 6, 2),
    ("rr.uniformBelow(7)", [WORDS - 6], 5, 1),
    ("rr.uniformBelow(1)", [WORDS - 1], 0, 1),
]


def test_hand_computed_arithmetic_of_the_stubbed_cases():
    """The literals above, derived once more in Python."""
    assert math.ceil(0.1 * WORDS) == T_TENTH
    assert WORDS * (WORDS - T_TENTH) // (WORDS + 2 * T_TENTH) == T_KEEP_4_TENTH
    assert math.floor(0.6 * WORDS) == T_KEEP_3_QUARTER
    assert (privacy.keep_threshold(0.1, 4), privacy.keep_threshold(0.25, 3)) == (
        T_KEEP_4_TENTH,
        T_KEEP_3_QUARTER,
    )
    # k = 8, p = 0.3: P = 0.7 / 2.8 = 1/4, so the words 2^32 - 5 and above are never kept.
    assert privacy.keep_threshold(0.3, 8) < WORDS - 5
    assert (WORDS % 3, WORDS % 7) == (1, 4)
    assert ((WORDS - 2) % 3, (WORDS - 5) % 7, (WORDS - 6) % 7) == (2, 6, 5)


@pytest.fixture(scope="module")
def stubbed_outputs(tmp_path_factory):
    calls = ",\n".join(
        f"withWords({json.dumps(words)}, () => {call})" for call, words, _, _ in STUBBED_CASES
    )
    return run_node(
        tmp_path_factory.mktemp("stubbed"),
        f"{STUB}\nconsole.log(JSON.stringify([\n{calls}\n]));",
    )


@pytest.mark.parametrize(
    ("index", "call", "words", "expected", "drawn"),
    [(i, *case) for i, case in enumerate(STUBBED_CASES)],
    ids=[f"{call}<-{words}" for call, words, _, _ in STUBBED_CASES],
)
def test_outputs_for_chosen_words(stubbed_outputs, index, call, words, expected, drawn):
    result = stubbed_outputs[index]
    assert result["output"] == expected
    assert result["drawn"] == drawn
    assert result["left"] == len(words) - drawn
    # One 32-bit word per draw.
    assert all(c == {"type": "Uint32Array", "length": 1} for c in result["calls"])


# --------------------------------------------------------------------------- bad arguments

# (JavaScript call, the parameter its RangeError must name)
BAD_CALLS = [
    ("rr.randomizeBit(2, 0.25)", "bit"),
    ("rr.randomizeBit(-1, 0.25)", "bit"),
    ("rr.randomizeBit(true, 0.25)", "bit"),
    ('rr.randomizeBit("1", 0.25)', "bit"),
    ("rr.randomizeBit(0.5, 0.25)", "bit"),
    ("rr.randomizeBit(1, 0)", "flip_probability"),
    ("rr.randomizeBit(1, 0.5)", "flip_probability"),
    ("rr.randomizeBit(1, 0.7)", "flip_probability"),
    ("rr.randomizeBit(1, -0.1)", "flip_probability"),
    ("rr.randomizeBit(1, NaN)", "flip_probability"),
    ("rr.randomizeBit(1, Infinity)", "flip_probability"),
    ('rr.randomizeBit(1, "0.25")', "flip_probability"),
    ("rr.randomizeBit(1, true)", "flip_probability"),
    ("rr.randomizeBit(1)", "flip_probability"),
    ("rr.flipThreshold(0.5)", "flip_probability"),
    ("rr.randomizeChoice(0, 1, 0.25)", "k"),
    ("rr.randomizeChoice(0, 2.5, 0.25)", "k"),
    ('rr.randomizeChoice(0, "3", 0.25)', "k"),
    ("rr.randomizeChoice(0, true, 0.25)", "k"),
    ("rr.randomizeChoice(0, NaN, 0.25)", "k"),
    ("rr.randomizeChoice(0, 3, 0)", "flip_probability"),
    ("rr.randomizeChoice(0, 3, -1)", "flip_probability"),
    ("rr.randomizeChoice(0, 3, 0.5)", "flip_probability"),
    ("rr.randomizeChoice(0, 3, Math.log(3))", "flip_probability"),
    ("rr.randomizeChoice(0, 3, NaN)", "flip_probability"),
    ("rr.randomizeChoice(0, 3, Infinity)", "flip_probability"),
    ('rr.randomizeChoice(0, 3, "0.25")', "flip_probability"),
    ("rr.randomizeChoice(0, 3)", "flip_probability"),
    ("rr.randomizeChoice(3, 3, 0.25)", "index"),
    ("rr.randomizeChoice(-1, 3, 0.25)", "index"),
    ("rr.randomizeChoice(0.5, 3, 0.25)", "index"),
    ("rr.randomizeChoice(true, 3, 0.25)", "index"),
    ("rr.keepThreshold(1, 0.25)", "k"),
    ("rr.keepThreshold(3, 0)", "flip_probability"),
    ("rr.keepThreshold(3, 0.5)", "flip_probability"),
    ("rr.uniformBelow(0)", "m"),
    ("rr.uniformBelow(1.5)", "m"),
    ("rr.uniformBelow(2 ** 32 + 1)", "m"),
]


@pytest.fixture(scope="module")
def bad_call_errors(tmp_path_factory):
    # No words are queued, so a call that drew a word before checking its arguments would
    # report the stub's Error instead of a RangeError.
    calls = ",\n".join(f"withWords([], () => {call})" for call, _ in BAD_CALLS)
    return run_node(
        tmp_path_factory.mktemp("bad"),
        f"{STUB}\nconsole.log(JSON.stringify([\n{calls}\n].map((r) => r.output)));",
    )


@pytest.mark.parametrize(
    ("index", "call", "parameter"),
    [(i, *case) for i, case in enumerate(BAD_CALLS)],
    ids=[call for call, _ in BAD_CALLS],
)
def test_bad_arguments_throw_range_error_naming_the_parameter(
    bad_call_errors, index, call, parameter
):
    assert bad_call_errors[index].startswith(f"RangeError: {parameter} must ")


# --------------------------------------------------------------------------- the source


def test_source_does_not_use_math_random():
    source = MODULE.read_text(encoding="utf-8")
    assert "Math.random" not in source
    assert "getRandomValues" in source


def test_module_works_with_real_crypto_and_math_random_disabled(tmp_path):
    result = run_node(
        tmp_path,
        """
        Math.random = () => { throw new Error("Math.random was called"); };
        const bits = Array.from({ length: 2000 }, (_, i) => rr.randomizeBit(i % 2, 0.25));
        const choices = Array.from({ length: 2000 }, (_, i) => rr.randomizeChoice(i % 5, 5, 0.25));
        console.log(JSON.stringify({ bits, choices }));
        """,
    )
    assert set(result["bits"]) == {0, 1}
    assert set(result["choices"]) == {0, 1, 2, 3, 4}
    # The words come from the real crypto source here, so no seed: with p = 0.25 about 500
    # of 2000 bits are flipped (std sqrt(2000 * 0.25 * 0.75) ~ 19.4); 350 .. 650 is over
    # 7.7 std, which a correct module misses with probability about 1e-14.
    flipped = sum(bit != i % 2 for i, bit in enumerate(result["bits"]))
    assert 350 <= flipped <= 650
