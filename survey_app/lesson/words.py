"""What the lesson says: each sentence whole in one function or constant here (a translation
wraps each as one unit), filled with figures survey_app.lesson.presenters has worded.

The presenters decide which figure a step shows and call these for its sentences; the
templates place them. A sentence holding an element that a test or the page's script reads
(``<strong id=...>``) is Markup, every value in it escaped: labels, units and question texts
are typed by professors.
"""

from __future__ import annotations

from flask_babel import LazyString, gettext, lazy_gettext, ngettext
from markupsafe import Markup, escape

from survey_app.results import rounding
from survey_app.web.languages import is_english
from survey_app.words import format_number, grouped, local_figure, percent, plural_number

#: The steps, in order: (key, title).
STEPS = (
    ("coin", lazy_gettext("The coin")),
    ("arrived", lazy_gettext("What arrived")),
    ("estimate", lazy_gettext("Undoing the noise on average")),
    ("sure", lazy_gettext("How sure can we be")),
    ("reruns", lazy_gettext("If we ran it again")),
    ("bayes", lazy_gettext("What one answer tells about one student")),
    ("trade_off", lazy_gettext("The trade-off")),
    ("budgets", lazy_gettext("Budgets")),
)

#: The step a pair of questions asked together gets before the budgets: what that kept.
TOGETHER_STEP = ("together", lazy_gettext("Asking the two together"))


def steps_of(form: str) -> tuple[tuple[str, LazyString], ...]:
    """The steps of a question whose kind's lesson form is ``form`` (kinds.Kind.lesson_form):
    a pair's cells get :data:`TOGETHER_STEP` before the budgets."""
    if form != "cells":
        return STEPS
    return (*STEPS[:-1], TOGETHER_STEP, STEPS[-1])


#: The question chooser shows this many characters of a question's text; a longer text is
#: also written out in full under it.
CHOOSER_TEXT_LENGTH = 60


def point_figure(margin: float) -> str:
    """A margin of a share in percentage points to a tenth, rounded up, as a bare figure in the
    page's language: 0.1234 -> '12.4' ('12,4' in German and French)."""
    figure = rounding.up(margin * 100, 0.1)
    return rounding.text(figure, 1) if is_english() else local_figure(figure, 1)


def precise_points(margin: float, long: bool = True) -> str:
    """A margin of a share in percentage points to a tenth, rounded up, without its ±:
    "12.3 percentage points", "1 percentage point"; short: "12.3 points". The lesson's
    figures are checked against its formulas to a tenth."""
    return points_words(point_figure(margin), rounding.up(margin * 100, 0.1), long)


def points_words(figure: str, value: float, long: bool = True) -> str:
    """A figure already written (``value``, for its plural form) in percentage points."""
    if long:
        return ngettext(
            "%(figure)s percentage point",
            "%(figure)s percentage points",
            plural_number(value),
            figure=figure,
        )
    return ngettext("%(figure)s point", "%(figure)s points", plural_number(value), figure=figure)


def _whole_scale() -> str:
    return f"{format_number(0.0)}–{percent(1.0)}"


def _share_axis() -> str:
    return gettext("%(low)s to %(high)s", low=percent(0.0), high=percent(1.0))


#: A share's scale, end to end, as the lesson writes it: "0–100%" (each read in the page's
#: language when said).
WHOLE_SCALE = LazyString(_whole_scale)
#: The axis of the charts of ranges, as their titles say it: "0% to 100%".
SHARE_AXIS = LazyString(_share_axis)
#: A half-width of a share's range from which on it covers the whole scale: it says nothing.
WHOLE_SCALE_HALF_WIDTH = 1.0
#: That half-width in words: "±100 percentage points".
WHOLE_SCALE_POINTS = LazyString(
    lambda: ngettext(
        "±%(figure)s percentage point",
        "±%(figure)s percentage points",
        100,
        figure=point_figure(WHOLE_SCALE_HALF_WIDTH),
    )
)

#: The two Chebyshev bounds the lesson shows, each by one name: the notes' (Theorem 5, with
#: the variance of a report bounded by 1/4 whatever p) and the one with each report's exact
#: variance, p(1 - p), which the dashboard, the planner and the CSV files show too.
NOTES_BOUND = "the notes’ bound (Chebyshev with the worst-case variance)"
#: (The catalog's sentences that name the latter spell it as here, in each language alike.)
EXACT_VARIANCE_BOUND = "Chebyshev’s bound with the exact variance"
#: The notes' bound's formula, named for a screen reader.
NOTES_BOUND_TITLE = lazy_gettext("The notes’ bound (Theorem 5)")


