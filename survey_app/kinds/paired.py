"""Two questions asked together: their answers randomized as one, to show how they go together.

A paired question holds two yes/no or multiple-choice questions (its parts, of k1 and k2
options, k1 k2 <= 12). The browser sends one value for the pair: the cell ``a k2 + b`` of Q1's
answer a and Q2's answer b, randomized over the k1 k2 cells at the survey's flip probability
(privacy.JointRandomizedResponse), so the pair spends the survey's epsilon once.

Its definition is ``{"type": "paired", "questions": [Q1, Q2]}``, each part written as a question
of its own kind; a ``text`` is optional: without one, the pair is named by its parts' texts.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

from flask_babel import lazy_gettext

from survey_app import privacy
from survey_app.kinds.base import Kind, PartQuestion, QuestionDefinition
from survey_app.kinds.choice import KIND as CHOICE
from survey_app.kinds.yes_no import KIND as YES_NO
from survey_app.surveys.definition_checks import MAX_QUESTION_LENGTH, checked_text, refused

#: How many questions a pair holds.
PARTS = 2
#: The kinds a pair's questions may be, by name: those answered by one of their options.
PAIRABLE: dict[str, Kind] = {kind.name: kind for kind in (YES_NO, CHOICE)}
#: What joins the labels of a cell's two answers ("Yes / No"), in tables and CSV files.
CELL_SEPARATOR = " / "
#: The builder's fields of each of its questions (question_part1_text, question_part2_type...).
PART_FIELDS = ("text", "type", "options")


def default_text(texts: list[str] | tuple[str, ...]) -> str:
    """The name of a pair whose definition gives no text: its two questions' texts."""
    return CELL_SEPARATOR.join(texts)


def _part(stored: dict) -> SimpleNamespace:
    """A stored part as its own kind reads a question (its ``kind`` and ``choices``)."""
    return SimpleNamespace(text=stored["text"], kind=stored["type"], choices=stored.get("options"))


