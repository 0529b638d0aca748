"""What the lesson shows: each step's figures, formulas (MathML with a text alternative) and
charts (SVG geometry), from the figures :mod:`survey_app.privacy.lesson` computes, and which of
its sentences (survey_app.lesson.words) fits them.

No math here beyond placing numbers on a drawing: every figure comes from the privacy package
or from the results the dashboard shows (survey_app.results.tables).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flask_babel import gettext

from survey_app import kinds
from survey_app.lesson import number_steps, pair_steps, words
from survey_app.lesson.figures import (
    ONE_MINUS_TWO_P,
    formula,
    frac,
    mi,
    minus,
    mn,
    mo,
    mrow,
    msub,
    number,
    options_chart,
    paren,
    range_chart,
    signed,
    theorem_5,
    theorem_5_options,
    times,
    written,
    written_points,
    written_share,
)
from survey_app.lesson.share_steps import bayes_step, reruns_step, subject_of, trade_off_step
from survey_app.lesson.words import steps_of
from survey_app.privacy import lesson
from survey_app.results import rounding
from survey_app.results.tables import QuestionResult
from survey_app.storage.models import Survey
from survey_app.web.languages import is_english
from survey_app.words import (
    format_epsilon,
    format_upper_bound,
    grouped,
    local_figure,
    percent,
    percent_high,
    percent_low,
)

#: ln, applied to what follows (MathML's invisible function application keeps "ln 3" apart).
LN = mi("ln") + mo("\u2061") + '<mspace width="0.2em"></mspace>'

#: Step 4 of a choice question draws its options' ranges when it has at most this many.
CHART_OPTIONS = 4
#: A table of more rows than this is set compactly, to fit the projector's screen.
COMPACT_ROWS = 6


@dataclass
class Step:
    number: int
    key: str
    #: Its title in the page's language (words.steps_of).
    title: str
    #: False: the step waits for answers; ``note`` says why.
    shown: bool = True
    note: str | None = None
    #: Everything the step's template places.
    figures: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- step 1


def fixed_figure(value: float, places: int) -> str:
    """``value`` to the nearest of ``places`` decimals, each written: "1.730" ("1,730")."""
    if is_english():
        return f"{value:.{places}f}"
    return local_figure(round(value, places), places, fixed=True)


def _epsilon_tail(epsilon: float, chain: str) -> tuple[str, str]:
    """How a formula ends on epsilon (MathML; and words, after the text alternative's
    ``chain``): "≈ 1.10" where that is both epsilon to the nearest hundredth and rounded up,
    as every page shows it; else "≈ 1.735 < 1.74"."""
    shown = format_epsilon(epsilon)
    if f"{epsilon:.2f}" == f"{rounding.up(epsilon, 0.01):.2f}":
        words = gettext("%(formula)s, about %(epsilon)s", formula=chain, epsilon=shown)
        return f"{mo('≈')}{mn(shown)}", words
    nearer = fixed_figure(epsilon, 3)  # three decimals, a last 0 too: "1.730"
    words = gettext(
        "%(formula)s, about %(nearer)s < %(epsilon)s", formula=chain, nearer=nearer, epsilon=shown
    )
    return f"{mo('≈')}{mn(nearer)}{mo('<')}{mn(shown)}", words


def coin_step(flip_probability: float, question_count: int) -> dict:
    """The coin: keep 1 - p, flip p; Warner's q = 2p; epsilon and e^epsilon."""
    figures = lesson.coin(flip_probability)
    p = number(figures.flip_probability, 6)
    keep = number(figures.keep_probability, 6)
    eps = format_epsilon(figures.epsilon)
    # (1 - p) / p to three decimals: "=" when that is all of it (3, 9), else "≈" (2.333).
    odds = number(figures.odds)
    exact = abs(written(figures.odds) - figures.odds) < 1e-12
    chain = f"epsilon = ln({keep} / {p}) {'=' if exact else '≈'} ln {odds}"
    tail, alternative = _epsilon_tail(figures.epsilon, chain)
    body = (
        f"{mi('ε')}{mo('=')}{LN}{frac(mn(keep, 6), mn(p, 6))}"
        f"{mo('=' if exact else '≈')}{LN}{mn(odds)}{tail}"
    )
    return {
        "p": p,
        "keep": keep,
        "flip_percent": percent(figures.flip_probability),
        "keep_percent": percent(figures.keep_probability),
        "warner_q": number(figures.warner_q, 6),
        "warner_percent": percent(figures.warner_q),
        "epsilon": eps,
        "odds": format_upper_bound(figures.odds),
        "question_count": question_count,
        "formula": formula(body, alternative, gettext("Epsilon")),
    }


