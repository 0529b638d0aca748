"""The results as documents: what the JSON API returns of a survey's results (the CSV files are
survey_app.results.exports'). Figures as the tables hold them, unrounded: a program reads these,
and the pages word them (survey_app.results.words).
"""

from __future__ import annotations

import functools

from survey_app import privacy
from survey_app.results.releases import CARRIED_CONFIDENCES
from survey_app.results.tables import NumericResult, SurveyResults
from survey_app.results.words import headline_range_kind, mechanism_reason


def results_document(results: SurveyResults) -> dict:
    """The results as the JSON API returns them.

    ``ci_low``, ``ci_high`` and ``half_width`` are the Chebyshev interval (as ever);
    ``exact_ci_low`` and ``exact_ci_high`` the exact one (None when the counts are not
    consistent with the randomization). ``estimate`` is unbiased and unclipped; ``headline``
    the figure the dashboard gives (kept within 0–1 and the range named by
    ``headline_range``: privacy.Estimate.headline). Pooled results name every survey in
    ``surveys``.
    """
    survey = results.survey
    kind = headline_range_kind(results)
    return {
        "survey": survey.slug,
        "surveys": [each.slug for each in results.surveys],
        "title": survey.title,
        "status": survey.status.value,
        # How many answers the figures hold, and how many have answered so far: while a
        # survey is open its figures change in releases of several answers.
        "respondents": results.respondents,
        "answered": results.answered,
        "flip_probability": survey.flip_probability,
        "epsilon_per_question": results.epsilon_per_question,
        "epsilon_total": results.epsilon_total,
        "confidence": results.confidence,
        # The range the dashboard leads with: "live" while open, else "exact".
        "headline_range": kind,
        # Whether the live ranges keep what earlier looks proved (releases): a survey's own,
        # at a confidence the dashboard offers; pooled results and other confidences give each
        # look's own, valid at every look but free to widen.
        "live_carried": len(results.surveys) == 1 and results.confidence in CARRIED_CONFIDENCES,
        "questions": [
            {
                "id": question.id,
                "number": question.number,
                "text": question.text,
                "type": question.kind,
                "n": question.n,
                **told_fields(question.told, question, kind),
                "options": [option_fields(option, kind) for option in question.options],
            }
            for question in results.questions
        ],
    }


def option_fields(option, kind: str) -> dict:
    """One option's figures, its headline kept in the range of ``kind``."""
    return {
        "value": option.value,
        "label": option.label,
        "noisy_count": option.noisy_count,
        "noisy_share": option.estimate.noisy_share,
        "estimate": option.estimate.estimate,
        "headline": option.headline(kind),
        "ci_low": option.estimate.ci_low,
        "ci_high": option.estimate.ci_high,
        "half_width": option.estimate.half_width,
        "exact_ci_low": option.estimate.exact_low,
        "exact_ci_high": option.estimate.exact_high,
        # All the options' ranges at once (Bonferroni over k options).
        "simultaneous_ci_low": option.estimate.simultaneous_low,
        "simultaneous_ci_high": option.estimate.simultaneous_high,
        # Valid at every look, however often read while the survey is open.
        "live_ci_low": option.estimate.live_low,
        "live_ci_high": option.estimate.live_high,
        "consistent": option.estimate.consistent_with_randomization,
    }


@functools.singledispatch
def told_fields(told: privacy.Told, question, kind: str) -> dict:
    """What the JSON API adds to a question's options for what its counts tell: each kind
    (privacy.Shares, privacy.Average) answers for itself. Shares add nothing: their
    ``options`` say it all. ``kind``: the range the headlines keep within."""
    return {}


@told_fields.register(privacy.Average)
def _average_fields(told: privacy.Average, question, kind: str) -> dict:
    """An average's figures (:func:`numeric_document`)."""
    return numeric_document(question.numeric)