def covers_whole_scale(half_width: float) -> bool:
    """Whether a range this far either side of its estimate covers all of 0–100%."""
    return half_width >= WHOLE_SCALE_HALF_WIDTH


# --------------------------------------------------------------------------- the steps' notes


def _sentence(message: str, **figures) -> Markup:
    """A sentence of the catalog (already said in the page's language), trusted with its
    markup, its figures escaped into it: labels, units and question texts are typed by
    professors."""
    return Markup(message) % figures


def _escaped(**figures) -> dict:
    """Figures escaped for a sentence of the catalog that a page trusts with its markup."""
    return {name: escape(figure) for name, figure in figures.items()}


def waiting_note(question, answered: int, appear_at: int) -> str | None:
    """Why the steps that need answers show nothing yet; None when they can. ``answered``: how
    many have answered; ``appear_at``: the count results appear at, by the one rule the
    dashboard follows (results.releases.results_appear_at)."""
    if answered == 0:
        return ngettext(
            "No answers yet: this step fills in once %(count)s person has answered.",
            "No answers yet: this step fills in once %(count)s people have answered.",
            appear_at,
            count=grouped(appear_at),
        )
    if not question.shows_results:
        return gettext(
            "Too early: %(answered)s answered. This step fills in once %(count)s have, as the "
            "dashboard’s shares do.",
            answered=grouped(answered),
            count=grouped(appear_at),
        )
    if not question.consistent_with_randomization:
        return gettext(
            "These answers are not consistent with the randomization (some were probably not "
            "sent by the survey page): the dashboard says more."
        )
    return None


# --------------------------------------------------------------------------- steps 2 and 3


def received(n: str, is_open: bool, count: int | None = None) -> Markup:
    """How many randomized answers the server received (while the survey is open, as of the
    dashboard's last release), the count ``n`` (``count`` as a number, for its plural form: a
    step shows from results_appear_at, never fewer than two) in ``#lesson-n``."""
    many = 2 if count is None else count
    if is_open:
        return Markup(
            ngettext(
                'The server received <strong id="lesson-n">%(n)s</strong> randomized answer, as '
                "of the dashboard’s last release.",
                'The server received <strong id="lesson-n">%(n)s</strong> randomized answers, as '
                "of the dashboard’s last release.",
                many,
                **_escaped(n=n),
            )
        )
    return Markup(
        ngettext(
            'The server received <strong id="lesson-n">%(n)s</strong> randomized answer.',
            'The server received <strong id="lesson-n">%(n)s</strong> randomized answers.',
            many,
            **_escaped(n=n),
        )
    )


def biased(options: int) -> str | None:
    """Which way the flips push the raw shares: toward an equal share for each answer."""
    if not options:
        return None
    even = percent(1.0 / options)
    if options == 2:
        return gettext("The raw share is biased: the flips push it toward %(even)s.", even=even)
    return gettext(
        "The raw shares are biased: the flips push each toward %(even)s, an equal share for "
        "every answer.",
        even=even,
    )


def undone_estimate(estimate: str, outside: bool, shown: str) -> Markup:
    """The estimate once the flips are undone, in ``#lesson-estimate``; ``outside`` 0–100%:
    by chance, and what the dashboard shows instead."""
    if outside:
        return _sentence(
            gettext(
                'Undo the flips on average: the estimate is <strong id="lesson-estimate">'
                "%(estimate)s</strong> (outside %(scale)s by chance: the dashboard shows "
                "%(shown)s)."
            ),
            estimate=estimate,
            scale=str(WHOLE_SCALE),
            shown=shown,
        )
    return _sentence(
        gettext(
            'Undo the flips on average: the estimate is <strong id="lesson-estimate">'
            "%(estimate)s</strong>."
        ),
        estimate=estimate,
    )


def average_words(n: str, words: dict, headline: str, confidence: float) -> Markup:
    """A number question's average (``#lesson-mean``) and its range of the dashboard's
    headline kind, each figure with its unit as the figure wants it (``words``:
    results.words.numeric_words)."""
    return _sentence(
        AVERAGE_SENTENCES.get(headline, AVERAGE_SENTENCES["exact"])(),
        n=n,
        mean=words["said"]["mean"],
        low=words["low"],
        high=words["said"]["high"],
        confidence=percent(confidence),
    )


