"""One rounding rule (survey_app.results.rounding): estimates to the nearest, ranges outward,
epsilons
and margins up; pages, the projector and the CSV files all follow it."""

from __future__ import annotations

import pytest

from survey_app.results import rounding
from survey_app.results.exports import rounded, rounded_down, rounded_up
from survey_app.words import (
    format_epsilon,
    format_points,
    format_upper_bound,
    percent,
    percent_high,
    percent_low,
)


@pytest.mark.parametrize(
    ("value", "step", "down", "up", "nearest"),
    [
        (0.48651, 0.001, 0.486, 0.487, 0.487),
        (48.66, 0.1, 48.6, 48.7, 48.7),
        (0.35, 0.01, 0.35, 0.35, 0.35),  # 0.35 is 0.34999999999999998 in binary: still 0.35
        (1.0986122886681098 * 10, 0.01, 10.98, 10.99, 10.99),
        (-0.0301, 0.01, -0.04, -0.03, -0.03),
        (3.0, 1.0, 3.0, 3.0, 3.0),
    ],
)
def test_down_up_and_nearest(value, step, down, up, nearest):
    assert rounding.down(value, step) == pytest.approx(down, abs=1e-12)
    assert rounding.up(value, step) == pytest.approx(up, abs=1e-12)
    assert rounding.nearest(value, step) == pytest.approx(nearest, abs=1e-12)


def test_a_range_on_a_page_rounds_outward_an_estimate_to_the_nearest():
    """The audit's case: an exact range of 0 to 48.65% was shown as 0 to 48.6%."""
    assert (percent_low(0.0), percent_high(0.4865)) == ("0%", "48.7%")
    assert (percent_low(0.1234), percent_high(0.1234)) == ("12.3%", "12.4%")
    assert percent(0.48651) == "48.7%" and percent(0.48649) == "48.6%"
    assert percent_low(0.35) == percent_high(0.35) == "35%"  # on a step: no widening
    assert percent_low(None) == percent_high(None) == "–"


def test_the_csv_rounds_as_the_pages_do_to_four_places():
    assert (rounded_down(0.48651), rounded_up(0.48651), rounded(0.48655)) == (
        "0.4865",
        "0.4866",
        "0.4866",
    )
    assert rounded_down(0.35) == rounded_up(0.35) == "0.35"
    assert rounded(-0.00001) == "0.0"  # never "-0.0"


def test_privacy_losses_and_margins_round_up():
    assert format_epsilon(1.3241) == "1.33"
    assert format_epsilon(10 * 0.1 * 11) == "11.00"  # floating-point noise is not a step
    assert format_upper_bound(7 / 3) == "2.34" and format_upper_bound(3.0) == "3"
    assert format_points(0.2781) == "28" and format_points(0.0541) == "5.5"
    assert format_points(0.05) == "5"


def test_text_drops_needless_decimals():
    assert rounding.text(40.0, 3) == "40"
    assert rounding.text(2.5, 3) == "2.5"
    assert rounding.text(-0.0, 2) == "0"
    assert rounding.places_of(0.001) == 3 and rounding.places_of(5.0) == 0
