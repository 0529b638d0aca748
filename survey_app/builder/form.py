"""The survey builder's form: its fields as a survey definition, and a survey as its fields.

The definition is checked by :func:`survey_app.surveys.services.parse_definition`, the same rules as
definition files; here the form's lists of fields (one of each per question, so that their
indices line up) become that definition's questions.
"""

from __future__ import annotations

import decimal
import json
import math

from flask import request
from flask_babel import lazy_gettext

from survey_app import kinds, privacy
from survey_app.kinds.numeric import typed_or_text
from survey_app.planning import shares as planning
from survey_app.storage.models import Survey
from survey_app.surveys.definition_checks import MAX_QUESTION_LENGTH
from survey_app.surveys.services import (
    BUILDER_FLIP_PROBABILITIES,
    MAX_INTRO_LENGTH,
    MAX_TITLE_LENGTH,
)
from survey_app.surveys.typed_numbers import typed_number
from survey_app.surveys.words import flip_probability_hint
from survey_app.web.languages import is_english
from survey_app.words import format_number

#: What Warner's q field takes (q = 2 p, twice the flip probabilities the builder takes),
#: beside its label.
WARNER_HINT = lazy_gettext("(%(low)s to %(high)s)")


def field_limits() -> dict:
    """The builder's fields' limits, as its inputs give them to the browser and its labels say
    them: the definition's lengths, the flip probability's range and Warner's q's. The
    decimal fields are text (typed by survey_app.surveys.typed_numbers, "0,3" too): their
    limits are said in words, never by a browser's own check."""
    low, high = BUILDER_FLIP_PROBABILITIES
    warner = {
        "low": figure_g(privacy.warner_q_from_flip_probability(low)),
        "high": figure_g(privacy.warner_q_from_flip_probability(high)),
    }
    return {
        "title_length": MAX_TITLE_LENGTH,
        "intro_length": MAX_INTRO_LENGTH,
        "question_length": MAX_QUESTION_LENGTH,
        "flip_hint": flip_probability_hint(),
        "warner_hint": str(WARNER_HINT) % warner,
    }


def figure_g(value: float) -> str:
    """A probability the builder suggests or takes, as its words say it: "%g" in English (as
    the page always said it), else the page language's way ("0,3")."""
    return f"{value:g}" if is_english() else format_number(value)


def definition_from_form() -> dict:
    """The builder's fields as a survey definition, checked by the same rules as files."""
    form = request.form
    texts = form.getlist("question_text")
    names = form.getlist("question_type")
    questions = []
    for index, text in enumerate(texts):
        name = names[index] if index < len(names) else next(iter(kinds.KINDS))
        question = {"text": text, "type": name}
        if name in kinds.KINDS:  # else the definition's check names the type
            kind = kinds.kind_named(name)
            typed = {field: _typed(f"question_{field}", index) for field in kind.form_fields()}
            question.update(kind.from_form(typed))
        questions.append(question)
    raw_p = form.get("flip_probability", "").strip()
    flip_probability = typed_or_text(raw_p)
    definition = {
        "title": form.get("title", ""),
        "intro": form.get("intro", ""),
        "flip_probability": flip_probability,
        "questions": questions,
        "show_results_after_close": form.get("show_results_after_close") == "1",
    }
    # The students' language: a shipped one's code, or none (each browser decides).
    if form.get("language"):
        definition["language"] = form["language"]
    # The planner's class size is saved with the survey (a numeric question's mechanism is
    # chosen for it), read by the planner's rule; one it refuses is not saved, and saving
    # says why beside the field (builder.views.checked_draft).
    class_size, _ = planning.parse_class_size(form.get("class_size"))
    if class_size is not None:
        definition["expected_respondents"] = class_size
    return definition


def _typed(name: str, index: int) -> str:
    """The ``index``-th of the form's fields named ``name`` (one per question), "" if none."""
    values = request.form.getlist(name)
    return values[index] if index < len(values) else ""


def warner_flip_probability(typed_q: str) -> float | None:
    """The flip probability q / 2 that Warner's coins set, for the q typed (None if unclear)."""
    warner_q = typed_number(typed_q)
    return None if warner_q is None else privacy.flip_probability_from_warner_q(warner_q)


def warner_q_shown(flip_probability: object) -> str:
    """The q that Warner's coins field shows for the flip probability in the form ('' if that
    is not a number): q = 2 p, to six significant digits."""
    if isinstance(flip_probability, bool) or not isinstance(flip_probability, int | float):
        return ""
    if not math.isfinite(flip_probability):
        return ""
    return f"{privacy.warner_q_from_flip_probability(flip_probability):g}"


