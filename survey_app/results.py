"""Counts from the database -> :mod:`survey_app.privacy` -> result tables.

Results come from the tallies kept up to date with every submission (one small query however
many submissions there are); nothing here loads submissions into Python.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from survey_app import privacy
from survey_app.extensions import db
from survey_app.models import Question, QuestionKind, Survey, Tally

#: The confidence levels offered on the dashboard.
CONFIDENCE_LEVELS = (0.90, 0.95, 0.99)
DEFAULT_CONFIDENCE = 0.95


@dataclass(frozen=True)
class OptionResult:
    value: int
    label: str
    estimate: privacy.Estimate

    @property
    def noisy_count(self) -> int:
        return self.estimate.noisy_count


@dataclass(frozen=True)
class QuestionResult:
    id: int
    number: int
    text: str
    kind: QuestionKind
    n: int
    options: list[OptionResult]

    @property
    def half_width(self) -> float | None:
        """Every option of a question shares one half-width."""
        return self.options[0].estimate.half_width if self.options else None

    @property
    def consistent_with_randomization(self) -> bool:
        """False when some option's counts are not what randomized answers could give."""
        return all(option.estimate.consistent_with_randomization for option in self.options)


@dataclass(frozen=True)
class SurveyResults:
    survey: Survey
    respondents: int
    confidence: float
    epsilon_per_question: float
    epsilon_total: float
    questions: list[QuestionResult]


def noisy_counts(survey: Survey) -> dict[int, list[int]]:
    """For each question id, how many randomized answers reported each value."""
    counts: dict[int, list[int]] = {
        question.id: [0] * question.option_count for question in survey.questions
    }
    rows = db.session.execute(
        select(Tally.question_id, Tally.value, func.sum(Tally.noisy_count))
        .join(Question, Question.id == Tally.question_id)
        .where(Question.survey_id == survey.id)
        .group_by(Tally.question_id, Tally.value)
    )
    for question_id, value, count in rows:
        counts[question_id][value] = count
    return counts


def question_estimates(
    survey: Survey, counts: list[int], confidence: float
) -> list[privacy.Estimate]:
    """Debiased estimates of one question's options, with the probabilities the browser used."""
    return privacy.estimate_browser_frequencies(counts, survey.flip_probability, confidence)


def survey_results(survey: Survey, confidence: float = DEFAULT_CONFIDENCE) -> SurveyResults:
    """Every question's debiased estimates and Chebyshev intervals at ``confidence``."""
    counts = noisy_counts(survey)
    questions = []
    for number, question in enumerate(survey.questions, start=1):
        estimates = question_estimates(survey, counts[question.id], confidence)
        questions.append(
            QuestionResult(
                id=question.id,
                number=number,
                text=question.text,
                kind=question.kind,
                n=sum(counts[question.id]),
                options=[
                    OptionResult(value, label, estimate)
                    for value, (label, estimate) in enumerate(
                        zip(question.option_labels, estimates, strict=True)
                    )
                ],
            )
        )
    return SurveyResults(
        survey=survey,
        # Everyone answers every question: any question's n counts the respondents.
        respondents=questions[0].n if questions else 0,
        confidence=confidence,
        epsilon_per_question=survey.epsilon_per_question,
        epsilon_total=survey.epsilon_total,
        questions=questions,
    )


def results_document(results: SurveyResults) -> dict:
    """The results as the JSON API returns them."""
    survey = results.survey
    return {
        "survey": survey.slug,
        "title": survey.title,
        "status": survey.status.value,
        "respondents": results.respondents,
        "flip_probability": survey.flip_probability,
        "epsilon_per_question": results.epsilon_per_question,
        "epsilon_total": results.epsilon_total,
        "confidence": results.confidence,
        "questions": [
            {
                "id": question.id,
                "text": question.text,
                "type": question.kind.value,
                "n": question.n,
                "options": [
                    {
                        "value": option.value,
                        "label": option.label,
                        "noisy_count": option.noisy_count,
                        "noisy_share": option.estimate.noisy_share,
                        "estimate": option.estimate.estimate,
                        "ci_low": option.estimate.ci_low,
                        "ci_high": option.estimate.ci_high,
                        "half_width": option.estimate.half_width,
                        "consistent": option.estimate.consistent_with_randomization,
                    }
                    for option in question.options
                ],
            }
            for question in results.questions
        ],
    }
