"""CSV exports: responses.csv and results.csv, read back with the csv module, pandas and R."""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import re
import shutil
import subprocess
import uuid
from collections import Counter

import pandas as pd
import pytest
from pandas.api import types as pd_types
from sqlalchemy import select

from survey_app.accounts.services import create_analyst, create_token, find_analyst
from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.results import exports
from survey_app.storage.models import Submission
from survey_app.surveys.services import close_survey, find_survey

OTHER_EMAIL = "other@example.edu"

RESULTS_HEADER = [
    "question_number",
    "question",
    "option_value",
    "option",
    "n",
    "noisy_count",
    "estimate",
    # The figure the pages give: the estimate kept within 0–1 (and its headline range).
    "headline",
    # The headline range first, as on the dashboard; the Chebyshev one says what it is.
    "exact_ci_low",
    "exact_ci_high",
    "chebyshev_ci_low",
    "chebyshev_ci_high",
    "confidence",
    "epsilon",
    "bernstein_ci_low",
    "bernstein_ci_high",
    # All the options at once, then the range that holds at every look.
    "simultaneous_ci_low",
    "simultaneous_ci_high",
    "live_ci_low",
    "live_ci_high",
    # A paired question's two answers (empty on other rows).
    "row_value",
    "column_value",
]

#: Randomized answers to the sample survey (yes/no, then a 3-option choice).
SAMPLE_ROWS = [(1, 0), (1, 2), (0, 2), (1, 1), (0, 0), (1, 2), (0, 2)]
#: The sample survey's answers as words, by value.
SAMPLE_LABELS = [["No", "Yes"], ["Never", "Once", "Often"]]
RESPONSES_HEADER = [
    "submission_id",
    "submitted_on",
    "Q1 (randomized): Have you ever copied homework?",
    "Q1 value",
    "Q2 (randomized): How often?",
    "Q2 value",
]
BOM = b"\xef\xbb\xbf"
#: A figure in results.csv: an integer, or at most four decimal places (exports.DECIMALS).
SHORT_NUMBER = re.compile(r"-?\d+(\.\d{1,4})?")


# --------------------------------------------------------------------------- helpers


def submit(app, slug: str, rows, submission_ids=None) -> list[str]:
    """Record randomized submissions through the code the submission API runs, then close the
    survey, as a class does before its answers are exported (responses.csv waits for it)."""
    with app.app_context():
        question_ids = [q.id for q in find_survey(slug).questions]
    ids = list(submission_ids or (str(uuid.uuid4()) for _ in rows))
    for submission_id, values in zip(ids, rows, strict=True):
        with app.app_context():
            answers = {str(q): v for q, v in zip(question_ids, values, strict=True)}
            record_submission(slug, {"submission_id": submission_id, "answers": answers})
    close(app, slug)
    return ids


def close(app, slug: str) -> None:
    with app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def csv_url(slug: str, name: str) -> str:
    return f"/api/v1/surveys/{slug}/{name}.csv"


def read_rows(response) -> list[list[str]]:
    """Python's csv module, as the README says to call it (utf-8-sig drops the byte-order mark)."""
    text = response.get_data().decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text, newline="")))


def read_frame(response) -> pd.DataFrame:
    """pandas as people call it, with no encoding given: it must drop the byte-order mark."""
    return pd.read_csv(io.BytesIO(response.get_data()))


@pytest.fixture
def token(app, analyst) -> str:
    with app.app_context():
        token = create_token(find_analyst(analyst))
        db.session.commit()
        return token


@pytest.fixture
def fetch(client, token):
    """GET an export of the analyst's own survey with their token."""

    def get(slug: str, name: str, **query):
        return client.get(csv_url(slug, name), headers=bearer(token), query_string=query)

    return get


def definition(question: str, options: list[str], title: str = "Export check") -> dict:
    return {
        "title": title,
        "flip_probability": 0.25,
        "questions": [
            {"text": question, "type": "yes_no"},
            {"text": "Pick one", "type": "choice", "options": options},
        ],
    }


# --------------------------------------------------------------------------- both files