def shown_bound(value: object) -> str:
    """A bound as its field shows it again: a number without needless decimals and exactly as
    read (1.1234567 stays so, for its error to be seen), else the text as typed."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "" if value is None else str(value)
    shown = format_number(value)
    if typed_number(shown) == value:  # "2,5" too, where the page's language writes it so
        return shown
    return format(decimal.Decimal(repr(float(value))).normalize(), "f")


def definition_of(survey: Survey) -> dict:
    """A survey as the builder's fields show it (the inverse of definition_from_form)."""
    return {
        "title": survey.title,
        "intro": survey.intro,
        "flip_probability": survey.flip_probability,
        "expected_respondents": survey.expected_respondents,
        "show_results_after_close": survey.show_results_after_close,
        "language": survey.language,
        # Each question has its own kind's fields only: a number question given an empty
        # options list would be a question its kind refuses (and the planner leave it out).
        "questions": [
            {"text": kinds.kind_of(q).builder_text(q), "type": q.kind}
            | kinds.kind_of(q).to_definition(q)
            for q in survey.questions
        ],
    }


# --------------------------------------------------------------------------- undo, wide ranges

#: A removed question's fields, as the builder carries them for its undo (a pair's two
#: questions too, each shown again as its kind's builder fields read them).
_REMOVED_FIELDS = {"text", "type", "options", "min", "max", "unit", "mechanism", "questions"}
#: A range at least this many times wider than the one typed before is asked about first.
WIDE_RANGE_FACTOR = 100


def removed_from_form() -> tuple[int, dict, tuple | None] | None:
    """The question the last button removed (its place, its fields, its range before), as the
    page carries it in a hidden field until the next button; None if none (or not readable)."""
    raw = request.form.get("removed_question", "")
    if not raw or len(raw) > 100_000:
        return None
    try:
        carried = json.loads(raw)
        index, question, before = carried["index"], carried["question"], carried.get("before")
    except (ValueError, KeyError, TypeError, RecursionError):  # deep nesting: no question
        return None
    if not isinstance(index, int) or isinstance(index, bool) or not isinstance(question, dict):
        return None
    if set(question) - _REMOVED_FIELDS or not all(
        isinstance(value, str | int | float | list) for value in question.values()
    ):
        return None
    earlier = dict(zip(("min", "max"), before, strict=False)) if isinstance(before, list) else {}
    return index, question, range_of(earlier)


def removed_field(index: int, question: dict, before: tuple | None) -> str:
    """The hidden field that carries a removed question until the next button (JSON)."""
    return json.dumps({"index": index, "question": question, "before": before})


def range_of(question: dict) -> tuple[float, float] | None:
    """A question's bounds if both are numbers, the smallest below the largest; else None."""
    bounds = (question.get("min"), question.get("max"))
    if not all(isinstance(b, int | float) and not isinstance(b, bool) for b in bounds):
        return None
    if not all(math.isfinite(b) for b in bounds) or not bounds[0] < bounds[1]:
        return None
    return float(bounds[0]), float(bounds[1])


def is_much_wider(now: tuple | None, before: tuple | None) -> bool:
    """Whether the range ``now`` is WIDE_RANGE_FACTOR times as wide as ``before`` or more."""
    if now is None or before is None:
        return False
    return now[1] - now[0] >= WIDE_RANGE_FACTOR * (before[1] - before[0])


def ranges_before_from_form(count: int) -> list[tuple[float, float] | None]:
    """Each question's range as the page last showed it (hidden fields), None where none."""
    lows = request.form.getlist("question_min_before")
    highs = request.form.getlist("question_max_before")
    ranges = []
    for index in range(count):
        typed = {
            "min": typed_number(lows[index]) if index < len(lows) else None,
            "max": typed_number(highs[index]) if index < len(highs) else None,
        }
        ranges.append(range_of(typed))
    return ranges


def ranges_to_carry(definition: dict, before: list) -> list[tuple[float, float] | None]:
    """The ranges before that the page carries on: each question's range as now typed, unless
    it has none or is much wider than the one before (then that one stays, to ask on saving)."""
    carried = []
    for question, earlier in zip(definition["questions"], before, strict=True):
        now = range_of(question)  # None for a question without bounds
        carried.append(earlier if now is None or is_much_wider(now, earlier) else now)
    return carried
