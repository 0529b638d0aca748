"""What pages and the API show of a survey, in one place (no math here: privacy.py does it)."""

from __future__ import annotations

from survey_app import privacy
from survey_app.models import Survey


def public_definition(survey: Survey) -> dict:
    """The survey as a respondent's browser needs it: questions, options and the mechanism."""
    epsilon = survey.epsilon_per_question
    return {
        "survey": survey.slug,
        "title": survey.title,
        "intro": survey.intro,
        "status": survey.status.value,
        "flip_probability": survey.flip_probability,
        "epsilon_per_question": epsilon,
        "epsilon_total": survey.epsilon_total,
        "questions": [
            {
                "id": question.id,
                "text": question.text,
                "type": question.kind.value,
                "options": [
                    {"value": value, "label": label}
                    for value, label in enumerate(question.option_labels)
                ],
                "epsilon": epsilon,
            }
            for question in survey.questions
        ],
    }


def privacy_explanation(survey: Survey) -> dict:
    """Plain-language figures of the privacy each answer gets, computed from p."""
    p = survey.flip_probability
    epsilon = survey.epsilon_per_question
    return {
        "flip_percent": _percent(p),
        "flip_one_in": 1.0 / p,
        "odds": privacy.odds_ratio(p),
        "deniability_percent": _percent(privacy.deniability(p)),
        "epsilon": epsilon,
        "epsilon_total": survey.epsilon_total,
        "question_count": len(survey.questions),
    }


def _percent(share: float) -> str:
    """A share as a percentage with no needless decimals: 0.25 -> '25', 0.125 -> '12.5'."""
    return f"{share * 100:.1f}".rstrip("0").rstrip(".")
