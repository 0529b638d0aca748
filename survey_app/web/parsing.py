"""What a query string names, read one way everywhere: the confidence asked for, a list of
surveys and a whole number (a step, a question). No blueprint owns this module: a
:class:`QueryError` is answered with a 400 and its words (survey_app.web.errors: JSON for the API,
an error page for people); the dashboard says the same words on the page and shows the rest
with the default.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from survey_app.results.tables import DEFAULT_CONFIDENCE
from survey_app.surveys.typed_numbers import whole_number


class QueryError(ValueError):
    """A query parameter that cannot be read; its message names the parameter and why, in
    English (the API's words), and ``reason`` names the refusal for a page that says it in its
    own language."""

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason


def _shown(raw: str) -> str:
    """What was sent, short enough to quote back (a value may be thousands of characters)."""
    return raw if len(raw) <= 20 else raw[:20] + "…"


def parse_whole_number(raw: str | None, parameter: str, default: int) -> int:
    """The whole number ``parameter`` names (typed_numbers.whole_number: ASCII digits, a
    bounded few), ``default`` when absent or blank; a QueryError in words for anything else.

    Whether it is in range is the page's rule (the lesson shows its first step for a step it
    does not have, as for a link to a step since removed)."""
    text = (raw or "").strip()
    if not text:
        return default
    number = whole_number(text)
    if number is None:
        raise QueryError(f"{parameter} must be a whole number, like 3, got {_shown(text)!r}")
    return number


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
            f"{parameter} must name your surveys, separated by commas: ?{parameter}=slug1,slug2",
            "unnamed_survey",
        )
    if len(set(slugs)) != len(slugs):
        raise QueryError(f"{parameter} names a survey more than once", "repeated_survey")
    return slugs
