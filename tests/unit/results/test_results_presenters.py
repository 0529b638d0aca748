"""What templates place, worked out in Python: the yes/no rule, the 'too wide' threshold, the
plurals, the privacy sentence, and the charts' geometry (survey_app.words, results.words,
surveys.words, results.panel)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from survey_app.results.cautions import too_wide_half_width
from survey_app.results.panel import (
    CHART_LEFT,
    CHART_PLOT,
    PAGE_CHART,
    ROOM_CHART,
    chart_units,
    have_answered,
    share_chart,
    spread_chart,
    worded_options,
)
from survey_app.results.tables import survey_results
from survey_app.results.words import TOO_WIDE
from survey_app.surveys.services import find_survey
from survey_app.surveys.words import privacy_how
from survey_app.words import counted, plural
from tests.analyst_helpers import submit
from tests.conftest import SAMPLE_DEFINITION


@pytest.fixture
def answered(app, make_survey):
    """``answered(rows)``: the sample survey's results (a yes/no question, then one of three
    options) once these randomized rows were sent, as results.py makes them."""

    def results_for(rows, definition=None):
        slug, _ = make_survey(definition)
        submit(app, slug, rows)
        with app.app_context():
            return survey_results(find_survey(slug), 0.95)

    return results_for


LONG_OPTIONS = {
    **SAMPLE_DEFINITION,
    "questions": [
        SAMPLE_DEFINITION["questions"][0],
        {"text": "Which?", "type": "choice", "options": ["A", "B" * 30, "C"]},
    ],
}


def test_a_yes_no_question_names_only_yes_and_a_choice_names_all(answered):
    yes_no, choice = answered([(0, 0), (1, 1), (1, 2)] * 4).questions
    assert [option.label for option in worded_options(yes_no)] == ["Yes"]
    assert [option.label for option in worded_options(choice)] == [
        option.label for option in choice.options
    ]
    assert len(choice.options) == 3


@pytest.mark.parametrize("n", [12, 600])
def test_too_wide_is_half_a_range_over_a_fifth(answered, n):
    question = answered([(0, 0), (1, 1)] * (n // 2)).questions[0]
    widest = max(
        (option.estimate.exact_high - option.estimate.exact_low) / 2 for option in question.options
    )
    assert too_wide_half_width(question, "exact") == (widest if widest > TOO_WIDE else None)
    # The two sizes fall on either side of the threshold: each branch is taken.
    assert (widest > TOO_WIDE) == (n == 12)


def test_counts_and_their_nouns():
    assert counted(1, "question") == "1 question"
    assert counted(1200, "respondent") == "1,200 respondents"
    assert counted(3, "other survey") == "3 other surveys"
    assert [plural(n, "code") for n in (0, 1, 2)] == ["codes", "code", "codes"]
    assert have_answered(1) == "person has answered"
    assert have_answered(0) == have_answered(2) == "people have answered"


@pytest.mark.parametrize(
    ("kinds", "sentence"),
    [
        (
            ["yes_no"],
            "Each respondent’s browser flips a yes/no answer 25% of the time before sending it",
        ),
        (
            ["yes_no", "choice", "numeric"],
            "Each respondent’s browser flips a yes/no answer 25% of the time, swaps a "
            "multiple-choice answer for another option at random and adds random noise to each "
            "number before sending it, all at the same strength",
        ),
        (
            ["choice"],
            "Each respondent’s browser swaps a multiple-choice answer for another option at random "
            "before sending it (as much protection as a 25% flip of a yes/no answer)",
        ),
    ],
)
def test_the_privacy_sentence_names_each_kind_asked(kinds, sentence):
    questions = [SimpleNamespace(kind=kind) for kind in kinds]
    assert privacy_how(questions, "25") == sentence


def test_the_shares_chart_places_each_range_and_share(answered):
    rows = [(0, 0)] * 10 + [(1, 1)] * 20 + [(0, 2)] * 30
    question = answered(rows, LONG_OPTIONS).questions[1]
    chart = share_chart(question, "exact", 0.95)
    assert chart["height"] == 4 + 58 * 3 + 20
    assert [tick["text"] for tick in chart["ticks"]] == ["0%", "25%", "50%", "75%", "100%"]
    for row, option in zip(chart["rows"], question.options, strict=True):
        low, high = option.estimate.exact_low, option.estimate.exact_high
        assert float(row["band"]["x"]) == pytest.approx(CHART_LEFT + CHART_PLOT * low, abs=0.005)
        assert float(row["band"]["width"]) == pytest.approx(CHART_PLOT * (high - low), abs=0.01)
        assert float(row["share"]["x"]) == pytest.approx(
            CHART_LEFT + CHART_PLOT * option.headline("exact"), abs=0.005
        )
    # A long label is cut with an ellipsis; a short one is kept.
    assert chart["rows"][1]["label"]["text"] == "B" * 23 + "…"
    assert chart["rows"][0]["label"]["text"] == "A"
    assert share_chart(question, "live", 0.95, chebyshev=False)["rows"][0]["chebyshev"] is None


def test_the_ticks_figures_stay_inside_the_chart(answered):
    """ "0%" starts at its line and "100%" ends at its line (at 282 + 16 = 298 of 320 units, a
    centred "100%" of 25-unit type would end past 320: its "%" cut off); the others centre."""
    question = answered([(0, 0)] * 12, LONG_OPTIONS).questions[1]
    for chebyshev, geometry in [(True, PAGE_CHART), (False, ROOM_CHART)]:
        ticks = share_chart(question, "exact", 0.95, chebyshev)["ticks"]
        assert [tick["anchor"] for tick in ticks] == ["start"] + ["middle"] * (len(ticks) - 2) + [
            "end"
        ]
        assert ticks[-1]["text"] == "100%" and ticks[-1]["x"] == CHART_LEFT + CHART_PLOT
        assert len(ticks) == len(geometry.ticks)


def test_the_projectors_chart_makes_room_for_its_larger_type(answered):
    """The projector's chart (no Chebyshev line) has rows of 50 units for its 25-unit labels
    (app.css), each label's baseline above its band, and labels cut to leave the figure room."""
    question = answered([(0, 0)] * 12, LONG_OPTIONS).questions[1]
    chart = share_chart(question, "live", 0.95, chebyshev=False)
    assert chart["height"] == chart_units(3, ROOM_CHART) == 4 + 50 * 3 + 30
    for row in chart["rows"]:
        assert row["label"]["y"] + 4 <= row["band"]["y"]
    assert chart["rows"][1]["label"]["text"] == "B" * 12 + "…"


def test_the_spread_chart_draws_the_tallest_bar_full_height():
    chart = spread_chart([("0", 0.1), ("1 to 2", 0.4), ("3", 0.0)])
    heights = [float(bar["height"]) for bar in chart["bars"]]
    assert heights == [30.0, 120.0, 0.0]
    assert chart["tallest"] == "40%"
