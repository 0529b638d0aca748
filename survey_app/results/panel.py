"""What the dashboard's results panel and the projector place for each question: its sentences
(the share and its range, whom the ranges cover, why it is too early) and its charts' geometry,
worked out here so that templates compute nothing. Figures are worded by
:mod:`survey_app.words` (percentages rounded outward, counts) and :mod:`survey_app.results.words`
(range kinds, a number's words).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from flask_babel import gettext, lazy_gettext, ngettext
from markupsafe import Markup

from survey_app import kinds, privacy
from survey_app.planning.shares import respondents_needed
from survey_app.results.cautions import (
    too_wide_average_caution,
    too_wide_caution,
    too_wide_half_width,
)
from survey_app.results.joint_words import joint_view
from survey_app.results.question_words import (
    NOT_CONSISTENT_WORDS,
    average_headline,
    share_sentence,
    waiting_words,
)
from survey_app.results.tables import NumericResult, SurveyResults, shown_range
from survey_app.results.words import (
    TOO_WIDE,
    all_at_once_words,
    bars_words,
    exact_range_words,
    live_range_words,
    numeric_words,
    outside_words,
    shares_total_brief,
    shares_total_words,
    table_estimate_words,
    too_few_words,
)
from survey_app.web.languages import is_english
from survey_app.words import (
    format_count,
    grouped,
    percent,
    percent_high,
    percent_low,
    plural,
    points,
)

#: The shares chart, in SVG units: 320 across, about a phone's width, so that its text stays
#: readable at 360 pixels (the projector sets it 13 em wide: projector_pages.CHART_WIDTH).
CHART_LEFT, CHART_PLOT, CHART_TOP = 16, 282, 4


@dataclass(frozen=True)
class ChartGeometry:
    """Where a shares chart places its parts, in SVG units down from the top of an answer's
    row; the type's size is app.css's (svg.chart text), these only make room for it."""

    #: The height of an answer's row, and the baseline of its label and share's figure.
    row: int
    label: int
    #: The top of the range's band (16 high), the share's mark and the grid lines, from-to.
    band: int
    share: tuple[int, int]
    grid: tuple[int, int]
    #: Below the last row, room for the ticks, and how far above the chart's foot their
    #: baseline sits (their letters' tails fit under it).
    foot: int
    tick_rise: int
    ticks: tuple[float, ...]
    #: An answer's label is cut to this many characters (with this leeway), to leave its share's
    #: figure the rest of the line.
    label_length: int
    label_leeway: int


# The two charts, a row each, their fields in ChartGeometry's order: row, label, band, share,
# grid, foot, tick_rise, ticks, label_length, label_leeway.
#: The dashboard's and the students' page's: 17-unit labels, 13-unit ticks, and the Chebyshev
#: bound (the thin line) under each band.
PAGE_CHART = ChartGeometry(58, 14, 21, (18, 40), (19, 53), 20, 3, (0, 0.25, 0.5, 0.75, 1), 24, 5)
#: The projector's: 25-unit type everywhere (app.css: .projector svg.chart text), which at
#: 13 em across is the room's 1 em; no Chebyshev bound, so shorter rows; three ticks, which
#: that type keeps apart; labels cut shorter (the words above the chart name each in full).
ROOM_CHART = ChartGeometry(50, 21, 27, (25, 45), (25, 47), 30, 7, (0, 0.5, 1), 13, 2)


def chart_geometry(chebyshev: bool) -> ChartGeometry:
    """The dashboard's chart (with the Chebyshev bound), or the projector's (without)."""
    return PAGE_CHART if chebyshev else ROOM_CHART


def chart_units(rows: int, geometry: ChartGeometry) -> int:
    """A shares chart's height in SVG units, for ``rows`` answers."""
    return CHART_TOP + geometry.row * rows + geometry.foot


def tick_anchor(index: int, count: int) -> str:
    """How a tick's figure sits on its line: the first starts there and the last ends there, so
    that "0%" and "100%" stay inside the chart; the others are centred."""
    if index == 0:
        return "start"
    return "end" if index == count - 1 else "middle"


#: The spread chart of a number question: about ten bars over the scale, in the same units.
SPREAD_LEFT, SPREAD_PLOT, SPREAD_TOP, SPREAD_TALL = 8, 304, 8, 120

#: What each range kind is called in a chart's title and key.
RANGE_NAMES = {
    "live": lazy_gettext("live"),
    "together": lazy_gettext("all-at-once"),
    "exact": lazy_gettext("exact"),
}


def have_answered(count: int) -> str:
    """ "person has answered" or "people have answered", after the count (English)."""
    return plural(count, "person has", "people have") + " answered"


