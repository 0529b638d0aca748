"""Planning: what a class of a given size will learn, and how many it takes to learn enough.

Every figure comes from :mod:`survey_app.privacy`; this module chooses which to show, keeps them
(one costs from a millisecond to a second, and pages ask for the same ones again and again), and
words them for the builder's live readout and the dashboard's planning section.

The margin a class of n "will reach" is privacy's planned figure: half the exact guaranteed
interval's expected width, at the widest of the true shares 30%, 50% and 70%. Chebyshev's
bound with the exact variance is shown beside it, named as such (the lesson names the notes'
bound, with the worst-case variance 1/4, apart from it).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from flask_babel import gettext

from survey_app import privacy
from survey_app.planning import pairs, readout_words
from survey_app.planning.margin_words import margin_meaning_words
from survey_app.planning.numbers import (
    NEXT_TO_NOTHING,
    NumberTradeOffRow,
    NumericPlan,
    PlannedNumber,
    left_out_words,
    numbers_readout,
    numeric_questions,
    numeric_respondents,
    plan_numbers,
    question_name,
)
from survey_app.results.tables import CONFIDENCE_LEVELS, DEFAULT_CONFIDENCE
from survey_app.storage.models import Survey
from survey_app.surveys.services import MAX_QUESTIONS
from survey_app.surveys.typed_numbers import typed_count, typed_number
from survey_app.surveys.words import privacy_readout
from survey_app.words import (
    format_number,
    points,
)

#: The margin the dashboard plans for until the professor types another.
DEFAULT_MARGIN = 0.10
#: A margin may be asked for between these many points.
MIN_MARGIN_POINTS = 0.5
MAX_MARGIN_POINTS = 50.0
#: The step of the margin fields (the builder's and the dashboard's), in points.
MARGIN_STEP_POINTS = 0.5
#: The builder's class size until the professor types another.
DEFAULT_CLASS_SIZE = 40
#: Class sizes the builder plans for. Above a few thousand one figure takes seconds.
MIN_CLASS_SIZE = 2
MAX_CLASS_SIZE = 2000
#: Flip probabilities compared in the trade-off table (the survey's own p is added).
TRADE_OFF_FLIP_PROBABILITIES = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
#: Class sizes compared in the trade-off table: the sizes professors have.
TRADE_OFF_SIZES = (20, 40, 100, 300)


# --------------------------------------------------------------------------- figures, kept


@lru_cache(maxsize=4096)
def planned_margin(flip_probability: float, options: int, n: int, confidence: float) -> float:
    """The margin n answers reach (privacy's planned, exact half-width), kept."""
    return privacy.RandomizedResponse(flip_probability, options).planned_half_width(n, confidence)


@lru_cache(maxsize=4096)
def chebyshev_margin(flip_probability: float, options: int, n: int, confidence: float) -> float:
    """Chebyshev’s bound with the exact variance: its half-width with n answers, kept."""
    mechanism = privacy.RandomizedResponse(flip_probability, options)
    return mechanism.chebyshev_half_width(n, confidence)


@lru_cache(maxsize=4096)
def respondents_needed(p: float, options: int, margin: float, confidence: float) -> int:
    """The fewest answers whose planned (exact) margin is at most ``margin``, kept."""
    return privacy.RandomizedResponse(p, options).respondents_for(margin, confidence)


@lru_cache(maxsize=4096)
def respondents_needed_chebyshev(p: float, options: int, margin: float, confidence: float) -> int:
    """The fewest answers whose Chebyshev half-width is at most ``margin``, kept."""
    return privacy.RandomizedResponse(p, options).respondents_for_chebyshev(margin, confidence)


def forget_figures() -> None:
    """Drop every kept figure (a test's cold start)."""
    for kept in (
        planned_margin,
        chebyshev_margin,
        respondents_needed,
        respondents_needed_chebyshev,
    ):
        kept.cache_clear()
    suggested_flip_probability.cache_clear()


@lru_cache(maxsize=4096)
def suggested_flip_probability(
    margin: float,
    n: int,
    options: tuple[int, ...],
    confidence: float,
    numbers: tuple[tuple[float, float, str | None], ...] = (),
) -> float | None:
    """privacy.suggest_flip_probability, kept (``options``: the distinct option counts;
    ``numbers``: each numeric question's bounds and named mechanism)."""
    return privacy.suggest_flip_probability(margin, n, options, confidence, numbers)


def planning_size(n: int) -> int:
    """n rounded down to two significant digits (123 -> 120, 4567 -> 4500).

    The dashboard's "margin with the respondents so far" is planned at this size, so that a
    growing survey reuses the figure instead of computing a new one (up to seconds at tens of
    thousands) at each visit; fewer respondents never promise a narrower margin.
    """
    if n < 100:
        return n
    step = 10 ** (len(str(n)) - 2)
    return n // step * step


# --------------------------------------------------------------------------- typed numbers


def parse_margin(raw: str | None) -> tuple[float | None, str | None]:
    """A margin typed in points: ``(margin as a share, None)``, ``(None, why not)``, or
    ``(None, None)`` when nothing was typed."""
    text = (raw or "").strip()
    if not text:
        return None, None
    points = typed_number(text)  # the one rule for typed numbers ("12,5" is 12.5)
    if points is None:
        return None, gettext(
            "The margin must be a number of percentage points, like 10, not “%(text)s”.",
            text=text,
        )
    if not MIN_MARGIN_POINTS <= points <= MAX_MARGIN_POINTS:
        return None, gettext(
            "The margin must be between %(low)s and %(high)s percentage points.",
            low=format_number(MIN_MARGIN_POINTS),
            high=format_number(MAX_MARGIN_POINTS),
        )
    return points / 100.0, None


def parse_class_size(raw: str | None) -> tuple[int | None, str | None]:
    """A class size typed by the professor: ``(size, None)`` or ``(None, why not)``.

    Nothing typed means the default. The one rule for typed counts (typed_numbers.typed_count):
    "1,000" and "1 000" are a thousand. The builder saves the class size by this rule too
    (builder.form.definition_from_form), and refuses to save one it refuses.
    """
    text = (raw or "").strip()
    if not text:
        return DEFAULT_CLASS_SIZE, None
    size = typed_count(text)
    if size is None:
        return None, readout_words.class_size_not_whole()
    if not MIN_CLASS_SIZE <= size <= MAX_CLASS_SIZE:
        return None, readout_words.class_size_outside(MIN_CLASS_SIZE, MAX_CLASS_SIZE)
    return size, None


# --------------------------------------------------------------------------- the builder


@dataclass(frozen=True)
class PlannedQuestions:
    """Questions that report the same number of values, so share one margin."""

    options: int
    is_yes_no: bool
    names: tuple[str, ...]

    @property
    def label(self) -> str:
        """How the readout names them: "a yes/no question", "“How often?” (3 options)"."""
        return readout_words.group_label(self.is_yes_no, self.options, self.names)


def question_groups(questions: Sequence[dict]) -> tuple[list[PlannedQuestions], int]:
    """The builder's questions grouped by what they report, and how many were left out.

    Yes/no questions come first; a multiple-choice question counts once it has 2 to 12
    options (until then it is left out, and saving will say why).
    """
    yes_no: list[str] = []
    choices: dict[int, list[str]] = {}
    left_out = 0
    for number, question in enumerate(questions, start=1):
        if question.get("type") == "yes_no":
            yes_no.append(question_name(question.get("text", ""), number))
            continue
        if question.get("type") == "numeric":
            continue  # planned on its own (numeric_questions)
        if pairs.joint_kind(question) is not None:
            continue  # planned by how often a relation shows (pairs.with_pairs)
        count = len(question.get("options") or [])
        if 2 <= count <= privacy.MAX_OPTIONS:
            choices.setdefault(count, []).append(question_name(question.get("text", ""), number))
        else:
            left_out += 1
    groups = [PlannedQuestions(2, True, tuple(yes_no))] if yes_no else []
    groups += [PlannedQuestions(k, False, tuple(names)) for k, names in sorted(choices.items())]
    return groups, left_out


def margin_meaning(confidence: float) -> str:
    """What a margin on the dashboard's table is, from the figures planning uses."""
    return margin_meaning_words(confidence, NEXT_TO_NOTHING)


def builder_margin_meaning(example_share: float = 0.4) -> str:
    """What the builder's margins mean, at the confidence it plans at, with an example of
    the default margin around ``example_share``."""
    return readout_words.margin_meaning_sentence(DEFAULT_CONFIDENCE, DEFAULT_MARGIN, example_share)


def share_figures(
    flip_probability: float, groups: Sequence[PlannedQuestions], class_size: int, confidence: float
) -> list[tuple[PlannedQuestions, float, float]]:
    """Each group's planned and Chebyshev margins with ``class_size`` answers (ValueError: a p
    so close to 0.5 that many options can no longer be told apart)."""
    return [
        (
            group,
            planned_margin(flip_probability, group.options, class_size, confidence),
            chebyshev_margin(flip_probability, group.options, class_size, confidence),
        )
        for group in groups
    ]


def shares_text(
    figures: Sequence[tuple[PlannedQuestions, float, float]], class_size: int, left_out: int = 0
) -> str:
    """What a class will learn of each group's shares, with Chebyshev's figures beside."""
    parts = [
        readout_words.known_within(group.label, m, index == 0, m >= NEXT_TO_NOTHING)
        for index, (group, m, _) in enumerate(figures)
    ]
    chebyshev = [c for _, _, c in figures]
    return readout_words.shares_sentences(parts, class_size, chebyshev) + left_out_words(left_out)


def class_readout(
    flip_probability: float,
    groups: Sequence[PlannedQuestions],
    left_out: tuple[int, int],
    class_size: int,
    confidence: float = DEFAULT_CONFIDENCE,
    numbers: Sequence[PlannedNumber] = (),
) -> dict:
    """What a class of ``class_size`` will learn at p, question by question, in words
    (``left_out``: how many choice and number questions are not ready to plan)."""
    if not groups and not numbers:
        return {"ok": False, "error": readout_words.nothing_to_plan()}
    if not groups:
        reply = numbers_readout(flip_probability, class_size, confidence, numbers)
        if reply["ok"]:
            reply["text"] += left_out_words(*left_out)
        return reply
    try:
        figures = share_figures(flip_probability, groups, class_size, confidence)
    except ValueError:
        return {"ok": False, "error": readout_words.too_close_to_half()}
    reply = {
        "ok": True,
        "class_size": class_size,
        "confidence": confidence,
        "questions": [
            {
                "options": g.options,
                "yes_no": g.is_yes_no,
                "label": g.label,
                "half_width": m,
                "chebyshev_half_width": c,
            }
            for g, m, c in figures
        ],
        "text": shares_text(figures, class_size),
    }
    if numbers:
        extra = numbers_readout(flip_probability, class_size, confidence, numbers)
        reply["numbers"] = extra["numbers"]
        reply["text"] += " " + extra["text"]
    reply["text"] += left_out_words(*left_out)
    return reply


def suggestion_text(
    suggested: float, wanted: str, class_size: int, flip_probability: float | None
) -> str:
    """The suggestion in words, once there is one: already yours, the most privacy offered, or
    the most private p that reaches the margin wanted."""
    if flip_probability is not None and abs(suggested - flip_probability) < 1e-9:
        kind = "yours"
    elif suggested >= privacy.MAX_SUGGESTED_FLIP_PROBABILITY:
        kind = "most"
    else:
        kind = "reaches"
    return readout_words.suggestion_sentence(kind, suggested, wanted, class_size)


def suggestion_readout(
    margin: float,
    groups: Sequence[PlannedQuestions],
    class_size: int,
    flip_probability: float | None,
    confidence: float = DEFAULT_CONFIDENCE,
    numbers: Sequence[PlannedNumber] = (),
) -> dict:
    """The most private p at which every question reaches ``margin``, or why there is none.

    For a numeric question ``margin`` is that share of its range (±10 points: a tenth of it).
    """
    options = tuple(sorted({group.options for group in groups}))
    if not options and not numbers:
        options = (2,)
    bounds = tuple((n.lo, n.hi, n.mechanism) for n in numbers)
    suggested = suggested_flip_probability(margin, class_size, options, confidence, bounds)
    floor = privacy.MIN_SUGGESTED_FLIP_PROBABILITY
    wanted = points(margin, long=True)
    if numbers:
        amounts = [
            readout_words.number_margin(n.amount(margin * (n.hi - n.lo)), n.name) for n in numbers
        ]
        wanted = readout_words.wanted_words(wanted, amounts)
    reply = {"margin": margin, "flip_probability": suggested}
    if suggested is None:
        needed = max(
            [respondents_needed(floor, k, margin, confidence) for k in options]
            + [numeric_respondents(n, floor, margin, confidence) for n in numbers]
        )
        reply["respondents_at_floor"] = needed
        reply["text"] = readout_words.too_few_sentence(floor, class_size, wanted, needed)
    else:
        reply["text"] = suggestion_text(suggested, wanted, class_size, flip_probability)
    reply["apply"] = suggested is not None and not (
        flip_probability is not None and abs(suggested - flip_probability) < 1e-9
    )
    return reply


def yes_no_questions(count: int) -> list[dict]:
    """``count`` yes/no questions, as a definition holds them (a readout asked for by count)."""
    return [{"type": "yes_no"}] * count


def builder_readout(definition: dict, class_size_raw: str | None, margin_raw: str | None) -> dict:
    """The builder's live readout: what p means, what the class will learn, the suggestion.

    ``definition`` is the builder's form as a survey definition (builder.definition_from_form);
    the class size and the margin wanted are as typed. The same dictionary is the JSON the
    readout endpoint answers and what the builder page renders without JavaScript.
    """
    questions = definition["questions"][:MAX_QUESTIONS]
    readout = privacy_readout(definition["flip_probability"], max(1, len(questions)))
    groups, left_out = question_groups(questions)
    numbers, numbers_left_out = numeric_questions(questions)
    class_size, class_size_error = parse_class_size(class_size_raw)
    margin, margin_error = parse_margin(margin_raw)
    readout["class_size"] = class_size
    readout["class_size_error"] = class_size_error
    flip_probability = readout["flip_probability"] if readout["ok"] else None
    readout["warning"] = None
    if flip_probability is not None and flip_probability > privacy.MAX_SUGGESTED_FLIP_PROBABILITY:
        readout["warning"] = readout_words.coin_toss_warning(privacy.MAX_SUGGESTED_FLIP_PROBABILITY)
    if class_size is None:
        readout["planning"] = {"ok": False, "error": class_size_error}
    elif flip_probability is not None:
        left_out_counts = (left_out, numbers_left_out)
        readout["planning"] = pairs.with_pairs(
            class_readout(flip_probability, groups, left_out_counts, class_size, numbers=numbers),
            questions,
            flip_probability,
            class_size,
            alone=not groups and not numbers,
        )
    else:
        readout["planning"] = None
    if margin_error:
        readout["suggestion"] = {"ok": False, "error": margin_error}
    elif margin is None:
        readout["suggestion"] = None
    elif class_size is None:
        readout["suggestion"] = None  # the class size's message says why
    else:
        suggestion = suggestion_readout(
            margin, groups, class_size, flip_probability, numbers=numbers
        )
        readout["suggestion"] = {"ok": True, **suggestion}
    return readout


# --------------------------------------------------------------------------- the dashboard


@dataclass(frozen=True)
class TradeOffRow:
    flip_probability: float
    epsilon: float
    margins: tuple[float, ...]
    needed: int
    needed_chebyshev: int
    is_current: bool


@dataclass(frozen=True)
class Plan:
    margin: float
    confidence: float
    respondents: int
    needed_yes_no: int
    needed_worst: int
    needed_chebyshev: int
    margin_now: float | None
    margin_now_chebyshev: float | None
    sizes: tuple[int, ...]
    trade_off: list[TradeOffRow]
    margin_error: str | None = None
    #: The survey's numeric questions, planned in their units.
    numbers: tuple[NumericPlan, ...] = ()
    #: Whether the survey asks a yes/no or choice question (a share to estimate), or none yet;
    #: a survey of numbers alone is planned by its averages and its trade-off table is in the first
    #: number's unit (:attr:`number_trade_off`).
    has_shares: bool = True
    number_trade_off: tuple[NumberTradeOffRow, ...] = ()

    #: A margin this wide (a share of the range) or wider says next to nothing.
    next_to_nothing: float = NEXT_TO_NOTHING

    @property
    def says_next_to_nothing(self) -> bool:
        return self.margin_now is not None and self.margin_now >= NEXT_TO_NOTHING


def distinct_option_counts(survey: Survey) -> list[int]:
    """The distinct option counts of a survey's questions (2 for yes/no), at least [2].

    Numeric questions are planned apart (planning_numbers.numeric_plans).
    """
    return sorted({q.option_count for q in survey.questions if q.has_options}) or [2]


def trade_off_row(
    flip_probability: float, margin: float, confidence: float, is_current: bool
) -> TradeOffRow:
    """One row of the trade-off table (yes/no questions)."""
    return TradeOffRow(
        flip_probability=flip_probability,
        epsilon=privacy.epsilon_from_flip_probability(flip_probability),
        margins=tuple(
            planned_margin(flip_probability, 2, size, confidence) for size in TRADE_OFF_SIZES
        ),
        needed=respondents_needed(flip_probability, 2, margin, confidence),
        needed_chebyshev=respondents_needed_chebyshev(flip_probability, 2, margin, confidence),
        is_current=is_current,
    )


def trade_off_flip_probabilities(current: float) -> list[float]:
    """The table's flip probabilities, with the survey's own among them."""
    known = [p for p in TRADE_OFF_FLIP_PROBABILITIES if abs(p - current) >= 1e-9]
    return sorted([*known, current])


def make_plan(
    survey: Survey, margin: float, confidence: float, respondents: int | None = None
) -> Plan:
    """How many respondents the survey needs, and what the current number can tell.

    ``respondents``: how many have answered, as the caller's results counted them (else the
    survey's count).
    """
    p = survey.flip_probability
    option_counts = distinct_option_counts(survey)
    n = survey.respondents if respondents is None else respondents
    size = planning_size(n)
    has_shares = any(question.has_options for question in survey.questions)
    flip_probabilities = trade_off_flip_probabilities(p)
    numbers = plan_numbers(
        survey,
        margin,
        confidence,
        n,
        # A survey of numbers alone trades off in its first number's unit.
        () if has_shares else flip_probabilities,
        TRADE_OFF_SIZES,
    )
    needed_worst = max(respondents_needed(p, k, margin, confidence) for k in option_counts)
    return Plan(
        margin=margin,
        confidence=confidence,
        respondents=n,
        # Without a question of two answers (a survey of pairs and larger choices), no sentence
        # names "its yes/no questions alone": their count is the survey's.
        needed_yes_no=respondents_needed(p, 2, margin, confidence)
        if 2 in option_counts
        else needed_worst,
        needed_worst=needed_worst,
        needed_chebyshev=max(
            respondents_needed_chebyshev(p, k, margin, confidence) for k in option_counts
        ),
        margin_now=(
            max(planned_margin(p, k, size, confidence) for k in option_counts) if n else None
        ),
        margin_now_chebyshev=(
            max(chebyshev_margin(p, k, n, confidence) for k in option_counts) if n else None
        ),
        sizes=TRADE_OFF_SIZES,
        trade_off=[
            trade_off_row(each, margin, confidence, each == p) for each in flip_probabilities
        ],
        numbers=numbers.plans,
        has_shares=has_shares or not numbers.plans,
        number_trade_off=numbers.trade_off,
    )


def plan_for_margin(
    survey: Survey, raw_margin: str | None, confidence: float, respondents: int | None = None
) -> Plan:
    """The plan for a margin typed in points, or the default one with a message why not."""
    margin, error = parse_margin(raw_margin)
    plan = make_plan(survey, margin or DEFAULT_MARGIN, confidence, respondents)
    return dataclasses.replace(plan, margin_error=error) if error else plan


# --------------------------------------------------------------------------- warming up


def warm_up(confidences: Iterable[float] = CONFIDENCE_LEVELS) -> None:
    """Work out the default trade-off tables, so that a dashboard's first one comes quickly."""
    for confidence in confidences:
        for p in TRADE_OFF_FLIP_PROBABILITIES:
            trade_off_row(p, DEFAULT_MARGIN, confidence, False)


_warm_up_started = threading.Event()


def warm_up_in_background() -> threading.Thread | None:
    """Start :func:`warm_up` on a daemon thread, once per process (None: already started)."""
    if _warm_up_started.is_set():
        return None
    _warm_up_started.set()
    thread = threading.Thread(target=warm_up, name="planning-warm-up", daemon=True)
    thread.start()
    return thread
