"""Planning a paired question (survey_app/privacy/joint.py): how often a class sees a moderate
relation (phi = 0.3) between the two answers, and how many answers it takes to see it 8 times in
10, by the noncentral chi-square law of Pearson's statistic on the reports."""

from __future__ import annotations

import math

import numpy as np
import pytest

from survey_app.privacy import (
    PLANNED_PHI,
    PLANNED_POWER,
    JointRandomizedResponse,
    association_power,
    respondents_for_association,
)
from survey_app.privacy.joint import _pearson, related_table

#: epsilon 2, as docs/joint-association.md measured the power at.
EPSILON_2 = 1.0 / (1.0 + math.e**2)

#: docs/joint-association.md: the bootstrap's power at epsilon 2, margins 0.5 / 0.5, phi 0.3,
#: 2,000 seeded classes each (standard error at most 0.011).
MEASURED_POWER = {60: 0.296, 100: 0.441, 200: 0.737, 300: 0.891}


@pytest.mark.parametrize(("n", "measured"), MEASURED_POWER.items())
def test_the_power_is_close_to_the_one_measured_of_the_apps_own_test(n, measured):
    # The approximation came within 0.013 of each measure; 0.03 allows the measure's own
    # sampling error (0.011, a standard error) about twice over, and no more.
    assert association_power(EPSILON_2, (2, 2), n) == pytest.approx(measured, abs=0.03)


def test_eighty_percent_takes_about_230_students_at_epsilon_2():
    needed = respondents_for_association(EPSILON_2, (2, 2))
    # The independent simulation: about 230; the measures: 0.737 at 200, 0.891 at 300.
    assert 220 <= needed <= 240
    assert association_power(EPSILON_2, (2, 2), needed) >= PLANNED_POWER
    assert association_power(EPSILON_2, (2, 2), needed - 1) < PLANNED_POWER


def test_the_table_planned_has_equally_common_options_and_the_relation_asked_for():
    assert related_table((2, 2)) == pytest.approx(np.array([[0.325, 0.175], [0.175, 0.325]]))
    for shape in ((2, 2), (2, 3), (3, 4), (2, 6)):
        table = related_table(shape)
        rows, columns = table.sum(axis=1), table.sum(axis=0)
        assert rows == pytest.approx(np.full(shape[0], 1 / shape[0]))
        assert columns == pytest.approx(np.full(shape[1], 1 / shape[1]))
        unrelated = np.outer(rows, columns)
        phi = math.sqrt((((table - unrelated) ** 2) / unrelated).sum())
        assert phi == pytest.approx(PLANNED_PHI)
        assert table.min() >= 0
    with pytest.raises(ValueError, match="no 3 x 4 table"):
        related_table((3, 4), phi=0.9)


def test_more_noise_or_more_cells_takes_more_students():
    at_ln3 = respondents_for_association(0.25, (2, 2))
    assert at_ln3 > respondents_for_association(EPSILON_2, (2, 2))
    assert respondents_for_association(EPSILON_2, (3, 4)) > respondents_for_association(
        EPSILON_2, (2, 3)
    )
    assert association_power(0.25, (2, 2), 10_000) > 0.999
    # No answers see nothing beyond the test's own false alarms.
    assert association_power(0.25, (2, 2), 0) == pytest.approx(0.05)


def test_the_approximation_matches_pearsons_test_simulated_on_a_larger_table():
    # The app's statistic (Pearson's, against unrelated answers with each class's own
    # estimated margins), simulated (seeded) for a 2x3 pair at p = 0.2 and compared with the
    # chi-square's 5% critical value of 2 degrees of freedom: 4,000 classes give a rejection
    # rate with a standard error of at most 0.008; 0.03 is over three of them plus the
    # approximation's own small error.
    shape, p, n, classes = (2, 3), 0.2, 300, 4000
    keep, other = JointRandomizedResponse(p, shape).probabilities
    reports = (other + (keep - other) * related_table(shape)).ravel()
    drawn = np.random.default_rng(20261127).multinomial(n, reports, size=classes)
    statistic = _pearson(drawn.reshape(classes, *shape).astype(np.float64), keep, other)
    critical = 5.991464547107979  # chi-square with 2 degrees of freedom, upper 5%
    simulated = float(np.mean(statistic > critical))
    assert association_power(p, shape, n) == pytest.approx(simulated, abs=0.03)
