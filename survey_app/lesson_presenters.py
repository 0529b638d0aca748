"""What the lesson says: each step's words, formulas (MathML with a text alternative) and
charts (SVG geometry), from the figures :mod:`survey_app.privacy.lesson` computes.

No math here beyond placing numbers on a drawing: every figure comes from the privacy package
or from the results the dashboard shows (survey_app.results).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from survey_app import rounding
from survey_app.models import QuestionKind, Survey
from survey_app.presenters import (
    MECHANISM_WORDS,
    format_epsilon,
    format_number,
    format_upper_bound,
    numeric_words,
    percent,
    percent_high,
    percent_low,
)
from survey_app.privacy import lesson
from survey_app.results import QuestionResult

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
#: The steps a choice or numeric question has (the others are about yes/no questions).
OTHER_KIND_STEPS = ("coin", "arrived", "estimate", "budgets")
#: Decimals of the figures written into formulas.
FORMULA_PLACES = 3


@dataclass
class Step:
    number: int
    key: str
    title: str
    #: False: the step is about yes/no questions, or waits for answers; ``note`` says why.
    shown: bool = True
    note: str | None = None
    #: Everything the step's template places.
    figures: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- MathML


def _mn(value: float | int | str, places: int = FORMULA_PLACES) -> str:
    text = value if isinstance(value, str) else format_number(float(value), places)
    return f"<mn>{escape(text.replace('-', '−'))}</mn>"


def _mi(name: str) -> str:
    return f"<mi>{escape(name)}</mi>"


def _mo(operator: str) -> str:
    return f"<mo>{escape(operator)}</mo>"


def _frac(numerator: str, denominator: str) -> str:
    return f"<mfrac><mrow>{numerator}</mrow><mrow>{denominator}</mrow></mfrac>"


def _paren(body: str) -> str:
    return f"{_mo('(')}{body}{_mo(')')}"


def _sqrt(body: str) -> str:
    return f"<msqrt>{body}</msqrt>"


def _row(*parts: str) -> str:
    """MathML pieces, one after another."""
    return "".join(parts)


def _minus(first: str, second: str) -> str:
    return first + _mo("−") + second


def _times(first: str, second: str) -> str:
    return first + _mo("×") + second


#: 1 − 2p, as it stands in the formulas.
_ONE_MINUS_TWO_P = _minus(_mn("1"), _mn("2") + _mi("p"))


def formula(body: str, alternative: str) -> Markup:
    """A block formula with its text alternative (read aloud, shown where MathML is not), in
    a box that scrolls sideways on a narrow screen (reachable with the keyboard)."""
    alt = escape(alternative)
    return Markup(
        '<div class="lesson-formula" role="region" tabindex="0" aria-label="Formula">'
        f'<math display="block" alttext="{alt}" aria-label="{alt}"><mrow>{body}</mrow></math>'
        "</div>"
    )


def _number(value: float, places: int = FORMULA_PLACES) -> str:
    return format_number(value, places)


# --------------------------------------------------------------------------- step 1


def coin_step(flip_probability: float, question_count: int) -> dict:
    """The coin: keep 1 - p, flip p; Warner's q = 2p; epsilon and e^epsilon."""
    figures = lesson.coin(flip_probability)
    p = _number(figures.flip_probability, 6)
    keep = _number(figures.keep_probability, 6)
    eps = format_epsilon(figures.epsilon)
    body = (
        f"{_mi('ε')}{_mo('=')}{_mi('ln')}{_frac(_mn(keep, 6), _mn(p, 6))}"
        f"{_mo('=')}{_mi('ln')}{_mn(format_upper_bound(figures.odds))}{_mo('≈')}{_mn(eps)}"
    )
    return {
        "p": p,
        "keep": keep,
        "flip_percent": percent(figures.flip_probability),
        "keep_percent": percent(figures.keep_probability),
        "warner_q": _number(figures.warner_q, 6),
        "warner_percent": percent(figures.warner_q),
        "epsilon": eps,
        "odds": format_upper_bound(figures.odds),
        "question_count": question_count,
        "formula": formula(body, f"epsilon = ln({keep} / {p}) = ln {figures.odds:g}, about {eps}"),
    }


