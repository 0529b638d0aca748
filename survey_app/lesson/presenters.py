"""What the lesson shows: each step's figures, formulas (MathML with a text alternative) and
charts (SVG geometry), from the figures :mod:`survey_app.privacy.lesson` computes, and which of
its sentences (survey_app.lesson.words) fits them.

No math here beyond placing numbers on a drawing: every figure comes from the privacy package
or from the results the dashboard shows (survey_app.results.tables).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from survey_app import kinds
from survey_app.lesson import words
from survey_app.lesson.figures import (
    ONE_MINUS_TWO_P,
    bayes_formula,
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
    rerun_chart,
    theorem_5,
    theorem_5_options,
    times,
)
from survey_app.lesson.words import STEPS
from survey_app.privacy import lesson
from survey_app.results.tables import QuestionResult
from survey_app.results.words import MECHANISM_WORDS, numeric_words
from survey_app.storage.models import Survey
from survey_app.words import (
    format_epsilon,
    format_number,
    format_upper_bound,
    percent,
    percent_high,
    percent_low,
    point_figure,
    precise_points,
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
    title: str
    #: False: the step is about yes/no questions, or waits for answers; ``note`` says why.
    shown: bool = True
    note: str | None = None
    #: Everything the step's template places.
    figures: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- step 1


def coin_step(flip_probability: float, question_count: int) -> dict:
    """The coin: keep 1 - p, flip p; Warner's q = 2p; epsilon and e^epsilon."""
    figures = lesson.coin(flip_probability)
    p = number(figures.flip_probability, 6)
    keep = number(figures.keep_probability, 6)
    eps = format_epsilon(figures.epsilon)
    body = (
        f"{mi('ε')}{mo('=')}{LN}{frac(mn(keep, 6), mn(p, 6))}"
        f"{mo('=')}{LN}{mn(format_upper_bound(figures.odds))}{mo('≈')}{mn(eps)}"
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
        "formula": formula(
            body,
            f"epsilon = ln({keep} / {p}) = ln {format_upper_bound(figures.odds)}, about {eps}",
            "Epsilon",
        ),
    }


def choice_coin_step(flip_probability: float, options: int, labels: list[str]) -> dict:
    """The coin of a k-option question: keep P, each other option Q, P / Q = e^epsilon."""
    figures = lesson.choice_coin(flip_probability, options)
    keep, other = number(figures.keep_probability), number(figures.other_probability)
    eps = format_epsilon(figures.epsilon)
    body = f"{mi('ε')}{mo('=')}{LN}{frac(mn(keep), mn(other))}{mo('≈')}{mn(eps)}"
    return {
        "options": options,
        "labels": labels,
        "keep_percent": percent(figures.keep_probability),
        "other_percent": percent(figures.other_probability),
        "epsilon": eps,
        "odds": format_upper_bound(figures.odds),
        "formula": formula(body, f"epsilon = ln({keep} / {other}), about {eps}", "Epsilon"),
    }


# --------------------------------------------------------------------------- steps 2 and 3


def arrived_step(question: QuestionResult, is_open: bool = False) -> dict:
    """What arrived: n, the randomized counts and raw shares (as the dashboard's table); while
    the survey is open, the dashboard's last release of them."""
    return {
        "received": words.received(f"{question.n:,}", is_open),
        "biased": words.biased(len(question.options)),
        "compact": len(question.options) > COMPACT_ROWS,
        "rows": [
            {
                "label": option.label,
                "count": f"{option.noisy_count:,}",
                "raw": percent(option.estimate.noisy_share),
            }
            for option in question.options
        ],
    }


def estimate_step(question: QuestionResult, flip_probability: float, headline: str) -> dict:
    """The estimate ``(raw - p) / (1 - 2p)`` written out with the class's numbers, and the
    share the results show (kept in the range of kind ``headline``)."""
    yes = question.options[1].estimate
    working = lesson.estimate_working(yes.noisy_count, yes.n, flip_probability)
    raw, pp = number(working.raw), number(working.flip_probability, 6)
    top, bottom = number(working.numerator), number(working.denominator, 6)
    result = number(working.estimate)
    body = mrow(
        frac(minus(mi("raw"), mi("p")), ONE_MINUS_TWO_P),
        mo("="),
        frac(minus(mn(raw), mn(pp, 6)), minus(mn("1"), times(mn("2"), mn(pp, 6)))),
        mo("="),
        frac(mn(top), mn(bottom, 6)),
        mo("="),
        mn(result),
    )
    expectation = mrow(
        mi("E"),
        paren(mi("raw")),
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
            percent(working.estimate),
            yes.outside_unit_interval,
            percent(question.options[1].headline(headline)),
        ),
        "formula": formula(
            body,
            f"(raw - p) / (1 - 2p) = ({raw} - {pp}) / (1 - 2 x {pp}) = {top} / {bottom} = {result}",
            "The estimate, worked out",
        ),
        "expectation": formula(
            expectation,
            "E[raw] = b (1 - p) + (1 - b) p = p + (1 - 2p) b, for the true share b",
            "Why it is unbiased",
        ),
    }


