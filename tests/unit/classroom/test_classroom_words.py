"""The classroom's sentences (survey_app.classroom.words): each choice gives its whole sentence,
counts and percentages are worded as the rest of the app words them, and a survey's title, its
address and its join code stay text."""

from __future__ import annotations

import pytest
from markupsafe import Markup, escape

from survey_app.classroom import words

#: Text a professor might type into a survey's title.
TYPED = '<b>Ethics</b> & "honesty"'
ESCAPED = "&lt;b&gt;Ethics&lt;/b&gt; &amp; &#34;honesty&#34;"

ADDRESS = "https://surveys.example.edu/"


@pytest.mark.parametrize(
    ("has_qr", "sentence"),
    [
        (
            False,
            "Students go to <strong>https://surveys.example.edu/</strong> and type the code "
            '<strong class="join-code" id="join-code">K7Q2MX</strong>. The projector view shows '
            "both in large type.",
        ),
        (
            True,
            "Students go to <strong>https://surveys.example.edu/</strong> and type the code "
            '<strong class="join-code" id="join-code">K7Q2MX</strong>, or scan the QR code with '
            "a phone’s camera. The projector view shows both in large type.",
        ),
    ],
    ids=["without a QR code", "with one"],
)
def test_how_students_join(has_qr, sentence):
    said = words.join_instructions(ADDRESS, "K7Q2MX", has_qr)
    assert isinstance(said, Markup) and str(said) == sentence


@pytest.mark.parametrize("has_qr", [False, True])
def test_the_address_and_code_in_how_to_join_stay_text(has_qr):
    said = words.join_instructions(TYPED, TYPED, has_qr)
    assert "<b>" not in said and said.count(ESCAPED) == 2


@pytest.mark.parametrize(
    ("count", "heading"),
    [
        (1, "1 one-time code for “Ethics”"),
        (40, "40 one-time codes for “Ethics”"),
        (2000, "2,000 one-time codes for “Ethics”"),
    ],
)
def test_the_heading_of_a_page_of_slips(count, heading):
    assert words.slips_heading(count, "Ethics") == heading


def test_a_title_in_the_slips_heading_is_left_for_the_page_to_escape():
    """The heading is text, not markup: the template's autoescape escapes the title."""
    heading = words.slips_heading(40, TYPED)
    assert not isinstance(heading, Markup) and ESCAPED in escape(heading)


@pytest.mark.parametrize(
    ("join_code", "sentence"),
    [
        (
            "K7Q2MX",
            "Go to <strong>https://surveys.example.edu/</strong>, type <strong>K7Q2MX</strong>, "
            "then this code when asked:",
        ),
        (None, "Go to <strong>https://surveys.example.edu/</strong>, then this code when asked:"),
        ("", "Go to <strong>https://surveys.example.edu/</strong>, then this code when asked:"),
    ],
    ids=["with a join code", "without one", "an empty one"],
)
def test_what_each_slip_says_before_its_code(join_code, sentence):
    said = words.slip_join(ADDRESS, join_code)
    assert isinstance(said, Markup) and str(said) == sentence


def test_the_address_and_code_on_a_slip_stay_text():
    assert words.slip_join(TYPED, TYPED).count(ESCAPED) == 2
    assert ESCAPED in words.slip_join(TYPED, None) and "<b>" not in words.slip_join(TYPED, None)


@pytest.mark.parametrize(
    ("numeric", "sentence"),
    [(True, "Too early for the average."), (False, "Too early for shares.")],
    ids=["average", "shares"],
)
def test_what_a_question_on_the_projector_waits_for(numeric, sentence):
    """As the projector asks (projector.question_entry): whether the question is a number's.
    The count results appear at is the page's summary's alone (results.words.release_words):
    a question's note never repeats it."""
    assert words.too_early_words(numeric) == sentence
    assert not any(digit in sentence for digit in "0123456789")


@pytest.mark.parametrize(
    ("headline", "confidence", "sentence"),
    [
        (
            "exact",
            0.95,
            "Shares estimated from the randomized answers; the bar is the range that holds the "
            "true share at least 95% of the time, for the people who answered.",
        ),
        (
            "together",
            0.9,
            "Shares estimated from the randomized answers; the bar is the range that holds the "
            "true share at least 90% of the time, for the people who answered.",
        ),
        (
            "live",
            0.99,
            "Shares estimated from the randomized answers; the bar is the range that holds the "
            "true share at least 99% of the time, however often this screen redraws, for the "
            "people who answered.",
        ),
    ],
)
def test_what_the_projectors_bars_are(headline, confidence, sentence):
    assert words.scope_words(headline, confidence) == sentence
