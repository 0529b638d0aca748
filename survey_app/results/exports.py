"""CSV exports that people open directly: in Excel, pandas, R or any CSV reader.

UTF-8 with a byte-order mark, a header row, RFC 4180 quoting, CRLF line ends. The byte-order
mark is what makes Excel on Windows read the file as UTF-8 rather than in the machine's code page
(which garbles "Café" and every non-Latin script); pandas and R's ``read.csv`` drop it, and
Python's csv module does with ``encoding="utf-8-sig"``. One file for everyone rather than an
Excel variant: the people who open a download in Excel are the ones who would not know to ask
for one.

results.csv's header row holds the columns' keys (``estimate``, ``exact_ci_low``...), the same
in every language, so that a script reading them works whatever the file's language;
``?labels=de`` (any shipped language) adds a second header row of the columns' names in that
language, for a spreadsheet (pandas skips it with ``pd.read_csv(path, skiprows=[1])``).

Questions are numbered 1..m in survey order, never by database id: "Q2" in ``responses.csv`` is
``question_number`` 2 in ``results.csv``, whatever survey (or copy of one) they come from.

A text cell that begins with = + - @ tab or carriage return would be run as a formula by
spreadsheet programs; such cells get a leading apostrophe. Numbers are written as numbers
(a negative estimate stays ``-0.03``), so ``pandas.read_csv`` reads them as numbers, rounded to
DECIMALS places: floating-point noise such as ``0.6499999999999999`` never reaches a cell.

``responses.csv`` streams: rows are read from the database in batches and written as they come,
so memory stays flat however many submissions there are.
"""

from __future__ import annotations

import csv
import io
import itertools
import operator
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from flask_babel import force_locale, lazy_gettext
from sqlalchemy import String, select, type_coerce

from survey_app import kinds, privacy
from survey_app.extensions import db
from survey_app.kinds.paired import CELL_SEPARATOR
from survey_app.results import rounding
from survey_app.results.tables import QuestionResult, SurveyResults, shown_range
from survey_app.results.words import bar_label, headline_range_kind
from survey_app.storage.models import Question, Submission, Survey, split_answers
from survey_app.words import format_number, with_unit

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

#: Written at the start of both files: Excel on Windows reads UTF-8 only when it sees it.
BYTE_ORDER_MARK = "\ufeff"

#: Shares, ranges and epsilon are written to this many decimal places: a hundredth of a
#: percentage point. Even a million answers at p = 0.05 (the least the builder suggests) leave
#: a 95% range about ten such steps wide, so rounding it outward widens it by little.
DECIMALS = 4
STEP = 10.0**-DECIMALS

#: Rows fetched from the database and written to the response at a time.
BATCH_SIZE = 5000

RESULTS_HEADER = (
    # The question's position in the survey, 1..m (the JSON API keeps the database ids).
    "question_number",
    "question",
    "option_value",
    "option",
    "n",
    "noisy_count",
    # Unbiased and unclipped: noise can push it below 0 or above 1.
    "estimate",
    # The figure the dashboard, the projector and the API's "headline" give: the estimate
    # kept within 0–1 and within the headline range (privacy.Estimate.headline).
    "headline",
    # The headline range of a closed survey, the one the dashboard shows: the exact guaranteed
    # interval (for a number question's average, the narrowest range its mechanism proves).
    "exact_ci_low",
    "exact_ci_high",
    # Chebyshev's bound with the exact variance, far wider, named for what it is: a bare
    # "ci_low" would pass for the headline range (the JSON API keeps its names: programs read
    # them).
    "chebyshev_ci_low",
    "chebyshev_ci_high",
    "confidence",
    "epsilon",
    # A numeric question's second guaranteed range, from Bernstein's inequality (its row's
    # chebyshev_ci_* hold Chebyshev's; the dashboard shows the narrower). Empty on other rows.
    "bernstein_ci_low",
    "bernstein_ci_high",
    # The exact ranges of a choice question's options at 1 - alpha / k (Bonferroni): all the
    # options' ranges hold at once at the confidence. Empty on numeric rows.
    "simultaneous_ci_low",
    "simultaneous_ci_high",
    # The live range: it holds at every look at once, however often the results were read
    # while the survey was open (the one to use when it was closed early because of them).
    "live_ci_low",
    "live_ci_high",
    # A paired question's two answers, by value: a cell's row (the first question's answer)
    # and column (the second's); a row of one question's own shares fills its own alone
    # (MARGIN_LABEL). Empty on other questions' rows.
    "row_value",
    "column_value",
)