@pytest.mark.parametrize(
    ("name", "first_column"), [("responses", "submission_id"), ("results", "question_number")]
)
def test_both_files_begin_with_one_byte_order_mark(app, fetch, survey, name, first_column):
    # Excel on Windows reads a CSV as UTF-8 only when it begins with one.
    submit(app, survey[0], SAMPLE_ROWS)
    data = fetch(survey[0], name).get_data()
    assert data.startswith(BOM + first_column.encode() + b",")
    assert data.count(BOM) == 1
    # Read without utf-8-sig, Python keeps the mark in the first name: why the README says so.
    plain = next(csv.reader(io.StringIO(data.decode("utf-8"))))
    assert plain[0] == "\ufeff" + first_column
    assert read_rows(fetch(survey[0], name))[0][0] == first_column
    assert read_frame(fetch(survey[0], name)).columns[0] == first_column


# --------------------------------------------------------------------------- responses.csv


def test_responses_csv_holds_every_submission_in_words_and_values(app, fetch, survey):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    response = fetch(slug, "responses")

    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.mimetype_params.get("charset", "utf-8").lower() == "utf-8"
    named = f"academic-integrity-sample-{dt.date.today()}-randomized-responses.csv"
    assert response.headers["Content-Disposition"] == f'attachment; filename="{named}"'
    assert "no-store" in response.headers["Cache-Control"]
    rows = read_rows(response)
    assert rows[0] == RESPONSES_HEADER
    assert len(rows) == 1 + len(SAMPLE_ROWS)
    with app.app_context():
        stored = db.session.execute(
            select(Submission.submission_id, Submission.submitted_on, Submission.answers)
        ).all()
    expected = []
    for submission_id, day, answers in stored:
        values = [int(value) for value in answers.split(",")]
        answered = [SAMPLE_LABELS[i][value] for i, value in enumerate(values)]
        expected.append(
            [
                submission_id,
                day.isoformat(),
                answered[0],
                str(values[0]),
                answered[1],
                str(values[1]),
            ]
        )
    assert rows[1:] == sorted(expected)
    assert Counter((row[2], row[4]) for row in rows[1:]) == Counter(
        (SAMPLE_LABELS[0][yes_no], SAMPLE_LABELS[1][choice]) for yes_no, choice in SAMPLE_ROWS
    )
    # A day, never a time of day.
    for row in rows[1:]:
        assert dt.date.fromisoformat(row[1]) and len(row[1]) == 10


def test_responses_csv_is_in_submission_id_order_not_arrival_order(app, fetch, survey):
    slug, _ = survey
    ids = sorted((str(uuid.uuid4()) for _ in range(8)), reverse=True)
    submit(app, slug, [(i % 2, i % 3) for i in range(8)], submission_ids=ids)
    exported = [row[0] for row in read_rows(fetch(slug, "responses"))[1:]]
    assert exported == sorted(ids)
    assert exported != ids  # arrival order was the reverse


def test_responses_csv_loads_in_pandas_with_words_and_integer_values(app, fetch, survey):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    frame = read_frame(fetch(slug, "responses"))
    assert list(frame.columns) == RESPONSES_HEADER
    assert frame.shape == (len(SAMPLE_ROWS), 6)
    assert pd_types.is_integer_dtype(frame["Q1 value"])
    assert pd_types.is_integer_dtype(frame["Q2 value"])
    assert Counter(frame["Q2 value"]) == Counter(row[1] for row in SAMPLE_ROWS)
    assert Counter(frame["Q1 (randomized): Have you ever copied homework?"]) == Counter(
        "Yes" if row[0] else "No" for row in SAMPLE_ROWS
    )
    # Each label is its value's, row by row.
    for label, value in zip(frame["Q2 (randomized): How often?"], frame["Q2 value"], strict=True):
        assert label == SAMPLE_LABELS[1][value]


def test_responses_csv_agrees_with_the_results_api(app, client, fetch, token, survey):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    frame = read_frame(fetch(slug, "responses"))
    document = client.get(f"/api/v1/surveys/{slug}/results", headers=bearer(token)).get_json()
    for number, question in enumerate(document["questions"], start=1):
        counts = Counter(frame[f"Q{number} value"])
        words = Counter(frame[f"Q{number} (randomized): {question['text']}"])
        assert [counts[o["value"]] for o in question["options"]] == [
            o["noisy_count"] for o in question["options"]
        ]
        assert [words[o["label"]] for o in question["options"]] == [
            o["noisy_count"] for o in question["options"]
        ]
        assert question["n"] == len(frame)