def choice_coin_step(flip_probability: float, options: int, labels: list[str]) -> dict:
    """The coin of a k-option question: keep P, each other option Q, P / Q = e^epsilon."""
    figures = lesson.choice_coin(flip_probability, options)
    keep, other = _number(figures.keep_probability), _number(figures.other_probability)
    eps = format_epsilon(figures.epsilon)
    body = f"{_mi('ε')}{_mo('=')}{_mi('ln')}{_frac(_mn(keep), _mn(other))}{_mo('≈')}{_mn(eps)}"
    return {
        "options": options,
        "labels": labels,
        "keep_percent": percent(figures.keep_probability),
        "other_percent": percent(figures.other_probability),
        "epsilon": eps,
        "odds": format_upper_bound(figures.odds),
        "formula": formula(body, f"epsilon = ln({keep} / {other}), about {eps}"),
    }


# --------------------------------------------------------------------------- steps 2 and 3


def arrived_step(question: QuestionResult) -> dict:
    """What arrived: n, the randomized counts and raw shares (as the dashboard's table)."""
    return {
        "n": f"{question.n:,}",
        "rows": [
            {
                "label": option.label,
                "count": f"{option.noisy_count:,}",
                "raw": percent(option.estimate.noisy_share),
            }
            for option in question.options
        ],
    }


def estimate_step(question: QuestionResult, flip_probability: float) -> dict:
    """The estimate ``(raw - p) / (1 - 2p)`` written out with the class's numbers."""
    yes = question.options[1].estimate
    working = lesson.estimate_working(yes.noisy_count, yes.n, flip_probability)
    raw, pp = _number(working.raw), _number(working.flip_probability, 6)
    top, bottom = _number(working.numerator), _number(working.denominator, 6)
    result = _number(working.estimate)
    body = _row(
        _frac(_minus(_mi("raw"), _mi("p")), _ONE_MINUS_TWO_P),
        _mo("="),
        _frac(_minus(_mn(raw), _mn(pp, 6)), _minus(_mn("1"), _times(_mn("2"), _mn(pp, 6)))),
        _mo("="),
        _frac(_mn(top), _mn(bottom, 6)),
        _mo("="),
        _mn(result),
    )
    expectation = _row(
        _mi("E"),
        _paren(_mi("raw")),
        _mo("="),
        _mi("b") + _paren(_minus(_mn("1"), _mi("p"))),
        _mo("+"),
        _paren(_minus(_mn("1"), _mi("b"))) + _mi("p"),
        _mo("="),
        _mi("p") + _mo("+") + _paren(_ONE_MINUS_TWO_P) + _mi("b"),
    )
    return {
        "raw": raw,
        "raw_percent": percent(working.raw),
        "estimate": result,
        "estimate_percent": percent(working.estimate),
        "shown_percent": percent(question.options[1].shown_share),
        "outside": yes.outside_unit_interval,
        "formula": formula(
            body,
            f"(raw - p) / (1 - 2p) = ({raw} - {pp}) / (1 - 2 x {pp}) = {top} / {bottom} = {result}",
        ),
        "expectation": formula(
            expectation, "E[raw] = b (1 - p) + (1 - b) p = p + (1 - 2p) b, for the true share b"
        ),
    }


def choice_estimate_step(question: QuestionResult, flip_probability: float) -> dict:
    """Each option's estimate ``(raw - Q) / (P - Q)``, with the browser's P and Q."""
    figures = lesson.choice_coin(flip_probability, len(question.options))
    keep, other = _number(figures.keep_probability), _number(figures.other_probability)
    body = _frac(_mi("raw") + _mo("−") + _mi("Q"), _mi("P") + _mo("−") + _mi("Q"))
    return {
        "formula": formula(body, "(raw - Q) / (P - Q)"),
        "keep": keep,
        "other": other,
        "rows": [
            {
                "label": option.label,
                "raw": _number(option.estimate.noisy_share),
                "estimate": percent(option.estimate.estimate),
                "shown": percent(option.shown_share),
            }
            for option in question.options
        ],
    }


def numeric_estimate_step(question: QuestionResult, headline: str) -> dict:
    """A number question's average and range, in the dashboard's words."""
    return {"words": numeric_words(question.numeric, headline), "n": f"{question.n:,}"}


# --------------------------------------------------------------------------- step 4

#: The one-axis charts are drawn in these units (wide: the projector shows them large).
CHART_WIDTH = 640
AXIS_LEFT = 24
AXIS_WIDTH = 592
RANGE_ROW = 50
#: Step 4's rows: (key, label, the Sureness attribute holding the range).
RANGE_ROWS = (
    ("notes", "Chebyshev, as in the notes (Theorem 5)", "notes_range"),
    ("chebyshev", "Chebyshev with the exact variance p(1 − p)", "chebyshev_range"),
    ("exact", "Exact range (the dashboard’s, once closed)", "exact_range"),
    ("live", "Live range (the dashboard’s, while open)", "live_range"),
)


