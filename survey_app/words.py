"""Words: the one rule for plurals ("1 hour", "3 hours", "1 person has answered"), a unit after
a figure, numbers, shares and margins of shares for people, and what a survey's status says.

Every domain's words module and every page take these from here, from this module itself:
nothing else puts an "s" after a count or decides how many decimals a figure shows.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

from babel.dates import format_date
from babel.lists import format_list
from babel.numbers import format_decimal, format_percent
from flask_babel import gettext, lazy_gettext, ngettext
from markupsafe import Markup, escape

from survey_app import privacy
from survey_app.results import rounding
from survey_app.web.languages import current_locale, is_english


def local_figure(value: float, places: int, fixed: bool = False, grouped: bool = False) -> str:
    """A figure already rounded to ``places`` decimals, as the page's language writes it:
    "2,5" in German and French; without needless decimals unless ``fixed``; thousands
    grouped ("1.234", "1 234") only if ``grouped``. English is written by each caller as it
    always was (rounding.text, "{:,}"), so it never goes through here."""
    decimals = ("0" if fixed else "#") * max(0, places)
    pattern = ("#,##0" if grouped else "0") + (f".{decimals}" if decimals else "")
    written = format_decimal(Decimal(repr(float(value))), format=pattern, locale=current_locale())
    return "0" if written.lstrip("-\u2212") == "0" else written


def local_percent(figure: float) -> str:
    """A percentage figure (42.5 for 42.5%) already rounded to a tenth, with the page
    language's sign and spacing: "42,5\u00a0%" in German and French (not for English)."""
    locale = current_locale()
    pattern = locale.percent_formats[None].pattern.split(";")[0].replace("#,##0", "#,##0.#")
    return format_percent(Decimal(repr(float(figure))) / 100, format=pattern, locale=locale)


def plural_number(value: float) -> int:
    """The whole number that picks a figure's plural form from a catalog (ngettext's ``n``):
    the figure itself when whole; for a fraction, 1 where the language's plural rule (CLDR)
    calls it "one" (French "1,5 point"), else a number every language calls "other"."""
    if float(value).is_integer():
        return int(value)
    return 1 if current_locale().plural_form(abs(value)) == "one" else 100


def join_words(parts, last: str = "and") -> str:
    """ "a", "a and b", "a, b and c" (or, with ``last="or"``, "a, b or c")."""
    parts = list(parts)
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} {last} {parts[-1]}"


def either_of(figures: list[str]) -> str:
    """ "30%, 50% or 70%", as the page's language lists alternatives (CLDR's; English's own
    way, join_words)."""
    if is_english():
        return join_words(figures, last="or")
    return format_list(figures, style="or", locale=current_locale())


def counted(count: int | float | str, noun: str, nouns: str | None = None) -> str:
    """A count and its noun: "1 question", "3 questions", "1,200 respondents"; a figure
    already worded ("6.5", "1") keeps its words: "1 hour"."""
    figure = f"{count:,}" if isinstance(count, int) else str(count)
    return f"{figure} {plural(count, noun, nouns)}"


def plural(count: int | float | str, noun: str, nouns: str | None = None) -> str:
    """The noun as the count wants it: "code" for 1 (or "1", "-1"), "codes" for any other.

    The one rule for plurals: ``nouns`` for an irregular plural ("person", "people"), else
    the noun and an "s".
    """
    return noun if _is_one(count) else nouns or noun + "s"


def _is_one(count: int | float | str) -> bool:
    """Whether a count, or a figure worded for people ("1", "−1", "±1"), is one ("1,000" is
    a thousand: the comma groups thousands)."""
    text = str(count).strip().replace("\u2212", "-").replace(",", "").lstrip("+-±")
    try:
        return float(text) == 1
    except ValueError:
        return False


#: Plurals a unit may be typed in that dropping an "s" does not make singular.
IRREGULAR_UNITS = {"people": "person", "children": "child", "feet": "foot", "men": "man"}
#: Endings a plural unit keeps but for its last "es" ("inches", "boxes", "glasses").
_ES_ENDINGS = ("ches", "shes", "sses", "xes", "zzes")


def singular_unit(unit: str) -> str:
    """The unit as one of it: "hours" -> "hour", "hours of sleep" -> "hour of sleep",
    "cups of coffee" -> "cup of coffee", "inches" -> "inch", "calories" -> "calorie",
    "km" -> "km".

    Units are typed by the survey's author, most often in the plural: the first word is made
    singular by the common English rules, and anything else is left as typed.
    """
    first, space, rest = unit.partition(" ")
    lower = first.lower()
    if lower in IRREGULAR_UNITS:
        single = IRREGULAR_UNITS[lower]
    elif lower.endswith(_ES_ENDINGS) and not lower.endswith("aches"):
        single = first[:-2]
    elif len(lower) > 2 and lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        single = first[:-1]
    else:
        single = first
    return single + space + rest


