"""What a survey says of itself: the privacy its flip probability gives each answer, in figures
and words (the builder's readout and the planner, the dashboard, the survey page), what deleting
it takes away, and what archiving it does.

Each sentence is whole here, its figures filled in: where a survey calls for another sentence,
another whole one is chosen, so that a translation wraps each as it stands. The pages place them
(templates/surveys/confirm_delete.html, the dashboard's "Duplicate, archive or delete", its
privacy section, and the survey page's, whose sentences survey_app.respondents.words chooses).
"""

from __future__ import annotations

from flask_babel import gettext, lazy_gettext, ngettext

from survey_app import kinds, privacy
from survey_app.storage.models import Survey
from survey_app.surveys.services import (
    BUILDER_FLIP_PROBABILITIES,
    SurveyStateError,
    is_builder_flip_probability,
)
from survey_app.web.languages import is_english
from survey_app.words import (
    counted,
    format_epsilon,
    format_number,
    grouped,
    join_words,
    local_percent,
    percent_figure,
)


def flip_probability_limits() -> dict:
    """The flip probabilities the builder takes, the one way every part of it says them (the
    field's hint, the refusal on saving and the readout's): "%g" in English, else the page
    language's way ("0,01")."""
    return {
        name: f"{value:g}" if is_english() else format_number(value)
        for name, value in zip(("low", "high"), BUILDER_FLIP_PROBABILITIES, strict=True)
    }


def flip_probability_refused() -> str:
    """What a flip probability outside the builder's limits gets, on saving and instead of a
    readout."""
    return gettext(
        "The flip probability must be a number from %(low)s to %(high)s",
        **flip_probability_limits(),
    )


def flip_probability_hint() -> str:
    """The flip probability field's hint beside its label."""
    return gettext(
        "(how often a yes/no answer is reversed: a number from %(low)s to %(high)s)",
        **flip_probability_limits(),
    )


def privacy_explanation(survey: Survey) -> dict:
    """Plain-language figures of the privacy each answer gets, computed from p."""
    p = survey.flip_probability
    epsilon = survey.epsilon_per_question
    return {
        "flip_percent": percent_figure(p),
        "flip_one_in": 1.0 / p,
        "odds": privacy.odds_ratio(p),
        "deniability_percent": percent_figure(privacy.deniability(p)),
        "epsilon": epsilon,
        "epsilon_total": survey.epsilon_total,
        "question_count": len(survey.questions),
        # Warner's coins: a fair coin, then on tails a second coin that says "lie" with
        # probability q = 2p (randomized response with flip probability p = q / 2).
        "warner_lie_percent": percent_figure(min(1.0, privacy.warner_q_from_flip_probability(p))),
        "has_numeric": any(not q.has_options for q in survey.questions),
        "has_yes_no": any(q.kind == "yes_no" for q in survey.questions),
        "has_choice": any(q.kind == "choice" for q in survey.questions),
        "group_examples": [(k, privacy.total_epsilon([survey.epsilon_total] * k)) for k in (2, 5)],
        "how": privacy_how(survey.questions, percent_figure(p)),
        "questions": counted(len(survey.questions), "question"),
    }


def privacy_how(questions, flip_percent: str) -> str:
    """What each kind of question asked gets, in one sentence: "Each respondent’s browser flips
    a yes/no answer 25% of the time and adds random noise to each number before sending it,
    all at the same strength"."""
    asked = {question.kind for question in questions}
    if is_english():
        # In the registry's order (yes/no first), each kind asked once.
        ways = [kind.way(flip_percent) for name, kind in kinds.KINDS.items() if name in asked]
        how = f"Each respondent’s browser {join_words(ways)} before sending it"
        if "yes_no" not in asked:
            return f"{how} (as much protection as a {flip_percent}% flip of a yes/no answer)"
        return f"{how}, all at the same strength" if len(ways) > 1 else how
    flip = {"flip": local_percent(float(flip_percent.replace(",", ".")))}
    others = tuple(name for name in kinds.KINDS if name in asked and name != "paired")
    if not others:
        return str(PAIRED_HOW_ALONE) % flip
    said = str(PRIVACY_HOW[others]) % flip
    # A pair's way in a sentence of its own: the table above stays one sentence a set of the
    # other kinds, not one for every set with pairs too.
    return f"{said}. {PAIRED_HOW_TOO}" if "paired" in asked else said


