"""A question's sentences on a results page, each whole (one message, its figures filled in):
an option's share and its range, a number question's average and its range, why a question
waits for results, and that its answers are not consistent with the randomization. The
dashboard and the students' results page place them (survey_app.results.panel); figures are
worded by survey_app.words in the page's language.
"""

from __future__ import annotations

from flask_babel import gettext, lazy_gettext, ngettext
from markupsafe import Markup, escape

from survey_app.results.tables import shown_range
from survey_app.words import grouped, percent, percent_high, percent_low

#: An option's share and its range, whole, by the range's kind and whether the range is a single
#: value: each sentence one message, so that a translation words each as it stands.
SHARE_SENTENCES = {
    ("exact", False): lazy_gettext(
        "About <strong>%(share)s</strong> would truly answer “%(label)s”: between "
        "<strong>%(low)s</strong> and <strong>%(high)s</strong>, guaranteed at least "
        "%(confidence)s of the time."
    ),
    ("exact", True): lazy_gettext(
        "About <strong>%(share)s</strong> would truly answer “%(label)s”: the range is the "
        "single value <strong>%(low)s</strong>, guaranteed at least %(confidence)s of the time."
    ),
    ("live", False): lazy_gettext(
        "About <strong>%(share)s</strong> would truly answer “%(label)s”: between "
        "<strong>%(low)s</strong> and <strong>%(high)s</strong>, guaranteed at least "
        "%(confidence)s of the time, however often you look."
    ),
    ("live", True): lazy_gettext(
        "About <strong>%(share)s</strong> would truly answer “%(label)s”: the range is the "
        "single value <strong>%(low)s</strong>, guaranteed at least %(confidence)s of the time, "
        "however often you look."
    ),
    ("together", False): lazy_gettext(
        "About <strong>%(share)s</strong> would truly answer “%(label)s”: between "
        "<strong>%(low)s</strong> and <strong>%(high)s</strong>, guaranteed at least "
        "%(confidence)s of the time for all the answers at once."
    ),
    ("together", True): lazy_gettext(
        "About <strong>%(share)s</strong> would truly answer “%(label)s”: the range is the "
        "single value <strong>%(low)s</strong>, guaranteed at least %(confidence)s of the time "
        "for all the answers at once."
    ),
}


def share_sentence(option, kind: str, confidence: float, label: str | None = None) -> Markup:
    """An option's share and its range of that kind, in words (without the caution);
    ``label``: the option's label as the page shows it (its own by default)."""
    estimate = option.estimate
    label = escape(option.label if label is None else label)
    if not estimate.consistent_with_randomization:
        return Markup(
            gettext(
                "“%(label)s”: the answers are not consistent with the randomization. Randomized "
                "answers give counts this lopsided at most %(rare)s of the time (the unbiased "
                "estimate is %(estimate)s).",
                label=label,
                rare=percent(1 - confidence),
                estimate=percent(estimate.estimate),
            )
        )
    low, high = shown_range(estimate, kind)
    sentence = SHARE_SENTENCES[kind if kind in ("live", "together") else "exact", low == high]
    return Markup(
        str(sentence)
        % {
            "share": percent(option.headline(kind)),
            "label": label,
            "low": percent_low(low),
            "high": percent_high(high),
            "confidence": percent(confidence),
        }
    )


def waiting_words(question, answered: int) -> Markup | None:
    """What a question says before it shows results (no answers yet, or too few: too early for
    an average or for shares, by what its counts sum up as, Told.summary); None once it shows
    them. The count results appear at is said once for all the questions, not here
    (results.words.release_words, too_few_words)."""
    if question.shows_results:
        return None
    if answered == 0:
        return Markup(gettext("No answers yet."))
    count = grouped(answered)
    if question.summary == "average":
        return Markup(
            ngettext(
                "<strong>%(count)s</strong> person has answered: too early for an average. With "
                "so few answers, the randomization that protects each answer hides nearly "
                "everything.",
                "<strong>%(count)s</strong> people have answered: too early for an average. "
                "With so few answers, the randomization that protects each answer hides nearly "
                "everything.",
                answered,
                count=count,
            )
        )
    return Markup(
        ngettext(
            "<strong>%(count)s</strong> person has answered: too early for shares. With so few "
            "answers, the randomization that protects each answer hides nearly everything.",
            "<strong>%(count)s</strong> people have answered: too early for shares. With so "
            "few answers, the randomization that protects each answer hides nearly everything.",
            answered,
            count=count,
        )
    )


def average_headline(words: dict, kind: str, confidence: float) -> Markup:
    """A number question's plain headline (``words``: its numeric_words): the average and its
    range of that kind (a live one, else the exact one), whole."""
    figures = {
        "mean": escape(words["said"]["mean"]),
        "low": escape(words["low"]),
        "high": escape(words["said"]["high"]),
        "confidence": percent(confidence),
    }
    if kind == "live":
        return Markup(
            gettext(
                "On average about <strong>%(mean)s</strong>, somewhere between "
                "<strong>%(low)s</strong> and <strong>%(high)s</strong>: guaranteed at least "
                "%(confidence)s of the time, however often you look.",
                **figures,
            )
        )
    return Markup(
        gettext(
            "On average about <strong>%(mean)s</strong>, somewhere between "
            "<strong>%(low)s</strong> and <strong>%(high)s</strong>: guaranteed at least "
            "%(confidence)s of the time.",
            **figures,
        )
    )


#: What the students' results page says of a question whose answers the randomization cannot
#: explain: no estimate (the dashboard shows its owner why).
NOT_CONSISTENT_WORDS = lazy_gettext(
    "These answers are not consistent with the randomization (some were probably not sent by "
    "the survey page), so no estimate is given."
)
