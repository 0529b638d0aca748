"""Counts from the database -> :mod:`survey_app.privacy` -> result tables.

Results come from the counts kept up to date with every submission (one small query however
many submissions there are), as their owner may see them: while a survey is open, as of its
last release (:mod:`survey_app.results.releases`). Nothing here loads submissions into Python.
Several
surveys with the same questions and flip probability (sections of one course, say) can be
pooled: their noisy counts add, question by question.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from flask_babel import gettext

from survey_app import kinds, privacy
from survey_app.results.releases import Counts, ShownCounts, shown_counts, shows_results
from survey_app.storage.models import Question, Survey
from survey_app.web.languages import is_english
from survey_app.words import format_number

#: The confidence levels offered on the dashboard.
CONFIDENCE_LEVELS = (0.90, 0.95, 0.99)
DEFAULT_CONFIDENCE = 0.95


class PoolingError(ValueError):
    """Surveys that cannot be pooled (other questions or flip probability); says which."""


def shown_range(estimate: privacy.Estimate, kind: str) -> tuple[float | None, float | None]:
    """The ends of an option's range of that kind: "live", "together" (all of a question's
    options at once) or "exact" (results.words.RANGE_KINDS)."""
    if kind == "live":
        return estimate.live_low, estimate.live_high
    if kind == "together":
        return estimate.simultaneous_low, estimate.simultaneous_high
    return estimate.exact_low, estimate.exact_high


@dataclass(frozen=True)
class OptionResult:
    value: int
    label: str
    #: Unbiased and unclipped: the API's and the CSV's ``estimate``, the table's "unbiased
    #: estimate" where it leaves 0–100%.
    estimate: privacy.Estimate

    @property
    def noisy_count(self) -> int:
        return self.estimate.noisy_count

    def headline(self, kind: str) -> float | None:
        """The option's one figure for people, wherever it is shown (words, chart, projector,
        table, lesson, students' page, CSV, API): its estimate clipped to 0–100%, kept within
        its range of that kind, the one the page leads with (privacy.Estimate.headline says
        why this figure). None before any answer."""
        return self.estimate.headline(*shown_range(self.estimate, kind))


@dataclass(frozen=True)
class NumericResult:
    """A numeric question's results: the mean with its guaranteed interval, the histogram."""

    estimate: privacy.NumericEstimate
    #: None for a mechanism whose reports tell the mean alone (one bit each).
    histogram: privacy.NumericHistogram | None
    mechanism: privacy.NumericMechanism
    #: The definition named the mechanism (else it was chosen for its narrowest range).
    named: bool
    unit: str
    #: The class size the survey planned for (the mechanism was chosen for it).
    planned: int = privacy.PLANNED_RESPONDENTS
    #: Fixed at opening by an earlier rule than today's (surveys opened before it).
    chosen_earlier: bool = False


@dataclass(frozen=True)
class QuestionResult:
    id: int
    number: int
    text: str
    #: The name of its kind (survey_app.kinds).
    kind: str
    #: What the question's counts tell (privacy.Shares or privacy.Average): its ``summary``
    #: says what they sum up as, its ``rows()`` are the CSV's.
    told: privacy.Told
    #: Each option's result, by value (none for a number question).
    options: list[OptionResult]
    #: A number question's results as its words need them; None for other questions.
    numeric: NumericResult | None = None
    #: The unit a number question is asked in ("hours"; "" for none and other questions).
    unit: str = ""
    #: The survey's flip probability: what planning how many answers a margin takes needs.
    flip_probability: float | None = None
    #: The questions asked together in it (a cross-tabulation's rows then columns:
    #: kinds.base.PartQuestion); none for a question asked alone.
    parts: tuple = ()

    @property
    def n(self) -> int:
        return self.told.n

    @property
    def summary(self) -> str:
        """What the results sum up as: "shares" (one per option) or "average" (Told.summary)."""
        return self.told.summary

    @property
    def half_width(self) -> float | None:
        """Every option of a question shares one Chebyshev half-width."""
        return self.options[0].estimate.half_width if self.options else None

    @staticmethod
    def widest_half_width(ranges: Iterable[tuple[float | None, float | None]]) -> float | None:
        """Half the widest of these ranges, each ``(low, high)``, of a question's options (None
        before any answer). The caller picks the ranges, so that nothing here calls back into
        the words that chose them."""
        widths = [(high - low) / 2.0 for low, high in ranges if low is not None]
        return max(widths) if widths else None

    @property
    def widest_exact_half_width(self) -> float | None:
        """Half the widest exact interval among the options (None before any answer)."""
        return self.widest_half_width(
            [(option.estimate.exact_low, option.estimate.exact_high) for option in self.options]
        )

    @property
    def shows_results(self) -> bool:
        """Whether the question's results show: enough answers (releases.shows_results)."""
        return shows_results(self.n)

    @property
    def too_early(self) -> bool:
        """True while too few have answered for results to mean anything (but some have)."""
        return 0 < self.n and not self.shows_results

    @property
    def consistent_with_randomization(self) -> bool:
        """False when the counts are not what randomized answers could give."""
        return self.told.consistent_with_randomization


@dataclass(frozen=True)
class SurveyResults:
    survey: Survey
    respondents: int
    confidence: float
    epsilon_per_question: float
    epsilon_total: float
    questions: list[QuestionResult]
    #: Every survey whose answers are counted: one, or several pooled.
    surveys: tuple[Survey, ...] = ()
    #: How many have answered so far, live; ``respondents`` (what the results hold) lags
    #: behind it while a survey is open: results change in releases (survey_app.results.releases).
    answered: int = 0
    #: Of each survey, by id: how many have answered so far.
    answered_by_survey: dict[int, int] | None = None
    #: A closed survey shows its last release, not all its answers
    #: (survey_app.results.releases.close).
    held: bool = False

    @property
    def awaiting_release(self) -> int:
        """Answers that arrived since the results shown were released (0 once closed)."""
        return self.answered - self.respondents

    @property
    def shows_results(self) -> bool:
        """Whether the results show (everyone answers every question: the count decides)."""
        return shows_results(self.respondents)

    @property
    def pooled(self) -> bool:
        return len(self.surveys) > 1


