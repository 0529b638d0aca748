"""What respondents may see of a closed survey whose owner chose to show them: the class's
results, as the dashboard words them, and how each answer was protected.

Only aggregates, only once the survey has closed, and only what its owner sees
(survey_app.results.releases: all the counts, or the last release when results are held back);
nothing
is stored for it and nothing of any one respondent is shown.
"""

from __future__ import annotations

from survey_app.respondents.words import protection_words
from survey_app.results.panel import class_results_words
from survey_app.results.tables import DEFAULT_CONFIDENCE, survey_results
from survey_app.results.words import headline_range_kind
from survey_app.storage.models import Survey
from survey_app.surveys.words import privacy_explanation


def results_shown_to_respondents(survey: Survey) -> bool:
    """True when respondents may see the class's results: closed, and the setting on."""
    return survey.is_closed and survey.show_results_after_close


def class_results_context(survey: Survey) -> dict:
    """The class results page's figures (the caller checked results_shown_to_respondents)."""
    results = survey_results(survey, DEFAULT_CONFIDENCE)
    headline = headline_range_kind(results)
    explanation = privacy_explanation(survey)
    return {
        **class_results_words(results, headline),
        "survey": survey,
        "results": results,
        "confidence": results.confidence,
        "protection_words": protection_words(survey.flip_probability, explanation),
    }