def _x(value: float, low: float = 0.0, high: float = 1.0) -> float:
    """Where a value sits on an axis from ``low`` to ``high``, in chart units."""
    clipped = min(high, max(low, value))
    return round(AXIS_LEFT + AXIS_WIDTH * (clipped - low) / (high - low), 2)


def _ticks(low: float, high: float, y: float) -> list[dict]:
    """Axis ticks at a round step (at most about six of them), labelled in percent."""
    span = high - low
    step = next(s for s in (0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5) if span / s <= 6)
    first = rounding.up(low, step)
    ticks, value = [], first
    while value <= high + 1e-9:
        ticks.append({"x": _x(value, low, high), "y": y, "label": percent(value).replace("-", "−")})
        value = round(value + step, 10)
    return ticks


def range_chart(sure: lesson.Sureness) -> dict:
    """Step 4's drawing: each range as a band on one axis from 0% to 100%, the estimate as a
    line across them all."""
    rows = []
    for index, (key, label, attribute) in enumerate(RANGE_ROWS):
        low, high = getattr(sure, attribute)
        y = 8 + RANGE_ROW * index
        rows.append(
            {
                "key": key,
                "label": label,
                "words": f"{percent_low(low)} to {percent_high(high)}",
                "x": _x(low),
                "width": round(_x(high) - _x(low), 2),
                "text_y": y + 16,
                "bar_y": y + 24,
            }
        )
    height = 8 + RANGE_ROW * len(rows) + 28
    estimate = min(1.0, max(0.0, sure.estimate))
    return {
        "width": CHART_WIDTH,
        "height": height,
        "rows": rows,
        "estimate_x": _x(estimate),
        "estimate_words": percent(sure.estimate),
        "axis_y": height - 26,
        "ticks": _ticks(0.0, 1.0, height - 6),
    }


def _theorem_5(n: int, p: str, delta: str, half_width: str) -> str:
    """``h = sqrt(1/delta) / (2 (1 - 2p) sqrt(n))``, then with the numbers."""
    general = _frac(
        _sqrt(_frac(_mn("1"), _mi("δ"))), _mn("2") + _paren(_ONE_MINUS_TWO_P) + _sqrt(_mi("n"))
    )
    numbers = _frac(
        _sqrt(_frac(_mn("1"), _mn(delta, 6))),
        _times(_mn("2"), _paren(_minus(_mn("1"), _times(_mn("2"), _mn(p, 6)))))
        + _sqrt(_mn(str(n))),
    )
    return _row(_mi("h"), _mo("="), general, _mo("="), numbers, _mo("="), _mn(half_width))


def sure_step(question: QuestionResult, flip_probability: float) -> dict:
    """Theorem 5 of the notes with this n and p, beside the dashboard's ranges, on one axis."""
    yes = question.options[1].estimate
    sure = lesson.sureness(yes, flip_probability)
    n, p, delta = yes.n, _number(flip_probability, 6), _number(1.0 - sure.confidence, 6)
    notes = _number(sure.notes_half_width)
    return {
        "n": f"{n:,}",
        "confidence": percent(sure.confidence),
        "notes_points": percent_high(sure.notes_half_width),
        "chebyshev_points": percent_high(sure.chebyshev_half_width),
        "exact_words": f"{percent_low(sure.exact_range[0])} to {percent_high(sure.exact_range[1])}",
        "live_words": f"{percent_low(sure.live_range[0])} to {percent_high(sure.live_range[1])}",
        "formula": formula(
            _theorem_5(n, p, delta, notes),
            f"h = sqrt(1 / delta) / (2 (1 - 2p) sqrt(n)) = sqrt(1 / {delta}) / "
            f"(2 x (1 - 2 x {p}) x sqrt({n})) = {notes}",
        ),
        "chart": range_chart(sure),
    }


# --------------------------------------------------------------------------- step 5