def choice_coin_step(flip_probability: float, options: int, labels: list[str]) -> dict:
    """The coin of a k-option question: keep P, each other option Q, P / Q = e^epsilon."""
    figures = lesson.choice_coin(flip_probability, options)
    keep, other = (number(each, figures.places) for each in figures.written)
    eps = format_epsilon(figures.epsilon)
    tail, alternative = _epsilon_tail(figures.epsilon, f"epsilon = ln({keep} / {other})")
    body = f"{mi('ε')}{mo('=')}{LN}{frac(mn(keep, 9), mn(other, 9))}{tail}"
    return {
        "options": options,
        "labels": labels,
        "keep_percent": percent(figures.keep_probability),
        "other_percent": percent(figures.other_probability),
        "epsilon": eps,
        "odds": format_upper_bound(figures.odds),
        "formula": formula(body, alternative, gettext("Epsilon")),
    }


# --------------------------------------------------------------------------- steps 2 and 3


def arrived_step(question: QuestionResult, is_open: bool = False) -> dict:
    """What arrived: n, the randomized counts and raw shares (as the dashboard's table); while
    the survey is open, the dashboard's last release of them."""
    shown_label = kinds.kind_named(question.kind).shown_label
    return {
        "received": words.received(grouped(question.n), is_open, question.n),
        "biased": words.biased(len(question.options)),
        "compact": len(question.options) > COMPACT_ROWS,
        "rows": [
            {
                "label": shown_label(option.label),
                "count": grouped(option.noisy_count),
                "raw": percent(option.estimate.noisy_share),
            }
            for option in question.options
        ],
    }


def estimate_step(question: QuestionResult, flip_probability: float, headline: str) -> dict:
    """The estimate ``(raw - p) / (1 - 2p)`` written out with the class's numbers, each to
    enough decimals that the reader's arithmetic gives the estimate every step shows, and the
    share the results show (kept in the range of kind ``headline``)."""
    yes = question.options[1].estimate
    working = lesson.estimate_working(yes.noisy_count, yes.n, flip_probability)
    places = max(working.places, 6)
    raw, pp = number(working.raw, working.places), number(working.flip_probability, 6)
    top, bottom = number(working.numerator, places), number(working.denominator, 6)
    result = written_share(yes.estimate)
    raw_name = gettext("raw")  # the formulas' name for the raw share
    body = mrow(
        frac(minus(mi(raw_name), mi("p")), ONE_MINUS_TWO_P),
        mo("="),
        frac(minus(mn(raw, 9), mn(pp, 6)), minus(mn("1"), times(mn("2"), mn(pp, 6)))),
        mo("="),
        frac(mn(top, 9), mn(bottom, 6)),
        mo("="),
        mn(result, 6),
    )
    expectation = mrow(
        mi("E"),
        paren(mi(raw_name)),
        mo("="),
        mi("b") + paren(minus(mn("1"), mi("p"))),
        mo("+"),
        paren(minus(mn("1"), mi("b"))) + mi("p"),
        mo("="),
        mi("p") + mo("+") + paren(ONE_MINUS_TWO_P) + mi("b"),
    )
    return {
        "raw": raw,
        "raw_percent": percent(working.raw),
        "estimate": result,
        "undone": words.undone_estimate(
            signed(percent(yes.estimate)),
            yes.outside_unit_interval,
            percent(question.options[1].headline(headline)),
        ),
        "formula": formula(
            body,
            gettext(
                "(raw - p) / (1 - 2p) = (%(raw)s - %(p)s) / (1 - 2 x %(p)s) = %(top)s / %(bottom)s "
                "= %(result)s",
                raw=raw,
                p=pp,
                top=top,
                bottom=bottom,
                result=result,
            ),
            gettext("The estimate, worked out"),
        ),
        "expectation": formula(
            expectation,
            gettext("E[raw] = b (1 - p) + (1 - b) p = p + (1 - 2p) b, for the true share b"),
            gettext("Why it is unbiased"),
        ),
    }


