"""How the projector's questions fill its screen: which layout, which questions on which page,
and the words that say where the room is ("Questions 3–4 of 7").

The projector's type grows with the screen (app.css: a 60th of its width, or a 33.75th of its
height on a screen wider than 16:9), so a 1280x720 screen, a 1920x1080 one and a 4K one all
hold the same number of ems: 60 across and 33.75 down. Everything here is measured in those
ems, and what fits one 16:9 screen fits them all; a screen taller than 16:9 only has more room.

Two layouts, one at a time:

- ``star``: while the survey is open and no results are on the screen yet (fewer than
  releases.MIN_ANSWERS_FOR_SHARES have answered, or the professor hid the results), how to join
  fills most of the screen (its QR code at least 40% of the height, the code huge) and the
  questions are listed beside it, their texts alone.
- ``results``: once results show (or the survey is a draft or closed), the results take the
  room in two columns, and how to join shrinks to a corner.

A question's height is estimated from its text, its words and its chart (a little generously:
a question that does not fit moves to the next column or page, and a page never scrolls). One
too tall for a column gets the whole page (``wide``): its words and chart side by side. Pages
keep the questions' order; this module reads no request and no database (the chart's height is
the results panel's geometry).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from flask_babel import gettext

from survey_app.results.panel import ROOM_CHART, chart_units
from survey_app.surveys.typed_numbers import whole_number
from survey_app.words import grouped

#: How wide an average character of the projector's sans-serif is, in ems of its size
#: (measured in Chromium about 0.52; rounded up so that a line is never longer than thought).
CHAR_WIDTH = 0.56
#: The line height of the projector's text (app.css: .projector line-height).
LINE_HEIGHT = 1.35
#: A question's text is this much narrower than its column (its box's padding and border),
#: and the words of its shares this much more (the list's indent).
TEXT_INSET, LIST_INSET = 1.7, 0.0
#: The gap between two questions in a column (app.css: .present-column gap).
CARD_GAP = 0.6
#: The shares chart on the projector is this many ems wide, for its 320 units: its 25-unit
#: type (panel.ROOM_CHART) is then the room's 1 em (21 px on a 720-line screen).
CHART_WIDTH = 13.0
#: A question's text this long or longer is set smaller (app.css: .present-text-long and
#: .present-text-longer, which is 0.8 em in either layout: 17 px on a 720-line screen).
LONG_TEXT, LONGER_TEXT = 90, 250
TEXT_SIZES = {"": 1.0, "present-text-long": 0.9}
LONGEST_TEXT_SIZE = 0.8
#: The words beside a share, in characters, as most read: "“”: about 23.3% (10% to 40%)"
#: (longer ones take a line more; the chart then gives up a little of its height: app.css).
SHARE_WORDS = 27
#: The average's words beside its unit (three times): "The average: about 10.5 (9.2 to 11.7)".
AVERAGE_WORDS = 38
#: Beside the join panel a question shows at most this many lines of its text, the rest cut
#: with an ellipsis (app.css): it is only the room's reminder, the phones show it whole.
STAR_TEXT_LINES = 5
#: The caution under shares too wide to say much ("Too wide yet: …"): one sentence, set a little
#: smaller than the shares' words, as the range beside them is read (app.css: .present-caution).
CAUTION_SIZE = 0.8
#: A note instead of results ("Too early for shares: …"), in lines of a column.
NOTE_LINES = 3
#: The smallest words the room reads, in ems of the projector's type: 16 px on a 720-line
#: screen (app.css sets every word of a shrunk question to at least this).
SMALLEST_WORDS = 0.75
#: A question too tall even for a page of its own is set smaller, step by step, down to where
#: its every word is SMALLEST_WORDS (app.css: --fit multiplies its sizes, none below that; at
#: 0.68 even its largest, 1.1 em, is at the floor). projector-fit.js: SMALLEST_FIT.
FIT_STEPS = (1.0, 0.9, 0.8, 0.75, 0.68)


@dataclass(frozen=True)
class Layout:
    """Where the questions go: ``columns`` columns of ``width`` by ``height`` ems, and the
    size of a question's text there (ems of the projector's type)."""

    name: str
    columns: int
    width: float
    height: float
    text_size: float
    #: A question's box beyond its text: its padding, border and the space between its parts.
    edges: float
    gap: float = 1.0
    #: The height the pager takes under the questions, theirs when all fit on one page (the
    #: pager is then hidden); none where the pager has a row of its own.
    pager: float = 0.0

    @property
    def full_width(self) -> float:
        """The width a wide question has: every column and the gaps between them."""
        return self.columns * self.width + (self.columns - 1) * self.gap


#: The two layouts on a 60 by 33.75 em screen (app.css places the same boxes).
STAR = Layout("star", columns=1, width=21.5, height=24.0, text_size=1.0, edges=1.0)
RESULTS = Layout("results", columns=2, width=20.5, height=26.5, text_size=1.1, edges=1.6, pager=2.2)


@dataclass(frozen=True)
class QuestionShape:
    """What a question shows, as far as its height goes."""

    number: int
    text_length: int
    #: A note instead of results: too early, hidden, or not consistent.
    note: bool = False
    #: The length of each answer the words name (a yes/no question names only “Yes”).
    worded_labels: tuple[int, ...] = ()
    #: The chart's rows (0: no chart).
    chart_rows: int = 0
    #: The unit's length of a number question's average, or None for a shares question.
    average_unit: int | None = None
    #: How much smaller than usual its words are set (1: as usual; see FIT_STEPS).
    fit: float = 1.0
    #: The length of the caution under its shares when their ranges are too wide (0: none).
    caution_length: int = 0
    #: A paired question's table: its rows (0: none), each a line for the shares and one for
    #: their ranges, under a line of headings (its key and sentence are its caution).
    table_rows: int = 0


def fit_class(fit: float) -> str:
    """The class that sets a question's words ``fit`` times smaller ("" as usual): a class,
    since the pages' Content-Security-Policy allows no style attribute (app.css: --fit)."""
    return "" if fit == 1 else f"present-fit-{round(fit * 100)}"


