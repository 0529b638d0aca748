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
from pathlib import Path

import pytest

import survey_app.privacy as privacy

MODULE = Path(__file__).resolve().parents[2] / "static" / "js" / "randomized-response.js"
WORDS = 2**32
LN3 = math.log(3)
LN9 = math.log(9)

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

FLIP_PROBABILITIES = [0.1, 0.25, 0.4, 1 / 3, 0.01, 0.3, 0.45, 0.499, 1e-6]
CHOICE_PARAMETERS = [(2, LN3), (3, LN3), (4, LN9), (5, LN3), (5, 1.0), (12, 0.5), (7, 3.7), (3, 40)]


def test_flip_thresholds_match_python(tmp_path):
    result = run_node(
        tmp_path,
        f"""
        const ps = {json.dumps(FLIP_PROBABILITIES)};
        console.log(JSON.stringify(ps.map((p) => ({{
          threshold: rr.flipThreshold(p),
          effective: rr.effectiveProbability(p),
        }}))));
        """,
    )
    for p, js in zip(FLIP_PROBABILITIES, result, strict=True):
        expected = privacy.browser_flip_probability(p)
        assert js["threshold"] / WORDS == expected, p
        assert js["effective"] == expected, p
        assert js["threshold"] == math.floor(p * WORDS + 0.5), p


def test_hand_computed_flip_thresholds(tmp_path):
    result = run_node(tmp_path, "console.log(JSON.stringify([0.25, 0.1].map(rr.flipThreshold)));")
    # 0.25 * 2^32 = 2^30; 0.1 * 2^32 = 429496729.6 -> 429496730
    assert result == [2**30, 429496730]


def test_keep_thresholds_match_python(tmp_path):
    result = run_node(
        tmp_path,
        f"""
        const cases = {json.dumps(CHOICE_PARAMETERS)};
        console.log(JSON.stringify(cases.map(([k, eps]) => ({{
          keep: rr.keepProbability(k, eps),
          threshold: rr.keepThreshold(k, eps),
          effective: rr.effectiveProbability(rr.keepProbability(k, eps)),
        }}))));
        """,
    )
    for (k, epsilon), js in zip(CHOICE_PARAMETERS, result, strict=True):
        keep, _ = privacy.keep_probabilities(epsilon, k)
        browser_keep, browser_other = privacy.browser_keep_probabilities(epsilon, k)
        assert js["keep"] == pytest.approx(keep, rel=1e-15), (k, epsilon)
        assert js["threshold"] / WORDS == browser_keep, (k, epsilon)
        assert js["effective"] == browser_keep, (k, epsilon)
        assert (1 - js["threshold"] / WORDS) / (k - 1) == browser_other, (k, epsilon)


def test_thresholds_round_like_python_at_the_edges(tmp_path):
    # Exact halves round up; just below one half of a word rounds down (the case where a naive
    # floor(x + 0.5) in Python would disagree with Math.round).
    probabilities = [0.0, 1.0, 2.5 / WORDS, 3.5 / WORDS, 0.49999999999999994 / WORDS, 0.75]
    result = run_node(
        tmp_path,
        f"console.log(JSON.stringify({json.dumps(probabilities)}.map(rr.effectiveProbability)));",
    )
    assert result == [privacy.browser_probability(q) for q in probabilities]
    assert result == [0.0, 1.0, 3 / WORDS, 4 / WORDS, 0.0, 0.75]


# --------------------------------------------------------------------------- stubbed words