def choice_estimate_step(question: QuestionResult, flip_probability: float, headline: str) -> dict:
    """Each option's estimate ``(raw - Q) / (P - Q)``, the first option's written out, and the
    share the results show (kept in the range of kind ``headline``)."""
    first = question.options[0]
    working = lesson.option_working(
        first.noisy_count, question.n, flip_probability, len(question.options)
    )
    keep, other = number(working.keep_probability), number(working.other_probability)
    raw, top, bottom = number(working.raw), number(working.numerator), number(working.denominator)
    result = number(working.estimate)
    body = mrow(
        frac(minus(mi("raw"), mi("Q")), minus(mi("P"), mi("Q"))),
        mo("="),
        frac(minus(mn(raw), mn(other)), minus(mn(keep), mn(other))),
        mo("="),
        frac(mn(top), mn(bottom)),
        mo("="),
        mn(result),
    )
    return {
        "formula": formula(
            body,
            f"(raw - Q) / (P - Q) = ({raw} - {other}) / ({keep} - {other}) = {top} / {bottom} "
            f"= {result}, for {first.label}",
            "The estimate, worked out for the first answer",
        ),
        "keep": keep,
        "other": other,
        "first": first.label,
        "compact": len(question.options) > COMPACT_ROWS,
        "rows": [
            {
                "label": option.label,
                "raw": number(option.estimate.noisy_share),
                "estimate": _signed(percent(option.estimate.estimate)),
                "shown": percent(option.headline(headline)),
            }
            for option in question.options
        ],
    }


def numeric_estimate_step(question: QuestionResult, headline: str, confidence: float) -> dict:
    """A number question's average and range, in the dashboard's words, and how often its
    range of that kind holds."""
    average = numeric_words(question.numeric, headline)
    return {"average": words.average_words(f"{question.n:,}", average, headline, confidence)}


# --------------------------------------------------------------------------- step 4


def _range_words(ends: tuple[float, float]) -> str:
    """A range's ends, rounded outward as the dashboard rounds them: '0% to 45%'."""
    return f"{_signed(percent_low(ends[0]))} to {_signed(percent_high(ends[1]))}"


def sure_step(question: QuestionResult, flip_probability: float) -> dict:
    """Theorem 5 of the notes with this n and p, beside the dashboard's ranges, on one axis."""
    yes = question.options[1].estimate
    sure = lesson.sureness(yes, flip_probability)
    n, p, delta = yes.n, number(flip_probability, 6), number(1.0 - sure.confidence, 6)
    notes = number(sure.notes_half_width)
    return {
        "n": f"{n:,}",
        "confidence": percent(sure.confidence),
        "notes_points": precise_points(sure.notes_half_width),
        "says_nothing": words.bound_says_nothing(sure.notes_half_width),
        "chebyshev_points": precise_points(sure.chebyshev_half_width, long=False),
        "exact_words": _range_words(sure.exact_range),
        "live_words": _range_words(sure.live_range),
        "formula": formula(
            theorem_5(n, p, delta, notes),
            f"h = sqrt(1 / delta) / (2 (1 - 2p) sqrt(n)) = sqrt(1 / {delta}) / "
            f"(2 x (1 - 2 x {p}) x sqrt({n})) = {notes}",
            "Chebyshev’s bound (Theorem 5)",
        ),
        "chart": range_chart(sure),
    }


def choice_sure_step(question: QuestionResult, flip_probability: float) -> dict:
    """Theorem 5's argument for each option (``P - Q`` for ``1 - 2p``), beside each option's
    exact and live ranges as the dashboard shows them, on one axis."""
    options = len(question.options)
    shown = [
        (option.label, lesson.sureness(option.estimate, flip_probability, options))
        for option in question.options
    ]
    first = shown[0][1]
    coin = lesson.choice_coin(flip_probability, options)
    keep, other = number(coin.keep_probability), number(coin.other_probability)
    n, delta, notes = question.n, number(1.0 - first.confidence, 6), number(first.notes_half_width)
    return {
        "n": f"{n:,}",
        "options": options,
        "confidence": percent(first.confidence),
        "notes_points": precise_points(first.notes_half_width),
        "says_nothing": words.bound_says_nothing(first.notes_half_width),
        # Set beside its chart (up to four options) or longer than the chart allows (more):
        # the table is always compact.
        "compact": True,
        "rows": [
            {
                "label": label,
                "estimate": _signed(percent(sure.estimate)),
                "exact": _range_words(sure.exact_range),
                "live": _range_words(sure.live_range),
            }
            for label, sure in shown
        ],
        "formula": formula(
            theorem_5_options(n, keep, other, delta, notes),
            f"h = sqrt(1 / delta) / (2 (P - Q) sqrt(n)) = sqrt(1 / {delta}) / "
            f"(2 x ({keep} - {other}) x sqrt({n})) = {notes}",
            "Chebyshev’s bound (Theorem 5), for one option",
        ),
        # Up to four options the ranges are drawn too; more would not fit the projector's
        # screen in type the room can read (the table says them all).
        "chart": options_chart(shown) if options <= CHART_OPTIONS else None,
    }