def test_responses_csv_of_a_survey_without_answers_is_the_header_alone(fetch, make_survey):
    slug, _ = make_survey(status="draft")
    response = fetch(slug, "responses")
    assert response.status_code == 200
    assert response.get_data() == BOM + (
        b"submission_id,submitted_on,Q1 (randomized): Have you ever copied homework?,Q1 value,"
        b"Q2 (randomized): How often?,Q2 value\r\n"
    )
    assert read_frame(response).shape == (0, 6)


def test_columns_are_numbered_by_position_not_database_id(app, fetch, make_survey):
    # Another survey first, so that this one's question ids are not 1..m.
    make_survey()
    slug, question_ids = make_survey(
        {
            "title": "Twice",
            "flip_probability": 0.25,
            "questions": [
                {"text": "Again?", "type": "yes_no"},
                {"text": "Again?", "type": "yes_no"},
            ],
        }
    )
    assert question_ids != [1, 2]
    submit(app, slug, [(1, 0)])
    frame = read_frame(fetch(slug, "responses"))
    # Numbers tell two questions with the same text apart.
    assert list(frame.columns) == [
        "submission_id",
        "submitted_on",
        "Q1 (randomized): Again?",
        "Q1 value",
        "Q2 (randomized): Again?",
        "Q2 value",
    ]
    assert frame.iloc[0].tolist()[2:] == ["Yes", 1, "No", 0]
    assert read_frame(fetch(slug, "results"))["question_number"].tolist() == [1, 1, 2, 2]


# --------------------------------------------------------------------------- results.csv


def numeric_cells(rows: list[list[str]]) -> list[str]:
    """The figures of results.csv: every cell from n onwards, empty ones left out."""
    return [cell for row in rows[1:] for cell in row[4:] if cell]


def test_results_csv_equals_the_results_api_rounded(app, client, fetch, token, survey):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    response = fetch(slug, "results", confidence="0.9")
    document = client.get(
        f"/api/v1/surveys/{slug}/results?confidence=0.9", headers=bearer(token)
    ).get_json()

    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    named = f"academic-integrity-sample-{dt.date.today()}-results.csv"
    assert response.headers["Content-Disposition"] == f'attachment; filename="{named}"'
    rows = read_rows(response)
    assert rows[0] == RESULTS_HEADER
    options = [
        (number, question, option)
        for number, question in enumerate(document["questions"], start=1)
        for option in question["options"]
    ]
    assert len(rows) == 1 + len(options) == 1 + 2 + 3
    step = 10.0**-exports.DECIMALS
    for row, (number, question, option) in zip(rows[1:], options, strict=True):
        assert row[:6] == [
            str(number),
            question["text"],
            str(option["value"]),
            option["label"],
            str(question["n"]),
            str(option["noisy_count"]),
        ]
        estimate, headline, exact_low, exact_high, chebyshev_low, chebyshev_high = row[6:12]
        confidence, epsilon = row[12:14]
        assert row[14:16] == ["", ""]  # Bernstein's range: numeric questions only
        # The estimate to the nearest step; ranges outward, so they still cover what the API's
        # do; epsilon up (1e-9: the tolerance of the rounding, as on the pages).
        assert abs(float(estimate) - option["estimate"]) <= step / 2 + 1e-12
        # The headline as the API names it: the estimate kept within 0–1.
        assert option["headline"] == min(1.0, max(0.0, option["estimate"]))
        assert abs(float(headline) - option["headline"]) <= step / 2 + 1e-12
        # The API's "ci_low", "ci_high" are the Chebyshev range.
        assert option["ci_low"] - step < float(chebyshev_low) <= option["ci_low"] + 1e-9
        assert option["ci_high"] - 1e-9 <= float(chebyshev_high) < option["ci_high"] + step
        assert confidence == "0.9"
        assert document["epsilon_per_question"] - 1e-9 <= float(epsilon)
        assert float(epsilon) < document["epsilon_per_question"] + step
        assert option["exact_ci_low"] - step < float(exact_low) <= option["exact_ci_low"] + 1e-9
        assert option["exact_ci_high"] - 1e-9 <= float(exact_high)
        assert float(exact_high) < option["exact_ci_high"] + step
        for name, low, high in (("simultaneous", *row[16:18]), ("live", *row[18:20])):
            assert option[f"{name}_ci_low"] - step < float(low) <= option[f"{name}_ci_low"] + 1e-9
            assert option[f"{name}_ci_high"] - 1e-9 <= float(high)
            assert float(high) < option[f"{name}_ci_high"] + step


