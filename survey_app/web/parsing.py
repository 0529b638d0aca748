"""What a query string names, read one way everywhere: the confidence asked for and a list of
surveys. No blueprint owns this module: the API answers a :class:`QueryError` with a 400 and its
words; the dashboard says the same words on the page and shows the rest with the default.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from survey_app.results.tables import DEFAULT_CONFIDENCE


class QueryError(ValueError):
    """A query parameter that cannot be read; its message names the parameter and why."""


def parse_confidence(raw: str | None, offered: Sequence[float] | None = None) -> float:
    """The ``confidence`` parameter: a number in (0, 1), the default when absent.

    ``offered``: the levels a page offers (the dashboard's 90, 95 and 99 percent); any other
    is refused there, as the API refuses a number outside (0, 1).
    """
    if raw is None:
        return DEFAULT_CONFIDENCE
    try:
        confidence = float(raw)
    except ValueError:
        confidence = float("nan")
    if not 0.0 < confidence < 1.0:
        raise QueryError(f"confidence must be a number in (0, 1), got {raw!r}")
    if offered is not None and confidence not in offered:
        levels = ", ".join(f"{level:g}" for level in offered)
        raise QueryError(f"confidence must be one of {levels} here, got {raw!r}")
    return confidence


def parse_survey_list(
    values: Iterable[str], parameter: str = "surveys", required: bool = True
) -> list[str]:
    """Survey slugs named by ``parameter``: separated by commas ("a,b", as links write them)
    or repeated (a=..&a=.., as a form's checkboxes send them), each once, in order.

    ``required``: at least one (the API's pooled results); else none names none (a dashboard
    that pools nothing)."""
    slugs = [slug.strip() for value in values for slug in value.split(",")]
    if not all(slugs) or (required and not slugs):
        raise QueryError(
            f"{parameter} must name your surveys, separated by commas: ?{parameter}=slug1,slug2"
        )
    if len(set(slugs)) != len(slugs):
        raise QueryError(f"{parameter} names a survey more than once")
    return slugs
