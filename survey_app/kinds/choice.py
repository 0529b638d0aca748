"""A multiple-choice question: randomized response over its 2 to 12 options."""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext

from survey_app import privacy
from survey_app.kinds.base import Kind, QuestionDefinition
from survey_app.surveys.definition_checks import checked_text, refused

MIN_OPTIONS = 2
MAX_OPTION_LENGTH = 200


class Choice(Kind):
    name = "choice"
    label = lazy_gettext("Multiple choice")
    fields = ("options",)
    add_words = "a multiple-choice question"
    add_label = lazy_gettext("Add a multiple-choice question")
    builder_partial = "kinds/choice_builder.html"
    partial = "kinds/choice.html"
    script = "js/kinds/choice.js"
    script_role = lazy_gettext("reads the option you pick and has it scrambled")
    #: What the builder's options field takes, beside its label.
    options_hint = lazy_gettext(
        "(%(low)s to %(high)s; multiple choice only)", low=MIN_OPTIONS, high=privacy.MAX_OPTIONS
    )

    def parse(self, field: str, text: str, raw: dict) -> QuestionDefinition:
        """2 to 12 options, each a text of its own."""
        options = raw.get("options")
        if not isinstance(options, list):
            detail = "a choice question needs a list of options"
            raise refused(f"{field}.options", "options_list", detail)
        if not MIN_OPTIONS <= len(options) <= privacy.MAX_OPTIONS:
            raise refused(
                f"{field}.options",
                "option_count",
                f"must have {MIN_OPTIONS} to {privacy.MAX_OPTIONS} options, got {len(options)}",
                count=len(options),
                low=MIN_OPTIONS,
                high=privacy.MAX_OPTIONS,
            )
        labels = tuple(
            checked_text(f"{field}.options[{number}]", option, MAX_OPTION_LENGTH)
            for number, option in enumerate(options)
        )
        if len(set(labels)) != len(labels):
            raise refused(f"{field}.options", "options_differ", "options must all differ")
        return QuestionDefinition(text, self.name, labels)

    def to_definition(self, question: Any) -> dict:
        return {"options": list(question.choices or [])}

    def blank(self) -> dict:
        return super().blank() | {"options": ["", ""]}

    def from_form(self, typed: dict[str, str]) -> dict:
        # One option a line, as the builder's text area has them.
        return {"options": [line.strip() for line in typed["options"].splitlines() if line.strip()]}

    def option_labels(self, question: Any) -> list[str]:
        return list(question.choices or [])

    def way(self, flip_percent: str) -> str:
        return "swaps a multiple-choice answer for another option at random"


KIND = Choice()
