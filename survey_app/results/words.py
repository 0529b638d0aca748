"""The results in words: which range a page leads with and what it guarantees, what the results
hold while they change in releases, a number question's figures in its unit, and the sentences
pages place whole: why a confidence asked for is not used, how a question's ranges were worked
out, what a number question's bars and live range are, the "all at once" choice, and what each
export holds.

Each sentence is whole here, its figures filled in: where a result calls for another sentence,
another whole one is chosen, so that a translation wraps each as it stands. Figures are worded
by survey_app.words (percentages rounded outward, counts and their nouns); the results panel
(survey_app.results.panel) puts a question's sentences together, and the pages place them.
"""

from __future__ import annotations

from babel.lists import format_list
from flask_babel import gettext, lazy_gettext, ngettext
from markupsafe import Markup

from survey_app import privacy
from survey_app.results import rounding
from survey_app.results.mechanism_words import (
    BOUND_WORDS,
    MECHANISM_WORDS,
    translated_mechanism_reason,
)
from survey_app.results.release_words import held_words, included_words
from survey_app.results.releases import MIN_ANSWERS_FOR_SHARES, results_appear_at
from survey_app.results.tables import NumericResult, SurveyResults, shown_range
from survey_app.web.languages import DEFAULT_LANGUAGE, LANGUAGE_NAMES, current_locale, is_english
from survey_app.words import (
    format_number,
    grouped,
    local_figure,
    numeric_places,
    percent,
    percent_high,
    percent_low,
    with_unit,
)

#: Why the confidence asked for is not used, and the one the results are at instead.
CONFIDENCE_REFUSED = lazy_gettext(
    "The confidence asked for can’t be used (%(error)s): the results are at %(default)s."
)

#: How a question's exact ranges were worked out: from the precise law of the randomization,
#: or, with many answers, from a proven bound on it (privacy.Estimate.exact_method).
EXACT_RANGE = lazy_gettext(
    "Exact range: every share under which these counts are not unusual, from the precise law "
    "of the randomization."
)
EXACT_RANGE_BERRY_ESSEEN = lazy_gettext(
    "Exact range: every share under which these counts are not unusual, from the precise law "
    "of the randomization (with this many answers, from a proven bound on that law, the "
    "Berry–Esseen theorem)."
)


#: What the ranges shown "all at once" are, for a question of that many answers.
def all_at_once_sentence(n, **figures):
    return ngettext(
        "All at once: the exact ranges of all %(count)s answer hold together.",
        "All at once: the exact ranges of all %(count)s answers hold together.",
        n,
        **figures,
    )


#: What a number question's bars are: with the step an answer is counted at, where the bars
#: count answers at a step (privacy.Histogram.answer_step).
BARS = lazy_gettext(
    "Each bar is the estimated share of the class whose answer is among the answers it names, "
    "with the known randomization removed."
)
BARS_OF_WHOLE_NUMBERS = lazy_gettext(
    "Each bar is the estimated share of the class whose answer is among the answers it names "
    "(an answer counts in the bar of its nearest whole number: 4.6 counts as 5), with the known "
    "randomization removed."
)
BARS_OF_STEPS = lazy_gettext(
    "Each bar is the estimated share of the class whose answer is among the answers it names "
    "(an answer counts in the bar of its nearest multiple of %(step)s), with the known "
    "randomization removed."
)
#: A number question's live range, where it has one.
LIVE_RANGE = lazy_gettext(
    "Live range, which holds however often the results were read: %(low)s to %(high)s."
)

#: The dashboard's choice of ranges that hold for all of a question's answers together: an
#: open survey shows its live ranges until it closes.
TOGETHER_LABEL = lazy_gettext(
    "all at once: ranges that hold for all of a question’s answers together"
)
TOGETHER_LABEL_OPEN = lazy_gettext(
    "all at once: ranges that hold for all of a question’s answers together (once the survey "
    "closes: while it is open the live ranges show)"
)

