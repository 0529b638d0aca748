"""The privacy math: randomized response, its debiased estimates and guaranteed intervals.

This package is the only place in the project that does this math. It imports NumPy and SciPy
and nothing of Flask or the database, so it can be read, tested and reused on its own.

- :mod:`~survey_app.privacy.parameters`: p, epsilon and the browser's integer thresholds;
- :mod:`~survey_app.privacy.estimates`: the unbiased estimates, Chebyshev intervals and their
  planning figures, the projection onto the simplex, and simulation;
- :mod:`~survey_app.privacy.exact`: exact guaranteed intervals (inverting the exact law of a
  noisy count) and the margins they reach;
- :mod:`~survey_app.privacy.live`: live ranges (confidence sequences) for shares and numeric
  averages, valid however often they are looked at;
- :mod:`~survey_app.privacy.mechanisms`: :class:`RandomizedResponse`, one type per mechanism,
  which owns all of the above for a question, so that callers never branch on its kind;
- :mod:`~survey_app.privacy.numeric`: numeric questions on a grid of [lo, hi]
  (:mod:`~survey_app.privacy.numeric_grid`, :mod:`~survey_app.privacy.numeric_base`), with
  :class:`GridLaplace` (:mod:`~survey_app.privacy.laplace`) and :class:`HybridNumeric`
  (:mod:`~survey_app.privacy.hybrid`), and :func:`numeric_mechanism` to pick one.

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
(:func:`browser_epsilon`) is at most the stated one. :func:`estimate_browser_frequencies`
debiases answers that came from the browser with exactly those probabilities.

References
----------
S. L. Warner, "Randomized response: a survey technique for eliminating evasive answer bias",
JASA 60 (1965). P. Kairouz, S. Oh, P. Viswanath, "Extremal mechanisms for local differential
privacy", NeurIPS 2014 (k-RR). Chebyshev's inequality: Pr[|X - mu| >= k sigma] <= 1 / k^2.
"""

from survey_app.privacy.estimates import *  # noqa: F403
from survey_app.privacy.estimates import __all__ as _estimates
from survey_app.privacy.exact import *  # noqa: F403
from survey_app.privacy.exact import __all__ as _exact
from survey_app.privacy.live import *  # noqa: F403
from survey_app.privacy.live import __all__ as _live
from survey_app.privacy.mechanisms import *  # noqa: F403
from survey_app.privacy.mechanisms import __all__ as _mechanisms
from survey_app.privacy.numeric import *  # noqa: F403
from survey_app.privacy.numeric import __all__ as _numeric
from survey_app.privacy.parameters import *  # noqa: F403
from survey_app.privacy.parameters import __all__ as _parameters

__all__ = sorted([*_parameters, *_estimates, *_exact, *_live, *_mechanisms, *_numeric])