def test_results_csv_has_no_long_floats(app, client, fetch, token, survey):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    document = client.get(f"/api/v1/surveys/{slug}/results", headers=bearer(token)).get_json()
    # Seven answers make sevenths: the API's figures run to 16 digits...
    assert any(len(repr(o["estimate"])) > 10 for q in document["questions"] for o in q["options"])
    # ...the file's stop at four decimal places (and confidence is written as asked for).
    cells = numeric_cells(read_rows(fetch(slug, "results")))
    assert len(cells) == 5 * 14
    assert [cell for cell in cells if not SHORT_NUMBER.fullmatch(cell)] == []


@pytest.mark.parametrize(
    ("function", "value", "written"),
    [
        (exports.rounded, 0.6499999999999999, "0.65"),
        (exports.rounded, 1 / 3, "0.3333"),
        (exports.rounded, 2 / 3, "0.6667"),
        (exports.rounded, -0.5, "-0.5"),
        (exports.rounded, -0.00001, "0.0"),  # never "-0.0"
        (exports.rounded, 3, "3.0"),
        (exports.rounded, None, ""),
        (exports.rounded_down, 1 / 3, "0.3333"),
        (exports.rounded_down, 2 / 3, "0.6666"),
        (exports.rounded_down, 0.35 - 1e-12, "0.35"),  # floating-point noise, not a lower bound
        (exports.rounded_down, 0.34999, "0.3499"),
        (exports.rounded_down, 0.0, "0.0"),
        (exports.rounded_down, None, ""),
        (exports.rounded_up, 1 / 3, "0.3334"),
        (exports.rounded_up, 0.6499999999999999, "0.65"),
        (exports.rounded_up, 0.65001, "0.6501"),
        (exports.rounded_up, 1.0, "1.0"),
        (exports.rounded_up, 1.0986122886681098, "1.0987"),  # ln 3, the epsilon of p = 0.25
        (exports.rounded_up, None, ""),
    ],
)
def test_figures_are_rounded_to_four_places(function, value, written):
    assert function(value) == written


def test_results_csv_loads_in_pandas_with_numeric_columns(app, client, fetch, token, survey):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    frame = read_frame(fetch(slug, "results"))
    document = client.get(f"/api/v1/surveys/{slug}/results", headers=bearer(token)).get_json()

    assert list(frame.columns) == RESULTS_HEADER
    assert len(frame) == 5
    for column in ("question_number", "option_value", "n", "noisy_count"):
        assert pd_types.is_integer_dtype(frame[column]), column
    for column in RESULTS_HEADER[6:]:
        assert pd_types.is_float_dtype(frame[column]), column
    assert frame["question_number"].tolist() == [1, 1, 2, 2, 2]
    options = [o for q in document["questions"] for o in q["options"]]
    # Read back as numbers, the figures are the API's to four places.
    # The file's names beside the API's (which keep "ci_low" for the Chebyshev range).
    for column, field in (
        ("estimate", "estimate"),
        ("exact_ci_low", "exact_ci_low"),
        ("exact_ci_high", "exact_ci_high"),
        ("chebyshev_ci_low", "ci_low"),
        ("chebyshev_ci_high", "ci_high"),
    ):
        api = [o[field] for o in options]
        assert max(abs(frame[column] - api)) < 1e-4, column
    assert frame["noisy_count"].tolist() == [o["noisy_count"] for o in options]
    assert (frame["confidence"] == 0.95).all()
    assert (abs(frame["epsilon"] - document["epsilon_per_question"]) < 1e-4).all()


def test_negative_estimates_stay_numbers(app, fetch, make_survey):
    # Every randomized answer "no": the yes estimate is (0 - p) / (1 - 2p) = -0.5 (the browser's
    # p for 0.25 is exactly 0.25, a multiple of 2**-32).
    slug, _ = make_survey(definition("-1 if you disagree?", ["-", "+"]))
    submit(app, slug, [(0, 0)] * 4)
    response = fetch(slug, "results")
    rows = read_rows(response)
    yes = rows[2]
    assert yes[1] == "'-1 if you disagree?"  # text neutralised...
    assert yes[6] == "-0.5"  # ...numbers not
    frame = read_frame(response)
    assert pd_types.is_float_dtype(frame["estimate"])
    assert frame["estimate"][1] < 0
    assert frame["option"].tolist() == ["No", "Yes", "'-", "'+"]


