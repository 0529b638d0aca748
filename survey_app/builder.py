"""The survey builder's form: its fields as a survey definition, and a survey as its fields.

The definition is checked by :func:`survey_app.surveys.parse_definition`, the same rules as
definition files; here the form's lists of fields (one of each per question, so that their
indices line up) become that definition's questions.
"""

from __future__ import annotations

import re

from flask import request

from survey_app.models import Survey
from survey_app.surveys import MAX_EXPECTED_RESPONDENTS


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
    try:
        flip_probability: object = float(raw_p)
    except ValueError:
        flip_probability = raw_p
    definition = {
        "title": form.get("title", ""),
        "intro": form.get("intro", ""),
        "flip_probability": flip_probability,
        "questions": questions,
    }
    # The planner's class size is saved with the survey (a numeric question's mechanism is
    # chosen for it); one the planner refuses is said there, and the survey keeps its default.
    class_size = form.get("class_size", "").strip()
    if len(class_size) <= 6 and class_size.isascii() and class_size.isdigit():
        if 2 <= int(class_size) <= MAX_EXPECTED_RESPONDENTS:
            definition["expected_respondents"] = int(class_size)
    return definition


#: A numeric question's builder fields (named question_<field>, one per question).
NUMERIC_FIELDS = ("min", "max", "unit", "mechanism")


#: A bound typed with a comma before exactly three digits ("1,000": a thousand in English, one
#: in French), a point after one to three digits and before three ("1.000": a thousand in
#: German, one in English), or several separators ("1.000,5", "1,000,000"): ambiguous, so
#: refused. "0.125" is clear: no one groups a thousand after a 0.
_AMBIGUOUS_NUMBER = re.compile(r"[^,.]*,\d{3}|[-+]?[1-9]\d{0,2}\.\d{3}|[^,.]*[,.][^,.]*[,.].*")


def numeric_from_form(typed: dict[str, str]) -> dict:
    """A numeric question's bounds as typed: numbers where they parse (else the text, which the
    definition's check names), the unit, and the mechanism unless "automatic" (empty).

    One decimal comma is a decimal point ("2,5" is 2.5); an ambiguous bound ("1,000", "1.000,5")
    stays text, which the check refuses, asking for 1000 or 1.5.
    """
    question: dict[str, object] = {"unit": typed["unit"]}
    for name in ("min", "max"):
        text = typed[name].strip()
        if _AMBIGUOUS_NUMBER.fullmatch(text):
            question[name] = text
            continue
        try:
            question[name] = float(text.replace(",", ".")) if len(text) <= 40 else text
        except ValueError:
            question[name] = text
    if typed["mechanism"]:
        question["mechanism"] = typed["mechanism"]
    return question


def definition_of(survey: Survey) -> dict:
    """A survey as the builder's fields show it (the inverse of definition_from_form)."""
    return {
        "title": survey.title,
        "intro": survey.intro,
        "flip_probability": survey.flip_probability,
        "expected_respondents": survey.expected_respondents,
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
