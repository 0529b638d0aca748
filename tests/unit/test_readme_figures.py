"""Every figure the README quotes of the app is the app's own: each is found by its sentence
and worked out again with the app's code, so that the README fails here when the two drift
apart (as "within ±11.5 hours" once did, where the planner said ±8.1)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from survey_app import privacy
from survey_app.config import estimated_strength_bits
from survey_app.kinds.numeric import MAX_FLIP_PROBABILITY_WITH_NUMBERS
from survey_app.planning import shares as planning
from survey_app.results import rounding
from survey_app.surveys.services import BUILDER_FLIP_PROBABILITIES
from survey_app.words import (
    format_epsilon,
    format_points,
    numeric_places,
    percent,
    percent_high,
    percent_low,
)

README = " ".join((Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8").split())
LN3 = math.log(3)
HOURS = {"text": "Hours a week?", "type": "numeric", "min": 0, "max": 40, "unit": "hours"}


def quoted(pattern: str) -> re.Match:
    """The README's one sentence matching ``pattern`` (its lines joined by single spaces)."""
    found = list(re.finditer(pattern, README))
    assert len(found) == 1, f"the README says this {len(found)} times, not once: {pattern}"
    return found[0]


def readout(questions: list[dict], class_size: str, margin: str = "") -> dict:
    """The builder's readout at p = 0.25, as its page shows it."""
    definition = {"flip_probability": 0.25, "questions": questions}
    return planning.builder_readout(definition, class_size, margin)


def test_the_opening_margins_are_the_planners():
    found = quoted(
        r"tell a class of (\d+) something \(at p = 0\.25, ±(\d+) percentage points where "
        r"Chebyshev's bound with the exact variance, also shown, says ±(\d+)\)"
    )
    n = int(found[1])
    assert found[2] == format_points(planning.planned_margin(0.25, 2, n, 0.95))
    assert found[3] == format_points(planning.chebyshev_margin(0.25, 2, n, 0.95))


def test_the_mechanism_a_class_of_40_gets_is_the_one_named():
    found = quoted(r"\(the ([\w-]+) mechanism for a class of (\d+) at ε = ln 3\)")
    chosen = privacy.numeric_mechanism(0.0, 40.0, LN3, None, int(found[2]))
    assert chosen.name == found[1].replace("-", "_")


def test_the_builders_readout_is_quoted_as_it_reads():
    found = quoted(r'e\.g\. "(With (\d+) students, a yes/no question will be known within [^"]*)"')
    how_often = {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]}
    text = readout([{"text": "Ever?", "type": "yes_no"}, how_often], found[2])["planning"]["text"]
    assert text.startswith(found[1])


def test_a_number_questions_plan_is_the_planners():
    found = quoted(
        r'"(With (\d+) students, the average of “Hours a week\?” within ±[\d.]+ hours)" '
        r"\(0 to 40 hours at p = 0\.25"
    )
    assert readout([HOURS], found[2])["planning"]["text"].startswith(found[1])


def test_a_margin_in_points_is_that_share_of_a_numbers_range():
    found = quoted(
        r"a margin of ±(\d+) percentage points means a tenth of the question's range .*?"
        r"\(±(\d+) hours on 0 to 40 hours\)"
    )
    suggestion = readout([HOURS], "40", found[1])["suggestion"]["text"]
    assert f"(±{found[2]} hours for “Hours a week?”)" in suggestion


def test_a_quarter_is_ln_3():
    found = quoted(r"(0\.\d+) gives ε = ln 3 ≈ (\d\.\d+) a question")
    epsilon = privacy.epsilon_from_flip_probability(float(found[1]))
    assert epsilon == pytest.approx(LN3, rel=1e-12)
    assert format_epsilon(epsilon) == found[2]


def test_the_builders_limits_and_a_numbers_are_the_apps():
    found = quoted(r"The builder takes a flip probability from ([\d.]+) to ([\d.]+),")
    assert (float(found[1]), float(found[2])) == BUILDER_FLIP_PROBABILITIES
    found = quoted(r"needs `flip_probability` at most ([\d.]+) \(ε at least ([\d.]+)\)")
    assert float(found[1]) == MAX_FLIP_PROBABILITY_WITH_NUMBERS
    assert float(found[2]) == privacy.MIN_NUMERIC_EPSILON
    assert privacy.epsilon_from_flip_probability(float(found[1])) >= float(found[2])


def test_a_shares_sentence_holds_its_classs_figures():
    found = quoted(
        r"\((\d+) answers at p = 0\.25, (\d+) of them “Yes”\) \"About ([\d.]+%) would truly "
        r"answer “Yes”: between ([\d.]+%) and ([\d.]+%), guaranteed at least 95% of the time\""
    )
    n, yes = int(found[1]), int(found[2])
    estimate = privacy.RandomizedResponse(0.25, 2).estimate([n - yes, yes], 0.95)[1]
    assert found[3] == percent(estimate.estimate)
    assert (found[4], found[5]) == (
        percent_low(estimate.exact_low),
        percent_high(estimate.exact_high),
    )


def test_ranges_are_rounded_outward_as_quoted():
    found = quoted(r'\(0 to ([\d.]+)% reads "([\d.]+%) to ([\d.]+%)"\)')
    assert (found[2], found[3]) == (percent_low(0.0), percent_high(float(found[1]) / 100))


def test_a_numbers_sentence_holds_its_classs_figures():
    found = quoted(
        r"\((\d+) answers on 0 to 40 hours at ε = ln 3, randomized by the one-bit mechanism, "
        r"(\d+) of them sent as 1\) \"The average answer is about ([\d.]+) hours: between "
        r"([\d.]+) and ([\d.]+) hours, guaranteed at least 95% of the time\""
    )
    n, ones = int(found[1]), int(found[2])
    one_bit = privacy.numeric_mechanism(0.0, 40.0, LN3, "one_bit")
    estimate = one_bit.estimate_mean([1] * ones + [0] * (n - ones), 0.95)
    places = numeric_places(0.0, 40.0)
    step = 10.0**-places
    assert found[3] == rounding.text(rounding.nearest(estimate.mean, step), places)
    assert found[4] == rounding.text(rounding.down(estimate.ci_low, step), places)
    assert found[5] == rounding.text(rounding.up(estimate.ci_high, step), places)


def test_the_reason_for_a_mechanism_is_the_apps_sentence():
    found = quoted(
        r"for a question from 0 to 40 hours at ε = ln 3 planned for a class of (\d+), with (\d+) "
        r'answers: "(Chosen because [^"]+)"'
    )
    planned, answers = int(found[1]), int(found[2])
    chosen = privacy.numeric_mechanism(0.0, 40.0, LN3, None, planned)
    reason = privacy.mechanism_choice_reason(chosen, False, answers, planned=planned)
    assert reason == found[3] + "."  # the README's sentence ends in its own parenthesis


def test_the_example_keys_strength_is_the_apps_estimate():
    found = quoted(r"`correcthorsebatterystaple` holds about (\d+)")
    assert round(estimated_strength_bits("correcthorsebatterystaple")) == int(found[1])
