"""A paired question's test of no association, measured: level, power, the difference's range,
and what ``tell`` costs at a million answers.

Run it from the source tree as ``python -m benchmarks.joint_association`` (``--help`` lists the
options); it writes docs/joint-association.md, which it overwrites. It takes some two CPU
minutes at the default 2,000 classes a setting. tests/statistical/test_joint_association.py runs
a small slice of it in the suite.

Classes are drawn as the issue's targets say: each class's answers independently from a true
table (the product of the two margins under "no association"), randomized as the browser does,
so its n reports are multinomial with ``Q + (P - Q) pi``; each class's p-value is
:func:`~survey_app.privacy.joint.independence_p_value` (a seeded parametric bootstrap), and a
plain Pearson test of the reports is measured on the same classes for comparison.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from survey_app.privacy import JointRandomizedResponse, flip_probability_from_epsilon
from survey_app.privacy.joint import BOOTSTRAP_REPLICATES, independence_p_value

OUTPUT = Path(__file__).resolve().parent.parent / "docs" / "joint-association.md"
EPSILONS = (("ln 3", math.log(3)), ("2", 2.0))
MARGINS = ((0.5, 0.5), (0.2, 0.3), (0.1, 0.9))
SIZES = (60, 100, 200)
LEVEL = 0.05
CHI_SQUARE_1_95 = 3.841458820694124


def unrelated(first_yes: float, second_yes: float) -> np.ndarray:
    return np.outer([1 - first_yes, first_yes], [1 - second_yes, second_yes])


def related(phi: float) -> np.ndarray:
    """The 2x2 table with even margins and correlation phi."""
    return unrelated(0.5, 0.5) + phi * 0.25 * np.array([[1, -1], [-1, 1]])


def draw(epsilon: float, table: np.ndarray, n: int, classes: int, rng):
    """Classes' tables of reports (by cell), and the mechanism's (P, Q)."""
    mechanism = JointRandomizedResponse(flip_probability_from_epsilon(epsilon), table.shape)
    keep, other = mechanism.probabilities
    reports = other + (keep - other) * table.ravel()
    return rng.multinomial(n, reports / reports.sum(), size=classes), keep, other


def bootstrap_rejects(tables: np.ndarray, shape, keep: float, other: float) -> float:
    p_values = [independence_p_value(tuple(t.tolist()), shape, keep, other) for t in tables]
    return float(np.mean(np.array(p_values) <= LEVEL))


def plain_rejects(tables: np.ndarray) -> float:
    """Pearson's test of independence on the 2x2 reports themselves (invalid: for contrast)."""
    tables = tables.reshape(-1, 2, 2).astype(float)
    expected = (
        tables.sum(axis=2)[:, :, None]
        * tables.sum(axis=1)[:, None, :]
        / tables.sum(axis=(1, 2))[:, None, None]
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.nansum((tables - expected) ** 2 / expected, axis=(1, 2))
    return float(np.mean(statistic > CHI_SQUARE_1_95))


def standard_error(rate: float, classes: int) -> float:
    return math.sqrt(max(rate * (1 - rate), LEVEL * (1 - LEVEL)) / classes)


def level_sweep(classes: int, rng) -> list[tuple]:
    rows = []
    for name, epsilon in EPSILONS:
        for first, second in MARGINS:
            for n in SIZES:
                tables, keep, other = draw(epsilon, unrelated(first, second), n, classes, rng)
                rows.append(
                    (name, f"{first} / {second}", n, bootstrap_rejects(tables, (2, 2), keep, other))
                    + (plain_rejects(tables),)
                )
                print(f"level eps {name} margins {first}/{second} n {n}: {rows[-1][3]:.3f}")
    return rows


def power_sweep(classes: int, rng) -> list[tuple]:
    rows = []
    for n in (60, 100, 200, 300):
        tables, keep, other = draw(2.0, related(0.3), n, classes, rng)
        rows.append((n, bootstrap_rejects(tables, (2, 2), keep, other), plain_rejects(tables)))
        print(f"power n {n}: {rows[-1][1]:.3f}")
    return rows


def difference_sweep(classes: int, rng) -> list[tuple]:
    """Respondents fixed (a true table of 100 people), reports drawn again and again."""
    rows = []
    for name, epsilon in EPSILONS:
        mechanism = JointRandomizedResponse(flip_probability_from_epsilon(epsilon), (2, 2))
        keep, other = mechanism.probabilities
        transition = np.full((4, 4), other) + (keep - other) * np.eye(4)
        for truth in ((30, 20, 10, 40), (45, 45, 5, 5), (10, 10, 70, 10)):
            reports = sum(
                rng.multinomial(t, transition[cell], size=classes) for cell, t in enumerate(truth)
            )
            own = truth[3] / (truth[2] + truth[3]) - truth[1] / (truth[0] + truth[1])
            held, widths = 0, []
            for counts in reports:
                association = mechanism.tell(counts.tolist()).association
                low, high = association.difference_low, association.difference_high
                held += low is not None and low - 1e-12 <= own <= high + 1e-12
                widths.append(2.0 if low is None else high - low)
            rows.append((name, truth, own, held / classes, statistics.mean(widths)))
            print(f"difference eps {name} {truth}: {held / classes:.3f}")
    return rows


def timings(rng) -> dict[str, float]:
    """CPU milliseconds (``time.process_time``) of a 3x4 table's ``tell`` at 1,000,000."""
    mechanism = JointRandomizedResponse(0.25, (3, 4))
    keep, other = mechanism.probabilities
    first_looks, again, association = [], [], []
    for _ in range(5):
        counts = rng.multinomial(1_000_000, np.ones(12) / 12).tolist()
        start = time.process_time()
        mechanism.tell(counts)
        first_looks.append(time.process_time() - start)
        for _ in range(5):
            start = time.process_time()
            mechanism.tell(counts)
            again.append(time.process_time() - start)
        fresh = rng.multinomial(1_000_000, np.ones(12) / 12).tolist()
        start = time.process_time()
        independence_p_value(tuple(fresh), (3, 4), keep, other)
        association.append(time.process_time() - start)
    return {
        "first look (new counts)": 1000 * statistics.median(first_looks),
        "same counts again": 1000 * statistics.median(again),
        "the association's bootstrap alone (new counts)": 1000 * statistics.median(association),
    }


def page(args, levels, powers, differences, costs, minutes: float) -> str:
    worst = max(row[3] for row in levels)
    lines = [
        "# A paired question's test of no association, measured",
        "",
        "Written by `python -m benchmarks.joint_association` (from the source tree); run it again "
        "to refresh this page, which it overwrites.",
        "",
        f"Run: `python -m benchmarks.joint_association --classes {args.classes} --seed "
        f"{args.seed}`, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {minutes:.1f} minutes, "
        f"Python {platform.python_version()}, {platform.machine()}.",
        "",
        "## Method",
        "",
        "- Each class's answers are drawn independently from a true 2x2 table (under no "
        "association, the product of the two questions' shares of yes), randomized as the "
        "browser does (k-option randomized response over the 4 cells, the browser's integer "
        "thresholds), so its n reports are multinomial with `Q + (P - Q) pi`.",
        f"- The p-value is `survey_app.privacy.joint.independence_p_value`: a parametric bootstrap "
        f"of {BOOTSTRAP_REPLICATES:,} classes under no association at the estimated shares, seeded "
        "from the counts. A class rejects when its p-value is at most 5%.",
        "- For contrast, a plain Pearson test of independence on the reports (chi-square, 1 "
        "degree of freedom) on the same classes: it is not valid, and the app does not use it.",
        f"- {args.classes:,} seeded classes a setting: a rate near 5% has a standard error of "
        f"{100 * standard_error(LEVEL, args.classes):.2f} points.",
        "",
        "## Level at 5% under no association",
        "",
        f"Worst setting: {100 * worst:.1f}%. The level is approximate (measured here, not proven).",
        "",
        "| epsilon | shares of yes (Q1 / Q2) | n | bootstrap rejects | plain test on reports |",
        "| --- | --- | --- | --- | --- |",
    ]
    lines += [f"| {e} | {m} | {n} | {100 * b:.1f}% | {100 * p:.1f}% |" for e, m, n, b, p in levels]
    lines += [
        "",
        "## Power: epsilon 2, shares 0.5 / 0.5, phi = 0.3",
        "",
        "Target: at least 0.35 at n = 100.",
        "",
        "| n | bootstrap | plain test on reports (invalid) |",
        "| --- | --- | --- |",
    ]
    lines += [f"| {n} | {b:.3f} | {p:.3f} |" for n, b, p in powers]
    lines += [
        "",
        "## The difference's range (2x2): P(Q2 yes | Q1 yes) - P(Q2 yes | Q1 no)",
        "",
        "Guaranteed at 95%: respondents fixed (100 people), their reports drawn again for each "
        "class; the share of classes whose range holds the class's own difference, and the "
        "range's mean width.",
        "",
        "| epsilon | true table (no-no, no-yes, yes-no, yes-yes) | difference | held "
        "| mean width |",
        "| --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {e} | {', '.join(map(str, t))} | {d:+.2f} | {100 * h:.1f}% | {w:.2f} |"
        for e, t, d, h, w in differences
    ]
    lines += [
        "",
        "## Cost of `tell` for a 3x4 table at 1,000,000 answers (p = 0.25)",
        "",
        "CPU time (`time.process_time`), median of 5 new tables (first look) or 25 repeats:",
        "",
        "| what | CPU ms |",
        "| --- | --- |",
    ]
    lines += [f"| {name} | {value:.1f} |" for name, value in costs.items()]
    lines += [
        "",
        "A first look at new counts is mostly the cells' simultaneous ranges, as for a choice "
        "question of 12 options (at 1 - 0.05 / 12 the Berry-Esseen bound is too loose at this n, "
        "so they come from the exact law); they are cached, so the same counts again cost little.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, default=2000, help="classes a setting")
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    start = time.monotonic()
    levels = level_sweep(args.classes, rng)
    powers = power_sweep(args.classes, rng)
    differences = difference_sweep(min(args.classes, 1000), rng)
    costs = timings(rng)
    minutes = (time.monotonic() - start) / 60
    args.output.write_text(page(args, levels, powers, differences, costs, minutes), "utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