#: What the results' CSV holds (a link to it, ``href``), with the rows of number questions
#: where the survey asks one.
RESULTS_CSV = lazy_gettext(
    '<a href="%(href)s" id="download-results">Results (CSV)</a>: a row per answer option, with '
    "the estimate and its interval."
)
RESULTS_CSV_WITH_NUMBERS = lazy_gettext(
    '<a href="%(href)s" id="download-results">Results (CSV)</a>: a row per answer option, with '
    "the estimate and its interval; for a number question, its average with its range, then a "
    "row per bar of its spread."
)
#: The results' CSV with its columns' names in a second header row, in each language the app
#: speaks but English (``%(links)s``: a link a language, ``?labels=``: results.exports).
RESULTS_CSV_LABELLED = lazy_gettext(
    "The same with the columns’ names in a second header row, for a spreadsheet: %(links)s "
    "(pandas skips that row: <code>pd.read_csv(path, skiprows=[1])</code>)."
)
#: When the randomized responses can be downloaded, while they cannot yet: once the survey
#: closes, and, while its results are held back, with a batch of new answers.
RESPONSES_ONCE_CLOSED = lazy_gettext(
    "Randomized responses (CSV), a row per submission: available once the survey closes, so "
    "that nobody’s answers can be picked out by when they arrived."
)
RESPONSES_ONCE_CLOSED_AND_RELEASED = lazy_gettext(
    "Randomized responses (CSV), a row per submission: available once the survey closes with "
    "at least a batch of new answers (see the results above), so that nobody’s answers can be "
    "picked out by when they arrived."
)


def confidence_refused_words(
    error: str, default: float, asked: str | None = None, offered: tuple = ()
) -> str:
    """Why the confidence a page was asked for is not used (``error``: the query's words, the
    API's in English; in another language, the confidence ``asked`` and those ``offered``),
    and the one the results are at instead."""
    if is_english() or asked is None:
        return str(CONFIDENCE_REFUSED) % {"error": error, "default": percent(default)}
    return gettext(
        "The confidence asked for, “%(asked)s”, can’t be used: this page offers %(offered)s. "
        "The results are at %(default)s.",
        asked=asked,
        offered=format_list([percent(level) for level in offered], locale=current_locale()),
        default=percent(default),
    )


def exact_range_words(berry_esseen: bool) -> str:
    """How the exact ranges were worked out (``berry_esseen``: from the Berry–Esseen bound)."""
    return str(EXACT_RANGE_BERRY_ESSEEN if berry_esseen else EXACT_RANGE)


def all_at_once_words(kind: str, option_count: int) -> str:
    """What the ranges shown all at once are, when they are the ones shown (``kind``
    "together"); else nothing."""
    if kind != "together":
        return ""
    return all_at_once_sentence(option_count, count=grouped(option_count))


def bars_words(answer_step: str | None) -> str:
    """What a number question's bars are, and the step its answers are counted at (worded:
    "1", "0.5"; None when the bars do not count answers at a step)."""
    if answer_step is None:
        return str(BARS)
    if answer_step == "1":
        return str(BARS_OF_WHOLE_NUMBERS)
    return str(BARS_OF_STEPS) % {"step": answer_step}


def live_range_words(low: str | None, high: str | None) -> str:
    """A number question's live range in words (its ends worded, the upper with its unit);
    nothing without one."""
    return "" if low is None else str(LIVE_RANGE) % {"low": low, "high": high}


def together_label(is_open: bool) -> str:
    """The label of the dashboard's choice of ranges that hold all at once."""
    return str(TOGETHER_LABEL_OPEN if is_open else TOGETHER_LABEL)


def export_words(results_href: str, has_numeric: bool, results_held: bool) -> dict:
    """What the dashboard's exports hold: the results' CSV (linked at ``results_href``), and
    when the randomized responses can be downloaded while they cannot yet."""
    return {
        "results": Markup(str(RESULTS_CSV_WITH_NUMBERS if has_numeric else RESULTS_CSV))
        % {"href": results_href},
        "responses_later": str(
            RESPONSES_ONCE_CLOSED_AND_RELEASED if results_held else RESPONSES_ONCE_CLOSED
        ),
        "labelled": labelled_exports(results_href),
    }


