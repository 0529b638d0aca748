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
    ("bayes", "What one answer tells about one student"),
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

#: The two Chebyshev bounds the lesson shows, each by one name: the notes' (Theorem 5, with
#: the variance of a report bounded by 1/4 whatever p) and the one with each report's exact
#: variance, p(1 - p), which the dashboard, the planner and the CSV files show too.
NOTES_BOUND = "the notes’ bound (Chebyshev with the worst-case variance)"
EXACT_VARIANCE_BOUND = "Chebyshev’s bound with the exact variance"
#: The notes' bound's formula, named for a screen reader.
NOTES_BOUND_TITLE = "The notes’ bound (Theorem 5)"


def covers_whole_scale(half_width: float) -> bool:
    """Whether a range this far either side of its estimate covers all of 0–100%."""
    return half_width >= WHOLE_SCALE_HALF_WIDTH


# --------------------------------------------------------------------------- the steps' notes


def waiting_note(question, answered: int, appear_at: int) -> str | None:
    """Why the steps that need answers show nothing yet; None when they can. ``answered``: how
    many have answered; ``appear_at``: the count results appear at, by the one rule the
    dashboard follows (results.releases.results_appear_at)."""
    if answered == 0:
        return f"No answers yet: this step fills in once {appear_at:,} people have answered."
    if not question.shows_results:
        return (
            f"Too early: {answered:,} answered. This step fills in once {appear_at:,} have, as "
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


def supposed_class(true_yes: int, n: int, true_share: str, estimate: str, label: str) -> str:
    """The class the re-runs suppose: as many truly holding the answer as the estimate says,
    in whole people (and the estimate itself when whole people cannot make it)."""
    holds = plural(true_yes, "holds", "hold")
    if true_share == estimate:
        return (
            f"Suppose {true_yes:,} of the {n:,} truly {holds} “{label}” ({true_share}, the "
            "estimate)."
        )
    return (
        f"Suppose {true_yes:,} of the {n:,} truly {holds} “{label}” ({true_share}: the estimate, "
        f"{estimate}, in whole people)."
    )


def below_zero(lowest: float) -> str | None:
    """What re-run estimates below 0% show; None when none fell there."""
    if lowest >= 0.0:
        return None
    return (
        f"Some fell below {percent(0.0)}: noise alone can push an estimate outside {WHOLE_SCALE}."
    )


# --------------------------------------------------------------------------- step 6


def after_report(label: str, options: int, after_yes: str, after_no: str) -> Markup:
    """What one report does to the prior: ``#lesson-after-yes``, ``#lesson-after-no``."""
    if options == 2:
        return Markup(
            "If their phone sent “{}”, that chance rises to "
            '<strong id="lesson-after-yes">{}</strong>; if it sent “No”, it falls to '
            '<strong id="lesson-after-no">{}</strong>.'
        ).format(label, after_yes, after_no)
    return Markup(
        "If their phone sent “{}”, that chance rises to "
        '<strong id="lesson-after-yes">{}</strong>; if it sent any other answer, it falls to '
        '<strong id="lesson-after-no">{}</strong>.'
    ).format(label, after_yes, after_no)


def bayes_alternative(label: str, options: int, b: str, keep: str, other: str, others: str):
    """Step 6's formula in words, up to its result (the presenter ends it)."""
    if options == 2:
        general = "b (1 - p) / (b (1 - p) + (1 - b) p)"
    else:
        general = "b P / (b P + (1 - b) Q)"
    return (
        f"P(truly {label} | sent {label}) = {general} = "
        f"{b} x {keep} / ({b} x {keep} + {others} x {other})"
    )


def ceiling(
    *, label: str, yes_no: bool, prior: str, prior_against: str, ratio: str, odds: dict | None
) -> Markup | str:
    """How far one report can move the odds of the prior: by at most e^ε (``ratio``, written
    as the formula's ``(1 - p) / p`` or ``P / Q``), up or down. A prior of 0% or 100% (no
    ``odds``: they are 0 or infinite) has nothing to learn."""
    if odds is None:
        return f"A prior of {percent(0.0)} or {percent(1.0)} leaves nothing to learn."
    if yes_no:
        return Markup(
            'The ceiling: the odds of “{}”, <span id="lesson-prior-odds">{}</span> ({} against '
            "{}), can grow at most e<sup>ε</sup> = (1 − p) / p = {} times, to "
            '<span id="lesson-ceiling-odds">{}</span>: a chance of '
            '<span id="lesson-ceiling">{}</span> (and shrink at most as many times, to {}: '
            '<span id="lesson-floor">{}</span>). Randomized response reaches the ceiling '
            "exactly: one “{}” tells as much as ε allows, and no more."
        ).format(
            label,
            odds["prior_odds"],
            prior,
            prior_against,
            ratio,
            odds["ceiling_odds"],
            odds["ceiling"],
            odds["floor_odds"],
            odds["floor"],
            label,
        )
    return Markup(
        'The ceiling: the odds of “{}”, <span id="lesson-prior-odds">{}</span> ({} against {}), '
        "can grow at most e<sup>ε</sup> = P / Q = {} times, to "
        '<span id="lesson-ceiling-odds">{}</span>: a chance of '
        '<span id="lesson-ceiling">{}</span>. Randomized response reaches the ceiling exactly: '
        "one “{}” tells as much as ε allows, and no more."
    ).format(
        label,
        odds["prior_odds"],
        prior,
        prior_against,
        ratio,
        odds["ceiling_odds"],
        odds["ceiling"],
        label,
    )


# --------------------------------------------------------------------------- step 7


def trade_off_row(p: str, epsilon: str, n: int, exact: str, chebyshev: str) -> str:
    """What a class of n would get at flip probability p (the control's words)."""
    return (
        f"At p = {p}: ε = {epsilon}; a class of {n:,} would get a range of about ±{exact} "
        f"(exact), ±{chebyshev} by {EXACT_VARIANCE_BOUND}."
    )


def trade_off_intro(n: str, confidence: str, share: str | None = None, label: str = "") -> str:
    """What step 7's table is about: a class of n at the estimated share (none for a number)."""
    if share is None:
        return (
            "More flips protect each student more and blur the class’s average. For "
            f"{n} people ({confidence} ranges):"
        )
    return (
        "More flips protect each student more and blur the class’s answer. For "
        f"{n} people at {share} “{label}” ({confidence} ranges):"
    )


def number_trade_off_row(p: str, epsilon: str, n: int, half_width: str) -> str:
    """What a class of n would get at flip probability p, for a number (the control's words)."""
    return f"At p = {p}: ε = {epsilon}; a class of {n:,} would get an average within ±{half_width}."


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


# --------------------------------------------------------------------------- a number question


def number_bound(n: str, confidence: str, half_width: str) -> Markup:
    """Step 4 for a number: the notes' bound's half-width (``#lesson-notes-bound``)."""
    return Markup(
        "The notes’ bound, Chebyshev with the worst-case variance V of one student’s "
        "randomized number, with n = {}: with {} confidence the average is within "
        '<strong id="lesson-notes-bound">±{}</strong> of the class’s true average.'
    ).format(n, confidence, half_width)


def number_ranges(low: str, high: str, bound: str, live_low: str, live_high: str) -> Markup:
    """Step 4 for a number: the dashboard's range (``#lesson-exact``) and its live range."""
    return Markup(
        'The dashboard’s range, <span id="lesson-exact">{} to {}</span>, is narrower and still '
        "guaranteed: it comes from {}. The live range, "
        '<span id="lesson-live">{} to {}</span>, holds however often it is looked at.'
    ).format(low, high, bound, live_low, live_high)


def number_supposed_class(n: int, value: str) -> str:
    """The class step 5 re-runs for a number: everyone holds the class's average."""
    return f"Suppose all {n:,} truly hold {value}, the class’s average."


def number_report(low: str, high: str, ratio: str, after: str, odds: str, ceiling: str) -> Markup:
    """Step 6 for a number: what the most telling report does to a belief of one in two
    (``#lesson-after-yes``, ``#lesson-ceiling``)."""
    return Markup(
        "Say a student’s number is {} or {}, as likely as not. Of all the reports a phone can "
        "send, the most telling is <span>{}</span> times as likely from {} as from {}: after it, "
        '{} has a chance of <strong id="lesson-after-yes">{}</strong>. No report can tell more '
        'than e<sup>ε</sup> = {} allows: a chance of <strong id="lesson-ceiling">{}</strong>.'
    ).format(low, high, ratio, high, low, high, after, odds, ceiling)
