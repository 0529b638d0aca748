"""What every kind of question says for itself (see survey_app.kinds)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from survey_app import privacy
from survey_app.surveys.definition_checks import refused


@dataclass(frozen=True)
class QuestionDefinition:
    """One question of a checked definition, as its kind parsed it."""

    text: str
    kind: str
    choices: tuple[str, ...] | None = None
    #: A numeric question's bounds, unit ("" if none) and named mechanism (None: chosen).
    minimum: float | None = None
    maximum: float | None = None
    unit: str | None = None
    mechanism: str | None = None
    #: A paired question's two questions, each as its own kind parsed it (None otherwise).
    parts: tuple[QuestionDefinition, ...] | None = None


@dataclass(frozen=True)
class PartQuestion:
    """One of the questions asked together in a question: its text, its option labels by
    value, and the values its own shares are worded by (a yes/no question's: its "Yes")."""

    text: str
    labels: tuple[str, ...]
    worded: tuple[int, ...]


class Kind:
    """A kind of question. Subclasses set the class attributes and override what differs."""

    #: Its name in definitions (``"type"``) and in storage (questions.kind, at most 10 letters).
    name: ClassVar[str]
    #: How the builder's list of kinds names it.
    label: ClassVar[str]
    #: The definition's fields it has beyond ``text`` and ``type``.
    fields: ClassVar[tuple[str, ...]] = ()
    #: Its definition must give a ``text`` (False: the kind makes one when none is given).
    text_required: ClassVar[bool] = True
    #: Its answers are one of its option labels (counted per option, every option tallied when
    #: the survey opens); False: answers are numbers, counted as they arrive.
    has_options: ClassVar[bool] = True
    #: The values whose shares the results put in words (None: every option's). A yes/no
    #: question's are (1,): "Yes", its "No" being the rest.
    worded_values: ClassVar[tuple[int, ...] | None] = None
    #: How the lesson works its steps out: "flip" (randomized response with one flip probability
    #: p), "options" (k-option randomized response, P and Q), "cells" (as "options", over the
    #: cells of two questions asked together, with a step on what that keeps of how they go
    #: together) or "number" (its numeric mechanism).
    lesson_form: ClassVar[str] = "options"
    #: The option whose share the lesson follows through its steps (by position).
    lesson_follows: ClassVar[int] = 0
    #: Its builder fields beyond text and type (a template; None: none), what its "Add"
    #: button adds ("a yes/no question"), and that button's label, one whole phrase of the
    #: catalog ("Add a yes/no question"; None: "Add" and add_words, in English).
    builder_partial: ClassVar[str | None] = None
    add_words: ClassVar[str]
    add_label: ClassVar[str | None] = None
    #: What the builder says beside a question's text field for this kind (None: nothing).
    builder_text_hint: ClassVar[str | None] = None
    #: Its answers to two questions are randomized together as one: planned by how often a
    #: class sees a relation between them (planned_shape), not by a margin of shares.
    joint: ClassVar[bool] = False
    #: Its respondent fieldset (a template), its page module (in the static folder: it reads
    #: the answer from that fieldset and asks randomized-response.js for the value to send)
    #: and what that module does, as the respondent page lists its scripts.
    partial: ClassVar[str]
    script: ClassVar[str]
    script_role: ClassVar[str]
    #: The highest flip probability a survey asking it may have (None: any), the question it
    #: is said of in files and in the builder, and why.
    max_flip_probability: ClassVar[float | None] = None
    flip_limit_words: ClassVar[tuple[str, str, str]] = ("", "", "")
    #: The builder's refusal of a higher flip probability, one whole sentence of the catalog
    #: with ``%(limit)s`` (None: put together from flip_limit_words, in English).
    flip_limit_refused: ClassVar[str | None] = None

    def add_button(self) -> str:
        """The label of the builder's button that adds a question of this kind."""
        return str(self.add_label) if self.add_label else f"Add {self.add_words}"

    def parse(self, field: str, text: str, raw: dict) -> QuestionDefinition:
        """The question ``raw`` (a definition's dict, already holding only known fields) checked,
        or SurveyDefinitionError naming ``field`` (its JSON path) and what is wrong."""
        if "options" in raw:
            raise refused(
                f"{field}.options", "no_options", f"a {self.name} question has no options"
            )
        return QuestionDefinition(text, self.name)

    def to_definition(self, question: Any) -> dict:
        """A stored question's fields beyond ``text`` and ``type``, as a definition writes them."""
        return {}

    def parts_stored(self, definition: QuestionDefinition) -> list[dict] | None:
        """What storage keeps of a defined question's parts (questions.parts); None: none."""
        return None

    def blank(self) -> dict:
        """The new question the builder's "Add" button for this kind adds."""
        return {"text": "", "type": self.name}

    def form_fields(self) -> tuple[str, ...]:
        """The builder's fields of this kind, one each a question (posted as question_<name>):
        its definition's fields, unless the kind's builder partial has others."""
        return self.fields

    def builder_text(self, question: Any) -> str:
        """A stored question's text as the builder's text field shows it again."""
        return question.text

    def planned_shape(self, question: dict) -> tuple[int, int] | None:
        """For a joint kind, ``(k1, k2)`` of a builder's question as typed once it can be
        planned (None: not yet, or not a joint kind)."""
        return None

    def from_form(self, typed: dict[str, str]) -> dict:
        """The builder's fields of one question (``options``, ``min``... as typed) as a
        definition's fields beyond ``text`` and ``type``; the definition's checks judge them."""
        return {}

    def mechanism(self, question: Any) -> privacy.Mechanism:
        """What the browser does to an answer (the survey's flip, over the options)."""
        return privacy.RandomizedResponse(
            question.survey.flip_probability, len(self.option_labels(question))
        )

    def option_labels(self, question: Any) -> list[str]:
        """The labels of the values a respondent can report, by value (none for a number)."""
        return []

    def shown_labels(self, question: Any) -> list[str]:
        """The labels as a respondent's page shows them, in its language: the author's own
        words as written, unless the kind's labels are the app's."""
        return self.option_labels(question)

    def shown_order(self, count: int) -> tuple[int, ...]:
        """The order a respondent's page lists the ``count`` options' values in."""
        return tuple(range(count))

    def part_questions(self, question: Any) -> tuple[PartQuestion, ...]:
        """The questions asked together in it, for the results' cross-tabulation; none for a
        question asked alone."""
        return ()

    def shown_label(self, label: str) -> str:
        """One of the kind's labels as a page shows it, in its language (the results' words):
        the author's own words as written, unless the kind's labels are the app's."""
        return label

    def at_open(self, question: Any) -> None:
        """Fix what must not change once the survey opens (browsers randomize with it)."""

    def way(self, flip_percent: str) -> str:
        """What the respondent's browser does to an answer, in words ("flips a yes/no ...")."""
        raise NotImplementedError