def labelled_exports(results_href: str) -> Markup | None:
    """Links to the results' CSV with the columns' names in each language the app speaks but
    English (each link in its language's own name), in a sentence; None when it speaks only
    English."""
    links = [
        Markup('<a href="%s" hreflang="%s" lang="%s" class="language-name">%s</a>')
        % (f"{results_href}&labels={code}", code, code, name)
        for code, name in LANGUAGE_NAMES.items()
        if code != DEFAULT_LANGUAGE
    ]
    if not links:
        return None
    # The list's joining words are CLDR's ("Deutsch und Français"), plain text around the links.
    joined = Markup(format_list([str(link) for link in links], locale=current_locale()))
    return Markup(str(RESULTS_CSV_LABELLED)) % {"links": joined}


# --------------------------------------------------------------------------- ranges

#: The ranges a results page can lead with: live while a survey is open (it holds at every
#: look), exact once closed (the narrowest for one reading), or all of a question's at once.
RANGE_KINDS = ("live", "exact", "together")


def headline_range_kind(results: SurveyResults, together: bool = False) -> str:
    """Which range the words and charts lead with: the live one while any of the surveys is
    open (the page redraws itself: it is read again and again), else the exact one, or the
    ranges that hold for all of a question's answers at once when the owner asks for them."""
    if any(each.is_open for each in results.surveys):
        return "live"
    return "together" if together else "exact"


def widest_shown_half_width(question, kind: str) -> float | None:
    """Half the widest range of that kind among a question's options: the one the "too wide
    to say much yet" caution quotes is the one the page leads with."""
    return question.widest_half_width(
        [shown_range(option.estimate, kind) for option in question.options]
    )


#: A range reaching further than this on either side of its estimate says little yet: a fifth
#: of the scale (±20 points of a share; a fifth of a number question's range).
TOO_WIDE = 0.2


# --------------------------------------------------------------------------- shares

#: "Close to 0%" (or to 100%) is said only of a range whose printed far end is within this many
#: percentage points of it: "0% to 4.8%" is close to 0%, "0% to 12.5%" is not.
CLOSE_POINTS = 5.0

#: Why an option's unbiased estimate lies outside 0–100% and what its range says instead: the
#: range is close to an end (CLOSE_POINTS), too wide to say much (TOO_WIDE), or neither.
OUTSIDE_CLOSE = lazy_gettext(
    "The unbiased estimate is %(raw)s, outside 0–100%%: the randomization noise pushed it "
    "there, which is normal with few respondents. The share shown, %(shown)s, is the nearest "
    "share its range allows, and the range says the true share is close to %(end)s."
)
OUTSIDE_TOO_WIDE = lazy_gettext(
    "The unbiased estimate is %(raw)s, outside 0–100%%: the randomization noise pushed it "
    "there, which is normal with few respondents. The share shown, %(shown)s, is the nearest "
    "share its range allows; the range is too wide to say much yet."
)
OUTSIDE_WITHIN = lazy_gettext(
    "The unbiased estimate is %(raw)s, outside 0–100%%: the randomization noise pushed it "
    "there, which is normal with few respondents. The share shown, %(shown)s, is the nearest "
    "share its range allows; the true share may be anywhere from %(low)s to %(high)s."
)
#: What a choice question's shares add up to: 100%, or more once an estimate below 0% was
#: kept at 0% (each share is its own answer's estimate: privacy.Estimate.headline).
SHARES_ADD_UP = lazy_gettext("The shares add up to %(total)s.")
SHARES_ADD_UP_TO = lazy_gettext(
    "The shares add up to %(total)s, not 100%%: each is its own answer’s estimate, kept within "
    "0–100%% where the randomization noise pushed it outside."
)
#: The same on the projector, said only where the shares add up to more than 100%.
SHARES_ADD_UP_BRIEF = lazy_gettext("These add up to %(total)s: each share is kept within 0–100%%.")
#: The dashboard table's "Estimate" where the unbiased estimate differs from the share shown.
TABLE_ESTIMATE_UNBIASED = lazy_gettext("%(shown)s (unbiased: %(raw)s)")


