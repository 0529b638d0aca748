"""What the survey page tells respondents of their privacy, in the sentences a figure decides.

Each sentence is whole here, its figures filled in: where a survey calls for another sentence,
another whole one is chosen, so that a translation wraps each as it stands. The page places them
(templates/respondents/survey.html); the figures are survey_app.surveys.words.privacy_explanation's.
"""

from __future__ import annotations

from markupsafe import Markup

from survey_app.privacy.numeric_grid import NUMERIC_GRID_STEPS
from survey_app.words import format_epsilon, join_words

#: How often a yes/no answer is sent reversed: "1 time in 4" too, where that is a whole number.
FLIP = Markup(
    "Your browser scrambles every answer before it leaves this device: it sends the "
    "<strong>opposite</strong> of your yes/no answer {flip}% of the time, by chance."
)
FLIP_ONE_IN = Markup(
    "Your browser scrambles every answer before it leaves this device: it sends the "
    "<strong>opposite</strong> of your yes/no answer {flip}% of the time (1 time in {one_in}), by "
    "chance."
)

#: What a group who share an answer give away, with examples of groups.
GROUP = Markup(
    "If several people share an answer (friends who answer together, say), what all of them "
    "send, together, can give that shared answer away more: for a group of k people the cost "
    "adds up to k × ε, here {examples}."
)
GROUP_EXAMPLE = Markup("ε&nbsp;=&nbsp;{cost} for {size} people")

#: How a number is put on the scale the browser randomizes it on.
NUMBER_ON_THE_SCALE = (
    "A number is first put within its question’s range (a number above it counts as the "
    "highest, below it as the lowest), then on a scale of {steps} steps, then the noise is added."
)


def privacy_words(explanation: dict) -> dict:
    """The survey page's sentences on privacy whose words its figures decide (``explanation``:
    survey_app.surveys.words.privacy_explanation)."""
    return {
        "flip": flip_words(explanation["flip_percent"], explanation["flip_one_in"]),
        "group": GROUP.format(
            examples=Markup(
                join_words(
                    GROUP_EXAMPLE.format(cost=format_epsilon(cost), size=size)
                    for size, cost in explanation["group_examples"]
                )
            )
        ),
        "number_on_the_scale": NUMBER_ON_THE_SCALE.format(steps=f"{NUMERIC_GRID_STEPS:,}"),
    }


def flip_words(flip_percent: str, one_in: float) -> Markup:
    """How often a yes/no answer is sent reversed; "1 time in 4" too, where it is one in a
    whole number (to six decimals: 1 / 0.1 is not quite 10), counted as the app counts: "1 time
    in 1,000"."""
    if round(one_in, 6) != round(one_in):
        return FLIP.format(flip=flip_percent)
    return FLIP_ONE_IN.format(flip=flip_percent, one_in=f"{round(one_in):,}")
