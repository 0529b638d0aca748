"""What asking two questions together keeps of their association (survey_app.privacy.
lesson_pairs), against asking them separately at the same total epsilon: the figures of an
independent simulation, cases worked by hand, and the meaning of "kept" checked on the law of
the reports themselves."""

from __future__ import annotations

import math

import numpy as np
import pytest

from survey_app.privacy.lesson_pairs import students_needed, together

#: The flip probability whose epsilon is 2: e^eps = (1 - p) / p.
EPSILON_2 = 1.0 / (1.0 + math.exp(2.0))


def test_at_epsilon_2_a_two_by_two_keeps_62_percent_together_and_21_separately():
    """The issue's figures, from an independent simulation, within its last digit (a point):
    exactly 61.5% (P - Q = 0.6150) and 21.4% (tanh(1/2)^2 = 0.2136)."""
    figures = together(EPSILON_2, (2, 2))
    assert figures.epsilon == pytest.approx(2.0)
    assert figures.kept == pytest.approx(0.62, abs=0.01)
    assert figures.kept == pytest.approx((math.e**2 - 1) / (math.e**2 + 3))
    assert figures.separate_kept == pytest.approx(0.21, abs=0.01)
    assert figures.separate_kept == pytest.approx(math.tanh(0.5) ** 2)
    assert figures.half_epsilon == pytest.approx(1.0)


def test_at_epsilon_2_the_students_needed_are_the_simulations():
    """About 230 together and 1,900 separately for phi = 0.3 seen 80% of the time at 5%; the
    ratio about 8 (the square of 62% / 21%)."""
    figures = together(EPSILON_2, (2, 2))
    assert students_needed(figures.kept) == 231
    assert students_needed(figures.separate_kept) == 1913
    assert figures.students_ratio == pytest.approx(8.29, abs=0.01)


def test_at_p_one_tenth_by_hand():
    """p = 0.1: e^eps = 9. Together over 4 cells P = 9/12, Q = 1/12, P - Q = 2/3; separately
    e^(eps/2) = 3, p' = 1/4, 1 - 2p' = 1/2, kept 1/4; (2/3 / 1/4)^2 = 64/9 times the students.
    A 3x2 pair: 6 cells P = 9/14, Q = 1/14, 4/7; separately (3/5 - 1/5) (3/4 - 1/4) = 1/5."""
    pair = together(0.1, (2, 2))
    assert (pair.keep_probability, pair.other_probability) == pytest.approx((0.75, 1 / 12))
    assert pair.kept == pytest.approx(2 / 3)
    assert pair.separate_flip_probability == pytest.approx(0.25)
    assert pair.separate_kept == pytest.approx(0.25)
    assert pair.students_ratio == pytest.approx(64 / 9)
    # phi 0.3 at 2/3: (1.95996 + 0.84162)^2 / 0.04 = 196.3, rounded up.
    assert students_needed(pair.kept) == 197
    wider = together(0.1, (3, 2))
    assert wider.kept == pytest.approx(4 / 7)
    assert wider.separate_gaps == pytest.approx((0.4, 0.5))
    assert wider.separate_kept == pytest.approx(0.2)
    # Two degrees of freedom: the test has 80% power at 5% at noncentrality 9.6347 (tables of
    # the noncentral chi-square), 9.6347 / (4/7 x 0.3)^2 = 327.8.
    assert students_needed(wider.kept, shape=(3, 2)) == 328


def reports_phi(table: np.ndarray) -> float:
    """Pearson's phi of a 2x2 table of probabilities."""
    rows, columns = table.sum(axis=1), table.sum(axis=0)
    determinant = table[0, 0] * table[1, 1] - table[0, 1] * table[1, 0]
    return determinant / math.sqrt(rows.prod() * columns.prod())


def grr(keep: float, other: float, options: int) -> np.ndarray:
    """The law of a report given the answer: keep with ``keep``, each other with ``other``."""
    return np.full((options, options), other) + (keep - other) * np.eye(options)


@pytest.mark.parametrize("p", [0.1, 0.25, EPSILON_2, 0.4])
@pytest.mark.parametrize("phi", [0.1, 0.3, 0.8])
def test_kept_is_the_reports_phi_over_the_classs(p, phi):
    """The law of the reports of a class split evenly with relation phi, worked out from the
    mechanisms' own probabilities (not the module's formulas): its phi over phi is what the
    module says each way keeps."""
    truth = np.array([[1 + phi, 1 - phi], [1 - phi, 1 + phi]]) / 4
    figures = together(p, (2, 2))
    cell = grr(figures.keep_probability, figures.other_probability, 4)
    joint = (truth.reshape(4) @ cell).reshape(2, 2)
    assert reports_phi(joint) / phi == pytest.approx(figures.kept)
    half = figures.separate_flip_probability
    each = grr(1 - half, half, 2)
    separate = each.T @ truth @ each
    assert reports_phi(separate) / phi == pytest.approx(figures.separate_kept)


@pytest.mark.parametrize(
    ("kept", "relation", "power", "level"),
    [(0.0, 0.3, 0.8, 0.05), (0.5, 0.0, 0.8, 0.05), (0.5, 0.3, 1.0, 0.05), (0.5, 0.3, 0.8, 0.0)],
)
def test_students_needed_refuses_what_cannot_be_planned(kept, relation, power, level):
    with pytest.raises(ValueError):
        students_needed(kept, relation, power, level)


def test_the_app_loads_no_scipy_stats_in_a_worker():
    """scipy.stats (and scipy.optimize) would add some 45 MB to every worker: the app's math,
    the lesson's pairs included, takes what it needs from scipy.special."""
    import subprocess
    import sys

    from tests.conftest import TEST_SECRET_KEY

    script = (
        "import sys\n"
        "from survey_app import create_app\n"
        f"create_app({{'TESTING': True, 'SECRET_KEY': {TEST_SECRET_KEY!r}, "
        "'SQLALCHEMY_DATABASE_URI': 'sqlite://'})\n"
        "print(sorted(m for m in ('scipy.stats', 'scipy.optimize') if m in sys.modules))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"
