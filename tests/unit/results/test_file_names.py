"""Downloads are named by the survey's title and the day, in safe characters, never by its slug."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from survey_app.web.file_names import download_name
from tests.unit.results.test_exports import bearer, submit, token  # noqa: F401  (token is a fixture)

DAY = dt.date(2026, 11, 25)


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Academic integrity", "academic-integrity-2026-11-25-results.csv"),
        ("Café: «quiz» #3 / week 2", "cafe-quiz-3-week-2-2026-11-25-results.csv"),
        ("  ...leading and trailing!!  ", "leading-and-trailing-2026-11-25-results.csv"),
        ("Опрос о честности", "survey-2026-11-25-results.csv"),  # nothing ASCII is left
        ('quote " and back\\slash', "quote-and-back-slash-2026-11-25-results.csv"),
    ],
)
def test_names_fold_to_safe_characters(title, expected):
    assert download_name(title, "results", "csv", DAY) == expected


def test_a_long_title_is_cut_at_a_word_boundary_without_a_trailing_hyphen():
    name = download_name("word " * 40, "results", "csv", DAY)
    title_part = name.removesuffix("-2026-11-25-results.csv")
    assert len(title_part) <= 60
    assert not title_part.endswith("-")
    assert re.fullmatch(r"[a-z0-9-]+", title_part)


def test_every_download_is_named_by_title_and_day(app, client, token, make_survey, close):  # noqa: F811
    """results.csv, responses.csv (closed) and the one-time codes' CSV: title, today, contents."""
    slug, _ = make_survey({**_definition(), "title": "Sleep & study: week 3"})
    today = dt.date.today().isoformat()
    submit(app, slug, [(1, 0)] * 6)
    results = client.get(f"/api/v1/surveys/{slug}/results.csv", headers=bearer(token))
    results.get_data()  # read to its end: the stream's request context ends with it
    assert results.headers["Content-Disposition"] == (
        f'attachment; filename="sleep-study-week-3-{today}-results.csv"'
    )
    close(slug)
    responses = client.get(f"/api/v1/surveys/{slug}/responses.csv", headers=bearer(token))
    responses.get_data()
    assert responses.headers["Content-Disposition"] == (
        f'attachment; filename="sleep-study-week-3-{today}-randomized-responses.csv"'
    )
    assert (
        slug
        not in results.headers["Content-Disposition"] + responses.headers["Content-Disposition"]
    )


def _definition() -> dict:
    return {
        "title": "",
        "flip_probability": 0.25,
        "questions": [
            {"text": "Did you sleep seven hours?", "type": "yes_no"},
            {"text": "Pick one", "type": "choice", "options": ["A", "B", "C"]},
        ],
    }
