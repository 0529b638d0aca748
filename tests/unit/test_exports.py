"""CSV exports: responses.csv and results.csv, read back with the csv module and with pandas."""

from __future__ import annotations

import csv
import datetime as dt
import io
import uuid
from collections import Counter

import pandas as pd
import pytest
from pandas.api import types as pd_types
from sqlalchemy import select

from survey_app import exports
from survey_app.accounts import create_analyst, create_token, find_analyst
from survey_app.extensions import db
from survey_app.models import Submission
from survey_app.submissions import record_submission
from survey_app.surveys import find_survey

OTHER_EMAIL = "other@example.edu"

RESULTS_HEADER = [
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
    "exact_ci_low",
    "exact_ci_high",
]

#: Randomized answers to the sample survey (yes/no, then a 3-option choice).
SAMPLE_ROWS = [(1, 0), (1, 2), (0, 2), (1, 1), (0, 0), (1, 2), (0, 2)]


# --------------------------------------------------------------------------- helpers


def submit(app, slug: str, rows, submission_ids=None) -> list[str]:
    """Record randomized submissions through the code the submission API runs."""
    with app.app_context():
        question_ids = [q.id for q in find_survey(slug).questions]
    ids = list(submission_ids or (str(uuid.uuid4()) for _ in rows))
    for submission_id, values in zip(ids, rows, strict=True):
        with app.app_context():
            answers = {str(q): v for q, v in zip(question_ids, values, strict=True)}
            record_submission(slug, {"submission_id": submission_id, "answers": answers})
    return ids


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def csv_url(slug: str, name: str) -> str:
    return f"/api/v1/surveys/{slug}/{name}.csv"


def read_rows(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.get_data().decode("utf-8"), newline="")))


def read_frame(response) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(response.get_data()), encoding="utf-8")


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


# --------------------------------------------------------------------------- responses.csv


def test_responses_csv_holds_every_submission_as_stored(app, fetch, survey):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    response = fetch(slug, "responses")

    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.mimetype_params.get("charset", "utf-8").lower() == "utf-8"
    assert response.headers["Content-Disposition"] == f'attachment; filename="responses-{slug}.csv"'
    assert "no-store" in response.headers["Cache-Control"]
    rows = read_rows(response)
    assert rows[0] == [
        "submission_id",
        "submitted_on",
        "Have you ever copied homework?",
        "How often?",
    ]
    assert len(rows) == 1 + len(SAMPLE_ROWS)
    with app.app_context():
        stored = db.session.execute(
            select(Submission.submission_id, Submission.submitted_on, Submission.answers)
        ).all()
    expected = sorted(
        [submission_id, day.isoformat(), *answers.split(",")]
        for submission_id, day, answers in stored
    )
    assert rows[1:] == expected
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


def test_responses_csv_loads_in_pandas_with_integer_values(app, fetch, survey):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    frame = read_frame(fetch(slug, "responses"))
    assert frame.shape == (len(SAMPLE_ROWS), 4)
    assert pd_types.is_integer_dtype(frame["Have you ever copied homework?"])
    assert pd_types.is_integer_dtype(frame["How often?"])
    assert Counter(frame["How often?"]) == Counter(row[1] for row in SAMPLE_ROWS)


def test_responses_csv_agrees_with_the_results_api(app, client, fetch, token, survey):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    frame = read_frame(fetch(slug, "responses"))
    document = client.get(f"/api/v1/surveys/{slug}/results", headers=bearer(token)).get_json()
    for column, question in zip(frame.columns[2:], document["questions"], strict=True):
        counts = Counter(frame[column])
        assert [counts[o["value"]] for o in question["options"]] == [
            o["noisy_count"] for o in question["options"]
        ]
        assert question["n"] == len(frame)


def test_responses_csv_of_a_survey_without_answers_is_the_header_alone(fetch, make_survey):
    slug, _ = make_survey(status="draft")
    response = fetch(slug, "responses")
    assert response.status_code == 200
    assert response.get_data() == (
        b"submission_id,submitted_on,Have you ever copied homework?,How often?\r\n"
    )
    assert read_frame(response).shape == (0, 4)