#: The average and its range, by the kind of range the dashboard leads with (its guarantee:
#: fixed, live "however often you look", or for all the answers at once).
AVERAGE_SENTENCES = {
    "exact": lambda: gettext(
        'From %(n)s randomized numbers, the average is about <strong id="lesson-mean">'
        "%(mean)s</strong>: between <strong>%(low)s</strong> and <strong>%(high)s</strong>, "
        "guaranteed at least %(confidence)s of the time."
    ),
    "live": lambda: gettext(
        'From %(n)s randomized numbers, the average is about <strong id="lesson-mean">'
        "%(mean)s</strong>: between <strong>%(low)s</strong> and <strong>%(high)s</strong>, "
        "guaranteed at least %(confidence)s of the time, however often you look."
    ),
    "together": lambda: gettext(
        'From %(n)s randomized numbers, the average is about <strong id="lesson-mean">'
        "%(mean)s</strong>: between <strong>%(low)s</strong> and <strong>%(high)s</strong>, "
        "guaranteed at least %(confidence)s of the time for all the answers at once."
    ),
}


# --------------------------------------------------------------------------- step 4


def bound_says_nothing(half_width: float) -> str | None:
    """Why a bound covering the whole scale says nothing; None for a narrower one."""
    if not covers_whole_scale(half_width):
        return None
    return gettext(
        "(A bound of %(points)s or more says nothing: it covers all of %(scale)s.)",
        points=str(WHOLE_SCALE_POINTS),
        scale=str(WHOLE_SCALE),
    )


def range_words(low: str, high: str) -> str:
    """A range's two ends, already written: "10% to 30%"."""
    return gettext("%(low)s to %(high)s", low=low, high=high)


def _each_range(rows: list[dict]) -> str:
    """Each row's range (``label``, ``words``) in a chart's title: "Exact, 10% to 30%; "."""
    return "".join(
        gettext("%(label)s, %(range)s; ", label=row["label"], range=row["words"]) for row in rows
    )


def ranges_chart_title(rows: list[dict], estimate: str) -> str:
    """Step 4's drawing in words: each range (``label``, ``words``), then the estimate."""
    return gettext(
        "The ranges on one axis from %(axis)s: %(ranges)sthe estimate, %(estimate)s.",
        axis=str(SHARE_AXIS),
        ranges=_each_range(rows),
        estimate=estimate,
    )


def options_chart_title(rows: list[dict]) -> str:
    """Step 4's drawing for a choice in words: each option's exact range."""
    return gettext(
        "Each option’s exact range on one axis from %(axis)s: %(ranges)seach estimate marked.",
        axis=str(SHARE_AXIS),
        ranges=_each_range(rows),
    )


# --------------------------------------------------------------------------- step 5


def supposed_class(true_yes: int, n: int, true_share: str, estimate: str, label: str) -> str:
    """The class the re-runs suppose: as many truly holding the answer as the estimate says,
    in whole people (and the estimate itself when whole people cannot make it)."""
    figures = {"held": grouped(true_yes), "n": grouped(n), "label": label}
    if true_share == estimate:
        return ngettext(
            "Suppose %(held)s of the %(n)s truly holds “%(label)s” (%(share)s, the estimate).",
            "Suppose %(held)s of the %(n)s truly hold “%(label)s” (%(share)s, the estimate).",
            true_yes,
            share=true_share,
            **figures,
        )
    return ngettext(
        "Suppose %(held)s of the %(n)s truly holds “%(label)s” (%(share)s: the estimate, "
        "%(estimate)s, in whole people).",
        "Suppose %(held)s of the %(n)s truly hold “%(label)s” (%(share)s: the estimate, "
        "%(estimate)s, in whole people).",
        true_yes,
        share=true_share,
        estimate=estimate,
        **figures,
    )


def below_zero(lowest: float) -> str | None:
    """What re-run estimates below 0% show; None when none fell there."""
    if lowest >= 0.0:
        return None
    return gettext(
        "Some fell below %(zero)s: noise alone can push an estimate outside %(scale)s.",
        zero=percent(0.0),
        scale=str(WHOLE_SCALE),
    )


# --------------------------------------------------------------------------- step 6