#: The label of a paired question's row for one question's own share: that answer beside
#: "any" answer to the other ("Yes / any": those who said Yes to the first, whatever their
#: second answer), as a cell's label puts its two answers ("Yes / No").
MARGIN_LABEL = "any"


#: Each column's name for people, a catalog message (translated as every page's words are):
#: ``?labels=de`` puts them in German in a second header row, under the keys, which stay the
#: same in every language so that a script reading them works whatever the file's language.
RESULTS_LABELS = {
    "question_number": lazy_gettext("Question number"),
    "question": lazy_gettext("Question’s text"),
    "option_value": lazy_gettext("Answer’s value"),
    "option": lazy_gettext("Answer in words"),
    "n": lazy_gettext("People who answered"),
    "noisy_count": lazy_gettext("Randomized answers counted"),
    "estimate": lazy_gettext("Unbiased estimate"),
    "headline": lazy_gettext("Figure the dashboard shows"),
    "exact_ci_low": lazy_gettext("Exact range: low end"),
    "exact_ci_high": lazy_gettext("Exact range: high end"),
    "chebyshev_ci_low": lazy_gettext("Chebyshev range: low end"),
    "chebyshev_ci_high": lazy_gettext("Chebyshev range: high end"),
    "confidence": lazy_gettext("Confidence level"),
    "epsilon": lazy_gettext("Privacy cost of each question (ε)"),
    "bernstein_ci_low": lazy_gettext("Bernstein range: low end"),
    "bernstein_ci_high": lazy_gettext("Bernstein range: high end"),
    "simultaneous_ci_low": lazy_gettext("Range for all answers at once: low end"),
    "simultaneous_ci_high": lazy_gettext("Range for all answers at once: high end"),
    "live_ci_low": lazy_gettext("Live range: low end"),
    "live_ci_high": lazy_gettext("Live range: high end"),
    "row_value": lazy_gettext("First question’s answer (value)"),
    "column_value": lazy_gettext("Second question’s answer (value)"),
}


def results_labels(language: str) -> list[str]:
    """The results' columns named for people in ``language`` (a shipped one), in the keys'
    order: the second header row of ``results.csv?labels=de``."""
    with force_locale(language):
        return [safe_text(str(RESULTS_LABELS[key])) for key in RESULTS_HEADER]


#: An option label that a spreadsheet turns into a date when it opens the file: "1-2", "3/4",
#: "2024-05-01", "10/12/24" (digits joined by dashes or slashes).
DATE_LIKE = re.compile(r"^\s*\d{1,4}\s*[-/]\s*\d{1,4}(\s*[-/]\s*\d{1,4})?\s*$")


def date_like_labels(labels: Iterable[str]) -> list[str]:
    """The labels that Excel would show as dates in the exports (the value column is kept)."""
    return [label for label in labels if DATE_LIKE.match(label)]


def safe_text(text: str) -> str:
    """Neutralise a text cell that a spreadsheet would run as a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def rounded(value: float | None) -> str:
    """A figure to DECIMALS places, to the nearest: 0.6499999999999999 -> '0.65'; '' for none."""
    if value is None:
        return ""
    return repr(round(rounding.nearest(float(value), STEP), DECIMALS))


def rounded_down(value: float | None) -> str:
    """A range's lower end to DECIMALS places, rounded down so the range still covers as much
    (survey_app.results.rounding: floating-point noise does not turn 0.35 into 0.3499)."""
    if value is None:
        return ""
    return repr(round(rounding.down(float(value), STEP), DECIMALS))


def rounded_up(value: float | None) -> str:
    """A range's upper end (or an epsilon: never less privacy loss than there is), rounded up."""
    if value is None:
        return ""
    return repr(round(rounding.up(float(value), STEP), DECIMALS))


def csv_row(cells: Iterable[object]) -> str:
    """One CSV line with its CRLF, quoted by the csv module's rules."""
    line = io.StringIO()
    csv.writer(line, lineterminator="\r\n").writerow(cells)
    return line.getvalue()


class _Buffer:
    """A file-like object that hands back what the csv writer wrote to it."""

    def __init__(self):
        self._chunks = io.StringIO()

    def write(self, text: str) -> None:
        self._chunks.write(text)

    def take(self) -> str:
        text = self._chunks.getvalue()
        self._chunks.seek(0)
        self._chunks.truncate()
        return text


def csv_lines(header: Iterable[str], rows: Iterable[Iterable[object]]) -> Iterator[str]:
    """The byte-order mark, then RFC 4180 CSV (CRLF line ends, quotes where needed), in batches."""
    buffer = _Buffer()
    buffer.write(BYTE_ORDER_MARK)
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    pending = 0
    for row in rows:
        writer.writerow(row)
        pending += 1
        if pending == BATCH_SIZE:
            yield buffer.take()
            pending = 0
    yield buffer.take()