def test_results_csv_without_answers_leaves_the_figures_empty(fetch, survey):
    slug, _ = survey
    response = fetch(slug, "results")
    rows = read_rows(response)
    assert len(rows) == 6
    for row in rows[1:]:
        assert row[4:6] == ["0", "0"]
        assert row[6:12] == ["", "", "", "", "", ""]
    frame = read_frame(response)
    assert frame["estimate"].isna().all()
    assert pd_types.is_float_dtype(frame["estimate"])


@pytest.mark.parametrize("confidence", ["0", "1", "abc", "nan", "-0.1", "2"])
def test_results_csv_refuses_a_bad_confidence(fetch, survey, confidence):
    response = fetch(survey[0], "results", confidence=confidence)
    assert response.status_code == 400
    assert "confidence" in response.get_json()["error"]


# --------------------------------------------------------------------------- quoting, injection


def test_commas_quotes_and_newlines_are_quoted(app, fetch, make_survey):
    question = 'Commas, "quotes" and\na newline?'
    # Options are one line each (a line break in one is refused); a question may have several.
    options = ["Yes, often", 'He said "no"', "Semi; colon"]
    slug, _ = make_survey(definition(question, options))
    submit(app, slug, [(1, 2), (0, 1)])

    results = fetch(slug, "results")
    raw = results.get_data().decode("utf-8")
    assert '"Commas, ""quotes"" and\na newline?"' in raw
    assert '"He said ""no"""' in raw
    assert raw.endswith("\r\n")
    rows = read_rows(results)
    assert [row[1] for row in rows[1:3]] == [question, question]
    assert [row[3] for row in rows[3:]] == options
    frame = read_frame(results)
    assert frame["question"].tolist()[:2] == [question, question]
    assert frame["option"].tolist()[2:] == options
    assert len(frame) == 5

    responses = fetch(slug, "responses")
    raw = responses.get_data().decode("utf-8-sig")
    assert '"Q1 (randomized): Commas, ""quotes"" and\na newline?",Q1 value,' in raw
    assert '"He said ""no""",1\r\n' in raw
    rows = read_rows(responses)
    assert rows[0][2] == f"Q1 (randomized): {question}"
    assert sorted(row[4] for row in rows[1:]) == sorted([options[2], options[1]])
    frame = read_frame(responses)
    assert list(frame.columns)[2] == f"Q1 (randomized): {question}"
    assert sorted(frame["Q2 (randomized): Pick one"]) == sorted([options[2], options[1]])
    assert sorted(frame["Q2 value"]) == [1, 2]


FORMULA_PREFIXES = ["=", "+", "-", "@"]


@pytest.mark.parametrize("prefix", FORMULA_PREFIXES)
def test_formula_cells_are_neutralised(app, fetch, make_survey, prefix):
    question = f'{prefix}HYPERLINK("http://evil.example","click")'
    option = f"{prefix}cmd|' /C calc'!A0"
    slug, _ = make_survey(definition(question, [option, "Plain"], title=f"{prefix}1+1"))
    submit(app, slug, [(1, 0), (0, 1)])

    results = read_rows(fetch(slug, "results"))
    assert [row[1] for row in results[1:]] == ["'" + question] * 2 + ["Pick one"] * 2
    assert results[3][3] == "'" + option
    assert results[4][3] == "Plain"
    responses = read_rows(fetch(slug, "responses"))
    assert responses[0][2] == f"Q1 (randomized): {question}"  # starts with Q: never a formula
    assert sorted(row[4] for row in responses[1:]) == sorted(["'" + option, "Plain"])
    # No cell of either file starts a formula.
    for row in results + responses:
        for cell in row:
            assert not cell.startswith(tuple(FORMULA_PREFIXES)) or _is_number(cell)

    frame = read_frame(fetch(slug, "results"))
    for column in ("n", "noisy_count"):
        assert pd_types.is_integer_dtype(frame[column])
    for column in ("estimate", "exact_ci_low", "chebyshev_ci_high", "epsilon"):
        assert pd_types.is_float_dtype(frame[column])


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1+1", "'\t=1+1"),
        ("\r=1+1", "'\r=1+1"),
        ("plain", "plain"),
        ("a=b", "a=b"),
        ("", ""),
    ],
)
def test_safe_text(text, written):
    assert exports.safe_text(text) == written