def close_to(low: float, high: float) -> str | None:
    """The end of 0–100% a range is close to, as printed (rounded outward): "0%" when its upper
    end reads at most CLOSE_POINTS, "100%" when its lower end reads at least 100 minus that;
    else None."""
    if rounding.up(high * 100, 0.1) <= CLOSE_POINTS:
        return percent(0.0)
    if rounding.down(low * 100, 0.1) >= 100 - CLOSE_POINTS:
        return percent(1.0)
    return None


def outside_words(estimate: privacy.Estimate, shown: float, low: float, high: float) -> str | None:
    """Why an unbiased estimate outside 0–100% (beyond floating-point dust) is no cause for
    alarm, beside the share shown and its range ``[low, high]``, claiming no more than the
    range says; None for an estimate inside 0–100% or counts no randomization explains."""
    if not estimate.consistent_with_randomization or not estimate.outside_unit_interval:
        return None
    raw, said = percent(estimate.estimate), percent(shown)
    end = close_to(low, high)
    if end is not None:
        return str(OUTSIDE_CLOSE) % {"raw": raw, "shown": said, "end": end}
    if (high - low) / 2.0 > TOO_WIDE:
        return str(OUTSIDE_TOO_WIDE) % {"raw": raw, "shown": said}
    figures = {"raw": raw, "shown": said, "low": percent_low(low), "high": percent_high(high)}
    return str(OUTSIDE_WITHIN) % figures


def table_estimate_words(shown: float | None, unbiased: float | None) -> str:
    """An option's figure in the dashboard's table: the share shown, as the words and chart
    give it, with the unbiased estimate beside it where the two differ as shown ("0%
    (unbiased: -12.5%)")."""
    said, raw = percent(shown), percent(unbiased)
    return said if said == raw else str(TABLE_ESTIMATE_UNBIASED) % {"shown": said, "raw": raw}


def shares_total_words(shares: list[float | None]) -> str:
    """What a choice question's shares shown add up to, to the tenth of a point they are
    shown at: 100%, or more (SHARES_ADD_UP_TO)."""
    said = shares_sum_said(shares)
    return str(SHARES_ADD_UP if said == percent(1.0) else SHARES_ADD_UP_TO) % {"total": said}


def shares_total_brief(shares: list[float | None]) -> str | None:
    """The projector's line when a choice question's shares shown add up to more than 100%
    (SHARES_ADD_UP_BRIEF); None when they add up to 100%, as the room expects."""
    said = shares_sum_said(shares)
    return None if said == percent(1.0) else str(SHARES_ADD_UP_BRIEF) % {"total": said}


def shares_sum_said(shares: list[float | None]) -> str:
    """The sum of a question's shares shown, as a percentage to the tenth of a point."""
    return percent(sum(share for share in shares if share is not None))


# --------------------------------------------------------------------------- releases


def release_words(results: SurveyResults, batch: int, brief: bool = False) -> str | None:
    """When results show and what they hold while they change in releases
    (survey_app.results.releases), and when they next change; None when they hold every answer
    of a closed survey. The one place that says the count results appear at: the dashboard
    and the projector place this sentence, and a question waiting for results does not repeat
    it.

    ``brief``: for the projector, where the room reads it from afar.
    """
    if results.held:
        return held_words(results.respondents, batch)
    if not any(each.is_open for each in results.surveys):
        return None if results.shows_results else too_few_words(brief)
    if not results.shows_results:
        return results_appear_words(results_appear_at(results.respondents, batch), batch, brief)
    held, answered = results.respondents, results.answered
    if brief:
        return brief_release_words(held, answered, batch)
    return included_words(held, answered, batch)