def response_columns(number: int, question: Question) -> tuple[list[str], Callable[[str], str]]:
    """A question's columns in responses.csv (two; a pair's four): their headers, and its
    cells for a report.

    The first column is what the randomized report says, headed by the question's number and
    text ("Q2 (randomized): How often?": a column of Yes and No under a bare question reads,
    in a spreadsheet, like people's real answers): the option's label, or a number's unbiased
    estimate in its unit (noise takes it far outside the bounds, but the column's average is
    the unbiased average the dashboard shows). The second is the report itself, the one to
    compute with: "Q2 value" (yes/no 1 = yes, 0 = no; a choice, the option's index from 0) or
    "Q1 report" (a number's report, an integer of its mechanism's own scale).

    Two questions asked together (a paired question) have two columns more, for the pair's
    one report read as its two answers, each headed as randomized together with the other:
    "Q3 first value (randomized together): <its text>" and "Q3 second value ...", each the
    answer's value (as "Q3 value" is the cell's, ``first * k2 + second``).

    The cells come as one text, quoted and joined by a comma, keyed by the report as stored
    (:func:`survey_app.storage.models.split_answers`), so that a row is one look-up a question.
    """
    labels = question.option_labels
    unit = f", {question.unit}" if question.unit else ""
    # A number's randomized estimate often falls outside the question's bounds (a
    # sleep of -14.2 hours): the header says so, where whoever opens the file reads first.
    said = (
        "randomized"
        if labels
        else f"randomized estimate{unit}; can fall outside "
        f"{format_number(question.minimum)} to {format_number(question.maximum)}"
    )
    # The header begins with "Q", so it can never start a formula, whatever the text.
    headers = [
        f"Q{number} ({said}): {question.text}",
        f"Q{number} {'value' if labels else 'report'}",
    ]
    mechanism = question.mechanism
    # Questions asked together: a column more for each one's answer in the pair's report.
    parts = kinds.kind_named(question.kind).part_questions(question)
    headers += [
        f"Q{number} {which} value (randomized together): {part.text}"
        for which, part in zip(("first", "second"), parts, strict=False)
    ]
    columns = len(parts[1].labels) if parts else 0

    def cells(stored: str) -> str:
        report = int(stored)
        said = safe_text(labels[report]) if labels else rounded(mechanism.report_value(report))
        answers = divmod(report, columns) if parts else ()
        return csv_row([said, report, *answers]).removesuffix("\r\n")

    return headers, _Cells(cells).__getitem__


class _Cells(dict):
    """A question's cells by stored report, each worked out once, when first met: a dictionary
    look-up a row after that (the export streams a million rows)."""

    def __init__(self, cells: Callable[[str], str]):
        super().__init__()
        self._cells = cells

    def __missing__(self, stored: str) -> str:
        self[stored] = self._cells(stored)
        return self[stored]


def responses_csv(survey: Survey) -> Iterator[str]:
    """Every submission: submission_id, submitted_on, then each question's randomized answer.

    Rows come in submission_id order (random), not in the order they arrived. The query runs
    when the stream is first read, on a connection of its own that lives as long as the stream
    (the request's session may be gone by then), with a server-side cursor where there is one.
    """
    header = ["submission_id", "submitted_on"]
    cells_by_question: list[Callable[[str], str]] = []
    for number, question in enumerate(survey.questions, start=1):
        headers, cells = response_columns(number, question)
        header += headers
        cells_by_question.append(cells)
    query = (
        select(
            Submission.submission_id,
            # As stored: SQLite hands back the ISO text, PostgreSQL a date whose str() is ISO.
            type_coerce(Submission.submitted_on, String),
            Submission.answers,
        )
        .where(Submission.survey_id == survey.id)
        .order_by(Submission.submission_id)
    )
    return _response_lines(BYTE_ORDER_MARK + csv_row(header), query, cells_by_question)


def _response_lines(
    header_line: str, query, cells_by_question: list[Callable[[str], str]]
) -> Iterator[str]:
    yield header_line
    call = operator.call
    with db.engine.connect() as connection:
        result = connection.execution_options(stream_results=True, yield_per=BATCH_SIZE).execute(
            query
        )
        # A UUID and an ISO date need no quoting, and each question's cells come quoted from
        # response_columns, so each line is put together directly: one look-up a question
        # (map and operator.call keep the loop in C; the export streams a million rows).
        for rows in result.partitions():
            yield "".join(
                f"{submission_id},{submitted_on},"
                f"{','.join(map(call, cells_by_question, split_answers(answers)))}\r\n"
                for submission_id, submitted_on, answers in rows
            )