def with_unit(figure: str, unit: str | None) -> str:
    """A figure worded for people and its unit, as the figure wants it: "6.5 hours",
    "1 hour", "0 hours"; the figure alone without a unit."""
    if not unit:
        return figure
    if not is_english():  # the author's unit as typed: the singular rules here are English
        return f"{figure} {unit}"
    return f"{figure} {singular_unit(unit) if _is_one(figure) else unit}"


def points(margin: float, long: bool = False) -> str:
    """A margin of a share in percentage points, with its ±, rounded up (format_points):
    "±12 points", "±1 point"; ``long``: "±12 percentage points", where a page first says it."""
    figure = format_points(margin)
    if not is_english():
        n = plural_number(_points_value(margin))
        if long:
            return ngettext(
                "±%(figure)s percentage point", "±%(figure)s percentage points", n, figure=figure
            )
        return ngettext("±%(figure)s point", "±%(figure)s points", n, figure=figure)
    noun = "percentage point" if long else "point"
    return f"±{counted(figure, noun)}"


def precise_points(margin: float, long: bool = True) -> str:
    """A margin of a share in percentage points to a tenth, rounded up, without its ±:
    "12.3 percentage points", "1 percentage point"; short: "12.3 points". For the lesson,
    whose figures are checked against its formulas to a tenth."""
    return counted(point_figure(margin), "percentage point" if long else "point")


def point_figure(margin: float) -> str:
    """A margin of a share in percentage points to a tenth, rounded up, as a bare figure for a
    table whose heading names the unit: 0.1234 -> '12.4'."""
    return rounding.text(rounding.up(margin * 100, 0.1), 1)


def format_points(margin: float) -> str:
    """A margin in percentage points, rounded up: 0.2781 -> '28', 0.0541 -> '5.5', 0.05 -> '5'.

    Whole points from 10 up, tenths below. Rounding up never promises a narrower margin than
    the figure.
    """
    if not is_english():
        return local_figure(_points_value(margin), 1)
    points = margin * 100
    step = 1.0 if points >= 10 else 0.1
    return rounding.text(rounding.up(points, step), rounding.places_of(step))


def _points_value(margin: float) -> float:
    """A margin in percentage points as format_points rounds it: whole from 10 up, else tenths."""
    points = margin * 100
    return rounding.up(points, 1.0 if points >= 10 else 0.1)


def format_epsilon(epsilon: float) -> str:
    """An epsilon for people, rounded up to two decimals: 1.3249 -> '1.33', never '1.32'
    ('1,33' in German and French).

    Rounding up never shows less privacy loss than there is (survey_app.results.rounding).
    """
    if not is_english():
        return local_figure(rounding.up(epsilon, 0.01), 2, fixed=True)
    return f"{rounding.up(epsilon, 0.01):.2f}"


def format_upper_bound(value: float) -> str:
    """A bound for people, rounded up to three significant digits: 7/3 -> '2.34', 3 -> '3'.

    For figures such as "at most N times surer", which rounding to nearest would understate.
    """
    if not value > 0 or not math.isfinite(value):
        return f"{value:g}"
    step = rounding.significant_step(value, 3)
    if not is_english():
        return local_figure(rounding.up(value, step), rounding.places_of(step))
    return rounding.text(rounding.up(value, step), rounding.places_of(step))


def format_number(value: float | None, places: int = 6) -> str:
    """A number for people, without needless decimals: 40.0 -> '40', 2.50 -> '2.5'.

    At most ``places`` decimals, rounded to nearest; negative zero shows as '0'. No thousands
    separator: the builder's fields read these back, and a comma there is a decimal comma.
    """
    if value is None:
        return "–"
    if not is_english():
        return local_figure(rounding.nearest(value, 10.0**-places), places)
    return rounding.text(rounding.nearest(value, 10.0**-places), places)


def grouped(count: int) -> str:
    """A whole number for people, its thousands grouped the page language's way: 1234 ->
    '1,234' ('1.234' in German, '1 234' in French)."""
    return f"{count:,}" if is_english() else local_figure(count, 0, grouped=True)


def format_count(respondents: int) -> str:
    """A number of respondents a plan needs, for people: 1234 -> '1,234'; the planner's ceiling
    -> 'over ...'.

    Planning searches stop at privacy.MAX_PLANNED_RESPONDENTS, which then means "at least".
    """
    if respondents >= privacy.MAX_PLANNED_RESPONDENTS:
        ceiling = grouped(privacy.MAX_PLANNED_RESPONDENTS)
        return gettext("over %(count)s", count=ceiling) if not is_english() else f"over {ceiling}"
    return grouped(respondents)


def numeric_places(lo: float, hi: float) -> int:
    """Decimals to show a numeric question's figures with: 3 significant digits of its range."""
    return max(0, 3 - math.ceil(math.log10(hi - lo)))


def percent_figure(share: float) -> str:
    """A share as a bare percentage figure, to the nearest tenth and with no needless decimals,
    for a sentence that puts its own "%" after it: 0.25 -> '25', 0.125 -> '12.5' ('12,5' in
    German and French, whose sentences put their own space before it)."""
    if not is_english():
        return local_figure(rounding.nearest(share * 100, 0.1), 1)
    return rounding.text(rounding.nearest(share * 100, 0.1), 1)


