"""Every mechanism implements privacy.Mechanism, and the interface says what each one's own
functions say: callers that hold a Mechanism get the same figures as before, whatever its kind.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from survey_app import privacy
from survey_app.privacy.live import estimate_mean_with_live_range
from survey_app.privacy.numeric_grid import value_of_grid_index

LN3 = math.log(3)
MECHANISMS = [
    privacy.RandomizedResponse(0.25),
    privacy.RandomizedResponse(0.25, 4),
    *(privacy.numeric_mechanism(0.0, 40.0, LN3, name) for name in privacy.NUMERIC_MECHANISMS),
]


def ids(mechanism) -> str:
    return f"{mechanism.name}-{getattr(mechanism, 'options', '')}"


def some_counts(mechanism, rng) -> dict[int, int]:
    """Counts of 30 reports a browser could send, by report."""
    low, high = mechanism.report_range
    reports = rng.integers(low, high + 1, size=30)
    values, counts = np.unique(reports, return_counts=True)
    return dict(zip(values.tolist(), counts.tolist(), strict=True))


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=ids)
def test_every_mechanism_implements_the_interface(mechanism):
    assert isinstance(mechanism, privacy.Mechanism)
    rng = np.random.default_rng(7)
    told = mechanism.tell(some_counts(mechanism, rng), 0.9)
    assert told.n == 30
    assert told.summary in ("shares", "average")
    rows = list(told.rows())
    assert rows and all(isinstance(row, privacy.Row) for row in rows)
    assert 0 < mechanism.half_width(40, 0.9) < mechanism.half_width(10, 0.9)
    # The answers a margin needs reach it.
    margin = 0.25 if told.summary == "shares" else 10.0
    assert mechanism.half_width(mechanism.respondents_for(margin, 0.9), 0.9) <= margin


#: Counts can come as a list only where reports start at 0 (a list's index is the report);
#: Laplace's reports go below 0 and always come by report.
COUNTED_BY_LIST = [mechanism for mechanism in MECHANISMS if mechanism.report_range[0] >= 0]


@pytest.mark.parametrize("mechanism", COUNTED_BY_LIST, ids=ids)
def test_counts_by_list_or_by_report_tell_the_same(mechanism):
    _, high = mechanism.report_range
    by_report = some_counts(mechanism, np.random.default_rng(11))
    as_list = [by_report.get(value, 0) for value in range(high + 1)]
    assert mechanism.tell(as_list) == mechanism.tell(by_report)


@pytest.mark.parametrize("options", [2, 3, 5])
def test_shares_are_the_mechanisms_estimates(options):
    mechanism = privacy.RandomizedResponse(0.3, options)
    counts = [12, 1, 0, 0, 3][:options]
    told = mechanism.tell(counts, 0.95)
    assert list(told.estimates) == mechanism.estimate(counts, 0.95)
    assert math.isclose(sum(estimate.estimate for estimate in told.estimates), 1.0)
    for row, estimate in zip(told.rows(), told.estimates, strict=True):
        assert row.estimate == estimate.estimate and row.noisy_count == estimate.noisy_count
        assert row.exact == (estimate.exact_low, estimate.exact_high)
        assert row.chebyshev == (estimate.ci_low, estimate.ci_high)
        assert row.simultaneous == (estimate.simultaneous_low, estimate.simultaneous_high)
        assert row.live == (estimate.live_low, estimate.live_high)
        assert row.bernstein is None
    assert mechanism.half_width(40) == mechanism.planned_half_width(40)
    assert mechanism.report_range == (0, options - 1)


def test_no_answers_tell_no_shares():
    told = privacy.RandomizedResponse(0.25, 3).tell([0, 0, 0])
    assert told.n == 0 and [e.headline() for e in told.estimates] == [None, None, None]
    assert told.consistent_with_randomization


@pytest.mark.parametrize("name", list(privacy.NUMERIC_MECHANISMS))
def test_an_average_is_the_mechanisms_mean_with_its_live_range(name):
    mechanism = privacy.numeric_mechanism(0.0, 10.0, 1.0, name)
    counts = some_counts(mechanism, np.random.default_rng(5))
    told = mechanism.tell(counts, 0.9)
    values = sorted(counts)
    reports = np.repeat(np.array(values), [counts[v] for v in values])
    assert told.estimate == estimate_mean_with_live_range(mechanism, reports, 0.9)
    assert (told.histogram is None) == (not mechanism.shows_spread)
    assert told.estimates == ()
    average, *bars = told.rows()
    estimate = told.estimate
    assert average.value is None and average.estimate == estimate.mean
    assert average.simultaneous is None
    if not estimate.consistent_with_randomization:
        # Counts drawn at random over the reports can average far outside the bounds (the
        # Laplace mechanism's here): clipped, a range would shrink to one end, and the spread
        # pile there; neither is given.
        assert (average.exact, average.chebyshev, average.bernstein, average.live) == (None,) * 4
        assert bars == []
    else:
        assert average.exact == (estimate.ci_low, estimate.ci_high)
        assert average.live == (estimate.live_low, estimate.live_high)
        # Chebyshev's and Bernstein's ranges: mean -/+ their half-width, clipped to the bounds.
        low, high = average.chebyshev
        half_width = estimate.chebyshev_half_width
        assert low == max(0.0, min(10.0, estimate.mean - half_width))
        assert high == min(10.0, max(0.0, estimate.mean + half_width))
        shares = () if told.histogram is None else told.histogram.shares
        assert [bar.estimate for bar in bars] == list(shares)
        assert all(bar.held is not None for bar in bars)
    # One report's value is its unbiased estimate, in the question's unit.
    report = mechanism.report_range[1]
    expected = value_of_grid_index(mechanism.estimate_of_output([report])[0], 0.0, 10.0)
    assert mechanism.report_value(report) == pytest.approx(float(expected))
    assert mechanism.report_range == mechanism.output_range


def test_a_count_for_an_option_a_question_lacks_is_refused():
    with pytest.raises(ValueError, match="noisy_counts has no option 3"):
        privacy.RandomizedResponse(0.25, 3).tell({0: 1, 3: 2})


def test_results_and_exports_never_ask_whether_a_question_is_numeric():
    """They hold the interface (what counts tell, its summary and rows), not a question's kind:
    models.Question.mechanism is the one place that picks a mechanism by kind."""
    from pathlib import Path

    package = Path(privacy.__file__).resolve().parents[1]
    for module in ("results/tables.py", "results/exports.py"):
        source = (package / module).read_text(encoding="utf-8")
        assert "is_numeric" not in source, module
        assert "QuestionKind.NUMERIC" not in source, module