def test_repeated_question_texts_get_numbered_columns(app, fetch, make_survey):
    slug, _ = make_survey(
        {
            "title": "Twice",
            "flip_probability": 0.25,
            "questions": [
                {"text": "Again?", "type": "yes_no"},
                {"text": "Again?", "type": "yes_no"},
            ],
        }
    )
    submit(app, slug, [(1, 0)])
    frame = read_frame(fetch(slug, "responses"))
    assert list(frame.columns) == ["submission_id", "submitted_on", "Again?", "Again? (2)"]
    assert frame.iloc[0].tolist()[2:] == [1, 0]


# --------------------------------------------------------------------------- results.csv


def test_results_csv_equals_the_results_api(app, client, fetch, token, survey):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    response = fetch(slug, "results", confidence="0.9")
    document = client.get(
        f"/api/v1/surveys/{slug}/results?confidence=0.9", headers=bearer(token)
    ).get_json()

    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == f'attachment; filename="results-{slug}.csv"'
    rows = read_rows(response)
    assert rows[0] == RESULTS_HEADER
    expected = [
        [
            str(question["id"]),
            question["text"],
            str(option["value"]),
            option["label"],
            str(question["n"]),
            str(option["noisy_count"]),
            repr(option["estimate"]),
            repr(option["ci_low"]),
            repr(option["ci_high"]),
            "0.9",
            repr(document["epsilon_per_question"]),
            "" if option["exact_ci_low"] is None else repr(option["exact_ci_low"]),
            "" if option["exact_ci_high"] is None else repr(option["exact_ci_high"]),
        ]
        for question in document["questions"]
        for option in question["options"]
    ]
    assert rows[1:] == expected
    assert len(rows) == 1 + 2 + 3


def test_results_csv_loads_in_pandas_with_numeric_columns(app, client, fetch, token, survey):
    slug, _ = survey
    submit(app, slug, SAMPLE_ROWS)
    frame = read_frame(fetch(slug, "results"))
    document = client.get(f"/api/v1/surveys/{slug}/results", headers=bearer(token)).get_json()

    assert list(frame.columns) == RESULTS_HEADER
    assert len(frame) == 5
    for column in ("question_id", "option_value", "n", "noisy_count"):
        assert pd_types.is_integer_dtype(frame[column]), column
    for column in ("estimate", "ci_low", "ci_high", "confidence", "epsilon"):
        assert pd_types.is_float_dtype(frame[column]), column
    options = [o for q in document["questions"] for o in q["options"]]
    # Read back as numbers, the figures are the API's exactly.
    assert frame["estimate"].tolist() == [o["estimate"] for o in options]
    assert frame["ci_low"].tolist() == [o["ci_low"] for o in options]
    assert frame["ci_high"].tolist() == [o["ci_high"] for o in options]
    assert frame["noisy_count"].tolist() == [o["noisy_count"] for o in options]
    assert (frame["confidence"] == 0.95).all()
    assert (frame["epsilon"] == document["epsilon_per_question"]).all()


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
        assert row[6:9] == ["", "", ""]
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
    header = read_rows(responses)[0]
    assert header[2] == question
    frame = read_frame(responses)
    assert list(frame.columns)[2] == question
    assert len(frame) == 2


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
    assert responses[0][2] == "'" + question
    # No cell of either file starts a formula.
    for row in results + responses:
        for cell in row:
            assert not cell.startswith(tuple(FORMULA_PREFIXES)) or _is_number(cell)

    frame = read_frame(fetch(slug, "results"))
    for column in ("n", "noisy_count"):
        assert pd_types.is_integer_dtype(frame[column])
    for column in ("estimate", "ci_low", "ci_high", "epsilon"):
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


def test_unicode_text_is_utf8(app, fetch, make_survey):
    question = "Café — ¿sí? 日本語"
    options = ["Ünïcödé", "emoji 🎓"]
    slug, _ = make_survey(definition(question, options))
    submit(app, slug, [(1, 1)])
    response = fetch(slug, "results")
    assert question.encode("utf-8") in response.get_data()
    frame = read_frame(response)
    assert frame["question"][0] == question
    assert frame["option"].tolist()[2:] == options
    header = read_frame(fetch(slug, "responses")).columns.tolist()
    assert header[2] == question


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
    sign_in_as(client, analyst)
    response = client.get(csv_url(survey[0], name))
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.get_data(as_text=True).startswith(
        "submission_id," if name == "responses" else "question_id,"
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