def fit_size(size: float, fit: float) -> float:
    """A size of ``size`` ems set ``fit`` times smaller, never below SMALLEST_WORDS (nor
    above ``size``): app.css's max(0.75em, calc(size * var(--fit)))."""
    return min(size, max(SMALLEST_WORDS, size * fit))


@dataclass(frozen=True)
class Page:
    """One screen of questions: their numbers column by column, whether one question has the
    whole page, and the words that say which they are."""

    number: int
    columns: tuple[tuple[int, ...], ...]
    wide: bool
    words: str

    @property
    def questions(self) -> tuple[int, ...]:
        return tuple(number for column in self.columns for number in column)


def text_class(text_length: int) -> str:
    """The class that sets a question's text smaller the longer it is ("" for a short one)."""
    if text_length >= LONGER_TEXT:
        return "present-text-longer"
    if text_length >= LONG_TEXT:
        return "present-text-long"
    return ""


def lines(characters: int, size: float, width: float) -> int:
    """How many lines ``characters`` take at ``size`` ems in ``width`` ems (at least one).
    A line breaks between words, so it holds a little less than its width."""
    per_line = max(1, int(width * 0.95 / (CHAR_WIDTH * size)))
    return max(1, math.ceil(characters / per_line))


def chart_height(rows: int) -> float:
    """The shares chart's height in ems: the projector's chart's units (panel.ROOM_CHART) at
    CHART_WIDTH."""
    return chart_units(rows, ROOM_CHART) * CHART_WIDTH / 320 if rows else 0.0


def text_height(shape: QuestionShape, layout: Layout, width: float) -> float:
    """The height of a question's text (with its number and full stop before it: "12. ")."""
    kind = text_class(shape.text_length)
    size = (
        LONGEST_TEXT_SIZE if kind == "present-text-longer" else layout.text_size * TEXT_SIZES[kind]
    )
    size = fit_size(size, shape.fit)
    count = lines(shape.text_length + 4, size, width)
    if layout.name == STAR.name:
        count = min(count, STAR_TEXT_LINES)
    return count * size * LINE_HEIGHT


def results_height(shape: QuestionShape, width: float) -> float:
    """The height of what a question shows under its text in ``width`` ems: a note, its
    average, or each share's words (and the chart, below them)."""
    if shape.note:
        return NOTE_LINES * LINE_HEIGHT * fit_size(1.1, shape.fit)
    size = fit_size(1.0, shape.fit)
    if shape.average_unit is not None:
        return lines(AVERAGE_WORDS + 3 * shape.average_unit, size, width) * LINE_HEIGHT * size
    words = sum(lines(SHARE_WORDS + label, size, width) for label in shape.worded_labels)
    chart = chart_height(shape.chart_rows) + 0.3 if shape.chart_rows else 0
    return words * LINE_HEIGHT * size + chart + table_height(shape) + caution_height(shape, width)


def table_height(shape: QuestionShape) -> float:
    """The height of a paired question's table: a line of headings, then two lines a row (a
    share, and its range a little smaller: app.css .present-crosstab); 0 without one."""
    if not shape.table_rows:
        return 0.0
    size = fit_size(1.0, shape.fit)
    return (1 + 2 * shape.table_rows) * LINE_HEIGHT * size


def caution_height(shape: QuestionShape, width: float) -> float:
    """The height of the notes under a question's shares in ``width`` ems (0 without)."""
    if not shape.caution_length:
        return 0.0
    size = fit_size(CAUTION_SIZE, shape.fit)
    return lines(shape.caution_length, size, width) * LINE_HEIGHT * size + 0.3