def rerun_chart(reruns: lesson.Reruns, actual: float) -> dict:
    """Step 5's histogram: a bar per group of noisy counts, the class's estimate marked."""
    edges, counts = reruns.edges, reruns.counts
    low = min(float(edges[0]), actual, 0.0 if edges[0] < 0.1 else float(edges[0]))
    high = max(float(edges[-1]), actual)
    pad = (high - low) * 0.04
    low, high = low - pad, high + pad
    plot_top, plot_height = 10, 190
    tallest = max(int(counts.max()), 1)
    bars = []
    for index, count in enumerate(counts):
        x1, x2 = _x(float(edges[index]), low, high), _x(float(edges[index + 1]), low, high)
        bar_height = round(plot_height * int(count) / tallest, 2)
        bars.append(
            {
                "x": x1,
                "width": max(0.5, round(x2 - x1 - 1, 2)),
                "y": round(plot_top + plot_height - bar_height, 2),
                "height": bar_height,
            }
        )
    axis_y = plot_top + plot_height
    return {
        "width": CHART_WIDTH,
        "height": axis_y + 32,
        "bars": bars,
        "axis_y": axis_y,
        "actual_x": _x(actual, low, high),
        "ticks": _ticks(low, high, axis_y + 26),
    }


def reruns_step(question: QuestionResult, flip_probability: float) -> dict:
    """Re-runs of the randomization at the class's estimated share, the class's estimate marked."""
    yes = question.options[1].estimate
    runs = lesson.reruns(yes.estimate, yes.n, flip_probability)
    low, high = runs.middle(0.95)
    return {
        "runs": f"{len(runs.estimates):,}",
        "n": f"{runs.n:,}",
        "true_yes": f"{runs.true_yes:,}",
        "true_share": percent(runs.true_share),
        "mean": percent(runs.mean),
        "std": percent(runs.std),
        "expected_std": percent(runs.expected_std),
        "middle_low": percent(low),
        "middle_high": percent(high),
        "actual": percent(yes.estimate),
        "chart": rerun_chart(runs, yes.estimate),
    }


# --------------------------------------------------------------------------- step 6


def _bayes(after: lesson.Posterior, p: str) -> str:
    """``P(Yes | sent Yes) = b(1 - p) / (b(1 - p) + (1 - b)p)``, then with the numbers."""
    kept = _mi("b") + _paren(_minus(_mn("1"), _mi("p")))
    flipped = _paren(_minus(_mn("1"), _mi("b"))) + _mi("p")
    given = _mi("P") + _paren(_mi("Yes") + _mo("|") + _mtext("sent Yes"))
    return _row(
        given,
        _mo("="),
        _frac(kept, kept + _mo("+") + flipped),
        _mo("="),
        _frac(_mn(after.yes_kept), _mn(after.yes_kept) + _mo("+") + _mn(after.no_flipped)),
        _mo("="),
        _mn(after.after_yes),
    )


def bayes_step(question: QuestionResult, flip_probability: float) -> dict:
    """Bayes' rule with the class's estimate as the prior; the ceiling e^eps x prior odds."""
    after = lesson.posterior(question.options[1].shown_share, flip_probability)
    b, p = _number(after.prior), _number(flip_probability, 6)
    return {
        "prior": percent(after.prior),
        "after_yes": percent(after.after_yes),
        "after_no": percent(after.after_no),
        "ceiling": percent(after.ceiling),
        "floor": percent(after.floor),
        "odds": format_upper_bound(lesson.coin(flip_probability).odds),
        "certain": after.prior in (0.0, 1.0),
        "formula": formula(
            _bayes(after, p),
            f"P(Yes | sent Yes) = b (1 - p) / (b (1 - p) + (1 - b) p) = "
            f"{_number(after.yes_kept)} / ({_number(after.yes_kept)} + "
            f"{_number(after.no_flipped)}) = {_number(after.after_yes)}, with b = {b}, p = {p}",
        ),
    }


# --------------------------------------------------------------------------- step 7


def trade_off_step(
    question: QuestionResult, flip_probability: float, confidence: float, chosen: float | None
) -> dict:
    """The trade-off over p for this class size: epsilon and the ranges, the survey's p marked."""
    share = question.options[1].shown_share
    rows = lesson.trade_off(question.n, share, flip_probability, confidence)
    picked = min(rows, key=lambda row: abs(row.flip_probability - chosen)) if chosen else None
    picked = picked or next(row for row in rows if row.is_current)
    shown = []
    for row in rows:
        p = format_number(row.flip_probability, 6)
        words = (
            f"At p = {p}: ε = {format_epsilon(row.epsilon)}; a class of {question.n:,} would "
            f"get a range of about ±{percent_high(row.exact_half_width)} (exact), "
            f"±{percent_high(row.chebyshev_half_width)} by Chebyshev."
        )
        shown.append(
            {
                "p": p,
                "epsilon": format_epsilon(row.epsilon),
                "exact": "±" + percent_high(row.exact_half_width),
                "chebyshev": "±" + percent_high(row.chebyshev_half_width),
                "is_current": row.is_current,
                "is_picked": row is picked,
                "words": words,
            }
        )
    return {
        "rows": shown,
        "n": f"{question.n:,}",
        "share": percent(share),
        "picked": next(row for row in shown if row["is_picked"]),
        "choices": [format_number(p, 6) for p in lesson.TRADE_OFF_FLIP_PROBABILITIES],
        "confidence": percent(confidence),
    }


