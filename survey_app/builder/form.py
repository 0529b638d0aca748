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

from survey_app import privacy
from survey_app.planning import shares as planning
from survey_app.storage.models import Survey
from survey_app.surveys.typed_numbers import typed_number
from survey_app.words import format_number


def definition_from_form() -> dict:
    """The builder's fields as a survey definition, checked by the same rules as files."""
    form = request.form
    texts = form.getlist("question_text")
    kinds = form.getlist("question_type")
    options = form.getlist("question_options")
    numeric = {name: form.getlist(f"question_{name}") for name in NUMERIC_FIELDS}
    questions = []
    for index, text in enumerate(texts):
        kind = kinds[index] if index < len(kinds) else "yes_no"
        question = {"text": text, "type": kind}
        if kind == "choice":
            raw = options[index] if index < len(options) else ""
            question["options"] = [line.strip() for line in raw.splitlines() if line.strip()]
        if kind == "numeric":
            typed = {
                name: values[index] if index < len(values) else ""
                for name, values in numeric.items()
            }
            question.update(numeric_from_form(typed))
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
    # The planner's class size is saved with the survey (a numeric question's mechanism is
    # chosen for it), read by the planner's rule; one it refuses is not saved, and saving
    # says why beside the field (builder.views.checked_draft).
    class_size, _ = planning.parse_class_size(form.get("class_size"))
    if class_size is not None:
        definition["expected_respondents"] = class_size
    return definition


#: A numeric question's builder fields (named question_<field>, one per question).
NUMERIC_FIELDS = ("min", "max", "unit", "mechanism")


def typed_or_text(text: str) -> float | str:
    """A number typed in a field, by the one rule of survey_app.surveys.typed_numbers; else the
    text,
    which the definition's check names (asking how to write it, if it is unclear)."""
    value = typed_number(text)
    return text if value is None else value


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


def numeric_from_form(typed: dict[str, str]) -> dict:
    """A numeric question's bounds as typed: numbers where they are clear (else the text, which
    the definition's check names), the unit, and the mechanism unless "automatic" (empty).

    One decimal comma is a decimal point ("2,5" is 2.5); an unclear bound ("1,000", "1.000,5")
    stays text, which the check refuses, asking for 1000 or 1.5.
    """
    question: dict[str, object] = {"unit": typed["unit"]}
    for name in ("min", "max"):
        question[name] = typed_or_text(typed[name].strip())
    if typed["mechanism"]:
        question["mechanism"] = typed["mechanism"]
    return question


def shown_bound(value: object) -> str:
    """A bound as its field shows it again: a number without needless decimals and exactly as
    read (1.1234567 stays so, for its error to be seen), else the text as typed."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "" if value is None else str(value)
    shown = format_number(value)
    if float(shown) == value:
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
        "questions": [
            {
                "text": q.text,
                "type": q.kind.value,
                "options": list(q.choices or []),
                **(
                    {"min": q.minimum, "max": q.maximum, "unit": q.unit or ""}
                    | ({"mechanism": q.numeric_mechanism} if q.numeric_mechanism else {})
                    if q.is_numeric
                    else {}
                ),
            }
            for q in survey.questions
        ],
    }


# --------------------------------------------------------------------------- undo, wide ranges

#: A removed question's fields, as the builder carries them for its undo.
_REMOVED_FIELDS = {"text", "type", "options", "min", "max", "unit", "mechanism"}
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
        now = range_of(question) if question.get("type") == "numeric" else None
        carried.append(earlier if now is None or is_much_wider(now, earlier) else now)
    return carried
