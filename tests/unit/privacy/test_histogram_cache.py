"""A number question's histogram is fitted once for the same counts: the projector and the open
dashboard redraw themselves and ask again, and each fit is thousands of steps of EM."""

from __future__ import annotations

import math

import numpy as np

from survey_app import privacy
from survey_app.privacy import numeric_base


def test_the_same_counts_are_fitted_once_and_told_alike():
    mechanism = privacy.numeric_mechanism(0, 10, math.log(3), "hybrid")
    reports = mechanism.randomize(np.linspace(0, 10, 40), np.random.default_rng(7))
    numeric_base._fitted_shares.cache_clear()
    first = mechanism.histogram(reports)
    # The same reports in another order are the same counts: the same fit, from the cache.
    again = mechanism.histogram(reports[::-1])
    info = numeric_base._fitted_shares.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    assert again == first
    assert first.iterations > 0 and math.isclose(sum(first.shares), 1.0)


def test_another_mechanism_or_other_counts_are_fitted_afresh():
    rng = np.random.default_rng(8)
    mechanism = privacy.numeric_mechanism(0, 10, math.log(3), "hybrid")
    reports = mechanism.randomize(np.linspace(0, 10, 40), rng)
    numeric_base._fitted_shares.cache_clear()
    fitted = mechanism.histogram(reports)
    # The same reports over other bars, or read by a mechanism of another scale (the same
    # reports, another channel): each a fit of its own.
    assert len(mechanism.histogram(reports, bins=(0, 2.5, 5, 7.5, 10)).shares) == 4
    other = privacy.numeric_mechanism(0, 20, math.log(3), "hybrid")
    assert other.histogram(reports).shares != fitted.shares
    # One report more: other counts.
    assert mechanism.histogram(np.append(reports, reports[0])).n == fitted.n + 1
    assert numeric_base._fitted_shares.cache_info().misses == 4
