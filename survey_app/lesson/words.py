"""What the lesson says: each sentence whole in one function or constant here (a translation
wraps each as one unit), filled with figures survey_app.lesson.presenters has worded.

The presenters decide which figure a step shows and call these for its sentences; the
templates place them. A sentence holding an element that a test or the page's script reads
(``<strong id=...>``) is Markup, every value in it escaped: labels, units and question texts
are typed by professors.
"""

from __future__ import annotations

from markupsafe import Markup

from survey_app.results.words import range_guarantee
from survey_app.words import format_number, percent, plural, precise_points

#: The steps, in order: (key, title).
STEPS = (
    ("coin", "The coin"),
    ("arrived", "What arrived"),
    ("estimate", "Undoing the noise on average"),
    ("sure", "How sure can we be"),
    ("reruns", "If we ran it again"),
    ("bayes", "What a “Yes” tells about one student"),
    ("trade_off", "The trade-off"),
    ("budgets", "Budgets"),
)

#: The question chooser shows this many characters of a question's text; a longer text is
#: also written out in full under it.
CHOOSER_TEXT_LENGTH = 60

#: A share's scale, end to end, as the lesson writes it: "0–100%".
WHOLE_SCALE = f"{format_number(0.0)}–{percent(1.0)}"
#: The axis of the charts of ranges, as their titles say it: "0% to 100%".
SHARE_AXIS = f"{percent(0.0)} to {percent(1.0)}"
#: A half-width of a share's range from which on it covers the whole scale: it says nothing.
WHOLE_SCALE_HALF_WIDTH = 1.0
#: That half-width in words: "±100 percentage points".
WHOLE_SCALE_POINTS = f"±{precise_points(WHOLE_SCALE_HALF_WIDTH)}"

#: The note of a step another kind of question does not have.
YES_NO_ONLY = "This step is about a yes/no question: choose one above to see it worked out."


def covers_whole_scale(half_width: float) -> bool:
    """Whether a range this far either side of its estimate covers all of 0–100%."""
    return half_width >= WHOLE_SCALE_HALF_WIDTH


# --------------------------------------------------------------------------- the steps' notes


def waiting_note(question, min_answers: int) -> str | None:
    """Why the steps that need answers show nothing yet; None when they can."""
    if question.n == 0:
        return f"No answers yet: this step fills in once {min_answers} people have answered."
    if question.too_early or question.n < min_answers:
        return (
            f"Too early: {question.n} answered. This step fills in once {min_answers} have, as "
            "the dashboard’s shares do."
        )
    if not question.consistent_with_randomization:
        return (
            "These answers are not consistent with the randomization (some were probably not "
            "sent by the survey page): the dashboard says more."
        )
    return None


# --------------------------------------------------------------------------- steps 2 and 3


def received(n: str, is_open: bool) -> Markup:
    """How many randomized answers the server received (while the survey is open, as of the
    dashboard's last release), the count in ``#lesson-n``."""
    if is_open:
        return Markup(
            'The server received <strong id="lesson-n">{}</strong> randomized answers, as of '
            "the dashboard’s last release."
        ).format(n)
    return Markup(
        'The server received <strong id="lesson-n">{}</strong> randomized answers.'
    ).format(n)


def biased(options: int) -> str | None:
    """Which way the flips push the raw shares: toward an equal share for each answer."""
    if not options:
        return None
    even = percent(1.0 / options)
    if options == 2:
        return f"The raw share is biased: the flips push it toward {even}."
    return (
        f"The raw shares are biased: the flips push each toward {even}, an equal share for "
        "every answer."
    )


def undone_estimate(estimate: str, outside: bool, shown: str) -> Markup:
    """The estimate once the flips are undone, in ``#lesson-estimate``; ``outside`` 0–100%:
    by chance, and what the dashboard shows instead."""
    if outside:
        return Markup(
            'Undo the flips on average: the estimate is <strong id="lesson-estimate">{}</strong>'
            " (outside {} by chance: the dashboard shows {})."
        ).format(estimate, WHOLE_SCALE, shown)
    return Markup(
        'Undo the flips on average: the estimate is <strong id="lesson-estimate">{}</strong>.'
    ).format(estimate)


def average_words(n: str, words: dict, headline: str, confidence: float) -> Markup:
    """A number question's average (``#lesson-mean``) and its range of the dashboard's
    headline kind, each figure with its unit as the figure wants it (``words``:
    results.words.numeric_words)."""
    return Markup(
        'From {} randomized numbers, the average is about <strong id="lesson-mean">{}</strong>:'
        " between <strong>{}</strong> and <strong>{}</strong>, {}."
    ).format(
        n,
        words["said"]["mean"],
        words["low"],
        words["said"]["high"],
        range_guarantee(headline, confidence),
    )