def question_height(shape: QuestionShape, layout: Layout) -> float:
    """How tall a question is in one column of ``layout`` (the star lists texts alone)."""
    height = layout.edges + text_height(shape, layout, layout.width - TEXT_INSET)
    if layout.name == STAR.name:
        return height
    return height + results_height(shape, layout.width - TEXT_INSET - LIST_INSET)


def wide_height(shape: QuestionShape, layout: Layout) -> float:
    """How tall a question is with the whole page: its words and chart side by side."""
    inside = layout.full_width - TEXT_INSET
    # The caution runs under the words and the chart, the whole width (app.css).
    alone = replace(shape, caution_length=0)
    if shape.table_rows:
        # A table runs the whole width, its key and sentence under it (app.css).
        beside = results_height(alone, inside)
    elif shape.chart_rows:
        words = results_height(replace(alone, chart_rows=0), inside - CHART_WIDTH - layout.gap)
        beside = max(words, chart_height(shape.chart_rows) + 0.3)
    else:
        # Without a chart the words run in two columns (app.css), the first one line longer.
        half = (inside - layout.gap) / 2 - LIST_INSET
        beside = results_height(alone, half) / 2 + LINE_HEIGHT
    below = caution_height(shape, inside)
    return layout.edges + text_height(shape, layout, inside) + beside + below


def fitted(shape: QuestionShape, layout: Layout = RESULTS) -> QuestionShape:
    """The shape as the projector shows it: without its chart when even the whole page is too
    short for it (many answers, or a long text); its words, every share and its range, stay.
    Still too tall, its words are set smaller (FIT_STEPS), at most down to SMALLEST_WORDS;
    what then still does not fit the page scrolls inside its own box (projector-fit.js)."""
    if not is_wide(shape, layout) or wide_height(shape, layout) <= layout.height:
        return shape
    shape = replace(shape, chart_rows=0)
    for fit in FIT_STEPS:
        shape = replace(shape, fit=fit)
        if wide_height(shape, layout) <= layout.height:
            break
    return shape


def is_wide(shape: QuestionShape, layout: Layout) -> bool:
    """A question too tall for a column has the whole page (a layout of one column has no
    wider place to give it)."""
    return layout.columns > 1 and question_height(shape, layout) > layout.height


def page_words(first: int, last: int, total: int) -> str:
    """Where the room is: "Question 3 of 7", "Questions 3–4 of 7"."""
    figures = {
        name: grouped(figure)
        for name, figure in zip(("first", "last", "total"), (first, last, total), strict=True)
    }
    if first == last:
        return gettext("Question %(first)s of %(total)s", **figures)
    return gettext("Questions %(first)s–%(last)s of %(total)s", **figures)


def pages(shapes: list[QuestionShape], layout: Layout) -> list[Page]:
    """The questions in order, as many to a page as fit: column by column, each column filled
    from the top; a question too tall for a column has a page of its own. Questions that all
    fit on one page once the pager is hidden (it has no page to turn to) have that page."""
    if layout.pager:
        alone = _paged(shapes, replace(layout, height=layout.height + layout.pager, pager=0.0))
        if len(alone) == 1:
            return alone
    return _paged(shapes, layout)


def _paged(shapes: list[QuestionShape], layout: Layout) -> list[Page]:
    """:func:`pages` at the layout's height."""
    groups: list[tuple[list[list[int]], bool]] = []
    columns: list[list[int]] = []
    used = 0.0
    for shape in shapes:
        if is_wide(shape, layout):
            if columns:
                groups.append((columns, False))
            groups.append(([[shape.number]], True))
            columns, used = [], 0.0
            continue
        height = question_height(shape, layout)
        if columns and used + CARD_GAP + height <= layout.height:
            columns[-1].append(shape.number)
            used += CARD_GAP + height
            continue
        if len(columns) == layout.columns:
            groups.append((columns, False))
            columns = []
        columns.append([shape.number])
        used = height
    if columns:
        groups.append((columns, False))
    total = len(shapes)
    result = []
    for index, (group, wide) in enumerate(groups, start=1):
        numbers = [number for column in group for number in column]
        words = page_words(numbers[0], numbers[-1], total)
        result.append(Page(index, tuple(tuple(column) for column in group), wide, words))
    return result


def title_class(title_length: int) -> str:
    """The class that sets a survey's title smaller the longer it is ("" for a short one)."""
    if title_length > 120:
        return "present-title-longer"
    if title_length > 50:
        return "present-title-long"
    return ""


def chosen_page(asked: str | None, count: int) -> int:
    """The page a link asks for (``?page=N``, typed_numbers.whole_number), within 1..count;
    the first for anything else (a page that turns by itself has no place to say why)."""
    number = whole_number(asked or "") or 1
    return min(max(number, 1), max(count, 1))