T_QUARTER = 2**30  # flip threshold of p = 0.25
T_TENTH = 429496730  # flip threshold of p = 0.1
T_KEEP_4_LN9 = 3 * 2**30  # keep threshold of k = 4, eps = ln 9: 0.75 * 2^32
T_KEEP_3_LN3 = 2576980378  # keep threshold of k = 3, eps = ln 3: 0.6 * 2^32 rounded

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
    # randomizeChoice keeps the true option when the first word is below T, with one draw.
    ("rr.randomizeChoice(2, 4, Math.log(9))", [T_KEEP_4_LN9 - 1], 2, 1),
    ("rr.randomizeChoice(0, 4, Math.log(9))", [0], 0, 1),
    # Otherwise it picks one of the k - 1 = 3 others: uniformBelow(3) gives word % 3, and
    # values at or above the true index move up by one.
    ("rr.randomizeChoice(2, 4, Math.log(9))", [T_KEEP_4_LN9, 0], 0, 2),  # 0 % 3 = 0 -> 0
    ("rr.randomizeChoice(2, 4, Math.log(9))", [T_KEEP_4_LN9, 4], 1, 2),  # 4 % 3 = 1 -> 1
    ("rr.randomizeChoice(2, 4, Math.log(9))", [T_KEEP_4_LN9, 5], 3, 2),  # 5 % 3 = 2 -> 3
    ("rr.randomizeChoice(0, 4, Math.log(9))", [T_KEEP_4_LN9, 3], 1, 2),  # 3 % 3 = 0 -> 1
    ("rr.randomizeChoice(3, 4, Math.log(9))", [WORDS - 2, 7], 1, 2),  # 7 % 3 = 1 -> 1
    # Rejection: 2^32 % 3 = 1, so the limit is 2^32 - 1 and the word 2^32 - 1 is drawn again;
    # 2^32 - 2 is accepted: (2^32 - 2) % 3 = 2 -> 3 (true index 1).
    ("rr.randomizeChoice(1, 4, Math.log(9))", [T_KEEP_4_LN9, WORDS - 1, WORDS - 2], 3, 3),
    ("rr.randomizeChoice(1, 4, Math.log(9))", [T_KEEP_4_LN9, WORDS - 1, WORDS - 1, 6], 0, 4),
    # k = 3, eps = ln 3: kept at T - 1, not at T; the single other option needs no rejection
    # (m = 2 divides 2^32): word % 2.
    ("rr.randomizeChoice(1, 3, Math.log(3))", [T_KEEP_3_LN3 - 1], 1, 1),
    ("rr.randomizeChoice(1, 3, Math.log(3))", [T_KEEP_3_LN3, 0], 0, 2),
    ("rr.randomizeChoice(1, 3, Math.log(3))", [T_KEEP_3_LN3, WORDS - 1], 2, 2),
    # k = 8, m = 7: 2^32 % 7 = 4, limit 2^32 - 4; the words 2^32 - 4 .. 2^32 - 1 are rejected
    # and 2^32 - 5 = 7 * 613566756 + 6 gives 6 -> 7 (true index 0).
    ("rr.randomizeChoice(0, 8, 0.5)", [WORDS - 1, WORDS - 1, WORDS - 4, WORDS - 5], 7, 4),
    ("rr.randomizeChoice(0, 8, 0.5)", [WORDS - 1, WORDS - 3, WORDS - 2, 13], 7, 4),
    # uniformBelow on its own.
    ("rr.uniformBelow(7)", [WORDS - 4, WORDS - 5], 6, 2),
    ("rr.uniformBelow(7)", [WORDS - 6], 5, 1),
    ("rr.uniformBelow(1)", [WORDS - 1], 0, 1),
]


def test_hand_computed_arithmetic_of_the_stubbed_cases():
    """The literals above, derived once more in Python."""
    assert 0.75 * WORDS == T_KEEP_4_LN9
    assert math.floor(0.6 * WORDS + 0.5) == T_KEEP_3_LN3
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
    ("rr.randomizeChoice(0, 1, 1)", "k"),
    ("rr.randomizeChoice(0, 2.5, 1)", "k"),
    ('rr.randomizeChoice(0, "3", 1)', "k"),
    ("rr.randomizeChoice(0, true, 1)", "k"),
    ("rr.randomizeChoice(0, NaN, 1)", "k"),
    ("rr.randomizeChoice(0, 3, 0)", "epsilon"),
    ("rr.randomizeChoice(0, 3, -1)", "epsilon"),
    ("rr.randomizeChoice(0, 3, NaN)", "epsilon"),
    ("rr.randomizeChoice(0, 3, Infinity)", "epsilon"),
    ('rr.randomizeChoice(0, 3, "1")', "epsilon"),
    ("rr.randomizeChoice(3, 3, 1)", "index"),
    ("rr.randomizeChoice(-1, 3, 1)", "index"),
    ("rr.randomizeChoice(0.5, 3, 1)", "index"),
    ("rr.randomizeChoice(true, 3, 1)", "index"),
    ("rr.keepProbability(1, 1)", "k"),
    ("rr.keepProbability(3, 0)", "epsilon"),
    ("rr.threshold(1.5)", "probability"),
    ("rr.threshold(-0.1)", "probability"),
    ("rr.threshold(NaN)", "probability"),
    ("rr.effectiveProbability(2)", "probability"),
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
        const choices = Array.from({ length: 2000 }, (_, i) => rr.randomizeChoice(i % 5, 5, 1));
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