def percent(share: float | None) -> str:
    """A share as a percentage for people, to the nearest tenth: 0.627 -> '62.7%'; nothing
    -> '–'. For estimates; a range's ends round outward (percent_low, percent_high). German
    and French: '62,7\u00a0%'."""
    if share is None:
        return "–"
    return _percent_text(rounding.nearest(share * 100, 0.1))


def _percent_text(figure: float) -> str:
    """A percentage figure rounded to a tenth, with its sign as the page's language puts it."""
    if not is_english():
        return local_percent(figure)
    return rounding.text(figure, 1) + "%"


def percent_low(share: float | None) -> str:
    """A range's lower end as a percentage, rounded down to a tenth: 0.4865 -> '48.6%'."""
    if share is None:
        return "–"
    return _percent_text(rounding.down(share * 100, 0.1))


def percent_high(share: float | None) -> str:
    """A range's upper end (or a margin) as a percentage, rounded up: 0.4865 -> '48.7%'."""
    if share is None:
        return "–"
    return _percent_text(rounding.up(share * 100, 0.1))


def closed_on(closed_at: dt.datetime | None) -> str | None:
    """The day a survey closed, for people: "25 November 2026" (the day alone: no closer time
    is said); None when it was closed before closing times were kept."""
    if closed_at is None:
        return None
    if not is_english():
        return format_date(closed_at, "d MMMM y", locale=current_locale())
    return f"{closed_at.day} {closed_at:%B %Y}"


def closed_words(survey) -> str | None:
    """What the projector's join panel says once a survey has closed, where it said how to
    join: since when, and how to reopen it; None while it is a draft or open."""
    if not survey.is_closed:
        return None
    day = closed_on(survey.closed_at)
    if day:
        return gettext(
            "This survey has been closed since %(day)s: it takes no more answers. To collect "
            "more, reopen it from its dashboard; reopening keeps every answer already in.",
            day=day,
        )
    return gettext(
        "This survey is closed: it takes no more answers. To collect more, reopen it from its "
        "dashboard; reopening keeps every answer already in."
    )


#: A survey's status as its badge names it, by the status's value.
STATUS_NAMES = {
    "draft": lazy_gettext("draft"),
    "open": lazy_gettext("open"),
    "closed": lazy_gettext("closed"),
}


def survey_status_words(survey) -> dict:
    """What the dashboard's status panel says of a survey: ``state`` ("draft", "open" or
    "closed") and its badge's ``name``, the sentence that says it, how to reopen it once
    closed, and the words before its link, and what the projector view shows of it. Only an
    open survey gets the words on how to join (the page places them)."""
    name = str(STATUS_NAMES[survey.status.value])
    if survey.is_draft:
        return {
            "state": "draft",
            "name": name,
            "said": Markup(
                gettext(
                    "This survey is a <strong>draft</strong>: it is not open yet, and only you "
                    "can see it. Preview it, edit it, and open it when it is ready. Once open, "
                    "its questions and privacy level can no longer change."
                )
            ),
            "reopen": None,
            "link_intro": None,
            "projector": gettext(
                "Once the survey is open, the projector view shows, in large type, how to join "
                "(the address, the code and the QR code), how many have answered and the results "
                "as they come in, updating itself. It shows nothing private: no email, no buttons."
            ),
        }
    if survey.is_open:
        return {
            "state": "open",
            "name": name,
            "said": Markup(gettext("This survey is <strong>open</strong>.")),
            "reopen": None,
            "link_intro": gettext("Or send them this link (by email or on the course page):"),
            "projector": gettext(
                "The projector view shows, in large type, how to join (the address, the code "
                "and the QR code), how many have answered and the results as they come in, "
                "updating itself. It shows nothing private: no email, no buttons."
            ),
        }
    return {
        "state": "closed",
        "name": name,
        "said": closed_status_said(survey),
        "reopen": gettext(
            "To collect more answers, press Reopen below: the survey takes answers again at "
            "the same link, with a join code to give the class, and keeps every answer "
            "already in."
        ),
        "link_intro": gettext(
            "The survey’s link (until you reopen it, it says the survey is closed):"
        ),
        "projector": gettext(
            "The projector view shows, in large type, that the survey is closed, how many "
            "answered and the results. It shows nothing private: no email, no buttons."
        ),
    }


def closed_status_said(survey) -> Markup:
    """What the dashboard's status panel says of a closed survey: since when, if known."""
    day = closed_on(survey.closed_at)
    if day:
        return Markup(
            gettext(
                "This survey has been <strong>closed</strong> since %(day)s: it takes no more "
                "answers, and its results stay here.",
                day=escape(day),
            )
        )
    return Markup(
        gettext(
            "This survey is <strong>closed</strong>: it takes no more answers, and its results "
            "stay here."
        )
    )