def brief_release_words(held: int, answered: int, batch: int) -> str:
    """What the projector's results hold (``held`` of ``answered``) and how often they
    change (every ``batch`` answers), each case one whole sentence."""
    figures = {"held": grouped(held), "count": grouped(answered)}
    figures["batch"] = grouped(batch)
    if held >= answered:
        if batch == 1:
            return gettext("Results include everyone; they update with each answer.")
        return ngettext(
            "Results include everyone; they update every %(batch)s answer.",
            "Results include everyone; they update every %(batch)s answers.",
            batch,
            **figures,
        )
    if batch == 1:
        return ngettext(
            "Results include %(held)s of %(count)s person; they update with each answer.",
            "Results include %(held)s of %(count)s people; they update with each answer.",
            answered,
            **figures,
        )
    return ngettext(
        "Results include %(held)s of %(count)s person; they update every %(batch)s answers.",
        "Results include %(held)s of %(count)s people; they update every %(batch)s answers.",
        answered,
        **figures,
    )


def results_appear_words(count: int, batch: int, brief: bool = False) -> str:
    """When an open survey's first results appear (``count``: releases.results_appear_at),
    and how often they change after that (``brief``: the projector's words)."""
    if brief:
        return ngettext(
            "Results appear once %(count)s person has answered.",
            "Results appear once %(count)s people have answered.",
            count,
            count=grouped(count),
        )
    figures = {"count": grouped(count), "batch": grouped(batch)}
    if batch == 1:
        return ngettext(
            "The first results appear once %(count)s person has answered, then change with "
            "every new answer.",
            "The first results appear once %(count)s people have answered, then change with "
            "every new answer.",
            count,
            **figures,
        )
    return ngettext(
        "The first results appear once %(count)s person has answered, then change with every "
        "%(batch)s new answers, so that nobody’s answers can be picked out by watching them "
        "arrive.",
        "The first results appear once %(count)s people have answered, then change with every "
        "%(batch)s new answers, so that nobody’s answers can be picked out by watching them "
        "arrive.",
        count,
        **figures,
    )


def too_few_words(brief: bool = False) -> str:
    """Why a closed survey shows no results: too few answered (``brief``: the projector's)."""
    if brief:  # the students' results page's too, in their language
        return ngettext(
            "Too few answered for results: they show once %(count)s person has answered.",
            "Too few answered for results: they show once %(count)s people have answered.",
            MIN_ANSWERS_FOR_SHARES,
            count=grouped(MIN_ANSWERS_FOR_SHARES),
        )
    return ngettext(
        "Too few answered for results: they show once %(count)s person has answered. Reopen "
        "the survey to collect more answers.",
        "Too few answered for results: they show once %(count)s people have answered. Reopen "
        "the survey to collect more answers.",
        MIN_ANSWERS_FOR_SHARES,
        count=grouped(MIN_ANSWERS_FOR_SHARES),
    )


# --------------------------------------------------------------------------- numbers


def bar_label(first: float, last: float) -> str:
    """The answers a histogram bar holds: "3" for one, "0 to 4" for several."""
    low, high = format_number(first), format_number(last)
    return low if low == high else gettext("%(low)s to %(high)s", low=low, high=high)


