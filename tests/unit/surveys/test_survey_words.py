"""What managing a survey says (survey_app.surveys.words): the confirmation of deleting gives a
whole heading, sentence and button for answers and codes or none, one and many, counted as the
rest of the app counts, with a title the professor typed left as text for the page to escape."""

from __future__ import annotations

import pytest
from markupsafe import Markup, escape

from survey_app.surveys import words
from tests.analyst_helpers import ANALYST_EMAIL, token_of

#: Text a professor might type into a survey's title.
TYPED = '<b>Ethics</b> & "honesty"'
ESCAPED = "&lt;b&gt;Ethics&lt;/b&gt; &amp; &#34;honesty&#34;"


@pytest.mark.parametrize(
    ("answers", "codes", "heading", "takes_away", "button"),
    [
        (
            0,
            0,
            "Delete “Ethics”?",
            "Deleting takes away the survey, its questions (no one has answered it).",
            "Delete the survey",
        ),
        (
            0,
            1,
            "Delete “Ethics”?",
            "Deleting takes away the survey, its questions (no one has answered it), and its 1 "
            "one-time code.",
            "Delete the survey",
        ),
        (
            1,
            0,
            "Delete “Ethics” and its 1 answer?",
            "Deleting takes away the survey, its questions, its 1 answer and the results drawn "
            "from them.",
            "Delete the survey and its 1 answer",
        ),
        (
            1200,
            40,
            "Delete “Ethics” and its 1,200 answers?",
            "Deleting takes away the survey, its questions, its 1,200 answers and the results "
            "drawn from them, and its 40 one-time codes.",
            "Delete the survey and its 1,200 answers",
        ),
    ],
    ids=["nothing", "codes alone", "one answer", "answers and codes"],
)
def test_what_deleting_a_survey_takes_away(answers, codes, heading, takes_away, button):
    said = words.delete_words("Ethics", answers, codes)
    assert said == {"heading": heading, "takes_away": takes_away, "button": button}


@pytest.mark.parametrize("answers", [0, 3])
def test_a_title_the_professor_typed_is_left_for_the_page_to_escape(answers):
    """The heading is text, not markup: the template's autoescape escapes the title."""
    heading = words.delete_words(TYPED, answers, 0)["heading"]
    assert not isinstance(heading, Markup) and ESCAPED in escape(heading)


@pytest.mark.parametrize(
    ("answers", "said"),
    [
        (0, "“Quiz” was deleted."),
        (1, "“Quiz” and its answers were deleted."),
        (40, "“Quiz” and its answers were deleted."),
    ],
)
def test_what_the_list_says_of_a_deleted_survey(answers, said):
    """Its answers are named only where it had some: a survey no one answered had none."""
    assert words.deleted_words("Quiz", answers) == said


def test_a_survey_no_one_answered_is_said_deleted_without_answers(app, make_survey, sign_in_as):
    slug, _ = make_survey(status="draft")
    client = app.test_client()
    sign_in_as(client, ANALYST_EMAIL)
    data = {"csrf_token": token_of(client), "confirmed": "yes"}
    client.post(f"/analyst/surveys/{slug}/delete", data=data)
    page = client.get("/analyst/").get_data(as_text=True)
    assert "was deleted." in page and "its answers were deleted" not in page


def test_what_archiving_does():
    assert words.archive_words(False) == "Archive: off your survey list; the results stay."
    assert words.archive_words(True) == (
        "Archive: close the survey first; an archived survey takes no answers."
    )


def test_the_confirmation_page_places_the_words(app, make_survey, client, sign_in_as, analyst):
    """What the page (templates/surveys/confirm_delete.html) shows of a real survey: the
    title escaped once, in the heading and the button the words chose for no answers."""
    slug, _ = make_survey(
        {"title": TYPED, "flip_probability": 0.25, "questions": [{"text": "Q?", "type": "yes_no"}]}
    )
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}/delete").text
    assert f"<h1>Delete “{ESCAPED}”?</h1>" in page
    assert "Deleting takes away the survey, its questions (no one has answered it)." in page
    assert ">Delete the survey</button>" in page
