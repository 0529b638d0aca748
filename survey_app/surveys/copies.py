"""Copying a survey for another section: a new draft with the same questions and settings.

The copy takes nothing of what the original gathered (answers, tallies, codes, join code), and
its title says it is a copy, numbered so that each section's draft can be told apart.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Collection

from sqlalchemy import inspect, select

from survey_app.extensions import db
from survey_app.storage.models import Question, Survey, SurveyStatus
from survey_app.surveys.services import MAX_TITLE_LENGTH

#: What a copy's title ends with, so the two can be told apart until the copy is renamed.
COPY_MARK = " (copy)"
#: Question columns a copy does not take: its own identity and the survey it belongs to.
#: Not copied: a question's identity, and the mechanism chosen when its survey opened (the
#: copy, a draft, is chosen for when it opens, as every draft is).
_QUESTION_IDENTITY = frozenset({"id", "survey_id", "chosen_mechanism"})


COPY_NUMBER = re.compile(r" \(copy(?: (\d{1,6}))?\)$")


def copy_title(title: str, taken: Collection[str] = ()) -> str:
    """A copy's title: the original's, marked, within :data:`MAX_TITLE_LENGTH`.

    Copies are numbered, so each section's draft can be told apart in the list: the first copy
    of "Quiz" is "Quiz (copy)", the next (of "Quiz" again, or of a copy) "Quiz (copy 2)", and so
    on, skipping the titles in ``taken`` (the owner's surveys'). A copy of "Quiz (copy 2)"
    counts on from 3 rather than piling marks up.
    """
    number = 1
    counted = COPY_NUMBER.search(title)
    if counted:
        title = title[: counted.start()]
        number = int(counted.group(1) or 1) + 1
    while True:
        mark = COPY_MARK if number == 1 else f" (copy {number})"
        candidate = title[: MAX_TITLE_LENGTH - len(mark)].rstrip() + mark
        if candidate not in taken:
            return candidate
        number += 1


def copy_question(question: Question) -> Question:
    """A new, unattached question like ``question``: every column but its id and survey.

    Read from the model's columns, so a field that a new question type adds to Question
    (a numeric question's bounds, say) is copied with no change here.
    """
    mapper = inspect(Question)
    keys = (mapper.get_property_by_column(column).key for column in mapper.local_table.columns)
    return Question(
        **{
            key: copy.deepcopy(getattr(question, key))
            for key in keys
            if key not in _QUESTION_IDENTITY
        }
    )


def owner_titles(owner_id: int) -> set[str]:
    """The titles of an analyst's surveys, archived ones too."""
    return set(
        db.session.execute(select(Survey.title).where(Survey.owner_id == owner_id)).scalars()
    )


def duplicate_survey(survey: Survey) -> Survey:
    """A new draft of the same owner for another section; the caller commits.

    It takes the title (marked as a copy), the intro, the flip probability, the questions and
    their options, and the settings (one-time codes required, results hidden from the projector
    until closed, results shown to respondents once closed). It takes nothing of what the
    original gathered: no answers, tallies, codes or join code; it is not archived.
    """
    duplicate = Survey(
        owner_id=survey.owner_id,
        title=copy_title(survey.title, owner_titles(survey.owner_id)),
        intro=survey.intro,
        flip_probability=survey.flip_probability,
        expected_respondents=survey.expected_respondents,
        requires_codes=survey.requires_codes,
        hide_results_until_closed=survey.hide_results_until_closed,
        show_results_after_close=survey.show_results_after_close,
        language=survey.language,
        status=SurveyStatus.DRAFT,
    )
    duplicate.questions.extend(copy_question(question) for question in survey.questions)
    db.session.add(duplicate)
    db.session.flush()
    return duplicate
