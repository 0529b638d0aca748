"""A yes/no question: randomized response over two values, No (0) and Yes (1)."""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext

from survey_app.kinds.base import Kind

#: Labels of a yes/no question's two answers, by value (0 = no, 1 = yes).
YES_NO_LABELS = ("No", "Yes")
#: The same words as a page shows them, in its language: the students' page and the results'
#: sentences (the tables, the projector's summary and the CSV files keep YES_NO_LABELS).
SHOWN_LABELS = {"No": lazy_gettext("No"), "Yes": lazy_gettext("Yes")}


class YesNo(Kind):
    name = "yes_no"
    label = lazy_gettext("Yes / no")
    add_words = "a yes/no question"
    add_label = lazy_gettext("Add a yes/no question")
    worded_values = (1,)
    lesson_form = "flip"
    #: "Yes", the second option ("No" being the rest).
    lesson_follows = 1
    partial = "kinds/yes_no.html"
    script = "js/kinds/yes-no.js"
    script_role = lazy_gettext("reads a Yes or No answer and has it scrambled")

    def option_labels(self, question: Any) -> list[str]:
        return list(YES_NO_LABELS)

    def shown_labels(self, question: Any) -> list[str]:
        return [self.shown_label(label) for label in YES_NO_LABELS]

    def shown_order(self, count: int) -> tuple[int, ...]:
        # Yes first.
        return (1, 0)

    def shown_label(self, label: str) -> str:
        return str(SHOWN_LABELS.get(label, label))

    def way(self, flip_percent: str) -> str:
        return f"flips a yes/no answer {flip_percent}% of the time"


KIND = YesNo()
