"""What managing a survey says: what deleting it takes away, and what archiving it does.

Each sentence is whole here, its figures filled in: where a survey calls for another sentence,
another whole one is chosen, so that a translation wraps each as it stands. The pages place them
(templates/surveys/confirm_delete.html, the dashboard's "Duplicate, archive or delete").
"""

from __future__ import annotations

from survey_app.words import counted

#: The confirmation's heading and button, with the answers that go too where there are any.
DELETE_HEADING = "Delete “{title}”?"
DELETE_HEADING_AND_ANSWERS = "Delete “{title}” and its {answers}?"
DELETE_BUTTON = "Delete the survey"
DELETE_BUTTON_AND_ANSWERS = "Delete the survey and its {answers}"

#: What deleting takes away: the answers (or that there are none), and the one-time codes
#: where any were issued.
TAKES_AWAY = {
    (True, True): (
        "Deleting takes away the survey, its questions, its {answers} and the results drawn "
        "from them, and its {codes}."
    ),
    (True, False): (
        "Deleting takes away the survey, its questions, its {answers} and the results drawn "
        "from them."
    ),
    (False, True): (
        "Deleting takes away the survey, its questions (no one has answered it), and its {codes}."
    ),
    (False, False): "Deleting takes away the survey, its questions (no one has answered it).",
}

#: What archiving does, and why an open survey is not archived.
ARCHIVE = "Archive: off your survey list; the results stay."
ARCHIVE_OPEN = "Archive: close the survey first; an archived survey takes no answers."


def delete_words(title: str, answers: int, codes_issued: int) -> dict:
    """The confirmation of deleting a survey in words: its heading, what deleting takes away
    and its button (``answers``: the survey's respondents; ``codes_issued``: its one-time
    codes)."""
    answers_said = counted(answers, "answer")
    codes_said = counted(codes_issued, "one-time code")
    return {
        "heading": (DELETE_HEADING_AND_ANSWERS if answers else DELETE_HEADING).format(
            title=title, answers=answers_said
        ),
        "takes_away": TAKES_AWAY[bool(answers), bool(codes_issued)].format(
            answers=answers_said, codes=codes_said
        ),
        "button": (DELETE_BUTTON_AND_ANSWERS if answers else DELETE_BUTTON).format(
            answers=answers_said
        ),
    }


def archive_words(is_open: bool) -> str:
    """What archiving a survey does, or, while it is open, that it must be closed first."""
    return ARCHIVE_OPEN if is_open else ARCHIVE