def results_csv(results: SurveyResults, labels: str | None = None) -> Iterator[str]:
    """The keys' header row, then (when ``labels`` names a shipped language) the columns'
    names for people in that language (results_labels), then one row for each row of what a
    question's counts tell (privacy.Row): an option, or a number question's average and then
    each bar of its histogram.

    An option's row has its noisy count, the unbiased estimate, the headline (the figure the
    dashboard gives: privacy.Estimate.headline) and its ranges: the exact range first,
    as on the dashboard; the Chebyshev one headed as such. An average's row has no option
    value or noisy count: its estimate is the unbiased mean (in the question's unit), with the
    narrowest range the mechanism proves as its exact range, then Chebyshev's and Bernstein's
    (clipped to the bounds), and its live range. A bar's row has the bar's number as option
    value, the answers it holds in words as option ("share of 0 to 3 hours", as on the
    dashboard), and its estimated share as estimate.

    Estimates are rounded to the nearest, ranges outward (so they still cover what they
    guarantee), epsilon up (never less privacy loss than there is); the confidence is written
    as asked for (0.95).
    """
    confidence = repr(float(results.confidence))
    epsilon = rounded_up(results.epsilon_per_question)
    kind = headline_range_kind(results)

    def rows():
        for question in results.questions:
            text = safe_text(question.text)
            for row, label, headline, answers in _told_rows(question, kind):
                yield (
                    question.number,
                    text,
                    "" if row.value is None else row.value,
                    safe_text(label),
                    question.n,
                    "" if row.noisy_count is None else row.noisy_count,
                    rounded(row.estimate),
                    rounded(headline),
                    *_range_cells(row.exact),
                    *_range_cells(row.chebyshev),
                    confidence,
                    epsilon,
                    *_range_cells(row.bernstein),
                    *_range_cells(row.simultaneous),
                    *_range_cells(row.live),
                    *answers,
                )

    labelled = [results_labels(labels)] if labels is not None else []
    return csv_lines(RESULTS_HEADER, itertools.chain(labelled, rows()))


def _told_rows(question: QuestionResult, kind: str) -> Iterator[tuple]:
    """Each results row of a question with its label, its headline and its two answers' cells
    (a paired question's row and column values; empty for other questions): its counts' rows,
    then a paired question's rows of each question's own shares (:func:`_margin_rows`)."""
    told = question.told
    paired = isinstance(told, privacy.JointShares)
    for row in told.rows():
        answers = divmod(row.value, told.shape[1]) if paired else ("", "")
        yield row, _row_label(question, row), _headline(question, row, kind), answers
    if paired:
        yield from _margin_rows(question, told, kind)


def _margin_rows(question: QuestionResult, told: privacy.JointShares, kind: str) -> Iterator:
    """A paired question's rows of each question's own shares: "Yes / any" (row_value 1,
    column_value empty) for the first question's, "any / Yes" for the second's; no
    option_value, as none is a cell."""
    for index, (part, margin) in enumerate(zip(question.parts, told.margins, strict=True)):
        for row, estimate in zip(margin.rows(), margin.estimates, strict=True):
            label = part.labels[row.value]
            said = (label, MARGIN_LABEL) if index == 0 else (MARGIN_LABEL, label)
            answers = (row.value, "") if index == 0 else ("", row.value)
            headline = estimate.headline(*shown_range(estimate, kind))
            yield replace(row, value=None), CELL_SEPARATOR.join(said), headline, answers


def _headline(question: QuestionResult, row: privacy.Row, kind: str) -> float | None:
    """A row's figure for people: an option's headline (of the range kind the dashboard leads
    with), an average's mean kept within the bounds, as the dashboard says it, a bar's share."""
    if row.held is not None:
        return row.estimate
    if row.value is None:
        return question.numeric.estimate.headline
    return question.options[row.value].headline(kind)


def _range_cells(ends: tuple[float | None, float | None] | None) -> tuple[str, str]:
    """A range's two cells, rounded outward; empty for a row without a range of that kind."""
    low, high = ends or (None, None)
    return rounded_down(low), rounded_up(high)


def _row_label(question: QuestionResult, row: privacy.Row) -> str:
    """What a results row is, in words: an option's label, a bar's answers, or the average."""
    if row.held is not None:  # "share of 0 to 3 hours", "share of 1 hour"
        return f"share of {with_unit(bar_label(*row.held), question.unit)}"
    if row.value is None:
        return f"average{f' {question.unit}' if question.unit else ''}"
    return question.options[row.value].label
