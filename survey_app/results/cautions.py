"""Why a question's ranges are too wide to say much yet, and how many answers would narrow them
to :data:`~survey_app.results.words.TOO_WIDE`: the dashboard's sentences and the projector's
line, for shares and for a number's average. The figures come from privacy and the planner
(results.panel asks them); these only word them.
"""

from __future__ import annotations

from flask_babel import ngettext

from survey_app import privacy
from survey_app.results.words import TOO_WIDE, widest_shown_half_width
from survey_app.words import (
    format_number,
    grouped,
    numeric_places,
    points,
    with_unit,
)

#: Why a question's ranges are too wide to say much yet, by whether they are live (they hold
#: however often they are read, which makes them wider) and whether the question has more than
#: two options (the randomization spreads each answer over them all); ``margin`` the widest.
TOO_WIDE_WHY = {
    (True, False): lambda n, **figures: ngettext(
        "These ranges are too wide to say much yet (up to %(margin)s): they hold however often "
        "the results are read, which makes them wider than a range read once, and with "
        "%(respondents)s respondent the randomization that protects each answer still hides "
        "most of what they tell.",
        "These ranges are too wide to say much yet (up to %(margin)s): they hold however often "
        "the results are read, which makes them wider than a range read once, and with "
        "%(respondents)s respondents the randomization that protects each answer still hides "
        "most of what they tell.",
        n,
        **figures,
    ),
    (True, True): lambda n, **figures: ngettext(
        "These ranges are too wide to say much yet (up to %(margin)s): they hold however often "
        "the results are read, which makes them wider than a range read once, and with "
        "%(respondents)s respondent the randomization that protects each answer, spread over "
        "%(options)s options, still hides most of what they tell.",
        "These ranges are too wide to say much yet (up to %(margin)s): they hold however often "
        "the results are read, which makes them wider than a range read once, and with "
        "%(respondents)s respondents the randomization that protects each answer, spread over "
        "%(options)s options, still hides most of what they tell.",
        n,
        **figures,
    ),
    (False, False): lambda n, **figures: ngettext(
        "These ranges are too wide to say much yet (up to %(margin)s): with %(respondents)s "
        "respondent, the randomization that protects each answer still hides most of what they "
        "tell.",
        "These ranges are too wide to say much yet (up to %(margin)s): with %(respondents)s "
        "respondents, the randomization that protects each answer still hides most of what "
        "they tell.",
        n,
        **figures,
    ),
    (False, True): lambda n, **figures: ngettext(
        "These ranges are too wide to say much yet (up to %(margin)s): with %(respondents)s "
        "respondent, the randomization that protects each answer, spread over %(options)s "
        "options, still hides most of what they tell.",
        "These ranges are too wide to say much yet (up to %(margin)s): with %(respondents)s "
        "respondents, the randomization that protects each answer, spread over %(options)s "
        "options, still hides most of what they tell.",
        n,
        **figures,
    ),
}


#: How many answers would bring them to :data:`TOO_WIDE` (``needed``, the planner's figure): more
#: than have answered, more than it plans for, or no more than have (these answers left them
#: wider by chance).
def too_wide_needed_sentence(n, **figures):
    return ngettext(
        "About %(needed)s respondent would bring them to %(margin)s.",
        "About %(needed)s respondents would bring them to %(margin)s.",
        n,
        **figures,
    )


def too_wide_needed_over_sentence(n, **figures):
    return ngettext(
        "It would take more than %(needed)s respondent to bring them to %(margin)s.",
        "It would take more than %(needed)s respondents to bring them to %(margin)s.",
        n,
        **figures,
    )


def too_wide_needed_fewer_sentence(n, **figures):
    return ngettext(
        "Classes of %(needed)s respondent usually bring them to %(margin)s: these answers left "
        "them wider by chance.",
        "Classes of %(needed)s respondents usually bring them to %(margin)s: these answers left "
        "them wider by chance.",
        n,
        **figures,
    )


#: The cases of the same said in one sentence (too_wide_brief), as the projector's room reads it
#: from afar (its line under the bars already says that they hold however often the screen
#: redraws). One short line, by whether the ranges are live: a projector fits a 3-question survey's
#: results on one screen, and the dashboard says why at length.
TOO_WIDE_BRIEF = ("live", "exact", "over", "fewer")


def too_wide_caution(
    widest: float, respondents: int, kind: str, options: int, needed: int, brief: bool = False
) -> str:
    """Why a question's ranges of that kind are too wide to say much yet (``widest``: half the
    widest, a share), and how many answers would bring them to :data:`TOO_WIDE` (``needed``,
    the planner's figure for that kind of range, privacy.MAX_PLANNED_RESPONDENTS when more).
    ``brief``: the projector's one sentence, where the room reads it from afar."""
    over = needed >= privacy.MAX_PLANNED_RESPONDENTS
    fewer = not over and needed <= respondents
    if brief:
        case = "over" if over else "fewer" if fewer else "live" if kind == "live" else "exact"
        return too_wide_brief(case, needed)
    count = min(needed, privacy.MAX_PLANNED_RESPONDENTS)
    reason = TOO_WIDE_WHY[kind == "live", options > 2](
        respondents,
        margin=points(widest, long=True),
        respondents=grouped(respondents),
        options=grouped(options),
    )
    enough = (
        too_wide_needed_over_sentence
        if over
        else too_wide_needed_fewer_sentence
        if fewer
        else too_wide_needed_sentence
    )
    return f"{reason} {enough(count, needed=grouped(count), margin=points(TOO_WIDE))}"