def choice_estimate_step(question: QuestionResult, flip_probability: float, headline: str) -> dict:
    """Each option's estimate ``(raw - Q) / (P - Q)``, the first option's written out to
    enough decimals that the reader's arithmetic gives the estimate every step shows, and the
    share the results show (kept in the range of kind ``headline``)."""
    first = question.options[0]
    shown_label = kinds.kind_named(question.kind).shown_label  # a pair's "Yes / No", said
    working = lesson.option_working(
        first.noisy_count, question.n, flip_probability, len(question.options)
    )
    keep, other, raw, top, bottom = (
        number(value, working.places)
        for value in (
            working.keep_probability,
            working.other_probability,
            working.raw,
            working.numerator,
            working.denominator,
        )
    )
    result = written_share(first.estimate.estimate)
    body = mrow(
        frac(minus(mi(gettext("raw")), mi("Q")), minus(mi("P"), mi("Q"))),
        mo("="),
        frac(minus(mn(raw, 9), mn(other, 9)), minus(mn(keep, 9), mn(other, 9))),
        mo("="),
        frac(mn(top, 9), mn(bottom, 9)),
        mo("="),
        mn(result, 6),
    )
    return {
        "formula": formula(
            body,
            gettext(
                "(raw - Q) / (P - Q) = (%(raw)s - %(other)s) / (%(keep)s - %(other)s) = %(top)s / "
                "%(bottom)s = %(result)s, for %(label)s",
                raw=raw,
                other=other,
                keep=keep,
                top=top,
                bottom=bottom,
                result=result,
                label=shown_label(first.label),
            ),
            gettext("The estimate, worked out for the first answer"),
        ),
        "keep": keep,
        "other": other,
        "first": shown_label(first.label),
        "compact": len(question.options) > COMPACT_ROWS,
        "rows": [
            {
                "label": shown_label(option.label),
                "raw": number(option.estimate.noisy_share, working.places),
                "estimate": signed(percent(option.estimate.estimate)),
                "shown": percent(option.headline(headline)),
            }
            for option in question.options
        ],
    }


# --------------------------------------------------------------------------- step 4


def _range_words(ends: tuple[float, float]) -> str:
    """A range's ends, rounded outward as the dashboard rounds them: '0% to 45%'."""
    return words.range_words(signed(percent_low(ends[0])), signed(percent_high(ends[1])))


def _notes_figures(n: int, flip_probability: float, confidence: float, options: int) -> dict:
    """The notes' bound written out (Theorem 5, ``P - Q`` for ``1 - 2p`` with k options), its
    half-width in the text with the formula's digits."""
    working = lesson.notes_working(n, flip_probability, confidence, options)
    delta, half = number(working.delta, 6), number(working.half_width)
    if options == 2:
        p = number(working.other, 6)
        body = theorem_5(n, p, delta, half)
        alternative = (
            f"h = sqrt(1 / delta) / (2 (1 - 2p) sqrt(n)) = sqrt(1 / {delta}) / "
            f"(2 x (1 - 2 x {p}) x sqrt({n})) = {half}"
        )
    else:
        keep, other = number(working.keep, 9), number(working.other, 9)
        body = theorem_5_options(n, keep, other, delta, half)
        alternative = (
            f"h = sqrt(1 / delta) / (2 (P - Q) sqrt(n)) = sqrt(1 / {delta}) / "
            f"(2 x ({keep} - {other}) x sqrt({n})) = {half}"
        )
    return {
        "n": grouped(n),
        "notes_points": written_points(working.half_width),
        "says_nothing": words.bound_says_nothing(working.half_width),
        "formula": formula(body, alternative, words.NOTES_BOUND_TITLE),
    }


def sure_step(question: QuestionResult, flip_probability: float) -> dict:
    """The notes' bound with this n and p, beside the dashboard's ranges, on one axis."""
    yes = question.options[1].estimate
    sure = lesson.sureness(yes, flip_probability)
    return {
        **_notes_figures(yes.n, flip_probability, sure.confidence, 2),
        "confidence": percent(sure.confidence),
        "chebyshev_points": words.precise_points(sure.chebyshev_half_width, long=False),
        "exact_words": _range_words(sure.exact_range),
        "live_words": _range_words(sure.live_range),
        "chart": range_chart(sure),
    }


def choice_sure_step(question: QuestionResult, flip_probability: float) -> dict:
    """The notes' bound for each option (``P - Q`` for ``1 - 2p``), beside each option's
    exact and live ranges as the dashboard shows them, on one axis."""
    options = len(question.options)
    shown_label = kinds.kind_named(question.kind).shown_label
    shown = [
        (shown_label(option.label), lesson.sureness(option.estimate, flip_probability, options))
        for option in question.options
    ]
    first = shown[0][1]
    return {
        **_notes_figures(question.n, flip_probability, first.confidence, options),
        "options": options,
        "confidence": percent(first.confidence),
        # Set beside its chart (up to four options) or longer than the chart allows (more):
        # the table is always compact.
        "compact": True,
        "rows": [
            {
                "label": label,
                "estimate": signed(percent(sure.estimate)),
                "exact": _range_words(sure.exact_range),
                "live": _range_words(sure.live_range),
            }
            for label, sure in shown
        ],
        # Up to four options the ranges are drawn too; more would not fit the projector's
        # screen in type the room can read (the table says them all).
        "chart": options_chart(shown) if options <= CHART_OPTIONS else None,
    }


