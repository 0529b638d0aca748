"""The lesson's figures: formulas in MathML (with a text alternative) and the geometry of its
SVG charts, placed from numbers survey_app.privacy.lesson computed (no math here beyond
placing them on a drawing)."""

from __future__ import annotations

from decimal import Decimal

from flask_babel import gettext, lazy_gettext
from markupsafe import Markup, escape

from survey_app.lesson.words import (
    options_chart_title,
    points_words,
    range_words,
    ranges_chart_title,
)
from survey_app.privacy import lesson
from survey_app.results import rounding
from survey_app.words import format_number, percent, percent_high, percent_low

#: Decimals of the figures written into formulas.
FORMULA_PLACES = 3

# --------------------------------------------------------------------------- MathML


def mn(value: float | int | str, places: int = FORMULA_PLACES) -> str:
    text = value if isinstance(value, str) else format_number(float(value), places)
    return f"<mn>{escape(text.replace('-', '−'))}</mn>"


def mi(name: str) -> str:
    return f"<mi>{escape(name)}</mi>"


def mo(operator: str) -> str:
    return f"<mo>{escape(operator)}</mo>"


def frac(numerator: str, denominator: str) -> str:
    return f"<mfrac><mrow>{numerator}</mrow><mrow>{denominator}</mrow></mfrac>"


def paren(body: str) -> str:
    # Parentheses of text height: in an mrow of their own and not stretched to the formula.
    return f'<mrow><mo stretchy="false">(</mo>{body}<mo stretchy="false">)</mo></mrow>'


def sqrt(body: str) -> str:
    return f"<msqrt>{body}</msqrt>"


def mrow(*parts: str) -> str:
    """MathML pieces, one after another."""
    return "".join(parts)


def minus(first: str, second: str) -> str:
    return first + mo("−") + second


def times(first: str, second: str) -> str:
    return first + mo("×") + second


#: 1 − 2p, as it stands in the formulas.
ONE_MINUS_TWO_P = minus(mn("1"), mn("2") + mi("p"))


def formula(body: str, alternative: str, name: str) -> Markup:
    """A block formula with its text alternative (read aloud, shown where MathML is not), in
    a box named ``name`` that scrolls sideways on a narrow screen (reachable with the keyboard)."""
    alt = escape(alternative)
    return Markup(
        f'<div class="lesson-formula" role="region" tabindex="0" aria-label="{escape(name)}">'
        f'<math display="block" alttext="{alt}" aria-label="{alt}"><mrow>{body}</mrow></math>'
        "</div>"
    )


def number(value: float, places: int = FORMULA_PLACES) -> str:
    """A figure as a formula writes it, in the page's language ("0.25"; "0,25" in German and
    French): the digits of :func:`written`."""
    return format_number(value, places)


def written(value: float, places: int = FORMULA_PLACES) -> float:
    """The value :func:`number` writes, as the reader's arithmetic takes it: the same digits in
    every language, so that a formula adds up in each."""
    return float(Decimal(rounding.text(rounding.nearest(value, 10.0**-places), places)))


def share_written(share: float) -> float:
    """A share as the lesson's formulas take it: the digits of its percentage, which every
    step shows (58.3% is 0.583), so a figure has one value on every step."""
    return float(Decimal(rounding.text(rounding.nearest(share * 100, 0.1), 1)) / 100)


def written_share(share: float) -> str:
    """A share as the lesson's formulas write it (:func:`share_written`)."""
    return number(share_written(share), 6)


def written_points(half_width: float) -> str:
    """A half-width a formula wrote as a share (0.707, :func:`written` to its decimals) in
    percentage points, the same digits ('70.7 percentage points')."""
    points = float(Decimal(repr(written(half_width))) * 100)
    return points_words(number(points, 6), points)


def signed(figure: str) -> str:
    """A figure below zero with a true minus sign, as the chart's axis writes it."""
    return figure.replace("-", "−")


def msub(base: str, subscript: str) -> str:
    return f"<msub>{mi(base)}{mtext(subscript)}</msub>"


def mtext(words: str) -> str:
    return f"<mtext>{escape(words)}</mtext>"


# --------------------------------------------------------------------------- charts

