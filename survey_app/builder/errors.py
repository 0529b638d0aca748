"""What the builder says when a draft cannot be saved: each error in words, beside its field.

The rules are survey_app.surveys.services' (parse_definition, the same as definition files); their
errors carry a field, the rule broken and its figures (survey_app.surveys.definition_checks), which
are
worded here as the page words things: questions numbered from 1, fields by their labels, no JSON
path and no Python value.
"""

from __future__ import annotations

from dataclasses import dataclass

from survey_app.surveys.definition_checks import SurveyDefinitionError
from survey_app.surveys.services import (
    is_builder_flip_probability,
    parse_definition,
    parse_question,
)
from survey_app.surveys.words import FLIP_PROBABILITY_REFUSED
from survey_app.words import counted, format_number


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
    "title": ("title", "The title"),
    "intro": ("intro", "The introduction"),
    "flip_probability": ("flip_probability", "The flip probability"),
    "questions": ("add-yes-no", "The survey"),
    "language": ("language", "The language students see"),
}
#: A question's fields: the page's id (without the question's index) and its name.
_QUESTION_FIELDS = {
    "text": ("question-text", "Question {n}"),
    "type": ("question-type", "Question {n}’s type"),
    "options": ("question-options", "Question {n}’s options"),
    "min": ("question-min", "Question {n}’s smallest answer"),
    "max": ("question-max", "Question {n}’s largest answer"),
    "unit": ("question-unit", "Question {n}’s unit"),
    "mechanism": ("question-mechanism", "Question {n}’s randomization"),
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
        worded.insert(above, BuilderError("flip_probability", FLIP_PROBABILITY_REFUSED))
    if class_size_error is not None:
        above = sum(error.field_id in _ABOVE_CLASS_SIZE for error in worded)
        worded.insert(above, BuilderError("class_size", class_size_error))
    seen: set[str] = set()
    return [e for e in worded if not (e.field_id in seen or seen.add(e.field_id))]


def question_errors(index: int, question: object) -> list[SurveyDefinitionError]:
    """A question's errors: its text's, then (with a stand-in text) its other fields' first."""
    errors = []
    for _ in range(2):
        try:
            parse_question(index, question)
            break
        except SurveyDefinitionError as error:
            errors.append(error)
            if error.path[2:] != ("text",) or not isinstance(question, dict):
                break
            question = {**question, "text": "Question"}
    return errors


def worded_error(error: SurveyDefinitionError) -> BuilderError:
    """One definition error as the builder says it, with the id of its field."""
    path = error.path
    number = None
    if len(path) >= 3 and path[0] == "questions" and isinstance(path[1], int):
        number = path[1] + 1
        field_base, subject = _QUESTION_FIELDS.get(str(path[2]), _QUESTION_FIELDS["text"])
        field_id, subject = f"{field_base}-{path[1]}", subject.format(n=number)
        if path[2] == "options" and len(path) == 4:
            subject = f"Option {path[3] + 1} of question {number}"
    elif len(path) == 2 and path[0] == "questions":
        number = path[1] + 1
        field_id, subject = f"question-text-{path[1]}", f"Question {number}"
    else:
        field_id, subject = _TOP_FIELDS.get(str(path[0]) if path else "", ("title", "The survey"))
    return BuilderError(field_id, sentence(error.key, subject, number, error.values))


def sentence(key: str, subject: str, number: int | None, values: dict) -> str:
    """The words for a broken rule ``key`` of the field called ``subject``."""
    question = f"Question {number}"
    # Every figure has a default, so that words not asked for still format.
    values = {"limit": 0, "minimum": 0, "smallest": 0, "low": 0, "high": 0, "count": 0, **values}
    words = {
        "empty": f"{subject} is empty: type {'the question' if subject == question else 'it in'}",
        "too_long": f"{subject} can be at most {values.get('limit')} characters long",
        "hidden_character": (
            f"{subject} contains an invisible or control character ({values.get('code')}, "
            f"character {values.get('position')}): type it again without it"
        ),
        "not_probability": FLIP_PROBABILITY_REFUSED,
        "probability_limits": FLIP_PROBABILITY_REFUSED,
        "probability_for_kind": (
            f"With {values.get('question')}, the flip probability can be at most "
            f"{values.get('limit')} ({values.get('why')})"
        ),
        "missing": f"{subject} is missing",
        "unclear_number": (
            f"{subject} is not clear: write 1000 without a thousands separator, or 1.5 with "
            "one decimal point or comma"
        ),
        "not_number": f"{subject} must be a number, like 10 or 2.5",
        "magnitude": (
            f"{subject} must be between -{values['limit']:,.0f} and {values['limit']:,.0f}"
        ),
        "decimals": f"{subject} can have at most {values.get('limit')} decimals",
        "max_not_above_min": (
            f"{question}’s largest answer must be above its smallest ({values['minimum']:g})"
        ),
        "range_too_small": (
            f"{question}’s largest answer must be at least {values['smallest']:g} "
            "above its smallest"
        ),
        "bounds": f"{question}’s smallest and largest answers are not a range a survey can use",
        "option_count": (
            f"{question} needs at least {values.get('low')} options"
            if values["count"] < values["low"]
            else f"{question} can have at most {values.get('high')} options, "
            f"not {values.get('count')}"
        ),
        "options_differ": f"{question} has the same option twice: its options must all differ",
        "no_questions": "The survey needs a question: add one below",
        "too_many_questions": f"A survey holds at most {values.get('limit')} questions",
        "type": f"{subject} is not one the builder offers: choose one from its list",
        "mechanism": f"{subject} is not one the builder offers: choose one from its list",
        "language": f"{subject} is not one the builder offers: choose one from its list",
    }
    return words.get(key, f"{subject} cannot be saved as it is")


def errors_heading(errors: list[BuilderError]) -> str:
    """The summary's heading: "Not saved yet: 2 things to change"."""
    return f"Not saved yet: {counted(len(errors), 'thing')} to change"


def wide_heading(wide: list) -> str:
    """The question's heading before saving ranges much wider than before."""
    return (
        "Not saved yet: " + ("a range" if len(wide) == 1 else "ranges") + " much wider than before"
    )


@dataclass(frozen=True)
class WideRange:
    """A question whose range is now much wider than the one typed before: what to ask."""

    index: int
    words: str


def wide_range_words(index: int, now: tuple, before: tuple) -> WideRange:
    """ "Question 1’s range is now 0 to 1012, a hundred times wider than 0 to 10 before." """
    ratio = (now[1] - now[0]) / (before[1] - before[0])
    times = "a hundred" if ratio < 1000 else "a thousand" if ratio < 1_000_000 else "a million"
    return WideRange(
        index,
        f"Question {index + 1}’s range is now {format_number(now[0])} to "
        f"{format_number(now[1])}, {times} times wider than {format_number(before[0])} to "
        f"{format_number(before[1])} before. Save it anyway?",
    )