def test_hostile_markup_stays_text_in_the_csv(app, fetch, make_survey):
    question = '<script>alert("x")</script>'
    options = ['" onmouseover="alert(1)', "<b>bold</b>"]
    slug, _ = make_survey(definition(question, options))
    submit(app, slug, [(1, 0)])
    response = fetch(slug, "results")
    assert response.mimetype == "text/csv"  # never served as HTML
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    rows = read_rows(response)
    assert rows[1][1] == question
    assert [row[3] for row in rows[3:]] == options
    rows = read_rows(fetch(slug, "responses"))
    assert rows[0][2] == f"Q1 (randomized): {question}"
    assert rows[1][2:] == ["Yes", "1", options[0], "0"]


UNICODE_QUESTION = "Café — ¿sí? 日本語"
UNICODE_OPTIONS = ["Ünïcödé", "emoji 🎓"]


def test_unicode_text_is_utf8(app, fetch, make_survey):
    slug, _ = make_survey(definition(UNICODE_QUESTION, UNICODE_OPTIONS))
    submit(app, slug, [(1, 1)])
    response = fetch(slug, "results")
    assert response.get_data().startswith(BOM)
    assert UNICODE_QUESTION.encode("utf-8") in response.get_data()
    frame = read_frame(response)
    assert frame["question"][0] == UNICODE_QUESTION
    assert frame["option"].tolist()[2:] == UNICODE_OPTIONS
    frame = read_frame(fetch(slug, "responses"))
    assert frame.columns.tolist()[2] == f"Q1 (randomized): {UNICODE_QUESTION}"
    assert frame["Q2 (randomized): Pick one"].tolist() == [UNICODE_OPTIONS[1]]


# --------------------------------------------------------------------------- R

#: Reads a CSV file as the README says (and as R reads it when told nothing), then prints the
#: names (tab-separated), the class of each column, and each column's values (joined by "|").
R_READER = r"""
path <- commandArgs(trailingOnly = TRUE)[1]
told <- read.csv(path, fileEncoding = "UTF-8-BOM", check.names = FALSE)
plain <- read.csv(path)
writeLines(paste(names(told), collapse = "\t"))
writeLines(paste(names(plain), collapse = "\t"))
writeLines(paste(sapply(told, class), collapse = "\t"))
for (column in told) writeLines(paste(column, collapse = "|"))
"""


