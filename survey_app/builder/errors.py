"""What the builder says when a draft cannot be saved: each error in words, beside its field.

The rules are survey_app.surveys.services' (parse_definition, the same as definition files); their
errors carry a field, the rule broken and its figures (survey_app.surveys.definition_checks), which
are
worded here as the page words things: questions numbered from 1, fields by their labels, no JSON
path and no Python value. Each rule's words are one whole sentence of the catalog, in the page's
language, the field named in it (its name said so that the sentence reads whatever the field)
and its figures written the page language's way.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import gettext, lazy_gettext, ngettext

from survey_app import kinds
from survey_app.surveys.definition_checks import SurveyDefinitionError
from survey_app.surveys.services import (
    is_builder_flip_probability,
    parse_definition,
    parse_question,
)
from survey_app.surveys.words import flip_probability_refused
from survey_app.web.languages import is_english
from survey_app.words import format_number, grouped


@dataclass(frozen=True)
class BuilderError:
    """One error: the id of the field it is about (the page's own id) and what it says."""

    field_id: str
    words: str

    @property
    def error_id(self) -> str:
        """The id of the error's words beside the field (its aria-describedby)."""
        return f"{self.field_id}-error"


#: The page's ids and names for a definition's top-level fields.
_TOP_FIELDS = {
    "title": ("title", lazy_gettext("The title")),
    "intro": ("intro", lazy_gettext("The introduction")),
    "flip_probability": ("flip_probability", lazy_gettext("The flip probability")),
    "questions": ("add-yes-no", lazy_gettext("The survey")),
    "language": ("language", lazy_gettext("The language students see")),
}
#: A question's fields: the page's id (without the question's index) and its name, each
#: ``%(number)s`` the question's.
_QUESTION_FIELDS = {
    "text": ("question-text", lazy_gettext("Question %(number)s")),
    "type": ("question-type", lazy_gettext("Question %(number)s’s type")),
    "options": ("question-options", lazy_gettext("Question %(number)s’s options")),
    "min": ("question-min", lazy_gettext("Question %(number)s’s smallest answer")),
    "max": ("question-max", lazy_gettext("Question %(number)s’s largest answer")),
    "unit": ("question-unit", lazy_gettext("Question %(number)s’s unit")),
    "mechanism": ("question-mechanism", lazy_gettext("Question %(number)s’s randomization")),
    # A pair's own refusals (not two questions, too many pairs of answers): by its first.
    "questions": ("question-part1-text", lazy_gettext("Question %(number)s")),
}
#: A pair's question's fields: the page's id (without the pair's index, ``%(part)s`` its
#: question's number, 1 or 2) and its names, the first question's then the second's, each
#: ``%(number)s`` the pair's (``%(option)s`` an option's).
_PART_FIELDS = {
    "text": (
        "question-part%(part)s-text",
        lazy_gettext("Question %(number)s’s first question"),
        lazy_gettext("Question %(number)s’s second question"),
    ),
    "type": (
        "question-part%(part)s-type",
        lazy_gettext("Question %(number)s’s first question’s type"),
        lazy_gettext("Question %(number)s’s second question’s type"),
    ),
    "options": (
        "question-part%(part)s-options",
        lazy_gettext("The options of question %(number)s’s first question"),
        lazy_gettext("The options of question %(number)s’s second question"),
    ),
    "option": (
        "question-part%(part)s-options",
        lazy_gettext("Option %(option)s of question %(number)s’s first question"),
        lazy_gettext("Option %(option)s of question %(number)s’s second question"),
    ),
}
#: The fields above the class size on the page (its error comes after theirs).
_ABOVE_CLASS_SIZE = ("title", "intro", "flip_probability")
#: Stand-ins for a top-level field in error, so that the fields after it are checked too.
_STAND_INS = {"title": "Title", "intro": "", "flip_probability": 0.25}


def builder_errors(definition: dict, class_size_error: str | None = None) -> list[BuilderError]:
    """Every error of the builder's ``definition`` in words, in the page's order, one a field
    (empty if it can be saved). The rules are parse_definition's: a top-level field in error is
    replaced by a stand-in to check the rest, and each question is checked on its own. The
    class size is read by the planner's rule (planning.parse_class_size), whose words
    ``class_size_error`` are, if it refused the one typed."""
    errors: list[SurveyDefinitionError] = []
    trial = dict(definition)
    for _ in range(len(_STAND_INS) + 1):
        try:
            parse_definition(trial)
            break
        except SurveyDefinitionError as error:
            if error.path[:1] != ("questions",) or error.path == ("questions",):
                errors.append(error)
            if error.field not in _STAND_INS:
                break
            trial[error.field] = _STAND_INS[error.field]
    for index, question in enumerate(definition.get("questions") or ()):
        errors += question_errors(index, question)
    worded = [worded_error(error) for error in errors]
    if not is_builder_flip_probability(definition.get("flip_probability")):
        # The builder's own limits, within the definition's: one refusal, in their words.
        worded = [error for error in worded if error.field_id != "flip_probability"]
        above = sum(error.field_id in ("title", "intro") for error in worded)
        worded.insert(above, BuilderError("flip_probability", flip_probability_refused()))
    if class_size_error is not None:
        above = sum(error.field_id in _ABOVE_CLASS_SIZE for error in worded)
        worded.insert(above, BuilderError("class_size", class_size_error))
    seen: set[str] = set()
    return [e for e in worded if not (e.field_id in seen or seen.add(e.field_id))]


def question_errors(index: int, question: object) -> list[SurveyDefinitionError]:
    """A question's errors: its text's and a pair's questions' texts, then (with stand-in
    texts) its other fields' first."""
    errors = []
    for _ in range(4):
        try:
            parse_question(index, question)
            break
        except SurveyDefinitionError as error:
            errors.append(_aimed(error, question))
            if not isinstance(question, dict):
                break
            if error.path[2:] == ("text",):
                question = {**question, "text": "Question"}
            elif error.path[2:3] == ("questions",) and error.path[4:] == ("text",):
                question = _with_part_text(question, error.path[3])
            else:
                break
    return errors


def _with_part_text(question: dict, part: int) -> dict:
    """A pair with a stand-in text for its question ``part``, to check the rest."""
    parts = [dict(each) for each in question["questions"]]
    parts[part]["text"] = "Question"
    return {**question, "questions": parts}


def _aimed(error: SurveyDefinitionError, question: object) -> SurveyDefinitionError:
    """The error as the builder places it: a pair of too many pairs of answers beside the
    options of its question with the most (the one to shorten)."""
    if error.key != "pair_cells" or not isinstance(question, dict):
        return error
    parts = question.get("questions") or []
    counts = [len(part.get("options") or []) if isinstance(part, dict) else 0 for part in parts]
    most = counts.index(max(counts)) if counts else 0
    field = f"{error.field}[{most}].options"
    return SurveyDefinitionError(str(error), field, error.key, **error.values)


def worded_error(error: SurveyDefinitionError) -> BuilderError:
    """One definition error as the builder says it, with the id of its field."""
    path = error.path
    number = None
    if len(path) >= 5 and path[0] == "questions" and path[2] == "questions":
        return _part_error(error)
    if len(path) >= 3 and path[0] == "questions" and isinstance(path[1], int):
        number = path[1] + 1
        field_base, subject = _QUESTION_FIELDS.get(str(path[2]), _QUESTION_FIELDS["text"])
        field_id, subject = f"{field_base}-{path[1]}", str(subject) % {"number": number}
        if path[2] == "options" and len(path) == 4:
            subject = gettext(
                "Option %(option)s of question %(number)s", option=path[3] + 1, number=number
            )
    elif len(path) == 2 and path[0] == "questions":
        number = path[1] + 1
        field_id, subject = (
            f"question-text-{path[1]}",
            gettext("Question %(number)s", number=number),
        )
    else:
        field_id, subject = _TOP_FIELDS.get(
            str(path[0]) if path else "", ("title", lazy_gettext("The survey"))
        )
    return BuilderError(field_id, sentence(error.key, str(subject), number, error.values))


def _part_error(error: SurveyDefinitionError) -> BuilderError:
    """An error of one of a pair's questions (``questions[i].questions[j].<field>``), beside
    that question's field, named "Question 2’s first question"."""
    index, part, name = error.path[1], error.path[3], str(error.path[4])
    number = index + 1
    if name == "options" and len(error.path) > 5:
        name = "option"
    field_base, *subjects = _PART_FIELDS.get(name, _PART_FIELDS["text"])
    field_id = f"{field_base % {'part': part + 1}}-{index}"
    named = {"number": number, "option": error.path[5] + 1 if name == "option" else 0}
    said = _PART_SENTENCES.get(error.key)
    if said is not None:  # said of the question itself: "Question 2’s first question needs..."
        question = str(_PART_FIELDS["text"][1 + min(part, 1)]) % named
        values = {"low": 0, "high": 0, "count": 0, **error.values}
        return BuilderError(field_id, said(question, number, values))
    subject = str(subjects[min(part, 1)]) % named
    return BuilderError(field_id, sentence(error.key, subject, number, error.values))


def figure(value: object, english: str = "") -> str:
    """A figure of a rule as a sentence says it: as ``format(value, english)`` in English (as
    the page always said it), else the page language's way, a whole number grouped ("1.000")."""
    if is_english() or isinstance(value, bool) or not isinstance(value, int | float):
        return format(value, english)
    if float(value).is_integer():
        return grouped(int(value))
    return format_number(value)


def sentence(key: str, subject: str, number: int | None, values: dict) -> str:
    """The words for a broken rule ``key`` of the field called ``subject``: one whole sentence
    of the catalog each, its figures the page language's way."""
    # Every figure has a default, so that words not asked for still format.
    values = {"limit": 0, "minimum": 0, "smallest": 0, "low": 0, "high": 0, "count": 0, **values}
    said = _FIELD_SENTENCES.get(key)
    if said is not None:
        return said(subject, values)
    said = _QUESTION_SENTENCES.get(key)
    if said is not None:
        return said(number, values)
    if key in ("not_probability", "probability_limits"):
        return flip_probability_refused()
    if key == "probability_for_kind":
        return flip_limit_sentence(values)
    if key == "empty":
        if subject == gettext("Question %(number)s", number=number):
            return gettext("Question %(number)s is empty: type the question", number=number)
        return gettext("%(subject)s is empty: type it in", subject=subject)
    if key == "no_questions":
        return gettext("The survey needs a question: add one below")
    if key == "too_many_questions":
        limit = values.get("limit")
        return ngettext(
            "A survey holds at most %(limit)s question",
            "A survey holds at most %(limit)s questions",
            limit if isinstance(limit, int) else 2,
            limit=figure(limit),
        )
    return gettext("%(subject)s cannot be saved as it is", subject=subject)


def flip_limit_sentence(values: dict) -> str:
    """Why a kind asked keeps the flip probability lower: the kind's own whole sentence (its
    ``flip_limit_refused``), found by the words the refusal names it by."""
    limit = figure(values.get("limit"))
    for kind in kinds.KINDS.values():
        if kind.flip_limit_words[1] == values.get("question") and kind.flip_limit_refused:
            return str(kind.flip_limit_refused) % {"limit": limit}
    return (
        f"With {values.get('question')}, the flip probability can be at most "
        f"{values.get('limit')} ({values.get('why')})"
    )


def _too_long(subject: str, values: dict) -> str:
    limit = values.get("limit")
    return ngettext(
        "%(subject)s can be at most %(limit)s character long",
        "%(subject)s can be at most %(limit)s characters long",
        limit if isinstance(limit, int) else 2,
        subject=subject,
        limit=figure(limit),
    )


def _hidden_character(subject: str, values: dict) -> str:
    return gettext(
        "%(subject)s contains an invisible or control character (%(code)s, character "
        "%(position)s): type it again without it",
        subject=subject,
        code=values.get("code"),
        position=figure(values.get("position")),
    )


def _decimals(subject: str, values: dict) -> str:
    limit = values.get("limit")
    return ngettext(
        "%(subject)s can have at most %(limit)s decimal",
        "%(subject)s can have at most %(limit)s decimals",
        limit if isinstance(limit, int) else 2,
        subject=subject,
        limit=figure(limit),
    )


def _not_offered(subject: str, values: dict) -> str:
    return gettext(
        "%(subject)s is not one the builder offers: choose one from its list", subject=subject
    )


#: The sentences of rules said of a field, by its name (``subject``).
_FIELD_SENTENCES = {
    "too_long": _too_long,
    "hidden_character": _hidden_character,
    "missing": lambda subject, values: gettext("%(subject)s is missing", subject=subject),
    "unclear_number": lambda subject, values: gettext(
        "%(subject)s is not clear: write 1000 without a thousands separator, or 1.5 with one "
        "decimal point or comma",
        subject=subject,
    ),
    "not_number": lambda subject, values: gettext(
        "%(subject)s must be a number, like 10 or 2.5", subject=subject
    ),
    "magnitude": lambda subject, values: gettext(
        "%(subject)s must be between -%(limit)s and %(limit)s",
        subject=subject,
        limit=figure(values["limit"], ",.0f"),
    ),
    "decimals": _decimals,
    "type": _not_offered,
    "pair_kind": lambda subject, values: _pair_kind(subject, None, values),
    "mechanism": _not_offered,
    "language": _not_offered,
}


def _option_count(number: int | None, values: dict) -> str:
    if values["count"] < values["low"]:
        return ngettext(
            "Question %(number)s needs at least %(low)s option",
            "Question %(number)s needs at least %(low)s options",
            values["low"],
            number=number,
            low=figure(values.get("low")),
        )
    return ngettext(
        "Question %(number)s can have at most %(high)s option, not %(count)s",
        "Question %(number)s can have at most %(high)s options, not %(count)s",
        values["high"],
        number=number,
        high=figure(values.get("high")),
        count=figure(values.get("count")),
    )


#: The sentences of rules said of a question, by its number.
_QUESTION_SENTENCES = {
    "max_not_above_min": lambda number, values: gettext(
        "Question %(number)s’s largest answer must be above its smallest (%(minimum)s)",
        number=number,
        minimum=figure(values["minimum"], "g"),
    ),
    "range_too_small": lambda number, values: gettext(
        "Question %(number)s’s largest answer must be at least %(smallest)s above its smallest",
        number=number,
        smallest=figure(values["smallest"], "g"),
    ),
    "bounds": lambda number, values: gettext(
        "Question %(number)s’s smallest and largest answers are not a range a survey can use",
        number=number,
    ),
    "option_count": _option_count,
    "pair_questions": lambda number, values: gettext(
        "Question %(number)s asks two questions together: type both of them", number=number
    ),
    "pair_cells": lambda number, values: _pair_cells("", number, values),
    "options_differ": lambda number, values: gettext(
        "Question %(number)s has the same option twice: its options must all differ",
        number=number,
    ),
}


def _part_option_count(subject: str, number: int | None, values: dict) -> str:
    if values["count"] < values["low"]:
        return ngettext(
            "%(subject)s needs at least %(low)s option",
            "%(subject)s needs at least %(low)s options",
            values["low"],
            subject=subject,
            low=figure(values.get("low")),
        )
    return ngettext(
        "%(subject)s can have at most %(high)s option, not %(count)s",
        "%(subject)s can have at most %(high)s options, not %(count)s",
        values["high"],
        subject=subject,
        high=figure(values.get("high")),
        count=figure(values.get("count")),
    )


def _pair_kind(subject: str, number: int | None, values: dict) -> str:
    return gettext(
        "%(subject)s can only be yes/no or multiple choice: choose one of them", subject=subject
    )


def _pair_cells(subject: str, number: int | None, values: dict) -> str:
    return ngettext(
        "Question %(number)s’s two questions make %(count)s pair of answers: at most "
        "%(high)s can be asked together, so give one of them fewer options",
        "Question %(number)s’s two questions make %(count)s pairs of answers: at most "
        "%(high)s can be asked together, so give one of them fewer options",
        values["count"],
        number=number,
        count=figure(values.get("count")),
        high=figure(values.get("high")),
    )


#: The sentences of rules said of one of a pair's questions (``subject``: "Question 2’s first
#: question") or of the pair (``number``: the pair's).
_PART_SENTENCES = {
    "option_count": _part_option_count,
    "options_differ": lambda subject, number, values: gettext(
        "%(subject)s has the same option twice: its options must all differ", subject=subject
    ),
    "pair_kind": _pair_kind,
    "pair_cells": _pair_cells,
}


def errors_heading(errors: list[BuilderError]) -> str:
    """The summary's heading: "Not saved yet: 2 things to change"."""
    return ngettext(
        "Not saved yet: %(count)s thing to change",
        "Not saved yet: %(count)s things to change",
        len(errors),
        count=grouped(len(errors)),
    )


def wide_heading(wide: list) -> str:
    """The question's heading before saving ranges much wider than before."""
    return ngettext(
        "Not saved yet: a range much wider than before",
        "Not saved yet: ranges much wider than before",
        len(wide),
    )


@dataclass(frozen=True)
class WideRange:
    """A question whose range is now much wider than the one typed before: what to ask."""

    index: int
    words: str


#: What the builder asks of a range much wider than before, by how many times wider.
_WIDER = {
    100: lazy_gettext(
        "Question %(number)s’s range is now %(low)s to %(high)s, a hundred times wider than "
        "%(low_before)s to %(high_before)s before. Save it anyway?"
    ),
    1000: lazy_gettext(
        "Question %(number)s’s range is now %(low)s to %(high)s, a thousand times wider than "
        "%(low_before)s to %(high_before)s before. Save it anyway?"
    ),
    1_000_000: lazy_gettext(
        "Question %(number)s’s range is now %(low)s to %(high)s, a million times wider than "
        "%(low_before)s to %(high_before)s before. Save it anyway?"
    ),
}


def wide_range_words(index: int, now: tuple, before: tuple) -> WideRange:
    """ "Question 1’s range is now 0 to 1012, a hundred times wider than 0 to 10 before." """
    ratio = (now[1] - now[0]) / (before[1] - before[0])
    times = 100 if ratio < 1000 else 1000 if ratio < 1_000_000 else 1_000_000
    figures = {
        "number": index + 1,
        "low": format_number(now[0]),
        "high": format_number(now[1]),
        "low_before": format_number(before[0]),
        "high_before": format_number(before[1]),
    }
    return WideRange(index, str(_WIDER[times]) % figures)
