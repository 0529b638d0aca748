"""The submission ceiling benchmark's lean endpoints (benchmarks.submission_ceiling) store what
they say: the app's statement, durable or not, stores the submission as the app would; the
round trip alone stores nothing. PostgreSQL only: the benchmark measures PostgreSQL."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import func, select

from benchmarks import submission_ceiling
from survey_app.extensions import db
from survey_app.storage.models import Submission, Survey, UncountedSubmission


@pytest.mark.parametrize(
    ("statement", "stored"), [("lean", 1), ("lean_not_durable", 1), ("round_trip", 0)]
)
def test_each_lean_endpoint_stores_what_it_says(
    app, survey, database_url, monkeypatch, statement, stored
):
    if not database_url.startswith("postgresql"):
        return  # the benchmark runs on PostgreSQL
    slug, (yes_no, choice) = survey
    with app.app_context():
        survey_id = db.session.execute(select(Survey.id).where(Survey.slug == slug)).scalar_one()
    monkeypatch.setenv(
        "LEAN_DATABASE_URL", database_url.replace("postgresql+psycopg", "postgresql")
    )
    monkeypatch.setenv("LEAN_SURVEY_ID", str(survey_id))
    monkeypatch.setenv("LEAN_STATEMENT", statement)
    lean = submission_ceiling.lean_app()
    submission_id = str(uuid.uuid4())
    body = {"submission_id": submission_id, "answers": {str(choice): 2, str(yes_no): 1}}
    try:
        response = lean.test_client().post(f"/api/v1/surveys/{slug}/responses", json=body)
    finally:
        for connection in lean.extensions["lean_connection"].values():
            connection.close()
    assert response.status_code == 201
    with app.app_context():
        rows = db.session.execute(select(Submission.submission_id, Submission.answers)).all()
        queued = db.session.execute(select(func.count()).select_from(UncountedSubmission))
        assert (len(rows), queued.scalar_one()) == (stored, stored)
        if stored:
            encoded = ",".join(str(v) for _, v in sorted({yes_no: 1, choice: 2}.items()))
            assert rows == [(submission_id, encoded)]