def read_in_r(tmp_path, name: str, data: bytes) -> list[str]:
    """What R's read.csv makes of an export: the lines R_READER prints."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        # Like the browser tests without Chromium: a failure, never a skip (.ci/run installs it).
        pytest.fail("Rscript not found: apt-get install r-base-core", pytrace=False)
    path = tmp_path / f"{name}.csv"
    path.write_bytes(data)
    script = tmp_path / "read.R"
    script.write_text(R_READER)
    finished = subprocess.run(
        [rscript, "--vanilla", str(script), str(path)],
        capture_output=True,
        # A UTF-8 locale, as on any current system (R on Windows is UTF-8 since 4.2).
        env={**os.environ, "LC_ALL": "C.UTF-8"},
        timeout=60,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr.decode(errors="replace")
    return finished.stdout.decode("utf-8").splitlines()


@pytest.mark.rscript
def test_r_reads_both_files_with_their_names_intact(app, fetch, make_survey, tmp_path):
    slug, _ = make_survey(definition(UNICODE_QUESTION, UNICODE_OPTIONS))
    submit(app, slug, [(1, 1), (0, 0), (1, 0)])

    responses = read_in_r(tmp_path, "responses", fetch(slug, "responses").get_data())
    names = ["submission_id", "submitted_on", f"Q1 (randomized): {UNICODE_QUESTION}", "Q1 value"]
    names += ["Q2 (randomized): Pick one", "Q2 value"]
    assert responses[0].split("\t") == names
    # Told nothing, R still drops the mark ("X.U.FEFF.submission_id" if it did not) and makes
    # the other names syntactic, as it does with any file.
    assert responses[1].split("\t")[:2] == ["submission_id", "submitted_on"]
    assert responses[1].split("\t")[3:] == ["Q1.value", "Q2..randomized...Pick.one", "Q2.value"]
    assert responses[2].split("\t") == ["character"] * 3 + ["integer", "character", "integer"]
    labels = {"1": "Yes", "0": "No"}
    yes_no, yes_no_values = responses[5].split("|"), responses[6].split("|")
    assert sorted(yes_no_values) == ["0", "1", "1"]
    assert [labels[value] for value in yes_no_values] == yes_no
    choice, choice_values = responses[7].split("|"), responses[8].split("|")
    assert [UNICODE_OPTIONS[int(value)] for value in choice_values] == choice

    results = read_in_r(tmp_path, "results", fetch(slug, "results").get_data())
    assert results[0].split("\t") == RESULTS_HEADER
    assert results[1].split("\t") == RESULTS_HEADER
    classes = dict(zip(RESULTS_HEADER, results[2].split("\t"), strict=True))
    assert [classes[name] for name in ("question_number", "option_value", "n", "noisy_count")] == [
        "integer"
    ] * 4
    assert {classes[name] for name in RESULTS_HEADER[6:14]} == {"numeric"}
    assert results[3] == "1|1|2|2"
    assert results[4].split("|") == [UNICODE_QUESTION] * 2 + ["Pick one"] * 2
    assert results[6].split("|") == ["No", "Yes", *UNICODE_OPTIONS]
    assert results[15] == "0.95|0.95|0.95|0.95"


# --------------------------------------------------------------------------- access


@pytest.mark.parametrize("name", ["responses", "results"])
def test_exports_need_credentials(client, survey, name):
    response = client.get(csv_url(survey[0], name))
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert b"copied homework" not in response.get_data()


@pytest.mark.parametrize("name", ["responses", "results"])
def test_exports_of_someone_elses_survey_are_404(app, client, survey, name, sign_in_as):
    slug = survey[0]
    submit(app, slug, SAMPLE_ROWS)
    with app.app_context():
        other = create_analyst(OTHER_EMAIL, "another long passphrase")
        other_token = create_token(other)
        db.session.commit()
    by_token = client.get(csv_url(slug, name), headers=bearer(other_token))
    assert by_token.status_code == 404
    assert b"copied homework" not in by_token.get_data()
    assert (
        by_token.get_data()
        == client.get(csv_url("no-such-survey", name), headers=bearer(other_token)).get_data()
    )

    sign_in_as(client, OTHER_EMAIL)
    assert client.get(csv_url(slug, name)).status_code == 404


@pytest.mark.parametrize("name", ["responses", "results"])
def test_exports_open_with_the_owners_session(app, client, survey, analyst, name, sign_in_as):
    close(app, survey[0])
    sign_in_as(client, analyst)
    response = client.get(csv_url(survey[0], name))
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.get_data(as_text=True).startswith(
        "\ufeffsubmission_id," if name == "responses" else "\ufeffquestion_number,"
    )


@pytest.mark.parametrize("name", ["responses", "results"])
def test_a_forged_token_is_401(client, survey, name):
    response = client.get(csv_url(survey[0], name), headers=bearer("sat_forged"))
    assert response.status_code == 401


# --------------------------------------------------------------------------- streaming


@pytest.mark.parametrize("name", ["responses", "results"])
def test_exports_stream(app, fetch, survey, name):
    submit(app, survey[0], SAMPLE_ROWS)
    response = fetch(survey[0], name)
    assert response.is_streamed
    assert "Content-Length" not in response.headers


def test_responses_stream_in_batches(app, fetch, survey, monkeypatch):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    monkeypatch.setattr(exports, "BATCH_SIZE", 3)
    response = fetch(slug, "responses")
    chunks = [chunk for chunk in response.response if chunk]
    # The header at once, then 7 rows in batches of 3: 3 rows, 3 rows, then the last one.
    assert len(chunks) == 4
    assert [chunk.count(b"\r\n") for chunk in chunks] == [1, 3, 3, 1]
    text = "".join(c.decode() if isinstance(c, bytes) else c for c in chunks)
    assert text.count("\r\n") == 1 + len(SAMPLE_ROWS)
