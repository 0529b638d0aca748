"""CSV exports: UTF-8, a header row, RFC 4180 quoting, safe to open in a spreadsheet.

A text cell that begins with = + - @ tab or carriage return would be run as a formula by
spreadsheet programs; such cells get a leading apostrophe. Numbers are written as numbers
(a negative estimate stays ``-0.03``), so ``pandas.read_csv`` reads them as numbers.

``responses.csv`` streams: rows are read from the database in batches and written as they come,
so memory stays flat however many submissions there are.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from sqlalchemy import String, select, type_coerce

from survey_app.extensions import db
from survey_app.models import Submission, Survey
from survey_app.results import SurveyResults

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

#: Rows fetched from the database and written to the response at a time.
BATCH_SIZE = 5000

RESULTS_HEADER = (
    "question_id",
    "question",
    "option_value",
    "option",
    "n",
    "noisy_count",
    "estimate",
    "ci_low",
    "ci_high",
    "confidence",
    "epsilon",
    # The exact guaranteed interval (ci_low, ci_high are the Chebyshev one); empty when the
    # counts are not consistent with the randomization.
    "exact_ci_low",
    "exact_ci_high",
)


def safe_text(text: str) -> str:
    """Neutralise a text cell that a spreadsheet would run as a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _number(value: float | None) -> str:
    """A number as text pandas reads back exactly; empty when there is none (no data)."""
    return "" if value is None else repr(float(value))


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
    """RFC 4180 CSV (CRLF line ends, quotes where needed), a batch of rows at a time."""
    buffer = _Buffer()
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


def question_headers(survey: Survey) -> list[str]:
    """One column a question, headed by its text (numbered where two texts are the same)."""
    seen: dict[str, int] = {}
    headers = []
    for question in survey.questions:
        text = question.text
        seen[text] = seen.get(text, 0) + 1
        headers.append(safe_text(text if seen[text] == 1 else f"{text} ({seen[text]})"))
    return headers


def responses_csv(survey: Survey) -> Iterator[str]:
    """Every submission: submission_id, submitted_on, then each question's randomized value.

    Rows come in submission_id order (random), not in the order they arrived. The query runs
    when the stream is first read, on a connection of its own that lives as long as the stream
    (the request's session may be gone by then), with a server-side cursor where there is one.
    """
    header = ["submission_id", "submitted_on", *question_headers(survey)]
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
    first = io.StringIO()
    csv.writer(first, lineterminator="\r\n").writerow(header)
    return _response_lines(first.getvalue(), query)


def _response_lines(header_line: str, query) -> Iterator[str]:
    yield header_line
    with db.engine.connect() as connection:
        result = connection.execution_options(stream_results=True, yield_per=BATCH_SIZE).execute(
            query
        )
        # Every field is CSV-safe as it is (a UUID, an ISO date, integers joined by commas), so
        # each line is written directly: no quoting can be needed and none is skipped.
        for rows in result.partitions():
            yield "".join(
                f"{submission_id},{submitted_on},{answers}\r\n"
                for submission_id, submitted_on, answers in rows
            )


def results_csv(results: SurveyResults) -> Iterator[str]:
    """One row a question option: the noisy count, the estimate and both its intervals."""
    rows = (
        (
            question.id,
            safe_text(question.text),
            option.value,
            safe_text(option.label),
            question.n,
            option.noisy_count,
            _number(option.estimate.estimate),
            _number(option.estimate.ci_low),
            _number(option.estimate.ci_high),
            _number(results.confidence),
            _number(results.epsilon_per_question),
            _number(option.estimate.exact_low),
            _number(option.estimate.exact_high),
        )
        for question in results.questions
        for option in question.options
    )
    return csv_lines(RESULTS_HEADER, rows)