class Paired(Kind):
    name = "paired"
    label = lazy_gettext("Two questions together")
    fields = ("questions",)
    text_required = False
    add_words = "two questions together"
    add_label = lazy_gettext("Ask two questions together to see how they relate")
    partial = "kinds/paired.html"
    script = "js/kinds/paired.js"
    script_role = lazy_gettext("reads your two answers and has them scrambled together, as one")
    #: Its cells are the options of a k1 k2-option question; the lesson adds a step on the pair.
    lesson_form = "cells"
    builder_partial = "kinds/paired_builder.html"
    builder_text_hint = lazy_gettext(
        "(a heading for the two questions, optional: without one, they are named by their texts)"
    )
    #: Beside the pair's fields in the builder: how many options the two may have.
    builder_hint = lazy_gettext(
        "Their options make at most %(high)s pairs of answers: 2 and 6 options, or 3 and 4.",
        high=privacy.MAX_OPTIONS,
    )
    joint = True
    #: The kind whose options a part's options field is for, and what that field takes.
    options_kind = CHOICE.name
    options_hint = CHOICE.options_hint

    def parse(self, field: str, text: str, raw: dict) -> QuestionDefinition:
        """Two yes/no or choice questions, each checked as its kind checks it; 12 cells at most."""
        if "options" in raw:
            raise refused(f"{field}.options", "no_options", "a paired question has no options")
        questions = raw.get("questions")
        if not isinstance(questions, list) or len(questions) != PARTS:
            detail = "a paired question needs a list of two questions"
            raise refused(f"{field}.questions", "pair_questions", detail)
        parts = tuple(
            _parse_part(f"{field}.questions[{index}]", question)
            for index, question in enumerate(questions)
        )
        cells = _option_count(parts[0]) * _option_count(parts[1])
        if cells > privacy.MAX_OPTIONS:
            detail = (
                f"the two questions’ options make {cells} pairs of answers; "
                f"at most {privacy.MAX_OPTIONS}"
            )
            raise refused(
                f"{field}.questions", "pair_cells", detail, count=cells, high=privacy.MAX_OPTIONS
            )
        return QuestionDefinition(
            text or default_text([part.text for part in parts]), self.name, parts=parts
        )

    def parts_stored(self, definition: QuestionDefinition) -> list[dict] | None:
        return [
            {"text": part.text, "type": part.kind}
            | ({"options": list(part.choices)} if part.choices else {})
            for part in definition.parts or ()
        ]

    def to_definition(self, question: Any) -> dict:
        return {"questions": [dict(part) for part in question.parts or ()]}

    def blank(self) -> dict:
        return super().blank() | {
            "questions": [{"text": "", "type": "yes_no"}, {"text": "", "type": "yes_no"}]
        }

    # ---------------------------------------------------------------- in the builder

    @property
    def pairable(self) -> list[Kind]:
        """The kinds its questions may be, as the builder offers them."""
        return list(PAIRABLE.values())

    def form_fields(self) -> tuple[str, ...]:
        return tuple(f"part{n}_{field}" for n in range(1, PARTS + 1) for field in PART_FIELDS)

    def from_form(self, typed: dict[str, str]) -> dict:
        # Each question as its own kind reads its builder fields (a choice's options, a line
        # each); a type the builder does not offer is left for the definition's check to name.
        questions = []
        for n in range(1, PARTS + 1):
            part = {"text": typed[f"part{n}_text"], "type": typed[f"part{n}_type"]}
            kind = PAIRABLE.get(part["type"])
            if kind is not None:
                part |= kind.from_form({field: typed[f"part{n}_{field}"] for field in kind.fields})
            questions.append(part)
        return {"questions": questions}

    def builder_text(self, question: Any) -> str:
        # Its heading: a pair named by its questions' texts shows an empty field, so that it
        # is named by them again however they change.
        return self.heading(question) or ""

    def builder_parts(self, question: dict) -> list[dict]:
        """Its two questions as the builder's fields show them: text, type and options (as
        strings, blank where the question has none, whatever was posted or carried)."""
        given = question.get("questions")
        given = given if isinstance(given, list) else []
        shown = []
        for index in range(PARTS):
            part = given[index] if index < len(given) and isinstance(given[index], dict) else {}
            options = part.get("options")
            shown.append(
                {
                    "text": str(part.get("text") or ""),
                    "type": part.get("type") if isinstance(part.get("type"), str) else None,
                    "options": [str(o) for o in options] if isinstance(options, list) else [],
                }
            )
        return shown

    def planned_shape(self, question: dict) -> tuple[int, int] | None:
        """How many options each of its questions has, as typed, once the pair can be asked
        (each 2 to 12 options, 12 pairs of answers at most); None until then."""
        counts = []
        for part in self.builder_parts(question):
            kind = PAIRABLE.get(part["type"])
            if kind is None:
                return None
            counts.append(len(kind.option_labels(SimpleNamespace(choices=part["options"]))))
        first, second = counts
        if min(counts) < 2 or first * second > privacy.MAX_OPTIONS:
            return None
        return first, second

    # ---------------------------------------------------------------- its two questions

    def parts(self, question: Any) -> list[SimpleNamespace]:
        """The two questions, each read as its own kind reads a question."""
        return [_part(stored) for stored in question.parts or ()]

    def part_labels(self, question: Any) -> list[list[str]]:
        """Each question's option labels, by value (a yes/no question's: No, Yes)."""
        return [PAIRABLE[part.kind].option_labels(part) for part in self.parts(question)]

    def part_questions(self, question: Any) -> tuple[PartQuestion, ...]:
        """Each question's text, labels and worded values: the rows' then the columns'."""
        return tuple(
            PartQuestion(
                part.text,
                tuple(labels),
                PAIRABLE[part.kind].worded_values or tuple(range(len(labels))),
            )
            for part, labels in zip(self.parts(question), self.part_labels(question), strict=True)
        )

    def shape(self, question: Any) -> tuple[int, int]:
        """``(k1, k2)``: how many options each question has."""
        first, second = self.part_labels(question)
        return len(first), len(second)

    def shown_parts(self, question: Any) -> list[dict]:
        """Each question as the students' page shows it: its text, and its options' values and
        labels in the order its own kind lists them (a yes/no question: Yes first)."""
        shown = []
        for part in self.parts(question):
            kind = PAIRABLE[part.kind]
            labels = kind.shown_labels(part)
            values = kind.shown_order(len(labels))
            shown.append({"text": part.text, "options": [(v, labels[v]) for v in values]})
        return shown

    def heading(self, question: Any) -> str | None:
        """The pair's own text, when its definition gave one (None: it is named by its parts)."""
        texts = [part.text for part in self.parts(question)]
        return None if question.text == default_text(texts) else question.text

    # ---------------------------------------------------------------- its cells

    def mechanism(self, question: Any) -> privacy.Mechanism:
        """The pair's answers randomized as one, over its k1 k2 cells."""
        return _joint_mechanism(question.survey.flip_probability, self.shape(question))

    def option_labels(self, question: Any) -> list[str]:
        """Each cell's label, by report ``a k2 + b``: "Yes / No"."""
        first, second = self.part_labels(question)
        return [CELL_SEPARATOR.join((a, b)) for a in first for b in second]

    def shown_labels(self, question: Any) -> list[str]:
        first, second = (
            [PAIRABLE[part.kind].shown_label(label) for label in labels]
            for part, labels in zip(self.parts(question), self.part_labels(question), strict=True)
        )
        return [CELL_SEPARATOR.join((a, b)) for a in first for b in second]

    def shown_label(self, label: str) -> str:
        # A cell's label, each answer as the kinds show it (Yes and No in the page's language).
        return CELL_SEPARATOR.join(_shown_answer(half) for half in label.split(CELL_SEPARATOR))

    def way(self, flip_percent: str) -> str:
        return "swaps a pair of answers for another pair at random"


