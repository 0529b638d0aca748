"""The lesson's steps for a number question: its mechanism's coin, average, bound, re-runs,
what one report tells and the trade-off, from survey_app.privacy.lesson_numbers, in the
question's unit (the words from survey_app.lesson.words)."""

from __future__ import annotations

from survey_app import kinds
from survey_app.lesson import words
from survey_app.lesson.figures import formula, number, number_chebyshev, rerun_chart
from survey_app.lesson.share_steps import control_value, slider
from survey_app.privacy import lesson, lesson_numbers
from survey_app.results import rounding
from survey_app.results.mechanism_words import MECHANISM_WORDS
from survey_app.results.tables import QuestionResult
from survey_app.results.words import numeric_range_words, numeric_words
from survey_app.storage.models import Survey
from survey_app.words import (
    format_epsilon,
    format_number,
    format_upper_bound,
    grouped,
    numeric_places,
    percent,
    with_unit,
)

#: The share of the re-runs whose spread the lesson quotes, as for shares.
RERUNS_MIDDLE = 0.95


def _unit(question: QuestionResult):
    """Write a figure of the question in its unit's decimals with its unit: '20 hours'."""
    estimate = question.numeric.estimate
    places = numeric_places(estimate.lo, estimate.hi)

    def said(value: float) -> str:
        return with_unit(format_number(value, places).replace("-", "−"), question.numeric.unit)

    return said, places


def coin_step(question: QuestionResult, survey: Survey) -> dict:
    """The mechanism the phones ran, and the epsilon it keeps."""
    return {
        "mechanism": MECHANISM_WORDS[question.numeric.mechanism.name],
        "epsilon": format_epsilon(survey.epsilon_per_question),
    }


def _range_ends(question: QuestionResult, kind: str) -> tuple[float, float]:
    """The range of ``kind`` ("live", else the narrowest fixed-size one), its ends rounded
    outward in the unit's decimals, as the dashboard's (results.words.numeric_range_words)."""
    estimate = question.numeric.estimate
    step = 10.0 ** -numeric_places(estimate.lo, estimate.hi)
    live = kind == "live" and estimate.live_low is not None
    low = estimate.live_low if live else estimate.ci_low
    high = estimate.live_high if live else estimate.ci_high
    return rounding.down(low, step), rounding.up(high, step)


def estimate_step(question: QuestionResult, headline: str, confidence: float) -> dict:
    """The average and its range, in the dashboard's words, and how often such ranges hold."""
    _, places = _unit(question)
    low, high = _range_ends(question, headline)
    average = {
        "said": {
            "mean": numeric_words(question.numeric, headline)["said"]["mean"],
            "high": with_unit(format_number(high, places), question.numeric.unit),
        },
        "low": format_number(low, places),
    }
    return {"average": words.average_words(grouped(question.n), average, headline, confidence)}


def sure_step(question: QuestionResult, confidence: float) -> dict:
    """The notes' bound for a number, beside the dashboard's range and live range."""
    said, places = _unit(question)
    estimate = question.numeric.estimate
    sure = lesson_numbers.number_sureness(
        question.numeric.mechanism, question.n, confidence, places
    )
    half = format_number(sure.half_width, places)
    variance, delta = number(sure.variance, sure.places), number(sure.delta, 6)
    bias = number(sure.bias, places + 2) if sure.bias else None
    bound = numeric_range_words(estimate)["bound"]
    low, high = _range_ends(question, "exact")
    live_low, live_high = _range_ends(question, "live")
    plus = f" + {bias}" if bias else ""
    return {
        "bound": words.number_bound(
            grouped(question.n), percent(confidence), with_unit(half, question.numeric.unit)
        ),
        "formula": formula(
            number_chebyshev(question.n, variance, delta, bias, half),
            f"h = sqrt(V / (delta n)){' + b' if bias else ''} = "
            f"sqrt({variance} / ({delta} x {question.n})){plus} = {half}",
            words.NOTES_BOUND_TITLE,
        ),
        "ranges": words.number_ranges(
            format_number(low, places),
            said(high),
            bound,
            format_number(live_low, places),
            said(live_high),
        ),
    }