def answered_words(results: SurveyResults) -> Markup:
    """How many have answered, the count marked for the page's script: "<strong
    id="respondent-count">12</strong> people have answered so far", or "in all" where the
    results pool several surveys; each case one whole sentence."""
    count = results.answered
    figures = {
        "count": Markup('<strong id="respondent-count">{}</strong>').format(
            count if is_english() else grouped(count)
        )
    }
    if results.pooled:
        said = ngettext(
            "%(count)s\n  person has answered in all.",
            "%(count)s\n  people have answered in all.",
            count,
            **figures,
        )
    else:
        said = ngettext(
            "%(count)s\n  person has answered so far.",
            "%(count)s\n  people have answered so far.",
            count,
            **figures,
        )
    return Markup(said)


def pooled_words(results: SurveyResults, survey_id: int) -> str:
    """The surveys pooled, each with its date and how many answered: "“A” (created 2026-03-02,
    this survey: 40 answered); “B” (created 2026-03-09: 38 answered)."
    """
    answered = results.answered_by_survey or {}
    return gettext(
        "%(surveys)s.",
        surveys="; ".join(
            pooled_survey_words(each, answered[each.id], each.id == survey_id)
            for each in results.surveys
        ),
    )


def pooled_survey_words(survey, answered: int, is_this_one: bool) -> str:
    """One survey pooled: “A” (created 2026-03-02, this survey: 40 answered)."""
    figures = {
        "title": survey.title,
        "created": survey.created_at.strftime("%Y-%m-%d"),
        "count": answered if is_english() else grouped(answered),
    }
    if is_this_one:
        return gettext(
            "“%(title)s” (created %(created)s, this survey: %(count)s answered)", **figures
        )
    return gettext("“%(title)s” (created %(created)s: %(count)s answered)", **figures)


def worded_options(question) -> list:
    """The options a question's words name: every option of a choice question; of a yes/no
    question only “Yes” (its “No” is the rest)."""
    worded = kinds.kind_named(question.kind).worded_values
    if worded is None:
        return list(question.options)
    return [option for option in question.options if option.value in worded]


def option_outside_words(option, kind: str) -> str | None:
    """Why the option's unbiased estimate lies outside 0–100%, beside its share shown and its
    range of that kind (results.words.outside_words); None when it does not."""
    estimate = option.estimate
    return outside_words(estimate, option.headline(kind), *shown_range(estimate, kind))


@dataclass(frozen=True)
class TooWideWords:
    """A question's caution when its ranges of one kind are too wide to say much yet: at
    length (the dashboard's) and in one line (the projector's), from one plan."""

    long: str
    brief: str


def too_wide_words(question, kind: str, confidence: float) -> TooWideWords | None:
    """The caution when a question's ranges of that kind are too wide to say much yet
    (results.cautions.too_wide_half_width): why, and how many answers the planner says would
    bring them to results.words.TOO_WIDE; else None. The planner searches once for both."""
    widest = too_wide_half_width(question, kind)
    if widest is None:
        return None
    options = len(question.options)
    p = question.flip_probability
    if kind == "live":
        # The live ranges' own plan (privacy keeps the ranges it works out: quick again).
        needed = privacy.RandomizedResponse(p, options).live_respondents_for(TOO_WIDE, confidence)
    else:
        # All of a question's ranges at once: each at 1 - alpha / k (Bonferroni; two options
        # need none), as privacy.RandomizedResponse.estimate works them out.
        together = kind == "together" and options > 2
        level = 1.0 - (1.0 - confidence) / options if together else confidence
        needed = respondents_needed(p, options, TOO_WIDE, level)
    return TooWideWords(
        long=too_wide_caution(widest, question.n, kind, options, needed),
        brief=too_wide_caution(widest, question.n, kind, options, needed, brief=True),
    )


def average_too_wide_words(
    result: NumericResult, words: dict, kind: str, confidence: float, n: int
) -> str | None:
    """A number question's caution when its range of that kind is too wide to say much yet
    (``words``: its numeric_words): why, and how many answers the question's own mechanism
    needs to bring it to results.words.TOO_WIDE of its scale; else None."""
    if not words["too_wide"]:
        return None
    mechanism = result.mechanism
    margin = TOO_WIDE * (mechanism.hi - mechanism.lo)
    if kind == "live":
        needed = mechanism.live_respondents_for(margin, confidence)
    else:
        needed = min(mechanism.respondents_for(margin, confidence), privacy.MAX_PLANNED_RESPONDENTS)
    return too_wide_average_caution(words, (mechanism.lo, mechanism.hi), n, kind, needed)