#: What each kind of question asked gets, in one sentence, by the kinds asked (in the
#: registry's order); ``flip`` the flip probability as a percentage. English words it from each
#: kind's way (kinds.*.way), which these say whole.
PRIVACY_HOW = {
    ("yes_no",): lazy_gettext(
        "Each respondent’s browser flips a yes/no answer %(flip)s of the time before sending it"
    ),
    ("choice",): lazy_gettext(
        "Each respondent’s browser swaps a multiple-choice answer for another option at random "
        "before sending it (as much protection as a %(flip)s flip of a yes/no answer)"
    ),
    ("numeric",): lazy_gettext(
        "Each respondent’s browser adds random noise to each number before sending it (as much "
        "protection as a %(flip)s flip of a yes/no answer)"
    ),
    ("yes_no", "choice"): lazy_gettext(
        "Each respondent’s browser flips a yes/no answer %(flip)s of the time and swaps a "
        "multiple-choice answer for another option at random before sending it, all at the same "
        "strength"
    ),
    ("yes_no", "numeric"): lazy_gettext(
        "Each respondent’s browser flips a yes/no answer %(flip)s of the time and adds random "
        "noise to each number before sending it, all at the same strength"
    ),
    ("choice", "numeric"): lazy_gettext(
        "Each respondent’s browser swaps a multiple-choice answer for another option at random "
        "and adds random noise to each number before sending it (as much protection as a "
        "%(flip)s flip of a yes/no answer)"
    ),
    ("yes_no", "choice", "numeric"): lazy_gettext(
        "Each respondent’s browser flips a yes/no answer %(flip)s of the time, swaps a "
        "multiple-choice answer for another option at random and adds random noise to each "
        "number before sending it, all at the same strength"
    ),
}


#: What a survey asking only paired questions does to each pair of answers.
PAIRED_HOW_ALONE = lazy_gettext(
    "Each respondent’s browser swaps each pair of answers for another pair at random before "
    "sending it, a pair counting as one question (as much protection as a %(flip)s flip of a "
    "yes/no answer)"
)
#: What a survey asking other questions too does to each pair of answers (after their words).
PAIRED_HOW_TOO = lazy_gettext(
    "Two questions asked together are swapped as one answer for another pair at random, at "
    "the same strength, and count as one question"
)


def privacy_readout(flip_probability: object, question_count: int = 1) -> dict:
    """What a flip probability means, in words and numbers, or why the builder does not take
    it."""
    if not is_builder_flip_probability(flip_probability):
        return {"ok": False, "error": flip_probability_refused()}
    epsilon = privacy.epsilon_from_flip_probability(flip_probability)
    p = float(flip_probability)
    epsilon_total = privacy.total_epsilon([epsilon] * question_count)
    return {
        "ok": True,
        "flip_probability": p,
        "epsilon": epsilon,
        "epsilon_total": epsilon_total,
        "question_count": question_count,
        "flip_percent": percent_figure(p),
        "deniability_percent": percent_figure(privacy.deniability(p)),
        "odds": privacy.odds_ratio(p),
        "summary": readout_summary(p, epsilon, epsilon_total, question_count),
    }


def readout_summary(p: float, epsilon: float, epsilon_total: float, question_count: int) -> str:
    """The builder's readout of a flip probability in one sentence: how often an answer is
    flipped, epsilon a question and in all, and how sure an observer can be."""
    flip, sure = percent_figure(p), percent_figure(privacy.deniability(p))
    if not is_english():
        flip, sure = (local_percent(float(each.replace(",", "."))) for each in (flip, sure))
    else:
        flip, sure = f"{flip}%", f"{sure}%"
    return ngettext(
        "Each answer is flipped %(flip)s of the time (ε = %(epsilon)s a question; %(total)s for "
        "%(count)s question). Seeing a “yes”, an observer who thought 50/50 can be at most "
        "%(sure)s sure it is true.",
        "Each answer is flipped %(flip)s of the time (ε = %(epsilon)s a question; %(total)s for "
        "%(count)s questions). Seeing a “yes”, an observer who thought 50/50 can be at most "
        "%(sure)s sure it is true.",
        question_count,
        flip=flip,
        epsilon=format_epsilon(epsilon),
        total=format_epsilon(epsilon_total),
        count=grouped(question_count),
        sure=sure,
    )


#: Why a survey's status refused a change, by the refusal's reason (SurveyStateError.reason),
#: as the pages flash it.
STATE_REFUSALS = {
    "archived": lazy_gettext(
        "An archived survey cannot open: put it back on your survey list first."
    ),
    "no_questions": lazy_gettext("A survey needs at least one question to open."),
    "opened_meanwhile": lazy_gettext("The survey was opened or changed a moment ago; reload."),
    "draft": lazy_gettext("A draft has not opened, so it cannot close."),
    "open": lazy_gettext("This survey is still taking answers: close it first, then archive it."),
}