# --------------------------------------------------------------------------- step 4


def bound_says_nothing(half_width: float) -> str | None:
    """Why a bound covering the whole scale says nothing; None for a narrower one."""
    if not covers_whole_scale(half_width):
        return None
    return (
        f"(A bound of {WHOLE_SCALE_POINTS} or more says nothing: it covers all of {WHOLE_SCALE}.)"
    )


def ranges_chart_title(rows: list[dict], estimate: str) -> str:
    """Step 4's drawing in words: each range (``label``, ``words``), then the estimate."""
    ranges = "".join(f"{row['label']}, {row['words']}; " for row in rows)
    return f"The ranges on one axis from {SHARE_AXIS}: {ranges}the estimate, {estimate}."


def options_chart_title(rows: list[dict]) -> str:
    """Step 4's drawing for a choice in words: each option's exact range."""
    ranges = "".join(f"{row['label']}, {row['words']}; " for row in rows)
    return f"Each option’s exact range on one axis from {SHARE_AXIS}: {ranges}each estimate marked."


# --------------------------------------------------------------------------- step 5


def supposed_class(true_yes: int, n: int, true_share: str) -> str:
    """The class the re-runs suppose: as many truly holding “Yes” as the estimate says."""
    holds = plural(true_yes, "holds", "hold")
    return f"Suppose {true_yes:,} of the {n:,} truly {holds} “Yes” ({true_share}, the estimate)."


def below_zero(lowest: float) -> str | None:
    """What re-run estimates below 0% show; None when none fell there."""
    if lowest >= 0.0:
        return None
    return (
        f"Some fell below {percent(0.0)}: noise alone can push an estimate outside {WHOLE_SCALE}."
    )


# --------------------------------------------------------------------------- step 6


def ceiling(
    *,
    prior: str,
    prior_against: str,
    prior_odds: str | None,
    odds: str,
    ceiling_odds: str,
    ceiling_chance: str,
    floor_chance: str,
) -> Markup | str:
    """How far one “Yes” can move the odds of the prior: at most e^ε (``odds``) times, up or
    down. A prior of 0% or 100% (no ``prior_odds``: they are infinite) has nothing to learn."""
    if prior_odds is None:
        return f"A prior of {percent(0.0)} or {percent(1.0)} leaves nothing to learn."
    return Markup(
        'The ceiling: the odds of “Yes”, <span id="lesson-prior-odds">{}</span> ({} against {}),'
        " can grow at most e<sup>ε</sup> = {} times, to "
        '<span id="lesson-ceiling-odds">{}</span>: a chance of '
        '<span id="lesson-ceiling">{}</span> (and shrink at most {} times: '
        '<span id="lesson-floor">{}</span>). Randomized response reaches the ceiling exactly: '
        "one “Yes” tells as much as ε allows, and no more."
    ).format(
        prior_odds, prior, prior_against, odds, ceiling_odds, ceiling_chance, odds, floor_chance
    )


# --------------------------------------------------------------------------- step 7


def trade_off_row(p: str, epsilon: str, n: int, exact: str, chebyshev: str) -> str:
    """What a class of n would get at flip probability p (the control's words)."""
    return (
        f"At p = {p}: ε = {epsilon}; a class of {n:,} would get a range of about ±{exact} "
        f"(exact), ±{chebyshev} by Chebyshev."
    )


def trade_off_label(p: str, is_current: bool) -> str:
    """A row's heading: its flip probability, the survey's own marked."""
    return f"{p} (this survey)" if is_current else p


def range_says_nothing(widest_half_width: float) -> str | None:
    """Why some ranges of the trade-off say nothing; None when every one says something."""
    if not covers_whole_scale(widest_half_width):
        return None
    return (
        f"A range of {WHOLE_SCALE_POINTS} or more covers all of {WHOLE_SCALE}: it says nothing "
        "about the class."
    )


# --------------------------------------------------------------------------- step 8


def composition(count: int, epsilon: str, total: str, total_odds: str) -> Markup:
    """What answering every question costs (``#lesson-total``), and the odds it bounds
    (``#lesson-total-odds``)."""
    if count == 1:
        return Markup(
            "Answering the survey’s one question at ε = {} costs "
            '<strong id="lesson-total">ε = {}</strong> (composition: the epsilons add up), so '
            'the whole survey can make anyone at most <span id="lesson-total-odds">{}</span> '
            "times surer."
        ).format(epsilon, total, total_odds)
    return Markup(
        "Answering all {} questions at ε = {} each costs "
        '<strong id="lesson-total">ε = {}</strong> (composition: the epsilons add up), so the '
        'whole survey can make anyone at most <span id="lesson-total-odds">{}</span> times '
        "surer."
    ).format(count, epsilon, total, total_odds)