def scope_words(question, kind: str, total: bool = True) -> str:
    """Whom a question's ranges cover, and what its range kind means here (and, unless not
    ``total``, what its shares add up to when every option is worded)."""
    # Every option worded (a choice question's): their shares are all shown; what they add up to.
    choice = words_every_option(question)
    words = shares_total(question, kind) + " " if choice and total else ""
    words += ngettext(
        "These ranges cover the %(count)s person who answered, not the whole class: those who "
        "did not answer may differ.",
        "These ranges cover the %(count)s people who answered, not the whole class: those who "
        "did not answer may differ.",
        question.n,
        count=format_count(question.n),
    )
    if kind == "live":
        words += " " + gettext(
            "While the survey is open they are live ranges: they stay right however often "
            "you look, so reading them again and again as answers arrive is safe."
        )
    elif choice and kind == "exact":
        words += " " + gettext(
            "Each answer’s range holds on its own; for ranges that hold for all the answers "
            "at once, choose “all at once” above the results."
        )
    return words


def words_every_option(question) -> bool:
    """Whether a question's words name every option (a choice question's) and so what its
    shares add up to, rather than "Yes" alone."""
    return bool(question.options) and kinds.kind_named(question.kind).worded_values is None


def shares_total(question, kind: str) -> str:
    """What a question's shares shown add up to (results.words.shares_total_words)."""
    return shares_total_words([option.headline(kind) for option in question.options])


def share_chart(question, kind: str, confidence: float, chebyshev: bool = True) -> dict:
    """The shares chart's geometry: for each answer its share (a mark), its range of that kind
    (the thick band) and, unless left out, the Chebyshev bound (the thin line beneath). Without
    it the chart is the projector's, in the room's type (:data:`ROOM_CHART`)."""
    geometry = chart_geometry(chebyshev)
    height = chart_units(len(question.options), geometry)
    across = [CHART_LEFT + CHART_PLOT * tick for tick in geometry.ticks]
    shown_label = kinds.kind_named(question.kind).shown_label
    rows = [
        _chart_row(
            option,
            shown_label(option.label),
            CHART_TOP + geometry.row * index,
            across,
            kind,
            geometry,
        )
        for index, option in enumerate(question.options)
    ]
    name = str(RANGE_NAMES.get(kind, RANGE_NAMES["exact"]))
    return {
        "height": height,
        "ticks": [
            {
                "x": x,
                "y": height - geometry.tick_rise,
                "text": percent(tick),
                "anchor": tick_anchor(index, len(across)),
            }
            for index, (x, tick) in enumerate(zip(across, geometry.ticks, strict=True))
        ],
        "rows": rows,
        "chebyshev": chebyshev,
        "range_name": name,
        "title": chart_title(question, name, confidence, chebyshev),
    }


def chart_title(question, name: str, confidence: float, chebyshev: bool) -> str:
    """What a shares chart shows, for those who hear it (``name``: its range's kind)."""
    figures = {"number": question.number, "name": name, "confidence": percent(confidence)}
    figures["count"] = grouped(question.n)
    if chebyshev:
        return ngettext(
            "Question %(number)s: the share of each answer, with its %(name)s %(confidence)s "
            "range (thick band) and Chebyshev’s bound with the exact variance (thin line), for "
            "the %(count)s person who answered",
            "Question %(number)s: the share of each answer, with its %(name)s %(confidence)s "
            "range (thick band) and Chebyshev’s bound with the exact variance (thin line), for "
            "the %(count)s people who answered",
            question.n,
            **figures,
        )
    return ngettext(
        "Question %(number)s: the share of each answer, with its %(name)s %(confidence)s range "
        "(thick band), for the %(count)s person who answered",
        "Question %(number)s: the share of each answer, with its %(name)s %(confidence)s range "
        "(thick band), for the %(count)s people who answered",
        question.n,
        **figures,
    )