def numeric_range_words(estimate: privacy.NumericEstimate, kind: str = "exact") -> dict:
    """A numeric average's ranges in words, in its unit's decimals, rounded outward (they still
    cover what they guarantee). ``kind`` "live": ``low``/``high`` are the live range (an open
    survey's page is read again and again); else the narrowest fixed-size range."""
    places = numeric_places(estimate.lo, estimate.hi)
    step = 10.0**-places

    def down(value: float | None) -> str | None:
        return None if value is None else figure_text(rounding.down(value, step), places)

    def up(value: float | None) -> str | None:
        return None if value is None else figure_text(rounding.up(value, step), places)

    live = kind == "live"
    shown_half_width = (
        (estimate.live_high - estimate.live_low) / 2.0
        if live and estimate.live_low is not None
        else estimate.half_width
    )
    return {
        "low": down(estimate.live_low if live else estimate.ci_low),
        "high": up(estimate.live_high if live else estimate.ci_high),
        "live_low": down(estimate.live_low),
        "live_high": up(estimate.live_high),
        "half_width": up(estimate.half_width),
        # Half the range the page leads with, as it reads within the scale.
        "shown_half_width": up(shown_half_width),
        "chebyshev": up(estimate.chebyshev_half_width),
        "bernstein": up(estimate.bernstein_half_width),
        "bound": str(BOUND_WORDS.get(estimate.bound or "", "")),
        # Ranges wider than a fifth of the scale say little yet: the one shown is judged.
        "too_wide": shown_half_width is not None
        and shown_half_width > TOO_WIDE * (estimate.hi - estimate.lo),
    }


#: A number question's figures that :func:`numeric_words` also says with their unit.
NUMERIC_FIGURES = (
    "mean",
    "raw_mean",
    "low",
    "high",
    "live_low",
    "live_high",
    "half_width",
    "shown_half_width",
    "bernstein",
    "chebyshev",
    "min",
    "max",
)


def numeric_words(result: NumericResult, kind: str = "exact") -> dict:
    """A numeric question's figures for people: mean, ranges and bins, in the question's unit.

    The mean is clipped to [min, max] and rounded to nearest; the ranges are
    :func:`numeric_range_words`.
    """
    estimate = result.estimate
    places = numeric_places(estimate.lo, estimate.hi)
    shown_mean = estimate.clipped_mean
    histogram = result.histogram
    words = {
        "unit": f" {result.unit}" if result.unit else "",
        # The mean in words is clipped to [min, max], as shares are to [0, 1]; the unbiased
        # figure stays in the API and CSV, and ``raw_mean`` says it when it was clipped.
        "mean": None if shown_mean is None else format_number(shown_mean, places),
        "raw_mean": None if estimate.mean is None else format_number(estimate.mean, places),
        "clipped": None
        if shown_mean is None or shown_mean == estimate.mean
        else ("below" if estimate.mean < estimate.lo else "above"),
        **numeric_range_words(estimate, kind),
        "min": format_number(estimate.lo),
        "max": format_number(estimate.hi),
        # Each bar's label says which answers it holds: "3", or "0 to 4".
        "bins": []
        if histogram is None
        else [
            (bar_label(first, last), share)
            for (first, last), share in zip(histogram.answers_held, histogram.shares, strict=True)
        ],
        "answer_step": None
        if histogram is None or histogram.answer_step is None
        else format_number(histogram.answer_step),
        "mechanism": str(MECHANISM_WORDS[result.mechanism.name]),
        "reason": mechanism_reason(result),
    }
    # Each figure with its unit, as the figure wants it: "6.5 hours", "1 hour" (words.with_unit).
    words["said"] = {
        key: None if words[key] is None else with_unit(words[key], result.unit)
        for key in NUMERIC_FIGURES
    }
    words["bins_said"] = [(with_unit(label, result.unit), share) for label, share in words["bins"]]
    return words


def figure_text(value: float, places: int) -> str:
    """A figure rounded to ``places`` decimals, without needless ones, as the page's language
    writes it: "23.4" ("23,4" in German and French)."""
    return rounding.text(value, places) if is_english() else local_figure(value, places)


def mechanism_reason(result: NumericResult) -> str:
    """Which mechanism and why, comparing the ranges at the answers counted so far
    (privacy.mechanism_choice_reason's reasons, in the page's language)."""
    estimate = result.estimate
    if is_english():
        return privacy.mechanism_choice_reason(
            result.mechanism,
            result.named,
            estimate.n,
            estimate.confidence,
            result.planned,
            result.chosen_earlier,
        )
    return translated_mechanism_reason(result)