def _parse_part(field: str, raw: object) -> QuestionDefinition:
    """One of a pair's questions, checked as a question of its kind is."""
    if not isinstance(raw, dict):
        raise refused(field, "not_object", "must be an object with text and type")
    kind = PAIRABLE.get(raw.get("type")) if isinstance(raw.get("type"), str) else None
    if kind is None:
        names = " or ".join(repr(name) for name in PAIRABLE)
        detail = f"a paired question pairs {names} questions, got {raw.get('type')!r}"
        raise refused(f"{field}.type", "pair_kind", detail)
    unknown = set(raw) - {"text", "type", *kind.fields}
    if unknown:
        raise refused(field, "unknown_field", f"unknown field {sorted(unknown)[0]!r}")
    text = checked_text(f"{field}.text", raw.get("text"), MAX_QUESTION_LENGTH, line_breaks=True)
    return kind.parse(field, text, raw)


def _shown_answer(label: str) -> str:
    """One answer's label as the pairable kinds show it: the app's own words translated
    ("Yes"), an author's as written."""
    for kind in PAIRABLE.values():
        shown = str(kind.shown_label(label))
        if shown != label:
            return shown
    return label


def _option_count(part: QuestionDefinition) -> int:
    """How many options a pairable question has (a yes/no question: 2)."""
    labels = PAIRABLE[part.kind].option_labels(SimpleNamespace(choices=part.choices))
    return len(labels)


KIND = Paired()


@functools.lru_cache(maxsize=256)
def _joint_mechanism(flip_probability: float, shape: tuple[int, int]) -> privacy.Mechanism:
    # Built once a (p, shape): a mechanism is immutable, and each submission reads one.
    return privacy.JointRandomizedResponse(flip_probability, shape)