def _chart_row(
    option, shown_label: str, y: int, across: list, kind: str, geometry: ChartGeometry
) -> dict:
    """One answer's row of the shares chart (``shown_label``: its label as the page says it),
    ``y`` down from the top."""
    left, plot = CHART_LEFT, CHART_PLOT
    estimate = option.estimate
    label = _chart_label(shown_label, geometry)
    row = {
        "label": {"x": left, "y": y + geometry.label, "text": label},
        "grid": [{"x": x, "y1": y + geometry.grid[0], "y2": y + geometry.grid[1]} for x in across],
        "consistent": estimate.consistent_with_randomization,
    }
    if not row["consistent"]:
        row["not_consistent"] = {"x": left + 4, "y": y + geometry.band + 14}
        return row
    low, high = (left + plot * end for end in shown_range(estimate, kind))
    headline = option.headline(kind)
    share = _x(headline)
    row["value"] = {"x": left + plot, "y": y + geometry.label, "text": percent(headline)}
    row["band"] = {
        "x": f"{low:.2f}",
        "y": y + geometry.band,
        "width": f"{high - low:.2f}",
        "height": 16,
    }
    row["share"] = {"x": share, "y1": y + geometry.share[0], "y2": y + geometry.share[1]}
    row["chebyshev"] = (
        {
            "low": _x(estimate.ci_low),
            "high": _x(estimate.ci_high),
            "y": y + 47,
            "y1": y + 43,
            "y2": y + 51,
        }
        if geometry is PAGE_CHART
        else None
    )
    return row


def _x(share: float) -> str:
    """A share's place across the shares chart, to two decimals."""
    return f"{CHART_LEFT + CHART_PLOT * share:.2f}"


def _chart_label(label: str, geometry: ChartGeometry = PAGE_CHART) -> str:
    """An answer's label as the chart has room for it: "A very long answer indeed…"."""
    if len(label) <= geometry.label_length + geometry.label_leeway:
        return label
    return label[: geometry.label_length - 1] + "…"


def spread_chart(bins: list[tuple[str, float]]) -> dict:
    """The spread chart's geometry: a bar for each bin, as tall as its share of the tallest."""
    left, plot, top, tall = SPREAD_LEFT, SPREAD_PLOT, SPREAD_TOP, SPREAD_TALL
    width = plot / len(bins) if bins else plot
    highest = max([*(share for _, share in bins), 0.0001])
    bars = []
    for index, (_, share) in enumerate(bins):
        height = tall * share / highest
        bars.append(
            {
                "x": f"{left + width * index + 1:.2f}",
                "y": f"{top + tall - height:.2f}",
                "width": f"{width - 2:.2f}",
                "height": f"{height:.2f}",
            }
        )
    return {
        "left": left,
        "right": left + plot,
        "middle": left + plot / 2,
        "base": top + tall,
        "ticks_y": top + tall + 18,
        "caption_y": top + tall + 36,
        "height": top + tall + 40,
        "bars": bars,
        "tallest": percent(highest),
    }


def numeric_view(result: NumericResult, kind: str, confidence: float, n: int = 0) -> dict:
    """A number question's words and spread chart (numeric_words), with their sentences: a
    plain headline, and the caution when its range is too wide (``n``: the answers counted)."""
    words = numeric_words(result, kind)
    said = words["said"]
    too_wide = average_too_wide_words(result, words, kind, confidence, n)
    clipped_bound = "min" if words["clipped"] == "below" else "max"
    return {
        **words,
        "headline": average_headline(words, kind, confidence),
        # The dashboard's alone: the projector's card for a number has no room for it where a
        # 3-question survey's results keep one page at 1280x720.
        "too_wide_words": too_wide,
        # The answers counted, for the sentence whose plural form they choose.
        "answered": n,
        "answered_said": format_count(n),
        "clipped_bound": words[clipped_bound],
        "clipped_bound_said": said[clipped_bound],
        "clipped_than": "less" if words["clipped"] == "below" else "more",
        "bars_words": bars_words(words["answer_step"]),
        "live_range_words": live_range_words(words["live_low"], said["live_high"]),
        "chart": spread_chart(words["bins"]) if words["bins"] else None,
    }


def question_view(question, kind: str, confidence: float, chebyshev: bool = True) -> dict:
    """Everything a results page places for a question once it shows results: the sentences,
    the caution when its ranges are too wide, and its charts. What its counts tell (shares, or
    an average) picks the view: callers never ask which kind of question it is."""
    return _told_view(question.told, question, kind, confidence, chebyshev)


@functools.singledispatch
def _told_view(told, question, kind: str, confidence: float, chebyshev: bool) -> dict:
    """A question's shares (privacy.Shares): their sentences, caution and chart."""
    return shares_view(question, kind, confidence, chebyshev)


@_told_view.register(privacy.Average)
def _average_view(told, question, kind: str, confidence: float, chebyshev: bool) -> dict:
    """A number question's average (privacy.Average): :func:`numeric_view`; ``said``: its
    headline."""
    view = numeric_view(question.numeric, kind, confidence, question.n)
    return {"average": view, "said": [view["headline"]]}