def after_report(label: str, options: int, after_yes: str, after_no: str) -> Markup:
    """What one report does to the prior: ``#lesson-after-yes``, ``#lesson-after-no``."""
    figures = {"label": label, "after_yes": after_yes, "after_no": after_no}
    if options == 2:
        return _sentence(
            gettext(
                "If their phone sent “%(label)s”, that chance rises to "
                '<strong id="lesson-after-yes">%(after_yes)s</strong>; if it sent “No”, it falls '
                'to <strong id="lesson-after-no">%(after_no)s</strong>.'
            ),
            **figures,
        )
    return _sentence(
        gettext(
            "If their phone sent “%(label)s”, that chance rises to "
            '<strong id="lesson-after-yes">%(after_yes)s</strong>; if it sent any other answer, '
            'it falls to <strong id="lesson-after-no">%(after_no)s</strong>.'
        ),
        **figures,
    )


def bayes_alternative(label: str, options: int, b: str, keep: str, other: str, others: str):
    """Step 6's formula in words, up to its result (the presenter ends it)."""
    if options == 2:
        general = "b (1 - p) / (b (1 - p) + (1 - b) p)"
    else:
        general = "b P / (b P + (1 - b) Q)"
    given = gettext("P(truly %(label)s | sent %(label)s)", label=label)
    return f"{given} = {general} = {b} x {keep} / ({b} x {keep} + {others} x {other})"


def ceiling(
    *, label: str, yes_no: bool, prior: str, prior_against: str, ratio: str, odds: dict | None
) -> Markup | str:
    """How far one report can move the odds of the prior: by at most e^ε (``ratio``, written
    as the formula's ``(1 - p) / p`` or ``P / Q``), up or down. A prior of 0% or 100% (no
    ``odds``: they are 0 or infinite) has nothing to learn."""
    if odds is None:
        return gettext(
            "A prior of %(zero)s or %(whole)s leaves nothing to learn.",
            zero=percent(0.0),
            whole=percent(1.0),
        )
    figures = {"label": label, "prior": prior, "against": prior_against, "ratio": ratio, **odds}
    if yes_no:
        return _sentence(
            gettext(
                "The ceiling: the odds of “%(label)s”, "
                '<span id="lesson-prior-odds">%(prior_odds)s</span> (%(prior)s against '
                "%(against)s), can grow at most e<sup>ε</sup> = (1 − p) / p = %(ratio)s times, "
                'to <span id="lesson-ceiling-odds">%(ceiling_odds)s</span>: a chance of '
                '<span id="lesson-ceiling">%(ceiling)s</span> (and shrink at most as many times, '
                'to %(floor_odds)s: <span id="lesson-floor">%(floor)s</span>). Randomized '
                "response reaches the ceiling exactly: one “%(label)s” tells as much as ε allows, "
                "and no more."
            ),
            **figures,
        )
    return _sentence(
        gettext(
            "The ceiling: the odds of “%(label)s”, "
            '<span id="lesson-prior-odds">%(prior_odds)s</span> (%(prior)s against %(against)s), '
            "can grow at most e<sup>ε</sup> = P / Q = %(ratio)s times, to "
            '<span id="lesson-ceiling-odds">%(ceiling_odds)s</span>: a chance of '
            '<span id="lesson-ceiling">%(ceiling)s</span>. Randomized response reaches the '
            "ceiling exactly: one “%(label)s” tells as much as ε allows, and no more."
        ),
        **figures,
    )


# --------------------------------------------------------------------------- step 7


def trade_off_row(p: str, epsilon: str, n: int, exact: str, chebyshev: str) -> str:
    """What a class of n would get at flip probability p (the control's words)."""
    return gettext(
        "At p = %(p)s: ε = %(epsilon)s; a class of %(n)s would get a range of about ±%(exact)s "
        "(exact), ±%(chebyshev)s by Chebyshev’s bound with the exact variance.",
        p=p,
        epsilon=epsilon,
        n=grouped(n),
        exact=exact,
        chebyshev=chebyshev,
    )


def trade_off_intro(n: str, confidence: str, share: str | None = None, label: str = "") -> str:
    """What step 7's table is about: a class of n at the estimated share (none for a number)."""
    if share is None:
        return gettext(
            "More flips protect each student more and blur the class’s average. For %(n)s "
            "people (%(confidence)s ranges):",
            n=n,
            confidence=confidence,
        )
    return gettext(
        "More flips protect each student more and blur the class’s answer. For %(n)s people at "
        "%(share)s “%(label)s” (%(confidence)s ranges):",
        n=n,
        share=share,
        label=label,
        confidence=confidence,
    )


def number_trade_off_row(p: str, epsilon: str, n: int, half_width: str) -> str:
    """What a class of n would get at flip probability p, for a number (the control's words)."""
    return gettext(
        "At p = %(p)s: ε = %(epsilon)s; a class of %(n)s would get an average within "
        "±%(half_width)s.",
        p=p,
        epsilon=epsilon,
        n=grouped(n),
        half_width=half_width,
    )