def _add_counts(first: Counts, second: Counts) -> Counts:
    if isinstance(first, dict):
        return {value: first.get(value, 0) + second.get(value, 0) for value in {*first, *second}}
    return [a + b for a, b in zip(first, second, strict=True)]


def pooling_key(survey: Survey) -> tuple:
    """What must be the same for answers to be pooled: p, and each question's text and options;
    a number question's bounds, unit and the mechanism it was randomized with (whether the
    definition named it or it was chosen for the survey's epsilon); a pair's two questions."""
    return (
        survey.flip_probability,
        tuple(
            (
                q.kind,
                q.text,
                tuple(q.option_labels),
                q.minimum,
                q.maximum,
                q.unit or "",
                q.mechanism.name,
                tuple(tuple(sorted(part.items(), key=str)) for part in q.parts or ()),
            )
            for q in survey.questions
        ),
    )


def check_poolable(surveys: Sequence[Survey]) -> None:
    """Refuse surveys whose answers cannot be added up (PoolingError saying why)."""
    first = surveys[0]
    for other in surveys[1:]:
        if other.flip_probability != first.flip_probability:
            raise PoolingError(
                gettext(
                    "“%(title)s” randomizes with another flip probability (%(other)s instead of "
                    "%(first)s)",
                    title=other.title,
                    other=flip_figure(other.flip_probability),
                    first=flip_figure(first.flip_probability),
                )
            )
        if pooling_key(other) != pooling_key(first):
            bounded = any(question.minimum is not None for question in first.questions)
            if bounded:
                raise PoolingError(
                    gettext(
                        "“%(title)s” does not ask the same questions and options (for a number: "
                        "the same bounds, unit and mechanism)",
                        title=other.title,
                    )
                )
            raise PoolingError(
                gettext(
                    "“%(title)s” does not ask the same questions and options", title=other.title
                )
            )


def flip_figure(flip_probability: float) -> str:
    """A flip probability as a reason for not pooling says it: "0.25" ("0,25" in German)."""
    return str(flip_probability) if is_english() else format_number(flip_probability)


def question_result(
    question: Question,
    number: int,
    counts: Counts,
    confidence: float,
    carried: tuple[privacy.Look, ...] = (),
) -> QuestionResult:
    """One question's results from its (released or pooled) counts; ``carried``: what its
    live ranges proved at the last release, which they never give back (releases)."""
    mechanism = question.mechanism
    told = mechanism.tell(counts, confidence, carried)
    # An average has no options: its estimates are empty.
    options = [
        OptionResult(value, label, estimate)
        for value, (label, estimate) in enumerate(
            zip(question.option_labels, told.estimates, strict=True)
        )
    ]
    return QuestionResult(
        id=question.id,
        number=number,
        text=question.text,
        kind=question.kind,
        told=told,
        options=options,
        unit=question.unit or "",
        flip_probability=question.survey.flip_probability,
        parts=kinds.kind_named(question.kind).part_questions(question),
        numeric=NumericResult(
            estimate=told.estimate,
            histogram=told.histogram,
            mechanism=mechanism,
            named=question.mechanism_named,
            unit=question.unit or "",
            planned=question.survey.expected_respondents,
            chosen_earlier=question.mechanism_chosen_earlier,
        )
        if told.summary == "average"
        else None,
    )


def survey_results(
    survey: Survey | Sequence[Survey],
    confidence: float = DEFAULT_CONFIDENCE,
    shown: dict[int, ShownCounts] | None = None,
) -> SurveyResults:
    """Every question's estimates, Chebyshev and exact intervals at ``confidence``.

    Given several surveys (identical questions and p), their noisy counts are added question by
    question and the results are those of the pooled answers; questions keep the first
    survey's ids. Each survey's counts are those its owner may see (survey_app.results.releases);
    ``shown`` gives them by survey id when the caller has read them already.
    """
    surveys = (survey,) if isinstance(survey, Survey) else tuple(survey)
    if not surveys:
        raise PoolingError("no survey to show")
    check_poolable(surveys)
    first = surveys[0]
    shown = {each.id: (shown or {}).get(each.id) or shown_counts(each) for each in surveys}
    pooled: dict[int, Counts] = {}
    for each in surveys:
        for position, question in enumerate(each.questions):
            key = first.questions[position].id
            counts = shown[each.id].counts[question.id]
            pooled[key] = counts if key not in pooled else _add_counts(pooled[key], counts)
    # Pooled live ranges are each look's own (see survey_app.results.releases).
    carried = shown[first.id].carried if len(surveys) == 1 else {}
    questions = [
        question_result(
            question,
            number,
            pooled[question.id],
            confidence,
            carried.get(question.id, {}).get(confidence, ()),
        )
        for number, question in enumerate(first.questions, start=1)
    ]
    return SurveyResults(
        survey=first,
        respondents=sum(shown[each.id].respondents for each in surveys),
        confidence=confidence,
        epsilon_per_question=first.epsilon_per_question,
        epsilon_total=first.epsilon_total,
        questions=questions,
        surveys=surveys,
        answered=sum(each.answered for each in shown.values()),
        answered_by_survey={survey_id: each.answered for survey_id, each in shown.items()},
        held=any(each.held for each in shown.values()),
    )
