"""The results' sentences (survey_app.results.words): each choice gives its whole sentence, with
the figures the results panel words (results.words.numeric_words, results.panel), and an
address in the export's link stays an attribute's text."""

from __future__ import annotations

import pytest
from markupsafe import Markup, escape

from survey_app.results import words
from survey_app.words import with_unit

#: Text a professor might type into a unit.
TYPED = '<b>hours</b> & "naps"'
ESCAPED = "&lt;b&gt;hours&lt;/b&gt; &amp; &#34;naps&#34;"


def test_how_the_exact_ranges_were_worked_out():
    assert words.exact_range_words(False) == (
        "Exact range: every share under which these counts are not unusual, from the precise "
        "law of the randomization."
    )
    assert words.exact_range_words(True) == (
        "Exact range: every share under which these counts are not unusual, from the precise "
        "law of the randomization (with this many answers, from a proven bound on that law, the "
        "Berry–Esseen theorem)."
    )


@pytest.mark.parametrize(
    ("count", "sentence"),
    [
        (2, "All at once: the exact ranges of all 2 answers hold together."),
        (12, "All at once: the exact ranges of all 12 answers hold together."),
    ],
)
def test_what_the_ranges_shown_all_at_once_are(count, sentence):
    assert words.all_at_once_words("together", count) == sentence


@pytest.mark.parametrize("kind", ["exact", "live"])
def test_ranges_shown_one_at_a_time_say_nothing_of_all_at_once(kind):
    assert words.all_at_once_words(kind, 3) == ""


@pytest.mark.parametrize(
    ("answer_step", "sentence"),
    [
        (
            None,
            "Each bar is the estimated share of the class whose answer is among the answers it "
            "names, with the known randomization removed.",
        ),
        (
            "1",
            "Each bar is the estimated share of the class whose answer is among the answers it "
            "names (an answer counts in the bar of its nearest whole number: 4.6 counts as 5), "
            "with the known randomization removed.",
        ),
        (
            "0.5",
            "Each bar is the estimated share of the class whose answer is among the answers it "
            "names (an answer counts in the bar of its nearest multiple of 0.5), with the known "
            "randomization removed.",
        ),
        (
            "1000",
            "Each bar is the estimated share of the class whose answer is among the answers it "
            "names (an answer counts in the bar of its nearest multiple of 1000), with the known "
            "randomization removed.",
        ),
    ],
    ids=["no step", "whole numbers", "halves", "thousands"],
)
def test_what_a_number_questions_bars_are(answer_step, sentence):
    """The step is worded by format_number (numeric_words' ``answer_step``): no thousands
    separator, as every bound of a number question is said."""
    assert words.bars_words(answer_step) == sentence


@pytest.mark.parametrize(
    ("low", "high", "sentence"),
    [
        (
            "4.5",
            with_unit("7.5", "hours"),
            "Live range, which holds however often the results were read: 4.5 to 7.5 hours.",
        ),
        (
            "0",
            with_unit("1", "hours"),
            "Live range, which holds however often the results were read: 0 to 1 hour.",
        ),
        ("2", "3", "Live range, which holds however often the results were read: 2 to 3."),
    ],
    ids=["in a unit", "to one in a unit", "no unit"],
)
def test_a_number_questions_live_range(low, high, sentence):
    assert words.live_range_words(low, high) == sentence


def test_no_live_range_says_nothing():
    assert words.live_range_words(None, None) == ""


def test_a_unit_the_professor_typed_stays_text():
    """The live range is text, not markup: the page's autoescape escapes its unit."""
    said = words.live_range_words("2", with_unit("3", TYPED))
    assert not isinstance(said, Markup) and ESCAPED in escape(said)


def test_the_label_of_the_choice_of_ranges_all_at_once():
    assert words.together_label(False) == (
        "all at once: ranges that hold for all of a question’s answers together"
    )
    assert words.together_label(True) == (
        "all at once: ranges that hold for all of a question’s answers together (once the survey "
        "closes: while it is open the live ranges show)"
    )


LINK = (
    '<a href="/api/surveys/abc/results.csv?confidence=0.95" id="download-results">Results (CSV)</a>'
)


@pytest.mark.parametrize(
    ("has_numeric", "results"),
    [
        (
            False,
            f"{LINK}: a row per answer option, with the estimate and its interval.",
        ),
        (
            True,
            f"{LINK}: a row per answer option, with the estimate and its interval; for a number "
            "question, its average with its range, then a row per bar of its spread.",
        ),
    ],
    ids=["shares", "with numbers"],
)
@pytest.mark.parametrize(
    ("results_held", "responses_later"),
    [
        (
            False,
            "Randomized responses (CSV), a row per submission: available once the survey closes, "
            "so that nobody’s answers can be picked out by when they arrived.",
        ),
        (
            True,
            "Randomized responses (CSV), a row per submission: available once the survey closes "
            "with at least a batch of new answers (see the results above), so that nobody’s "
            "answers can be picked out by when they arrived.",
        ),
    ],
    ids=["released", "held"],
)
def test_what_the_exports_hold(has_numeric, results, results_held, responses_later):
    said = words.export_words(
        "/api/surveys/abc/results.csv?confidence=0.95", has_numeric, results_held
    )
    assert isinstance(said["results"], Markup) and str(said["results"]) == results
    assert said["responses_later"] == responses_later


def test_the_exports_link_stays_an_attribute():
    """An address with quotes or brackets cannot end the href and open a tag of its own."""
    said = words.export_words('/x?a=1&b="><script>', True, False)["results"]
    assert '<a href="/x?a=1&amp;b=&#34;&gt;&lt;script&gt;" id="download-results">' in said
    assert "<script>" not in said