def too_wide_brief(case: str, needed: int) -> str:
    """The projector's caution (``case``: one of TOO_WIDE_BRIEF), ``needed`` answers (at most
    privacy.MAX_PLANNED_RESPONDENTS) for the margin wanted; each case one whole sentence."""
    count = min(needed, privacy.MAX_PLANNED_RESPONDENTS)
    figures = {
        "needed": grouped(count),
        "margin": points(TOO_WIDE),
    }
    if case == "over":
        return ngettext(
            "Too wide yet: more than %(needed)s answer for %(margin)s.",
            "Too wide yet: more than %(needed)s answers for %(margin)s.",
            count,
            **figures,
        )
    if case == "fewer":
        return ngettext(
            "Too wide yet, by chance: classes of %(needed)s answer usually get %(margin)s.",
            "Too wide yet, by chance: classes of %(needed)s answers usually get %(margin)s.",
            count,
            **figures,
        )
    if case == "live":
        return ngettext(
            "Too wide yet: about %(needed)s answer for %(margin)s at every redraw.",
            "Too wide yet: about %(needed)s answers for %(margin)s at every redraw.",
            count,
            **figures,
        )
    return ngettext(
        "Too wide yet: about %(needed)s answer for %(margin)s.",
        "Too wide yet: about %(needed)s answers for %(margin)s.",
        count,
        **figures,
    )


#: Why a number question's range is too wide to say much yet, by whether it is live;
#: ``margin`` its half-width, ``low`` and ``high`` the scale's ends, with their unit.
TOO_WIDE_AVERAGE_WHY = {
    True: lambda n, **figures: ngettext(
        "This range is too wide to say much yet (±%(margin)s on a scale of %(low)s to %(high)s): "
        "it holds however often the results are read, which makes it wider than a range read "
        "once, and with %(respondents)s respondent the noise that protects them still outweighs "
        "what they tell.",
        "This range is too wide to say much yet (±%(margin)s on a scale of %(low)s to %(high)s): "
        "it holds however often the results are read, which makes it wider than a range read "
        "once, and with %(respondents)s respondents the noise that protects them still "
        "outweighs what they tell.",
        n,
        **figures,
    ),
    False: lambda n, **figures: ngettext(
        "This range is too wide to say much yet (±%(margin)s on a scale of %(low)s to %(high)s): "
        "with %(respondents)s respondent, the noise that protects them still outweighs what "
        "they tell.",
        "This range is too wide to say much yet (±%(margin)s on a scale of %(low)s to %(high)s): "
        "with %(respondents)s respondents, the noise that protects them still outweighs what "
        "they tell.",
        n,
        **figures,
    ),
}


def too_wide_average_needed_sentence(n, **figures):
    return ngettext(
        "About %(needed)s respondent would bring it to %(margin)s.",
        "About %(needed)s respondents would bring it to %(margin)s.",
        n,
        **figures,
    )


def too_wide_average_needed_over_sentence(n, **figures):
    return ngettext(
        "It would take more than %(needed)s respondent to bring it to %(margin)s.",
        "It would take more than %(needed)s respondents to bring it to %(margin)s.",
        n,
        **figures,
    )


def too_wide_average_caution(
    words: dict, scale: tuple[float, float], respondents: int, kind: str, needed: int
) -> str:
    """Why a number question's range is too wide to say much yet (``words``: its
    :func:`numeric_words`; ``scale``: its bounds), and how many answers would bring it to
    :data:`TOO_WIDE` of its scale (``needed``: the mechanism's own plan for that kind of range,
    or privacy.MAX_PLANNED_RESPONDENTS when more). The dashboard's: the projector's card for a
    number has no room for it."""
    said, (lo, hi) = words["said"], scale
    figure = format_number(TOO_WIDE * (hi - lo), numeric_places(lo, hi))
    reason = TOO_WIDE_AVERAGE_WHY[kind == "live"](
        respondents,
        margin=said["shown_half_width"],
        low=words["min"],
        high=said["max"],
        respondents=grouped(respondents),
    )
    over = needed >= privacy.MAX_PLANNED_RESPONDENTS
    enough = too_wide_average_needed_over_sentence if over else too_wide_average_needed_sentence
    count = min(needed, privacy.MAX_PLANNED_RESPONDENTS)
    margin = "±" + with_unit(figure, words["unit"].strip() or None)
    return f"{reason} {enough(count, needed=grouped(count), margin=margin)}"


def too_wide_half_width(question, kind: str) -> float | None:
    """Half the widest range of that kind among a question's options, when it is too wide to
    say much yet (:data:`TOO_WIDE`); else None. The caution quotes the range the page leads
    with."""
    widest = widest_shown_half_width(question, kind)
    return widest if widest is not None and widest > TOO_WIDE else None
