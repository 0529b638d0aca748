"""Steps 5 to 7 of the lesson for a share: re-runs of the class, what one answer tells about
one student (Bayes' rule and its ceiling) and the trade-off over p. A yes/no question's share
of "Yes", a choice's first answer's (the one step 3 works out), with k-option randomized
response's P and Q; the figures from survey_app.privacy.lesson, the words from
survey_app.lesson.words.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import gettext

from survey_app import kinds
from survey_app.lesson import words
from survey_app.lesson.figures import (
    bayes_formula,
    formula,
    number,
    rerun_chart,
    share_written,
    signed,
    written,
    written_share,
)
from survey_app.privacy import lesson
from survey_app.privacy.lesson_written import CeilingWorking, ceiling_working
from survey_app.results import rounding
from survey_app.results.tables import OptionResult, QuestionResult
from survey_app.words import (
    format_epsilon,
    format_number,
    grouped,
    percent,
    percent_high,
    percent_low,
)


@dataclass(frozen=True)
class Subject:
    """The share steps 5 to 7 follow: "Yes" of a yes/no question, else the first answer (the
    one step 3 works out), with the question's k."""

    option: OptionResult
    options: int
    #: The answer's label as the page says it ("Ja" for a yes/no question's "Yes" in German).
    label: str

    @property
    def estimate(self) -> float:
        return self.option.estimate.estimate

    @property
    def belief(self) -> float:
        """The estimate kept within 0-100%, where every true share lies: a prior, a class."""
        return min(1.0, max(0.0, self.estimate))


def subject_of(question: QuestionResult) -> Subject:
    """What steps 5 to 7 follow for a question of this kind."""
    kind = kinds.kind_named(question.kind)
    option = question.options[kind.lesson_follows or 0]
    return Subject(option, len(question.options), kind.shown_label(option.label))


#: The share of the re-runs whose spread the lesson quotes ("the middle 95% lay between ...").
RERUNS_MIDDLE = 0.95


def reruns_step(subject: Subject, flip_probability: float) -> dict:
    """Re-runs of the randomization at the class's estimated share, the class's estimate marked."""
    n, estimate = subject.option.estimate.n, subject.estimate
    runs = lesson.reruns(estimate, n, flip_probability, options=subject.options)
    low, high = runs.middle(RERUNS_MIDDLE)
    actual = signed(percent(estimate))
    return {
        "middle_share": percent(RERUNS_MIDDLE),
        "runs": grouped(len(runs.estimates)),
        "supposed": words.supposed_class(
            runs.true_yes, runs.n, percent(runs.true_share), actual, subject.label
        ),
        "mean": signed(percent(runs.mean)),
        "std": percent(runs.std),
        "expected_std": percent(runs.expected_std),
        # A range: its ends round outward, as the dashboard's do.
        "middle_low": signed(percent_low(low)),
        "middle_high": signed(percent_high(high)),
        "actual": actual,
        "below_zero": words.below_zero(float(runs.estimates.min())),
        "chart": rerun_chart(runs, estimate),
    }


def bayes_step(subject: Subject, flip_probability: float) -> dict:
    """Bayes' rule with the class's estimate as the prior; the ceiling e^eps x prior odds. The
    prior is the estimate as every step writes it, P and Q as step 1 does."""
    b = written_share(subject.belief)
    if subject.options == 2:
        places, kept = 6, (1.0 - flip_probability, flip_probability)
    else:
        coin = lesson.choice_coin(flip_probability, subject.options)
        places, kept = coin.places, coin.written
    keep, other = (number(each, places) for each in kept)
    # The figures as written, in every language: the reader's arithmetic works on them.
    keep_value, other_value = (written(each, places) for each in kept)
    after = lesson.posterior(
        share_written(subject.belief), flip_probability, subject.options, (keep_value, other_value)
    )
    ceiling = ceiling_working(after.prior, keep_value, other_value)
    others = number(1.0 - after.prior, 6)
    result = written_share(after.after_yes)
    return {
        "label": subject.label,
        "prior": percent(after.prior),
        "scale": str(words.WHOLE_SCALE),
        "b": b,
        "keep": keep,
        "other": other,
        "after": words.after_report(
            subject.label, subject.options, percent(after.after_yes), percent(after.after_no)
        ),
        "ceiling": words.ceiling(
            label=subject.label,
            yes_no=subject.options == 2,
            prior=percent(after.prior),
            prior_against=percent(1.0 - after.prior),
            ratio=f"{keep} / {other}",
            odds=None if ceiling is None else _odds_figures(ceiling),
        ),
        "formula": formula(
            bayes_formula(subject.label, subject.options, b, keep, other, others, result),
            words.bayes_alternative(subject.label, subject.options, b, keep, other, others)
            + f" = {result}",
            gettext("Bayes’ rule"),
        ),
    }


def _odds_figures(ceiling: CeilingWorking) -> dict:
    """The ceiling's odds and chances as step 6 writes them."""
    return {
        "prior_odds": number(ceiling.prior_odds, ceiling.places),
        "ceiling_odds": number(ceiling.ceiling_odds, ceiling.places),
        "ceiling": percent(ceiling.ceiling),
        "floor_odds": number(ceiling.floor_odds, ceiling.places),
        "floor": percent(ceiling.floor),
    }


def trade_off_step(
    subject: Subject, flip_probability: float, confidence: float, chosen: float | None
) -> dict:
    """The trade-off over p for this class size: epsilon and the ranges, the survey's p marked."""
    n, share = subject.option.estimate.n, subject.belief
    rows = lesson.trade_off(n, share, flip_probability, confidence, subject.options)
    picked = min(rows, key=lambda row: abs(row.flip_probability - chosen)) if chosen else None
    picked = picked or next(row for row in rows if row.is_current)
    shown = []
    for row in rows:
        p, epsilon = format_number(row.flip_probability, 6), format_epsilon(row.epsilon)
        shown.append(
            {
                "p": control_value(row.flip_probability),
                "label": words.trade_off_label(p, row.is_current),
                "epsilon": epsilon,
                "exact": "±" + words.point_figure(row.exact_half_width),
                "chebyshev": "±" + words.point_figure(row.chebyshev_half_width),
                "is_current": row.is_current,
                "is_picked": row is picked,
                "words": words.trade_off_row(
                    p,
                    epsilon,
                    n,
                    words.precise_points(row.exact_half_width),
                    words.precise_points(row.chebyshev_half_width, long=False),
                ),
            }
        )
    return {
        "rows": shown,
        "intro": words.trade_off_intro(
            grouped(n), percent(confidence), percent(share), subject.label
        ),
        "picked": next(row for row in shown if row["is_picked"]),
        "choices": [control_value(p) for p in lesson.TRADE_OFF_FLIP_PROBABILITIES],
        "slider": slider(lesson.TRADE_OFF_FLIP_PROBABILITIES),
        # Chebyshev's ranges are the widest of the table.
        "says_nothing": words.range_says_nothing(max(row.chebyshev_half_width for row in rows)),
        "confidence": percent(confidence),
    }


def control_value(value: float) -> str:
    """A flip probability as the control and the page's script read it, whatever the page's
    language: '0.25' (a decimal point, as HTML's numbers have)."""
    return rounding.text(rounding.nearest(value, 1e-6), 6)


def slider(choices: tuple[float, ...]) -> dict:
    """The control's range: from the first flip probability to the last, a step apart."""
    return {
        "min": control_value(choices[0]),
        "max": control_value(choices[-1]),
        "step": control_value(choices[1] - choices[0]),
    }
