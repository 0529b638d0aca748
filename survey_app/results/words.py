"""The results' sentences that pages place whole: how a question's ranges were worked out, what
a number question's bars and live range are, the "all at once" choice, and what each export
holds.

Each sentence is whole here, its figures filled in: where a result calls for another sentence,
another whole one is chosen, so that a translation wraps each as it stands. The figures are
worded by :mod:`survey_app.results.presenters`; the pages place the sentences.
"""

from __future__ import annotations

from markupsafe import Markup

#: How a question's exact ranges were worked out: from the precise law of the randomization,
#: or, with many answers, from a proven bound on it (privacy.Estimate.exact_method).
EXACT_RANGE = (
    "Exact range: every share under which these counts are not unusual, from the precise law "
    "of the randomization."
)
EXACT_RANGE_BERRY_ESSEEN = (
    "Exact range: every share under which these counts are not unusual, from the precise law "
    "of the randomization (with this many answers, from a proven bound on that law, the "
    "Berry–Esseen theorem)."
)
#: What the ranges shown "all at once" are, for a question of that many answers.
ALL_AT_ONCE = "All at once: the exact ranges of all {count} answers hold together."

#: What a number question's bars are: with the step an answer is counted at, where the bars
#: count answers at a step (privacy.Histogram.answer_step).
BARS = (
    "Each bar is the estimated share of the class whose answer is among the answers it names, "
    "with the known randomization removed."
)
BARS_OF_WHOLE_NUMBERS = (
    "Each bar is the estimated share of the class whose answer is among the answers it names "
    "(an answer counts in the bar of its nearest whole number: 4.6 counts as 5), with the known "
    "randomization removed."
)
BARS_OF_STEPS = (
    "Each bar is the estimated share of the class whose answer is among the answers it names "
    "(an answer counts in the bar of its nearest multiple of {step}), with the known "
    "randomization removed."
)
#: A number question's live range, where it has one.
LIVE_RANGE = "Live range, which holds however often the results were read: {low} to {high}."

#: The dashboard's choice of ranges that hold for all of a question's answers together: an
#: open survey shows its live ranges until it closes.
TOGETHER_LABEL = "all at once: ranges that hold for all of a question’s answers together"
TOGETHER_LABEL_OPEN = (
    "all at once: ranges that hold for all of a question’s answers together (once the survey "
    "closes: while it is open the live ranges show)"
)

#: What the results' CSV holds (a link to it, ``href``), with the rows of number questions
#: where the survey asks one.
RESULTS_CSV = Markup(
    '<a href="{href}" id="download-results">Results (CSV)</a>: a row per answer option, with '
    "the estimate and its interval."
)
RESULTS_CSV_WITH_NUMBERS = Markup(
    '<a href="{href}" id="download-results">Results (CSV)</a>: a row per answer option, with '
    "the estimate and its interval; for a number question, its average with its range, then a "
    "row per bar of its spread."
)
#: When the randomized responses can be downloaded, while they cannot yet: once the survey
#: closes, and, while its results are held back, with a batch of new answers.
RESPONSES_ONCE_CLOSED = (
    "Randomized responses (CSV), a row per submission: available once the survey closes, so "
    "that nobody’s answers can be picked out by when they arrived."
)
RESPONSES_ONCE_CLOSED_AND_RELEASED = (
    "Randomized responses (CSV), a row per submission: available once the survey closes with "
    "at least a batch of new answers (see the results above), so that nobody’s answers can be "
    "picked out by when they arrived."
)


def exact_range_words(berry_esseen: bool) -> str:
    """How the exact ranges were worked out (``berry_esseen``: from the Berry–Esseen bound)."""
    return EXACT_RANGE_BERRY_ESSEEN if berry_esseen else EXACT_RANGE


def all_at_once_words(kind: str, option_count: int) -> str:
    """What the ranges shown all at once are, when they are the ones shown (``kind``
    "together"); else nothing."""
    return ALL_AT_ONCE.format(count=option_count) if kind == "together" else ""


def bars_words(answer_step: str | None) -> str:
    """What a number question's bars are, and the step its answers are counted at (worded:
    "1", "0.5"; None when the bars do not count answers at a step)."""
    if answer_step is None:
        return BARS
    return BARS_OF_WHOLE_NUMBERS if answer_step == "1" else BARS_OF_STEPS.format(step=answer_step)


def live_range_words(low: str | None, high: str | None) -> str:
    """A number question's live range in words (its ends worded, the upper with its unit);
    nothing without one."""
    return "" if low is None else LIVE_RANGE.format(low=low, high=high)


def together_label(is_open: bool) -> str:
    """The label of the dashboard's choice of ranges that hold all at once."""
    return TOGETHER_LABEL_OPEN if is_open else TOGETHER_LABEL


def export_words(results_href: str, has_numeric: bool, results_held: bool) -> dict:
    """What the dashboard's exports hold: the results' CSV (linked at ``results_href``), and
    when the randomized responses can be downloaded while they cannot yet."""
    return {
        "results": (RESULTS_CSV_WITH_NUMBERS if has_numeric else RESULTS_CSV).format(
            href=results_href
        ),
        "responses_later": RESPONSES_ONCE_CLOSED_AND_RELEASED
        if results_held
        else RESPONSES_ONCE_CLOSED,
    }