@told_fields.register(privacy.JointShares)
def _joint_fields(told: privacy.JointShares, question, kind: str) -> dict:
    """A paired question's table (its ``options`` are its cells, by report ``a k2 + b``): each
    cell with the two answers it holds, each question's own shares, and the association."""
    k2 = told.shape[1]
    return {
        "shape": list(told.shape),
        "cells": [
            {
                "row_value": option.value // k2,
                "column_value": option.value % k2,
                **option_fields(option, kind),
            }
            for option in question.options
        ],
        "margins": [
            [
                margin_fields(value, part.labels[value], estimate)
                for value, estimate in enumerate(margin.estimates)
            ]
            for part, margin in zip(question.parts, told.margins, strict=True)
        ],
        # The margins' live ranges are each look's own: valid at every look, but they do not
        # keep what an earlier release proved (the cells' do, as ``live_carried`` says).
        "margins_live_carried": False,
        "association": association_fields(told.association),
        # False: counts no randomized answers would give; the association then says nothing.
        "consistent": told.consistent_with_randomization,
    }


def margin_fields(value: int, label: str, estimate: privacy.Estimate) -> dict:
    """One answer's share of one question of a pair, as an option's figures are given."""
    return {
        "value": value,
        "label": label,
        "consistent": estimate.consistent_with_randomization,
        "noisy_count": estimate.noisy_count,
        "estimate": estimate.estimate,
        "headline": estimate.headline(estimate.exact_low, estimate.exact_high),
        "exact_ci_low": estimate.exact_low,
        "exact_ci_high": estimate.exact_high,
        "simultaneous_ci_low": estimate.simultaneous_low,
        "simultaneous_ci_high": estimate.simultaneous_high,
        "live_ci_low": estimate.live_low,
        "live_ci_high": estimate.live_high,
    }


def association_fields(association: privacy.Association) -> dict:
    """How a pair's answers go together: the p-value of "unrelated" (approximate) and, for two
    yes/no questions, the difference with its range (guaranteed), each with its method."""
    return {
        "p_value": association.p_value,
        "p_value_guaranteed": association.p_value_guaranteed,
        "method": association.method,
        "difference": association.difference,
        "difference_ci_low": association.difference_low,
        "difference_ci_high": association.difference_high,
        "difference_guaranteed": association.difference_guaranteed,
        "difference_method": association.difference_method,
    }


def numeric_document(result: NumericResult) -> dict:
    """A numeric question's results as the JSON API gives them (its ``options`` are empty).

    ``mean`` is unbiased and unclipped, ``headline`` the mean clipped to [min, max] (the
    dashboard's figure); ``ci_low``/``ci_high`` is ``mean -/+ half_width``
    clipped to [min, max], ``half_width`` the narrowest range the mechanism proves (its own
    exact-law or Chernoff bound, or Chebyshev's or Bernstein's); ``live_ci_low``/``live_ci_high``
    the live range, valid at every look.
    """
    estimate, histogram = result.estimate, result.histogram
    # Answers not consistent with the randomization get no headline, range or spread (as the
    # dashboard gives none): clipped to the scale, they would read as a certain figure.
    consistent = estimate.consistent_with_randomization
    return {
        "min": estimate.lo,
        "max": estimate.hi,
        "unit": result.unit,
        "mechanism": result.mechanism.name,
        "mechanism_reason": mechanism_reason(result),
        "mean": estimate.mean,
        # The mean kept within [min, max], as the dashboard says it.
        "headline": estimate.headline,
        "ci_low": estimate.ci_low if consistent else None,
        "ci_high": estimate.ci_high if consistent else None,
        "half_width": estimate.half_width,
        "chebyshev_half_width": estimate.chebyshev_half_width,
        "bernstein_half_width": estimate.bernstein_half_width,
        "live_ci_low": estimate.live_low if consistent else None,
        "live_ci_high": estimate.live_high if consistent else None,
        "consistent": consistent,
        # None for the one-bit mechanism, whose reports tell the mean alone.
        "histogram": None
        if histogram is None or not consistent
        else {"edges": list(histogram.edges), "shares": list(histogram.shares)},
    }