@_told_view.register(privacy.JointShares)
def _joint_view(told, question, kind: str, confidence: float, chebyshev: bool) -> dict:
    """A paired question's table (privacy.JointShares): its cells' counts and ranges as a
    choice question's (:func:`shares_view`), its cross-tabulation and sentences in their place."""
    view = shares_view(question, kind, confidence, chebyshev)
    # Its cells' shares are a table's, said there: no total of them in its words.
    scope = scope_words(question, kind, total=False)
    joint = joint_view(told, question, kind, confidence)
    return {**view, **joint, "scope": scope, "room_notes": None, "total": None}


def shares_view(question, kind: str, confidence: float, chebyshev: bool = True) -> dict:
    """A question's shares in words, their caution when too wide, and their chart."""
    berry_esseen = (
        question.options and question.options[0].estimate.exact_method == "Berry-Esseen bound"
    )
    worded = worded_options(question)
    shown_label = kinds.kind_named(question.kind).shown_label
    said = [
        share_sentence(option, kind, confidence, shown_label(option.label)) for option in worded
    ]
    too_wide = too_wide_words(question, kind, confidence)
    return {
        "sentences": [
            {"text": text, "outside": option_outside_words(option, kind)}
            for text, option in zip(said, worded, strict=True)
        ],
        # Each worded option's sentence alone, as the students' results page says it.
        "said": said,
        # The projector's shorter words: each share and its range.
        "brief": [
            {
                "label": shown_label(option.label),
                "share": percent(option.headline(kind)),
                "low": percent_low(shown_range(option.estimate, kind)[0]),
                "high": percent_high(shown_range(option.estimate, kind)[1]),
            }
            for option in worded
        ],
        "scope": scope_words(question, kind),
        # The table's label of each option, as the page says it ("Ja" for "Yes" in German).
        "labels": [shown_label(option.label) for option in question.options],
        # The table's "Estimate" of each option, by value: the share shown, and beside it the
        # unbiased estimate where that lies outside 0–100%.
        "estimates": [
            table_estimate_words(option.headline(kind), option.estimate.estimate)
            for option in question.options
        ],
        "too_wide": too_wide.long if too_wide else None,
        # The projector's line under the shares, as the room reads it: the caution when too
        # wide, else what a choice question's shares add up to when not 100%. One line at
        # most, so that a 3-question survey's results keep one page at 1280x720.
        "room_notes": too_wide.brief
        if too_wide
        else shares_total_brief([option.headline(kind) for option in question.options])
        if words_every_option(question)
        else None,
        # The half-width of Chebyshev’s bound with the exact variance, the same for every option.
        "chebyshev_points": None
        if question.half_width is None
        else points(question.half_width, long=True),
        "chart": share_chart(question, kind, confidence, chebyshev),
        "together": kind == "together",
        # How the ranges were worked out (results.words).
        "exact_range_words": exact_range_words(bool(berry_esseen)),
        "all_at_once_words": all_at_once_words(kind, len(question.options)),
    }


def question_views(results: SurveyResults, kind: str) -> dict[int, dict]:
    """The results panel's view of each question, by id: what it says before it shows results
    (``waiting``), or what :func:`question_view` gives."""
    views = {}
    for question in results.questions:
        waiting = waiting_words(question, results.answered)
        view = {
            "waiting": waiting,
            "waiting_class": "muted" if results.answered == 0 else "too-early",
        }
        if waiting is None:
            view.update(question_view(question, kind, results.confidence))
        views[question.id] = view
    return views


def class_question_view(question, answered: int, kind: str, confidence: float):
    """What the students' results page places for a question, in the dashboard's words: why it
    is too early (``waiting``), that its answers are not consistent (``notice``), or its
    sentences (:func:`question_view`'s ``said``: the average's headline, or each worded
    option's share and range)."""
    waiting = waiting_words(question, answered)
    if waiting is not None:
        return {"waiting": waiting}
    if not question.consistent_with_randomization:
        return {"notice": NOT_CONSISTENT_WORDS}
    view = question_view(question, kind, confidence)
    # A choice question's shares: what they add up to (the dashboard's words; a view may say
    # there is no such total).
    total = shares_total(question, kind) if words_every_option(question) else None
    return {"sentences": view["said"], "total": view.get("total", total)}


def class_results_words(results: SurveyResults, kind: str) -> dict:
    """The students' results page's words: how many answered, when too few did the count
    results need (once for all the questions), and each question's view by id
    (:func:`class_question_view`)."""
    return {
        "answered_words": ngettext(
            "%(count)s person answered.",
            "%(count)s people answered.",
            results.respondents,
            count=grouped(results.respondents),
        ),
        "too_few_words": None if results.shows_results else too_few_words(brief=True),
        "views": {
            question.id: class_question_view(
                question, results.respondents, kind, results.confidence
            )
            for question in results.questions
        },
    }
