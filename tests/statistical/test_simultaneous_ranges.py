"""A choice question's ranges: each holds on its own; "all at once" holds for every option together.

The audit's finding: at n = 40 the chance that all four "guaranteed 95%" ranges of a 4-option
question hold at once was 0.87 to 0.93. Reproduced here, then the remedy: each option's exact
range at 1 - alpha / k. Its marginal coverage is checked by exact enumeration for every true
count (so the union bound makes the joint coverage at least 1 - alpha for every truth, not only at
the truths simulated); the simulation shows it holds together at the audit's truths too.
"""

from __future__ import annotations

import numpy as np
import pytest

from survey_app import privacy
from tests.unit.privacy.test_exact_intervals import worst_coverage

OPTIONS = 4
N = 40
#: Seeded classes per truth: the binomial standard error of a coverage near 0.9 is 0.0042.
CLASSES = 5000
#: Truths of the audit's kind: even, one favourite, and one option held by nobody.
TRUTHS = [(10, 10, 10, 10), (25, 5, 5, 5), (16, 14, 10, 0)]


def simulated_joint_coverage(mechanism, truth, confidence, simultaneous: bool, seed: int):
    """The share of seeded classes whose k ranges all hold the true shares at once.

    Counts are drawn from the browser's exact law (each holder of option i reports i with the
    keep probability, each other option with the other one), and each option's range is the
    one the results give: exact_interval at the confidence, or at 1 - alpha / k.
    """
    rng = np.random.default_rng(seed)
    level = 1 - (1 - confidence) / OPTIONS if simultaneous else confidence
    laws = [
        [mechanism.keep if j == i else mechanism.other for j in range(OPTIONS)]
        for i in range(OPTIONS)
    ]
    counts = sum(rng.multinomial(t, law, size=CLASSES) for t, law in zip(truth, laws, strict=True))
    held = np.ones(CLASSES, dtype=bool)
    for option, t in enumerate(truth):
        ranges = {
            count: privacy.exact.exact_interval(count, N, mechanism.keep, mechanism.other, level)
            for count in np.unique(counts[:, option]).tolist()
        }
        covers = {
            count: low - 1e-12 <= t / N <= high + 1e-12 for count, (low, high) in ranges.items()
        }
        held &= np.array([covers[count] for count in counts[:, option].tolist()])
    return float(held.mean())


@pytest.mark.parametrize("flip_probability", [0.25, 0.4])
def test_each_options_range_at_one_minus_alpha_over_k_covers_for_every_truth(flip_probability):
    """Exact enumeration at the level the "all at once" ranges use: by the union bound, all k
    then hold together with probability at least 95% whatever the class answered."""
    mechanism = privacy.RandomizedResponse(flip_probability, OPTIONS)
    level = 1 - 0.05 / OPTIONS
    for n in (10, 25, N):
        assert worst_coverage(n, mechanism.keep, mechanism.other, level) >= level - 1e-12


@pytest.mark.parametrize("truth", TRUTHS)
def test_the_audits_joint_coverage_and_the_remedy(truth):
    mechanism = privacy.RandomizedResponse(0.25, OPTIONS)
    each_alone = simulated_joint_coverage(mechanism, truth, 0.95, False, seed=19)
    together = simulated_joint_coverage(mechanism, truth, 0.95, True, seed=19)
    # Each range alone: all four hold at once in 0.88-0.90 of these classes (the audit's
    # 0.87-0.93); 0.93 is some 8 standard errors above what the seeds give.
    assert each_alone < 0.93
    # All at once: at least 95%, within 4 standard errors of the simulation (0.0125).
    assert together >= 0.95 - 0.0125, together
    assert together >= each_alone
