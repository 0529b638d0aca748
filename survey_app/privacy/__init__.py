"""The privacy math: randomized response, its debiased estimates and guaranteed intervals.

This package is the only place in the project that does this math. It imports NumPy and SciPy
and nothing of Flask or the database, so it can be read, tested and reused on its own.

What callers use is small (this module's ``__all__``):

- the interface every mechanism implements from counts, :class:`Mechanism`
  (:mod:`~survey_app.privacy.interface`, whose docstring gives its shape): ``tell(counts)``
  gives :class:`Shares` or :class:`Average`, each with ``n``, ``summary`` and ``rows()``
  (estimates with exact, simultaneous and live ranges); ``half_width(n)`` and
  ``respondents_for(margin)`` plan. :class:`RandomizedResponse` (yes/no, k options) and each
  numeric mechanism (:class:`GridLaplace`, :class:`HybridNumeric`, :class:`OneBitNumeric`,
  chosen by :func:`numeric_mechanism`) implement it, and so does a paired question's
  :class:`JointRandomizedResponse` (two questions randomized as one answer, whose counts tell
  :class:`JointShares`: cells, each question's shares and their :class:`Association`);
- :mod:`~survey_app.privacy.parameters`: p, epsilon, deniability and the browser's integer
  thresholds;
- planning a survey: :func:`suggest_flip_probability`; a numeric question's bounds
  (:func:`check_numeric_bounds`) and why its mechanism (:func:`mechanism_choice_reason`); how
  many answers a paired question needs to show a moderate relation
  (:func:`respondents_for_association`, :func:`association_power`: approximate);

The math behind them sits in modules of its own, imported from there by tests and lessons:
:mod:`~survey_app.privacy.estimates` (Chebyshev intervals, the reference estimates at ideal
probabilities), :mod:`~survey_app.privacy.exact` (exact intervals), :mod:`~survey_app.privacy.live`
(live ranges, valid however often they are looked at), :mod:`~survey_app.privacy.numeric_grid`,
:mod:`~survey_app.privacy.numeric_base` and one module per numeric mechanism.

Conventions
-----------
``flip_probability`` (``p``) is the probability that a respondent's browser *flips* a yes/no
answer, with ``0 < p < 1/2``. The mechanism is epsilon-differentially private with

    epsilon = ln((1 - p) / p).

A multiple-choice question with ``k`` options uses k-option generalized randomized response
(k-RR): the true option is kept with probability ``P = e^eps / (e^eps + k - 1)``; otherwise one of
the other ``k - 1`` options is reported, uniformly, so each of them has probability
``Q = 1 / (e^eps + k - 1)``. For ``k = 2`` this is the yes/no mechanism with ``P = 1 - p`` and
``Q = p``.

Note that some lecture notes write the estimator as ``(mean - (1 - p)) / (2p - 1)``; that form
holds when ``p`` is the probability of *keeping* the answer. Here ``p`` is the probability of
flipping it, so the unbiased estimator is ``(mean - p) / (1 - 2p)``.

The browser draws each Bernoulli event by comparing one uniform 32-bit word with an integer
threshold, so the probabilities it really uses are multiples of ``2**-32``. Its thresholds are
rounded in the direction that never raises epsilon: it flips a yes/no answer when the word is
below ``T = ceil(p * 2**32)`` (:func:`flip_threshold`), and keeps a choice when the word is below
``K = floor(2**32 (2**32 - T) / (2**32 + (k - 2) T))`` (:func:`keep_threshold`), so its epsilon
(:func:`browser_epsilon`) is at most the stated one. :class:`RandomizedResponse`
debiases answers that came from the browser with exactly those probabilities.

References
----------
S. L. Warner, "Randomized response: a survey technique for eliminating evasive answer bias",
JASA 60 (1965). P. Kairouz, S. Oh, P. Viswanath, "Extremal mechanisms for local differential
privacy", NeurIPS 2014 (k-RR). Chebyshev's inequality: Pr[|X - mu| >= k sigma] <= 1 / k^2.
"""

from survey_app.privacy.estimates import Estimate
from survey_app.privacy.interface import (
    HISTOGRAM_BARS,
    Average,
    Counts,
    Look,
    Mechanism,
    Row,
    Shares,
    Told,
)
from survey_app.privacy.joint import (
    PLANNED_PHI,
    PLANNED_POWER,
    Association,
    JointRandomizedResponse,
    JointShares,
    association_power,
    respondents_for_association,
)
from survey_app.privacy.mechanisms import (
    MAX_PLANNED_RESPONDENTS,
    MAX_SUGGESTED_FLIP_PROBABILITY,
    MIN_SUGGESTED_FLIP_PROBABILITY,
    PLANNING_SHARES,
    RandomizedResponse,
    suggest_flip_probability,
)
from survey_app.privacy.numeric import (
    MECHANISM_NAMES,
    NUMERIC_MECHANISMS,
    PLANNED_RESPONDENTS,
    GridLaplace,
    HybridNumeric,
    NumericMechanism,
    OneBitNumeric,
    mechanism_choice_reason,
    numeric_mechanism,
    numeric_respondents_for,
)
from survey_app.privacy.numeric_grid import (
    MAX_NUMERIC_MAGNITUDE,
    MIN_NUMERIC_EPSILON,
    NumericEstimate,
    NumericHistogram,
    check_numeric_bounds,
    smallest_numeric_range,
)
from survey_app.privacy.parameters import *  # noqa: F403
from survey_app.privacy.parameters import __all__ as _parameters

__all__ = [
    *_parameters,
    # the interface, and what counts tell
    "HISTOGRAM_BARS",
    "Average",
    "Counts",
    "Association",
    "Estimate",
    "JointShares",
    "Mechanism",
    "NumericEstimate",
    "NumericHistogram",
    "Row",
    "Shares",
    "Told",
    "Look",
    # the mechanisms, and choosing a numeric one
    "MECHANISM_NAMES",
    "NUMERIC_MECHANISMS",
    "PLANNED_RESPONDENTS",
    "GridLaplace",
    "HybridNumeric",
    "JointRandomizedResponse",
    "NumericMechanism",
    "OneBitNumeric",
    "RandomizedResponse",
    "mechanism_choice_reason",
    "numeric_mechanism",
    "numeric_respondents_for",
    # planning a survey
    "MAX_PLANNED_RESPONDENTS",
    "MAX_SUGGESTED_FLIP_PROBABILITY",
    "MIN_SUGGESTED_FLIP_PROBABILITY",
    "PLANNING_SHARES",
    "suggest_flip_probability",
    # planning a paired question: how many it takes to see a relation
    "PLANNED_PHI",
    "PLANNED_POWER",
    "association_power",
    "respondents_for_association",
    # a numeric question's bounds
    "MAX_NUMERIC_MAGNITUDE",
    "MIN_NUMERIC_EPSILON",
    "check_numeric_bounds",
    "smallest_numeric_range",
]