def reruns_step(question: QuestionResult) -> dict:
    """Re-runs of a class that all hold the class's average, the class's own average marked."""
    said, places = _unit(question)
    mean = question.numeric.estimate.clipped_mean
    runs = lesson_numbers.number_reruns(question.numeric.mechanism, mean, question.n)
    low, high = runs.middle(RERUNS_MIDDLE)
    return {
        "supposed": words.number_supposed_class(runs.n, said(runs.value)),
        "runs": grouped(len(runs.estimates)),
        "middle_share": percent(RERUNS_MIDDLE),
        "mean": said(runs.mean),
        "std": said(runs.std),
        "expected_std": said(runs.expected_std),
        "middle_low": format_number(low, places).replace("-", "−"),
        "middle_high": said(high),
        "actual": said(mean),
        "chart": rerun_chart(runs, mean, lambda value: format_number(value, places)),
    }


def bayes_step(question: QuestionResult) -> dict:
    """What the most telling report says of a student at either end of the scale."""
    said, _ = _unit(question)
    mechanism = question.numeric.mechanism
    report = lesson_numbers.number_report(mechanism)
    return {
        "report": words.number_report(
            said(mechanism.lo),
            said(mechanism.hi),
            number(report.ratio),
            percent(report.after),
            format_upper_bound(report.odds),
            percent(report.ceiling),
        )
    }


def trade_off_step(
    question: QuestionResult, survey: Survey, confidence: float, chosen: float | None
) -> dict:
    """The trade-off over p for this class size: epsilon and the guaranteed range."""
    said, places = _unit(question)
    numeric = question.numeric
    rows = lesson_numbers.number_trade_off(
        numeric.mechanism,
        numeric.mechanism.name if numeric.named else None,
        numeric.planned,
        question.n,
        survey.flip_probability,
        confidence,
        kinds.kind_named(question.kind).max_flip_probability or 0.5,
    )
    picked = min(rows, key=lambda row: abs(row.flip_probability - chosen)) if chosen else None
    picked = picked or next(row for row in rows if row.is_current)
    shown = []
    for row in rows:
        p, epsilon = format_number(row.flip_probability, 6), format_epsilon(row.epsilon)
        # A guaranteed range's half-width rounds up, as the dashboard's do.
        half = format_number(rounding.up(row.half_width, 10.0**-places), places)
        shown.append(
            {
                "p": control_value(row.flip_probability),
                "label": words.trade_off_label(p, row.is_current),
                "epsilon": epsilon,
                "exact": "±" + half,
                "is_current": row.is_current,
                "is_picked": row is picked,
                "words": words.number_trade_off_row(
                    p, epsilon, question.n, with_unit(half, numeric.unit)
                ),
            }
        )
    return {
        "rows": shown,
        "intro": words.trade_off_intro(grouped(question.n), percent(confidence)),
        "unit": numeric.unit,
        "picked": next(row for row in shown if row["is_picked"]),
        "choices": [control_value(p) for p in lesson.TRADE_OFF_FLIP_PROBABILITIES],
        "slider": slider(lesson.TRADE_OFF_FLIP_PROBABILITIES),
        "confidence": percent(confidence),
    }


def step_figures(key: str, question, survey: Survey, headline: str, confidence, chosen) -> dict:
    """A step of a number question (step 2 and step 8 are every kind's)."""
    if key == "coin":
        return coin_step(question, survey)
    if key == "estimate":
        return estimate_step(question, headline, confidence)
    if key == "sure":
        return sure_step(question, confidence)
    if key == "reruns":
        return reruns_step(question)
    if key == "bayes":
        return bayes_step(question)
    return trade_off_step(question, survey, confidence, chosen)