# --------------------------------------------------------------------------- step 8


def budgets_step(survey: Survey) -> dict:
    """Composition over the survey's questions; k friends answering alike, k x epsilon."""
    epsilons = [survey.epsilon_per_question] * len(survey.questions)
    figures = lesson.budgets(epsilons)
    eps = format_epsilon(survey.epsilon_per_question)
    total = format_epsilon(survey.epsilon_total)
    terms = (
        _mo("+").join(_mn(eps) for _ in epsilons)
        if len(epsilons) <= 6
        else (f"{_mn(str(len(epsilons)))}{_mo('×')}{_mn(eps)}")
    )
    body = f"{_msub('ε', 'survey')}{_mo('=')}{terms}{_mo('=')}{_mn(total)}"
    return {
        "question_count": len(epsilons),
        "epsilon": eps,
        "total": total,
        "total_odds": format_upper_bound(figures.total_odds),
        "groups": [
            {"k": k, "question": format_epsilon(one), "survey": format_epsilon(whole)}
            for k, one, whole in figures.groups
        ],
        "formula": formula(
            body, f"epsilon of the survey = {len(epsilons)} x {eps} = {total} (the sum)"
        ),
    }


def _msub(base: str, subscript: str) -> str:
    return f"<msub>{_mi(base)}{_mtext(subscript)}</msub>"


def _mtext(words: str) -> str:
    return f"<mtext>{escape(words)}</mtext>"


# --------------------------------------------------------------------------- the steps


def _waiting_note(question: QuestionResult, min_answers: int) -> str | None:
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


def _yes_no_figures(key: str, question, survey, confidence: float, chosen: float | None):
    p = survey.flip_probability
    if key == "arrived":
        return arrived_step(question)
    if key == "estimate":
        return estimate_step(question, p)
    if key == "sure":
        return sure_step(question, p)
    if key == "reruns":
        return reruns_step(question, p)
    if key == "bayes":
        return bayes_step(question, p)
    return trade_off_step(question, p, confidence, chosen)


def _other_figures(key: str, question, survey, headline: str) -> dict:
    if key == "coin" and question.kind == QuestionKind.CHOICE:
        labels = [option.label for option in question.options]
        return choice_coin_step(survey.flip_probability, len(labels), labels)
    if key == "coin":
        return {"mechanism": MECHANISM_WORDS[question.numeric.mechanism.name]}
    if key == "arrived":
        return arrived_step(question) if question.options else {"n": f"{question.n:,}"}
    if question.kind == QuestionKind.CHOICE:
        return choice_estimate_step(question, survey.flip_probability)
    return numeric_estimate_step(question, headline)


def lesson_steps(
    survey: Survey,
    question: QuestionResult,
    confidence: float,
    headline: str,
    min_answers: int,
    chosen_p: float | None = None,
) -> list[Step]:
    """The eight steps for one question: each with its figures, or a note saying why not."""
    yes_no = question.kind == QuestionKind.YES_NO
    waiting = _waiting_note(question, min_answers)
    steps = []
    for number, (key, title) in enumerate(STEPS, start=1):
        step = Step(number, key, title)
        if key == "budgets":
            step.figures = budgets_step(survey)
        elif key == "coin" and yes_no:
            step.figures = coin_step(survey.flip_probability, len(survey.questions))
        elif not yes_no and key not in OTHER_KIND_STEPS:
            step.shown = False
            step.note = (
                "This step is about a yes/no question: choose one above to see it worked out."
            )
        elif key != "coin" and waiting:
            step.shown, step.note = False, waiting
        elif yes_no:
            step.figures = _yes_no_figures(key, question, survey, confidence, chosen_p)
        else:
            step.figures = _other_figures(key, question, survey, headline)
        steps.append(step)
    return steps


def download_name(title: str, day: dt.date) -> str:
    """The downloaded lesson's file name: the title in safe characters, then the date."""
    plain = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    words = re.sub(r"[^A-Za-z0-9]+", "-", plain).strip("-").lower()[:60].strip("-")
    return f"{words or 'survey'}-lesson-{day.isoformat()}.html"