def trade_off_label(p: str, is_current: bool) -> str:
    """A row's heading: its flip probability, the survey's own marked."""
    return gettext("%(p)s (this survey)", p=p) if is_current else p


def range_says_nothing(widest_half_width: float) -> str | None:
    """Why some ranges of the trade-off say nothing; None when every one says something."""
    if not covers_whole_scale(widest_half_width):
        return None
    return gettext(
        "A range of %(points)s or more covers all of %(scale)s: it says nothing about the class.",
        points=str(WHOLE_SCALE_POINTS),
        scale=str(WHOLE_SCALE),
    )


# --------------------------------------------------------------------------- step 8


def composition(count: int, epsilon: str, total: str, total_odds: str) -> Markup:
    """What answering every question costs (``#lesson-total``), and the odds it bounds
    (``#lesson-total-odds``)."""
    figures = {"epsilon": epsilon, "total": total, "odds": total_odds}
    if count == 1:
        return _sentence(
            gettext(
                "Answering the survey’s one question at ε = %(epsilon)s costs "
                '<strong id="lesson-total">ε = %(total)s</strong> (composition: the epsilons add '
                'up), so the whole survey can make anyone at most <span id="lesson-total-odds">'
                "%(odds)s</span> times surer."
            ),
            **figures,
        )
    return Markup(
        ngettext(
            "Answering all %(count)s question at ε = %(epsilon)s each costs "
            '<strong id="lesson-total">ε = %(total)s</strong> (composition: the epsilons add '
            'up), so the whole survey can make anyone at most <span id="lesson-total-odds">'
            "%(odds)s</span> times surer.",
            "Answering all %(count)s questions at ε = %(epsilon)s each costs "
            '<strong id="lesson-total">ε = %(total)s</strong> (composition: the epsilons add '
            'up), so the whole survey can make anyone at most <span id="lesson-total-odds">'
            "%(odds)s</span> times surer.",
            count,
            **_escaped(count=grouped(count), **figures),
        )
    )


# --------------------------------------------------------------------------- a number question


def number_bound(n: str, confidence: str, half_width: str) -> Markup:
    """Step 4 for a number: the notes' bound's half-width (``#lesson-notes-bound``)."""
    return _sentence(
        gettext(
            "The notes’ bound, Chebyshev with the worst-case variance V of one student’s "
            "randomized number, with n = %(n)s: with %(confidence)s confidence the average is "
            'within <strong id="lesson-notes-bound">±%(half_width)s</strong> of the class’s true '
            "average."
        ),
        n=n,
        confidence=confidence,
        half_width=half_width,
    )


def number_ranges(low: str, high: str, bound: str, live_low: str, live_high: str) -> Markup:
    """Step 4 for a number: the dashboard's range (``#lesson-exact``) and its live range."""
    return _sentence(
        gettext(
            'The dashboard’s range, <span id="lesson-exact">%(low)s to %(high)s</span>, is '
            "narrower and still guaranteed: it comes from %(bound)s. The live range, "
            '<span id="lesson-live">%(live_low)s to %(live_high)s</span>, holds however often it '
            "is looked at."
        ),
        low=low,
        high=high,
        bound=bound,
        live_low=live_low,
        live_high=live_high,
    )


def number_supposed_class(n: int, value: str) -> str:
    """The class step 5 re-runs for a number: everyone holds the class's average."""
    return gettext(
        "Suppose all %(n)s truly hold %(value)s, the class’s average.", n=grouped(n), value=value
    )


def number_report(low: str, high: str, ratio: str, after: str, odds: str, ceiling: str) -> Markup:
    """Step 6 for a number: what the most telling report does to a belief of one in two
    (``#lesson-after-yes``, ``#lesson-ceiling``)."""
    return _sentence(
        gettext(
            "Say a student’s number is %(low)s or %(high)s, as likely as not. Of all the reports "
            "a phone can send, the most telling is <span>%(ratio)s</span> times as likely from "
            "%(high)s as from %(low)s: after it, %(high)s has a chance of "
            '<strong id="lesson-after-yes">%(after)s</strong>. No report can tell more than '
            'e<sup>ε</sup> = %(odds)s allows: a chance of <strong id="lesson-ceiling">%(ceiling)s'
            "</strong>."
        ),
        low=low,
        high=high,
        ratio=ratio,
        after=after,
        odds=odds,
        ceiling=ceiling,
    )