def state_refusal(error: SurveyStateError) -> str:
    """Why the survey's status refused a change, as a page says it: one whole sentence of the
    catalog; a refusal without one, as the command line says it, made a sentence."""
    said = STATE_REFUSALS.get(error.reason or "")
    if said is not None:
        return str(said)
    message = str(error)
    return message[0].upper() + message[1:] + "."


#: What archiving does, and why an open survey is not archived.
ARCHIVE = lazy_gettext("Archive: off your survey list; the results stay.")
ARCHIVE_OPEN = lazy_gettext("Archive: close the survey first; an archived survey takes no answers.")


def delete_words(title: str, answers: int, codes_issued: int) -> dict:
    """The confirmation of deleting a survey in words: its heading, what deleting takes away
    and its button (``answers``: the survey's respondents; ``codes_issued``: its one-time
    codes)."""
    said = {"title": title, "count": grouped(answers)}
    said["codes"] = ngettext(
        "%(count)s one-time code",
        "%(count)s one-time codes",
        codes_issued,
        count=grouped(codes_issued),
    )
    if not answers:
        return {
            "heading": gettext("Delete “%(title)s”?", **said),
            "takes_away": gettext(
                "Deleting takes away the survey, its questions (no one has answered it), and "
                "its %(codes)s.",
                **said,
            )
            if codes_issued
            else gettext("Deleting takes away the survey, its questions (no one has answered it)."),
            "button": gettext("Delete the survey"),
        }
    return {
        "heading": ngettext(
            "Delete “%(title)s” and its %(count)s answer?",
            "Delete “%(title)s” and its %(count)s answers?",
            answers,
            **said,
        ),
        "takes_away": takes_away_words(answers, codes_issued, said),
        "button": ngettext(
            "Delete the survey and its %(count)s answer",
            "Delete the survey and its %(count)s answers",
            answers,
            **said,
        ),
    }


def takes_away_words(answers: int, codes_issued: int, said: dict) -> str:
    """What deleting a survey that has ``answers`` takes away, its codes where any."""
    if codes_issued:
        return ngettext(
            "Deleting takes away the survey, its questions, its %(count)s answer and the "
            "results drawn from them, and its %(codes)s.",
            "Deleting takes away the survey, its questions, its %(count)s answers and the "
            "results drawn from them, and its %(codes)s.",
            answers,
            **said,
        )
    return ngettext(
        "Deleting takes away the survey, its questions, its %(count)s answer and the results "
        "drawn from them.",
        "Deleting takes away the survey, its questions, its %(count)s answers and the results "
        "drawn from them.",
        answers,
        **said,
    )


def deleted_words(title: str, answers: int) -> str:
    """What the survey list says of a survey just deleted (``answers``: its respondents)."""
    if answers:
        return gettext("“%(title)s” and its answers were deleted.", title=title)
    return gettext("“%(title)s” was deleted.", title=title)


def archive_words(is_open: bool) -> str:
    """What archiving a survey does, or, while it is open, that it must be closed first."""
    return str(ARCHIVE_OPEN if is_open else ARCHIVE)


#: Whether respondents see the class's results (the survey's "show the class's results to
#: respondents after it closes"), as the dashboard says it now, by (setting on, closed).
CLASS_RESULTS_STATE = {
    (True, True): lazy_gettext(
        "Respondents see the class’s results on the survey’s page now: each question’s "
        "estimate and range, as your dashboard words them. Nothing per person."
    ),
    (True, False): lazy_gettext(
        "Once you close the survey, respondents see the class’s results on its page: each "
        "question’s estimate and range, as your dashboard words them. Nothing per person, "
        "nothing while it is open."
    ),
    (False, True): lazy_gettext("Respondents do not see the class’s results."),
    (False, False): lazy_gettext(
        "Respondents will not see the class’s results once the survey closes."
    ),
}
#: The button that turns the setting the other way, by (setting on, closed).
CLASS_RESULTS_BUTTON = {
    (True, True): lazy_gettext("Stop showing the class’s results to respondents"),
    (True, False): lazy_gettext("Do not show the class’s results to respondents"),
    (False, True): lazy_gettext("Show the class’s results to respondents now"),
    (False, False): lazy_gettext("Show the class’s results to respondents after it closes"),
}


def class_results_setting_words(survey: Survey) -> dict:
    """Whether respondents see the class's results, said as it stands now (``state``), and
    the button that changes it (``button``); settable in every state of the survey."""
    key = (bool(survey.show_results_after_close), survey.is_closed)
    return {"state": str(CLASS_RESULTS_STATE[key]), "button": str(CLASS_RESULTS_BUTTON[key])}