#: The one-axis charts are drawn in these units (wide: the projector shows them large).
CHART_WIDTH = 640
AXIS_LEFT = 24
AXIS_WIDTH = 592
#: Where the charts' axis line and labels sit (the templates draw them there).
AXIS = {"axis_left": AXIS_LEFT, "axis_right": AXIS_LEFT + AXIS_WIDTH}
RANGE_ROW = 50
#: The heights of the bands of step 4's charts: a range; an option's exact and live ranges.
RANGE_BAND = 14
EXACT_BAND, LIVE_BAND = 12, 6
#: Step 4's rows: (key, label, the Sureness attribute holding the range).
RANGE_ROWS = (
    ("notes", lazy_gettext("The notes’ bound (worst-case variance 1/4)"), "notes_range"),
    ("chebyshev", lazy_gettext("Chebyshev’s bound with the exact variance"), "chebyshev_range"),
    ("exact", lazy_gettext("Exact range (the dashboard’s, once closed)"), "exact_range"),
    ("live", lazy_gettext("Live range (the dashboard’s, while open)"), "live_range"),
)


def _x(value: float, low: float = 0.0, high: float = 1.0) -> float:
    """Where a value sits on an axis from ``low`` to ``high``, in chart units."""
    clipped = min(high, max(low, value))
    return round(AXIS_LEFT + AXIS_WIDTH * (clipped - low) / (high - low), 2)


#: The steps between a share axis's ticks, the first that leaves at most six ticks.
SHARE_TICK_STEPS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5)
#: The same for an axis in a number question's unit: 1, 2, 2.5 and 5 times a power of ten.
UNIT_TICK_STEPS = tuple(
    factor * 10.0**power for power in range(-3, 9) for factor in (1.0, 2.0, 2.5, 5.0)
)


def _ticks(low: float, high: float, y: float, label=None, steps=SHARE_TICK_STEPS) -> list[dict]:
    """Axis ticks at a round step (at most about six of them), labelled in percent (or by
    ``label``)."""
    span = high - low
    step = next(s for s in steps if span / s <= 6)
    first = rounding.up(low, step)
    ticks, value = [], first
    while value <= high + 1e-9:
        text = (label or percent)(value)
        ticks.append({"x": _x(value, low, high), "y": y, "label": text.replace("-", "−")})
        value = round(value + step, 10)
    return ticks


def range_chart(sure: lesson.Sureness) -> dict:
    """Step 4's drawing: each range as a band on one axis from 0% to 100%, the estimate as a
    line across them all."""
    rows = []
    for index, (key, label, attribute) in enumerate(RANGE_ROWS):
        low, high = getattr(sure, attribute)
        y = 8 + RANGE_ROW * index
        rows.append(
            {
                "key": key,
                "label": str(label),
                "words": range_words(percent_low(low), percent_high(high)),
                "x": _x(low),
                "width": round(_x(high) - _x(low), 2),
                "text_y": y + 16,
                "bar_y": y + 24,
            }
        )
    height = 8 + RANGE_ROW * len(rows) + 28
    estimate = min(1.0, max(0.0, sure.estimate))
    return {
        "width": CHART_WIDTH,
        "height": height,
        **AXIS,
        "band_height": RANGE_BAND,
        "rows": rows,
        "title": ranges_chart_title(rows, percent(sure.estimate)),
        "estimate_x": _x(estimate),
        "estimate_words": percent(sure.estimate),
        "axis_y": height - 26,
        "ticks": _ticks(0.0, 1.0, height - 6),
    }


def rerun_chart(reruns, actual: float, label=None) -> dict:
    """Step 5's histogram: a bar per group of noisy counts (or of averages, for a number:
    ``label`` then words its axis), the class's estimate marked."""
    edges, counts = reruns.edges, reruns.counts
    if label is None:  # shares: the axis reaches 0% when the bars come near it
        low = min(float(edges[0]), actual, 0.0 if edges[0] < 0.1 else float(edges[0]))
    else:
        low = min(float(edges[0]), actual)
    high = max(float(edges[-1]), actual)
    pad = (high - low) * 0.04
    low, high = low - pad, high + pad
    plot_top, plot_height = 10, 190
    tallest = max(int(counts.max()), 1)
    bars = []
    for index, count in enumerate(counts):
        x1, x2 = _x(float(edges[index]), low, high), _x(float(edges[index + 1]), low, high)
        bar_height = round(plot_height * int(count) / tallest, 2)
        bars.append(
            {
                "x": x1,
                "width": max(0.5, round(x2 - x1 - 1, 2)),
                "y": round(plot_top + plot_height - bar_height, 2),
                "height": bar_height,
            }
        )
    axis_y = plot_top + plot_height
    return {
        "width": CHART_WIDTH,
        "height": axis_y + 32,
        **AXIS,
        "bars": bars,
        "axis_y": axis_y,
        "actual_x": _x(actual, low, high),
        "ticks": _ticks(
            low, high, axis_y + 26, label, SHARE_TICK_STEPS if label is None else UNIT_TICK_STEPS
        ),
    }


