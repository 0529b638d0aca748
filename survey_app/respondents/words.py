"""What the survey page tells respondents of their privacy, in the sentences a figure decides.

Each sentence is whole here, its figures filled in: where a survey calls for another sentence,
another whole one is chosen, so that a translation wraps each as it stands. The page places them
(templates/respondents/survey.html); the figures are survey_app.surveys.words.privacy_explanation's.
"""

from __future__ import annotations

from babel.lists import format_list
from flask_babel import lazy_gettext, ngettext
from markupsafe import Markup

from survey_app.privacy.numeric_grid import NUMERIC_GRID_STEPS
from survey_app.web.languages import current_locale, is_english
from survey_app.words import (
    format_epsilon,
    format_number,
    format_upper_bound,
    grouped,
    join_words,
)

#: How often a yes/no answer is sent reversed: "1 time in 4" too, where that is a whole number.
FLIP = lazy_gettext(
    "Your browser scrambles every answer before it leaves this device: it sends the "
    "<strong>opposite</strong> of your yes/no answer %(flip)s%% of the time, by chance."
)
FLIP_ONE_IN = lazy_gettext(
    "Your browser scrambles every answer before it leaves this device: it sends the "
    "<strong>opposite</strong> of your yes/no answer %(flip)s%% of the time (1 time in "
    "%(one_in)s), by chance."
)

#: What a group who share an answer give away, with examples of groups.
GROUP = lazy_gettext(
    "If several people share an answer (friends who answer together, say), what all of them "
    "send, together, can give that shared answer away more: for a group of k people the cost "
    "adds up to k × ε, here %(examples)s."
)

#: How a number is put on the scale the browser randomizes it on.
NUMBER_ON_THE_SCALE = lazy_gettext(
    "A number is first put within its question’s range (a number above it counts as the "
    "highest, below it as the lowest), then on a scale of %(steps)s steps, then the noise is "
    "added."
)

#: Warner's coins: the same flip told as two coins.
WARNER = lazy_gettext(
    "Another way to picture a yes/no answer (Warner’s coins, 1965): your browser tosses a fair "
    "coin. Heads, it sends your true answer. Tails, it tosses a second coin that says “send the "
    "opposite” %(lie)s%% of the time. That comes to the same %(flip)s%% chance of the opposite."
)


def _sentence(message, **figures) -> Markup:
    """A sentence of the catalog, trusted with its markup, its figures escaped into it."""
    return Markup(str(message)) % figures


def privacy_words(explanation: dict) -> dict:
    """The survey page's sentences on privacy whose words its figures decide (``explanation``:
    survey_app.surveys.words.privacy_explanation)."""
    return {
        "flip": flip_words(explanation["flip_percent"], explanation["flip_one_in"]),
        "group": _sentence(GROUP, examples=group_examples(explanation["group_examples"])),
        "number_on_the_scale": str(NUMBER_ON_THE_SCALE) % {"steps": grouped(NUMERIC_GRID_STEPS)},
        "cost": cost_words(explanation),
        "warner": _sentence(
            WARNER, lie=explanation["warner_lie_percent"], flip=explanation["flip_percent"]
        ),
    }


def group_examples(examples) -> Markup:
    """ "ε = 4.40 for 2 people and ε = 10.99 for 5 people": each group's size and its cost,
    listed as the page's language lists things."""
    said = [
        Markup(
            ngettext(
                "ε&nbsp;=&nbsp;%(cost)s for %(count)s person",
                "ε&nbsp;=&nbsp;%(cost)s for %(count)s people",
                size,
                cost=Markup.escape(format_epsilon(cost)),
                count=grouped(size),
            )
        )
        for size, cost in examples
    ]
    if is_english():
        return Markup(join_words(said))
    return Markup(format_list([str(example) for example in said], locale=current_locale()))


def cost_words(explanation: dict) -> Markup:
    """What the survey costs in privacy: ε a question, and for the whole survey of so many."""
    count = explanation["question_count"]
    return Markup(
        ngettext(
            "Privacy cost: ε&nbsp;=&nbsp;%(epsilon)s a question, ε&nbsp;=&nbsp;%(total)s for "
            "the whole survey of %(count)s question.",
            "Privacy cost: ε&nbsp;=&nbsp;%(epsilon)s a question, ε&nbsp;=&nbsp;%(total)s for "
            "the whole survey of %(count)s questions.",
            count,
            epsilon=format_epsilon(explanation["epsilon"]),
            total=format_epsilon(explanation["epsilon_total"]),
            count=grouped(count),
        )
    )


def flip_words(flip_percent: str, one_in: float) -> Markup:
    """How often a yes/no answer is sent reversed; "1 time in 4" too, where it is one in a
    whole number (to six decimals: 1 / 0.1 is not quite 10), counted as the app counts: "1 time
    in 1,000"."""
    if round(one_in, 6) != round(one_in):
        return _sentence(FLIP, flip=flip_percent)
    return _sentence(FLIP_ONE_IN, flip=flip_percent, one_in=grouped(round(one_in)))


#: How each answer was protected, for the students' results page: the yes/no flip itself, or as
#: much protection as it gives where no question is yes/no.
PROTECTION_FLIP = lazy_gettext(
    "Your phone randomized your answer before sending it: it sent the opposite of a yes/no "
    "answer with probability <strong>p = %(p)s</strong> (%(flip)s%% of the time)."
)
PROTECTION_AS_MUCH = lazy_gettext(
    "Your phone randomized your answer before sending it: as much protection as sending the "
    "opposite of a yes/no answer %(flip)s%% of the time (p = %(p)s)."
)


def protection_words(flip_probability: float, explanation: dict) -> Markup:
    """How each answer was protected, for the students' results page: the flip (or as much
    protection as it gives), epsilon a question and for all of them, and the odds it bounds
    (``explanation``: surveys.words.privacy_explanation)."""
    how = PROTECTION_FLIP if explanation["has_yes_no"] else PROTECTION_AS_MUCH
    figures = {
        "epsilon": format_epsilon(explanation["epsilon"]),
        "odds": format_upper_bound(explanation["odds"]),
    }
    count = explanation["question_count"]
    if count == 1:
        cost = lazy_gettext(
            "That is <strong>ε = %(epsilon)s</strong> a question: nobody, not even whoever ran "
            "the survey, can be more than %(odds)s times surer of your real answer from what "
            "your phone sent."
        )
        cost_said = _sentence(cost, **figures)
    else:
        cost_said = Markup(
            ngettext(
                "That is <strong>ε = %(epsilon)s</strong> a question and ε = %(total)s for all "
                "%(count)s question: nobody, not even whoever ran the survey, can be more than "
                "%(odds)s times surer of your real answer from what your phone sent.",
                "That is <strong>ε = %(epsilon)s</strong> a question and ε = %(total)s for all "
                "%(count)s questions: nobody, not even whoever ran the survey, can be more than "
                "%(odds)s times surer of your real answer from what your phone sent.",
                count,
                total=format_epsilon(explanation["epsilon_total"]),
                count=grouped(count),
                **figures,
            )
        )
    flip = _sentence(how, p=format_number(flip_probability), flip=explanation["flip_percent"])
    return flip + Markup(" ") + cost_said