# --------------------------------------------------------------------------- step 5


def _signed(figure: str) -> str:
    """A figure below zero with a true minus sign, as the chart's axis writes it."""
    return figure.replace("-", "−")


#: The share of the re-runs whose spread the lesson quotes ("the middle 95% lay between ...").
RERUNS_MIDDLE = 0.95


def reruns_step(question: QuestionResult, flip_probability: float) -> dict:
    """Re-runs of the randomization at the class's estimated share, the class's estimate marked."""
    yes = question.options[1].estimate
    runs = lesson.reruns(yes.estimate, yes.n, flip_probability)
    low, high = runs.middle(RERUNS_MIDDLE)
    return {
        "middle_share": percent(RERUNS_MIDDLE),
        "runs": f"{len(runs.estimates):,}",
        "supposed": words.supposed_class(runs.true_yes, runs.n, percent(runs.true_share)),
        "mean": _signed(percent(runs.mean)),
        "std": percent(runs.std),
        "expected_std": percent(runs.expected_std),
        # A range: its ends round outward, as the dashboard's do.
        "middle_low": _signed(percent_low(low)),
        "middle_high": _signed(percent_high(high)),
        "actual": _signed(percent(yes.estimate)),
        "below_zero": words.below_zero(float(runs.estimates.min())),
        "chart": rerun_chart(runs, yes.estimate),
    }


# --------------------------------------------------------------------------- step 6


def bayes_step(question: QuestionResult, flip_probability: float, headline: str) -> dict:
    """Bayes' rule with the share the results show as the prior; the ceiling e^eps x prior odds."""
    after = lesson.posterior(question.options[1].headline(headline), flip_probability)
    b, p = number(after.prior), number(flip_probability, 6)
    keep, others = number(1.0 - flip_probability, 6), number(1.0 - after.prior)
    certain = after.prior in (0.0, 1.0)
    return {
        "prior": percent(after.prior),
        "b": b,
        "p": p,
        "after_yes": percent(after.after_yes),
        "after_no": percent(after.after_no),
        "ceiling": words.ceiling(
            prior=percent(after.prior),
            prior_against=percent(1.0 - after.prior),
            # Odds of a certain prior are infinite: the words then say there is nothing to learn.
            prior_odds=None if certain else number(after.prior_odds),
            odds=format_upper_bound(lesson.coin(flip_probability).odds),
            ceiling_odds=None if certain else number(after.ceiling_odds),
            ceiling_chance=percent(after.ceiling),
            floor_chance=percent(after.floor),
        ),
        "formula": formula(
            bayes_formula(after, flip_probability),
            f"P(truly Yes | sent Yes) = b (1 - p) / (b (1 - p) + (1 - b) p) = "
            f"{b} x {keep} / ({b} x {keep} + {others} x {p}) = {number(after.after_yes)}, "
            f"with the prior b = {b} and p = {p}",
            "Bayes’ rule",
        ),
    }


# --------------------------------------------------------------------------- step 7


def trade_off_step(
    question: QuestionResult,
    flip_probability: float,
    confidence: float,
    chosen: float | None,
    headline: str,
) -> dict:
    """The trade-off over p for this class size: epsilon and the ranges, the survey's p marked
    (at the share the results show)."""
    share = question.options[1].headline(headline)
    rows = lesson.trade_off(question.n, share, flip_probability, confidence)
    picked = min(rows, key=lambda row: abs(row.flip_probability - chosen)) if chosen else None
    picked = picked or next(row for row in rows if row.is_current)
    shown = []
    for row in rows:
        p, epsilon = format_number(row.flip_probability, 6), format_epsilon(row.epsilon)
        shown.append(
            {
                "p": p,
                "label": words.trade_off_label(p, row.is_current),
                "epsilon": epsilon,
                "exact": "±" + point_figure(row.exact_half_width),
                "chebyshev": "±" + point_figure(row.chebyshev_half_width),
                "is_current": row.is_current,
                "is_picked": row is picked,
                "words": words.trade_off_row(
                    p,
                    epsilon,
                    question.n,
                    precise_points(row.exact_half_width),
                    precise_points(row.chebyshev_half_width, long=False),
                ),
            }
        )
    return {
        "rows": shown,
        "n": f"{question.n:,}",
        "share": percent(share),
        "picked": next(row for row in shown if row["is_picked"]),
        "choices": [format_number(p, 6) for p in lesson.TRADE_OFF_FLIP_PROBABILITIES],
        "slider": _slider(lesson.TRADE_OFF_FLIP_PROBABILITIES),
        # Chebyshev's ranges are the widest of the table.
        "says_nothing": words.range_says_nothing(max(row.chebyshev_half_width for row in rows)),
        "confidence": percent(confidence),
    }


