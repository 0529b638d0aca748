"""Planning figures: respondents needed for a margin, the margin a number of respondents reaches.

Every figure comes from :mod:`survey_app.privacy`; this module only chooses which to show.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import request

from survey_app import privacy
from survey_app.models import QuestionKind, Survey

DEFAULT_MARGIN = 0.10
#: Flip probabilities compared in the trade-off table.
TRADE_OFF_FLIP_PROBABILITIES = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
#: Class sizes compared in the trade-off table.
TRADE_OFF_SIZES = (30, 100, 300, 1000)


@dataclass(frozen=True)
class TradeOffRow:
    flip_probability: float
    epsilon: float
    needed: int
    margins: tuple[float, ...]
    is_current: bool


@dataclass(frozen=True)
class Plan:
    margin: float
    confidence: float
    respondents: int
    needed_yes_no: int
    needed_worst: int
    margin_now: float | None
    sizes: tuple[int, ...]
    trade_off: list[TradeOffRow]
    margin_error: str | None = None


def requested_margin() -> tuple[float, str | None]:
    """The margin asked for (in percentage points), or the default with a message why."""
    raw = request.args.get("margin", "").strip()
    if not raw:
        return DEFAULT_MARGIN, None
    try:
        points = float(raw)
    except ValueError:
        return DEFAULT_MARGIN, f"The margin must be a number of points, like 10; got {raw!r}."
    if not 0.5 <= points <= 50:
        return DEFAULT_MARGIN, "The margin must be between 0.5 and 50 points."
    return points / 100.0, None


def needed_for_question(
    survey: Survey, kind: QuestionKind, k: int, margin: float, confidence: float
) -> int:
    if kind == QuestionKind.YES_NO:
        return privacy.required_sample_size(margin, survey.flip_probability, confidence)
    return privacy.required_sample_size_for_choices(
        margin, survey.epsilon_per_question, k, confidence
    )


def margin_for_question(
    survey: Survey, kind: QuestionKind, k: int, n: int, confidence: float
) -> float:
    if kind == QuestionKind.YES_NO:
        return privacy.half_width_for_yes_no(n, survey.flip_probability, confidence)
    return privacy.half_width_for_choices(n, survey.epsilon_per_question, k, confidence)


def make_plan(survey: Survey, margin: float, confidence: float) -> Plan:
    """How many respondents the survey needs, and what the current number can tell."""
    shapes = {(q.kind, q.option_count) for q in survey.questions} or {(QuestionKind.YES_NO, 2)}
    needed = [needed_for_question(survey, kind, k, margin, confidence) for kind, k in shapes]
    n = survey.respondents
    margin_now = (
        max(margin_for_question(survey, kind, k, n, confidence) for kind, k in shapes)
        if n > 0
        else None
    )
    rows = [
        TradeOffRow(
            flip_probability=p,
            epsilon=privacy.epsilon_from_flip_probability(p),
            needed=privacy.required_sample_size(margin, p, confidence),
            margins=tuple(
                privacy.half_width_for_yes_no(size, p, confidence) for size in TRADE_OFF_SIZES
            ),
            is_current=abs(p - survey.flip_probability) < 1e-9,
        )
        for p in TRADE_OFF_FLIP_PROBABILITIES
    ]
    return Plan(
        margin=margin,
        confidence=confidence,
        respondents=n,
        needed_yes_no=privacy.required_sample_size(margin, survey.flip_probability, confidence),
        needed_worst=max(needed),
        margin_now=margin_now,
        sizes=TRADE_OFF_SIZES,
        trade_off=rows,
    )


def plan_from_request(survey: Survey, confidence: float) -> Plan:
    margin, error = requested_margin()
    plan = make_plan(survey, margin, confidence)
    return Plan(**{**plan.__dict__, "margin_error": error}) if error else plan
