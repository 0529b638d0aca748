"""CSV exports that people open directly: in Excel, pandas, R or any CSV reader.

UTF-8 with a byte-order mark, a header row, RFC 4180 quoting, CRLF line ends. The byte-order
mark is what makes Excel on Windows read the file as UTF-8 rather than in the machine's code page
(which garbles "Café" and every non-Latin script); pandas and R's ``read.csv`` drop it, and
Python's csv module does with ``encoding="utf-8-sig"``. One file for everyone rather than an
Excel variant: the people who open a download in Excel are the ones who would not know to ask
for one.

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
import functools
import io
import operator
import re
from collections.abc import Callable, Iterable, Iterator

import numpy as np
from sqlalchemy import String, select, type_coerce

from survey_app import rounding
from survey_app.extensions import db
from survey_app.models import Question, Submission, Survey
from survey_app.presenters import bar_label
from survey_app.privacy import value_of_grid_index
from survey_app.results import SurveyResults

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
    "estimate",
    # The headline range of a closed survey, the one the dashboard shows: the exact guaranteed
    # interval (for a number question's average, the narrowest range its mechanism proves).
    "exact_ci_low",
    "exact_ci_high",
    # The textbook Chebyshev bound, far wider, named for what it is: a bare "ci_low" would
    # pass for the headline range (the JSON API keeps its names: programs read them).
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
)


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
    (survey_app.rounding: floating-point noise does not turn 0.35 into 0.3499)."""
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


def response_columns(number: int, question: Question) -> tuple[list[str], dict[str, str]]:
    """A question's columns in responses.csv: their headers, and its cells for each stored value.

    A yes/no or choice question has two: the randomized answer's label, headed by the question's
    number and text ("Q2 (randomized): How often?": a column of Yes and No under a bare question
    reads, in a spreadsheet, like people's real answers), then its value ("Q2 value": yes/no
    1 = yes, 0 = no; a choice, the option's index from 0), the one to compute with. The cells
    are keyed by the value as stored (text) and written with their quoting, a comma between
    them, so that a row is a dictionary look-up a question. A question whose answer is a
    number would need one column, the number.
    """
    # The header begins with "Q", so it can never start a formula, whatever the text.
    headers = [f"Q{number} (randomized): {question.text}", f"Q{number} value"]
    cells = {
        str(value): csv_row([safe_text(label), value]).removesuffix("\r\n")
        for value, label in enumerate(question.option_labels)
    }
    return headers, cells


def numeric_response_columns(number: int, question: Question) -> tuple[list[str], Callable]:
    """A numeric question's columns in responses.csv: the randomized number, then the report.

    The first is the report's unbiased estimate of that respondent's number, in the question's
    unit ("Q1 (randomized, hours): ..."): noise makes it stray far outside the bounds, but its
    column's average is the unbiased average the dashboard shows. The second is the report as
    the browser sent it ("Q1 report"), an integer of the mechanism's own scale.
    """
    unit = f", {question.unit}" if question.unit else ""
    headers = [f"Q{number} (randomized{unit}): {question.text}", f"Q{number} report"]
    mechanism = question.mechanism

    @functools.lru_cache(maxsize=4096)
    def cells(stored: str) -> str:
        estimate = mechanism.estimate_of_output(np.array([int(stored)]))[0]
        value = value_of_grid_index(estimate, mechanism.lo, mechanism.hi)
        return f"{rounded(value)},{int(stored)}"

    return headers, cells


def responses_csv(survey: Survey) -> Iterator[str]:
    """Every submission: submission_id, submitted_on, then each question's randomized answer.

    Rows come in submission_id order (random), not in the order they arrived. The query runs
    when the stream is first read, on a connection of its own that lives as long as the stream
    (the request's session may be gone by then), with a server-side cursor where there is one.
    """
    header = ["submission_id", "submitted_on"]
    cells_by_question: list[Callable[[str], str]] = []
    for number, question in enumerate(survey.questions, start=1):
        if question.is_numeric:
            headers, cell = numeric_response_columns(number, question)
            header += headers
            cells_by_question.append(cell)
            continue
        headers, cells = response_columns(number, question)
        header += headers
        cells_by_question.append(cells.__getitem__)
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
                f"{','.join(map(call, cells_by_question, answers.split(',')))}\r\n"
                for submission_id, submitted_on, answers in rows
            )