def _slider(choices: tuple[float, ...]) -> dict:
    """The control's range: from the first flip probability to the last, a step apart."""
    return {
        "min": format_number(choices[0], 6),
        "max": format_number(choices[-1], 6),
        "step": format_number(choices[1] - choices[0], 6),
    }


# --------------------------------------------------------------------------- step 8


def budgets_step(survey: Survey) -> dict:
    """Composition over the survey's questions; k friends answering alike, k x epsilon."""
    epsilons = [survey.epsilon_per_question] * len(survey.questions)
    figures = lesson.budgets(epsilons)
    eps = format_epsilon(survey.epsilon_per_question)
    total = format_epsilon(survey.epsilon_total)
    terms = (
        mo("+").join(mn(eps) for _ in epsilons)
        if len(epsilons) <= 6
        else (f"{mn(str(len(epsilons)))}{mo('×')}{mn(eps)}")
    )
    body = f"{msub('ε', 'survey')}{mo('=')}{terms}{mo('=')}{mn(total)}"
    return {
        "composition": words.composition(
            len(epsilons), eps, total, format_upper_bound(figures.total_odds)
        ),
        "epsilon": eps,
        "total": total,
        "groups": [
            {"k": k, "question": format_epsilon(one), "survey": format_epsilon(whole)}
            for k, one, whole in figures.groups
        ],
        "formula": formula(
            body,
            f"epsilon of the survey = {len(epsilons)} x {eps} = {total} (the sum)",
            "The survey’s epsilon",
        ),
    }


# --------------------------------------------------------------------------- the steps


def _yes_no_figures(
    key: str, question, survey, confidence: float, chosen: float | None, headline: str
):
    p = survey.flip_probability
    if key == "arrived":
        return arrived_step(question, survey.is_open)
    if key == "estimate":
        return estimate_step(question, p, headline)
    if key == "sure":
        return sure_step(question, p)
    if key == "reruns":
        return reruns_step(question, p)
    if key == "bayes":
        return bayes_step(question, p, headline)
    return trade_off_step(question, p, confidence, chosen, headline)


def _other_figures(key: str, question, survey, headline: str, confidence: float) -> dict:
    if key == "coin" and question.numeric is None:  # a shares question (choices)
        labels = [option.label for option in question.options]
        return choice_coin_step(survey.flip_probability, len(labels), labels)
    if key == "coin":
        return {
            "mechanism": MECHANISM_WORDS[question.numeric.mechanism.name],
            "epsilon": format_epsilon(survey.epsilon_per_question),
        }
    if key == "arrived":
        return arrived_step(question, survey.is_open)
    if key == "sure":
        return choice_sure_step(question, survey.flip_probability)
    if question.numeric is None:
        return choice_estimate_step(question, survey.flip_probability, headline)
    return numeric_estimate_step(question, headline, confidence)


def lesson_steps(
    survey: Survey,
    question: QuestionResult,
    confidence: float,
    headline: str,
    min_answers: int,
    chosen_p: float | None = None,
    only: int | None = None,
) -> list[Step]:
    """The eight steps for one question: each with its figures, or a note saying why not.

    ``only``: the one step whose figures are worked out (a page shows one step; the others
    need only their titles, and the re-runs and the trade-off take a moment each).
    """
    # The lesson is written about a yes/no question; another kind has the steps it names.
    kind_steps = kinds.kind_named(question.kind).lesson_steps
    yes_no = kind_steps is None
    waiting = words.waiting_note(question, min_answers)
    steps = []
    for position, (key, title) in enumerate(STEPS, start=1):
        step = Step(position, key, title)
        steps.append(step)
        if only is not None and position != only:
            continue
        if key == "budgets":
            step.figures = budgets_step(survey)
        elif key == "coin" and yes_no:
            step.figures = coin_step(survey.flip_probability, len(survey.questions))
        elif not yes_no and key not in kind_steps:
            step.shown, step.note = False, words.YES_NO_ONLY
        elif key != "coin" and waiting:
            step.shown, step.note = False, waiting
        elif yes_no:
            step.figures = _yes_no_figures(key, question, survey, confidence, chosen_p, headline)
        else:
            step.figures = _other_figures(key, question, survey, headline, confidence)
    return steps