# --------------------------------------------------------------------------- step 8


def budgets_step(survey: Survey) -> dict:
    """Composition over the survey's questions; k friends answering alike, k x epsilon: each
    sum from epsilon as written (rounded up), so the reader's arithmetic gives the figures
    shown, each still at least the true loss."""
    eps = format_epsilon(survey.epsilon_per_question)
    # Each term as written (rounded up to a hundredth), so that the sum adds up as shown.
    epsilons = [rounding.up(survey.epsilon_per_question, 0.01)] * len(survey.questions)
    figures = lesson.budgets(epsilons)
    total = format_epsilon(figures.total)
    terms = (
        mo("+").join(mn(eps) for _ in epsilons)
        if len(epsilons) <= 6
        else (f"{mn(str(len(epsilons)))}{mo('×')}{mn(eps)}")
    )
    of_the_survey = msub("ε", gettext("survey"))
    body = f"{of_the_survey}{mo('=')}{terms}{mo('=')}{mn(total)}"
    return {
        "composition": words.composition(
            len(epsilons), eps, total, format_upper_bound(figures.total_odds)
        ),
        # Two questions asked together are one question of the sum: their pair spends once.
        "pairs": any(kinds.kind_of(each).lesson_form == "cells" for each in survey.questions),
        "epsilon": eps,
        "total": total,
        "groups": [
            {"k": grouped(k), "question": format_epsilon(one), "survey": format_epsilon(whole)}
            for k, one, whole in figures.groups
        ],
        "formula": formula(
            body,
            gettext(
                "epsilon of the survey = %(count)s x %(epsilon)s = %(total)s (the sum)",
                count=len(epsilons),
                epsilon=eps,
                total=total,
            ),
            gettext("The survey’s epsilon"),
        ),
    }


# --------------------------------------------------------------------------- the steps


def _shares_figures(key: str, form: str, question, survey, confidence, chosen, headline) -> dict:
    """A step of a yes/no or choice question: randomized response, with p or with P and Q."""
    p = survey.flip_probability
    yes_no = form == "flip"
    if key == "coin" and yes_no:
        return coin_step(p, len(survey.questions))
    if key == "coin":
        shown_label = kinds.kind_named(question.kind).shown_label
        labels = [shown_label(option.label) for option in question.options]
        return choice_coin_step(p, len(labels), labels)
    if key == "estimate":
        if yes_no:
            return estimate_step(question, p, headline)
        return choice_estimate_step(question, p, headline)
    if key == "sure":
        return sure_step(question, p) if yes_no else choice_sure_step(question, p)
    subject = subject_of(question)
    if key == "reruns":
        return reruns_step(subject, p)
    if key == "bayes":
        return bayes_step(subject, p)
    return trade_off_step(subject, p, confidence, chosen)


def lesson_steps(
    survey: Survey,
    question: QuestionResult,
    confidence: float,
    headline: str,
    waiting_for: tuple[int, int],
    chosen_p: float | None = None,
    only: int | None = None,
) -> list[Step]:
    """The steps for one question (words.steps_of), each worked out for its kind: its figures,
    or a note saying why not yet.

    ``waiting_for``: how many have answered, and the count results appear at (the steps that
    need answers wait until then, as the dashboard's shares do). ``only``: the one step whose
    figures are worked out (a page shows one step; the others need only their titles, and the
    re-runs and the trade-off take a moment each).
    """
    form = kinds.kind_named(question.kind).lesson_form
    waiting = words.waiting_note(question, *waiting_for)
    steps = []
    for position, (key, title) in enumerate(steps_of(form), start=1):
        step = Step(position, key, title)
        steps.append(step)
        if only is not None and position != only:
            continue
        if key == "budgets":
            step.figures = budgets_step(survey)
        elif key == "together":  # its figures are the mechanism's; the class's, once shown
            step.figures = pair_steps.together_step(survey, question, confidence, not waiting)
        elif key != "coin" and waiting:
            step.shown, step.note = False, waiting
        elif key == "arrived":
            step.figures = arrived_step(question, survey.is_open)
        elif form == "number":
            step.figures = number_steps.step_figures(
                key, question, survey, headline, confidence, chosen_p
            )
        else:
            step.figures = _shares_figures(
                key, form, question, survey, confidence, chosen_p, headline
            )
    return steps