def results_csv(results: SurveyResults) -> Iterator[str]:
    """One row a question option: the noisy count, the estimate and both its intervals.

    The exact range comes first, as on the dashboard; the Chebyshev one is headed as such.

    Estimates are rounded to the nearest, ranges outward (so they still cover what they
    guarantee), epsilon up (never less privacy loss than there is); the confidence is written
    as asked for (0.95).
    """

    def rows():
        for question in results.questions:
            if question.numeric is not None:
                yield from numeric_result_rows(question, results)
                continue
            for option in question.options:
                yield (
                    question.number,
                    safe_text(question.text),
                    option.value,
                    safe_text(option.label),
                    question.n,
                    option.noisy_count,
                    rounded(option.estimate.estimate),
                    rounded_down(option.estimate.exact_low),
                    rounded_up(option.estimate.exact_high),
                    rounded_down(option.estimate.ci_low),
                    rounded_up(option.estimate.ci_high),
                    repr(float(results.confidence)),
                    rounded_up(results.epsilon_per_question),
                    "",
                    "",
                    rounded_down(option.estimate.simultaneous_low),
                    rounded_up(option.estimate.simultaneous_high),
                    rounded_down(option.estimate.live_low),
                    rounded_up(option.estimate.live_high),
                )

    return csv_lines(RESULTS_HEADER, rows())


def numeric_result_rows(question, results: SurveyResults) -> Iterator[tuple]:
    """A numeric question's rows: its average, then the debiased share of each tenth.

    The average's row has no option value or noisy count; its estimate is the unbiased mean (in
    the question's unit), with the narrowest range the mechanism proves as its exact range, then
    Chebyshev's and Bernstein's (clipped to the bounds), and its live range. Each bin's row has
    the bin's number as option value, its bounds in words as option, and its estimated share as
    estimate.
    """
    result = question.numeric
    estimate = result.estimate
    unit = f" {result.unit}" if result.unit else ""
    confidence = repr(float(results.confidence))
    epsilon = rounded_up(results.epsilon_per_question)
    text = safe_text(question.text)

    def clipped(offset: float | None) -> float | None:
        if estimate.mean is None or offset is None:
            return None
        return min(estimate.hi, max(estimate.lo, estimate.mean + offset))

    chebyshev, bernstein = estimate.chebyshev_half_width, estimate.bernstein_half_width
    yield (
        question.number,
        text,
        "",
        f"average{unit}",
        question.n,
        "",
        rounded(estimate.mean),
        rounded_down(estimate.ci_low),
        rounded_up(estimate.ci_high),
        rounded_down(clipped(None if chebyshev is None else -chebyshev)),
        rounded_up(clipped(chebyshev)),
        confidence,
        epsilon,
        rounded_down(clipped(None if bernstein is None else -bernstein)),
        rounded_up(clipped(bernstein)),
        "",
        "",
        rounded_down(estimate.live_low),
        rounded_up(estimate.live_high),
    )
    # Each bar named by the answers it holds, as on the dashboard: "share of 0 to 3 hours".
    if result.histogram is None:
        return  # the one-bit mechanism: its reports tell the mean alone
    held = result.histogram.answers_held
    for index, share in enumerate(result.histogram.shares):
        label = f"share of {bar_label(*held[index])}{unit}"
        no_ranges = ("", "", "", "")
        yield (
            *(question.number, text, index, label, question.n, "", rounded(share)),
            *(*no_ranges, confidence, epsilon, "", "", *no_ranges),
        )