def options_chart(shown: list[tuple[str, lesson.Sureness]]) -> dict:
    """Step 4 for a choice: a row per option on one axis from 0% to 100%, its exact range as
    a band, its live range as a thinner band under it, its estimate as a short line."""
    rows = []
    for index, (label, sure) in enumerate(shown):
        y = 8 + RANGE_ROW * index
        exact, live = sure.exact_range, sure.live_range
        estimate = _x(min(1.0, max(0.0, sure.estimate)))
        rows.append(
            {
                "label": label,
                "words": range_words(percent_low(exact[0]), percent_high(exact[1])),
                "x": _x(exact[0]),
                "width": round(_x(exact[1]) - _x(exact[0]), 2),
                "live_x": _x(live[0]),
                "live_width": round(_x(live[1]) - _x(live[0]), 2),
                "estimate_x": estimate,
                "text_y": y + 16,
                "bar_y": y + 22,
                "live_y": y + 36,
                "mark_top": y + 19,
                "mark_bottom": y + 42,
            }
        )
    height = 8 + RANGE_ROW * len(rows) + 28
    return {
        "width": CHART_WIDTH,
        "height": height,
        **AXIS,
        "exact_height": EXACT_BAND,
        "live_height": LIVE_BAND,
        "rows": rows,
        "title": options_chart_title(rows),
        "axis_y": height - 26,
        "ticks": _ticks(0.0, 1.0, height - 6),
    }


# --------------------------------------------------------------------------- the notes' formulas


def theorem_5(n: int, p: str, delta: str, half_width: str) -> str:
    """``h = sqrt(1/delta) / (2 (1 - 2p) sqrt(n))``, then with the numbers."""
    general = frac(sqrt(frac(mn("1"), mi("δ"))), mn("2") + paren(ONE_MINUS_TWO_P) + sqrt(mi("n")))
    numbers = frac(
        sqrt(frac(mn("1"), mn(delta, 6))),
        times(mn("2"), paren(minus(mn("1"), times(mn("2"), mn(p, 6))))) + sqrt(mn(str(n))),
    )
    return mrow(mi("h"), mo("="), general, mo("="), numbers, mo("="), mn(half_width))


def theorem_5_options(n: int, keep: str, other: str, delta: str, half_width: str) -> str:
    """``h = sqrt(1/delta) / (2 (P - Q) sqrt(n))``, then with the numbers."""
    gap = paren(minus(mi("P"), mi("Q")))
    general = frac(sqrt(frac(mn("1"), mi("δ"))), mn("2") + gap + sqrt(mi("n")))
    numbers = frac(
        sqrt(frac(mn("1"), mn(delta, 6))),
        times(mn("2"), paren(minus(mn(keep), mn(other)))) + sqrt(mn(str(n))),
    )
    return mrow(mi("h"), mo("="), general, mo("="), numbers, mo("="), mn(half_width))


def bayes_formula(
    label: str, options: int, b: str, keep: str, other: str, others: str, result: str
) -> str:
    """``P(truly Yes | sent Yes) = b(1 - p) / (b(1 - p) + (1 - b)p)`` (``b P / (b P + (1 - b)
    Q)`` for an answer of k), then with the numbers as written."""
    if options == 2:
        kept_by, flipped_by = paren(minus(mn("1"), mi("p"))), mi("p")
    else:
        kept_by, flipped_by = mi("P"), mi("Q")
    kept = mi("b") + kept_by
    flipped = paren(minus(mn("1"), mi("b"))) + flipped_by
    truly, sent = gettext("truly %(label)s", label=label), gettext("sent %(label)s", label=label)
    given = mi("P") + paren(mtext(truly) + mo("|") + mtext(sent))
    kept_numbers = times(mn(b, 9), mn(keep, 9))
    flipped_numbers = times(mn(others, 9), mn(other, 9))
    return mrow(
        given,
        mo("="),
        frac(kept, kept + mo("+") + flipped),
        mo("="),
        frac(kept_numbers, kept_numbers + mo("+") + flipped_numbers),
        mo("="),
        mn(result, 9),
    )


def number_chebyshev(n: int, variance: str, delta: str, bias: str | None, half_width: str) -> str:
    """``h = sqrt(V / (delta n))`` (``+ b``, a mechanism's bias bound), then with the numbers."""
    general = sqrt(frac(mi("V"), mi("δ") + mi("n")))
    numbers = sqrt(frac(mn(variance, 9), times(mn(delta, 6), mn(str(n)))))
    if bias is not None:
        general += mo("+") + mi("b")
        numbers += mo("+") + mn(bias, 9)
    return mrow(mi("h"), mo("="), general, mo("="), numbers, mo("="), mn(half_width, 9))
