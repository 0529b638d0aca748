"""The builder's live readout in words (planning.shares works out its figures): what a class
of a given size will learn of each group of questions, the suggested flip probability, and the
class size's and the margin's refusals.

Each sentence is whole in the catalog, its figures filled in the page language's way; where
the readout lists questions, each part is a whole message and the language lists them.
"""

from __future__ import annotations

from flask_babel import gettext, ngettext

from survey_app.planning.numbers import all_of
from survey_app.web.languages import is_english
from survey_app.words import (
    format_count,
    format_number,
    format_points,
    grouped,
    percent,
    percent_figure,
    plural_number,
    points,
)


def figure_g(value: float) -> str:
    """A flip probability as the readout says it: "%g" in English, else "0,09"."""
    return f"{value:g}" if is_english() else format_number(value)


def class_size_not_whole() -> str:
    """A class size typed that is not a whole number."""
    return gettext("The class size must be a whole number of students, like 40.")


def class_size_outside(low: int, high: int) -> str:
    """A class size outside the sizes planned for."""
    return gettext(
        "The class size must be between %(low)s and %(high)s students.",
        low=grouped(low),
        high=grouped(high),
    )


def margin_meaning_sentence(confidence: float, margin: float, example_share: float) -> str:
    """What the builder's margins mean, with an example of ``margin`` around
    ``example_share``."""
    return gettext(
        "Margins are at %(confidence)s confidence: the range the dashboard gives holds the true "
        "share at least %(times)s times in 100, and is about this wide on average (%(margin)s "
        "around %(example)s means %(low)s to %(high)s). A higher flip probability gives each "
        "student more privacy, but needs more students for the same margin.",
        confidence=percent(confidence),
        times=percent_figure(confidence),
        margin=points(margin, long=True),
        example=percent(example_share),
        low=percent(example_share - margin),
        high=percent(example_share + margin),
    )


def group_label(is_yes_no: bool, options: int, names: tuple[str, ...]) -> str:
    """How the readout names a group of questions: "a yes/no question", "“How often?” (3
    options)"."""
    if is_yes_no:
        return gettext("a yes/no question")
    if len(names) <= 3:
        return ngettext(
            "%(names)s (%(count)s option)",
            "%(names)s (%(count)s options)",
            options,
            names=all_of(list(names)),
            count=options,
        )
    return ngettext(
        "the %(questions)s questions with %(count)s option",
        "the %(questions)s questions with %(count)s options",
        options,
        questions=grouped(len(names)),
        count=options,
    )


def known_within(label: str, margin: float, first: bool, next_to_nothing: bool) -> str:
    """What a class will learn of one group's shares: the first group said in full."""
    said = {"label": label, "margin": points(margin, long=first)}
    if first and next_to_nothing:
        return gettext(
            "%(label)s will be known within about %(margin)s, which says next to nothing", **said
        )
    if first:
        return gettext("%(label)s will be known within about %(margin)s", **said)
    if next_to_nothing:
        return gettext("%(label)s within %(margin)s, which says next to nothing", **said)
    return gettext("%(label)s within %(margin)s", **said)


def shares_sentences(parts: list[str], class_size: int, chebyshev: list[float]) -> str:
    """What a class will learn of each group's shares (``parts``: known_within's), and
    Chebyshev's figures beside."""
    learned = ngettext(
        "With %(count)s student, %(groups)s.",
        "With %(count)s students, %(groups)s.",
        class_size,
        count=grouped(class_size),
        groups="; ".join(parts),
    )
    figures = [f"±{format_points(each)}" for each in chebyshev]
    bound = ngettext(
        "Chebyshev’s bound with the exact variance would say %(figures)s point.",
        "Chebyshev’s bound with the exact variance would say %(figures)s points.",
        plural_number(float(format_points(chebyshev[-1]).replace(",", "."))),
        figures=all_of(figures),
    )
    return f"{learned} {bound}"


def nothing_to_plan() -> str:
    """No question the readout can plan yet."""
    return gettext(
        "Give each multiple-choice question its options (2 to 12), and each numeric question "
        "its bounds, to see what the class will learn."
    )


def too_close_to_half() -> str:
    """A flip probability whose options can no longer be told apart."""
    return gettext("This flip probability is too close to 0.5 to plan with.")


def coin_toss_warning(highest: float) -> str:
    """A flip probability above the highest the app suggests."""
    return gettext(
        "Above %(p)s almost every answer is a coin toss: the class will learn next to nothing.",
        p=figure_g(highest),
    )


def number_margin(amount: str, name: str) -> str:
    """A margin wanted of one number's average, in its unit: "±4 hours for “Hours?”"."""
    return gettext("±%(amount)s for %(name)s", amount=amount, name=name)


def wanted_words(wanted: str, amounts: list[str]) -> str:
    """The margin wanted, and what it is of each number's range."""
    return gettext("%(wanted)s (%(amounts)s)", wanted=wanted, amounts=all_of(amounts))


def suggestion_sentence(kind: str, suggested: float, wanted: str, class_size: int) -> str:
    """The suggestion in words: already yours (``kind`` "yours"), the most privacy offered
    ("most"), or the most private p that reaches the margin wanted ("reaches")."""
    said = {"p": figure_g(suggested), "wanted": wanted, "count": grouped(class_size)}
    if kind == "yours":
        return ngettext(
            "Your flip probability, %(p)s, is already the most private one that reaches "
            "%(wanted)s with %(count)s student.",
            "Your flip probability, %(p)s, is already the most private one that reaches "
            "%(wanted)s with %(count)s students.",
            class_size,
            **said,
        )
    if kind == "most":
        return ngettext(
            "With %(count)s student every question reaches %(wanted)s even at a flip probability "
            "of %(p)s, the most privacy this app suggests: use %(p)s.",
            "With %(count)s students every question reaches %(wanted)s even at a flip "
            "probability of %(p)s, the most privacy this app suggests: use %(p)s.",
            class_size,
            **said,
        )
    return ngettext(
        "For %(wanted)s with %(count)s student, use a flip probability of %(p)s: the most "
        "privacy that still reaches that margin for every question.",
        "For %(wanted)s with %(count)s students, use a flip probability of %(p)s: the most "
        "privacy that still reaches that margin for every question.",
        class_size,
        **said,
    )


def too_few_sentence(floor: float, class_size: int, wanted: str, needed: int) -> str:
    """No flip probability the app suggests reaches the margin with this class."""
    said = {
        "p": figure_g(floor),
        "count": grouped(class_size),
        "wanted": wanted,
        "needed": format_count(needed),
    }
    return ngettext(
        "Even at a flip probability of %(p)s, the least privacy this app will suggest, "
        "%(count)s students are too few to know every question within %(wanted)s: that takes "
        "about %(needed)s student. Ask more students, or accept a wider margin.",
        "Even at a flip probability of %(p)s, the least privacy this app will suggest, "
        "%(count)s students are too few to know every question within %(wanted)s: that takes "
        "about %(needed)s students. Ask more students, or accept a wider margin.",
        needed,
        **said,
    )
