"""A professor whose account asks for German or French gets every page of theirs, whole: a page
whose area is translated (languages.TRANSLATED_AREAS) speaks the language, words and numbers;
every other page speaks English, words and numbers, never English under lang="de". Nothing
that reads a figure back breaks on "2,5"."""

from __future__ import annotations

import pytest

from survey_app.extensions import db
from survey_app.lesson.words import STEPS
from survey_app.storage.models import Analyst
from survey_app.surveys.services import find_survey
from survey_app.web import languages
from tests.analyst_helpers import ROWS, csrf_token, submit
from tests.numeric_helpers import HOURS, submit_numbers


def professor_paths(slug: str, draft: str) -> list[str]:
    """Every page a professor opens for a survey with answers (and a draft's editor)."""
    survey = f"/analyst/surveys/{slug}"
    return [
        "/analyst/",
        "/analyst/surveys/new",
        f"/analyst/surveys/{draft}/edit",
        f"/analyst/surveys/{draft}/preview",
        "/analyst/account",
        "/analyst/archived",
        survey,
        f"{survey}/results-panel",
        f"{survey}/present",
        f"{survey}/present/state",
        f"{survey}/close",
        f"{survey}/delete",
        f"{survey}/lesson.html",
        *(f"{survey}/lesson?step={step}" for step in range(1, len(STEPS) + 1)),
    ]


@pytest.mark.parametrize("language", ["de", "fr"])
def test_every_professor_page_opens_in_the_language_asked_for(
    app, client, analyst, sign_in_as, make_survey, language
):
    slug, (number_id, yes_no_id) = make_survey(HOURS)
    submit_numbers(client, slug, number_id, yes_no_id, [2.5, 7.5, 12.25, 30.0] * 10)
    shares, _ = make_survey()
    submit(app, shares, ROWS)
    draft, _ = make_survey(HOURS, status="draft")
    with app.app_context():
        db.session.execute(db.update(Analyst).values(language=language))
        db.session.commit()
        assert find_survey(slug).questions
    sign_in_as(client, analyst)
    for path in [*professor_paths(slug, draft), *professor_paths(shares, draft)]:
        page = client.get(path, headers={"Accept-Language": "en"})
        assert page.status_code == 200, (path, page.status_code)
        if page.mimetype == "text/html" and page.text.startswith("<!doctype"):
            endpoint = app.url_map.bind("localhost").match(path.split("?")[0])[0]
            # The preview is the students' page, as they see it.
            area = "respondent" if endpoint == "builder.preview" else endpoint.split(".")[0]
            spoken = language if area in languages.TRANSLATED_AREAS else "en"
            assert f'<html lang="{spoken}"' in page.text, path


def test_the_builder_shows_a_bound_back_in_the_languages_digits(
    app, client, analyst, sign_in_as, monkeypatch
):
    """A form sent back with an error shows each bound as typed, "2,5" in German, and reads
    it again as 2.5 (survey_app.builder.form.shown_bound), once the builder speaks German."""
    monkeypatch.setattr(languages, "TRANSLATED_AREAS", languages.TRANSLATED_AREAS | {"builder"})
    with app.app_context():
        db.session.execute(db.update(Analyst).values(language="de"))
        db.session.commit()
    sign_in_as(client, analyst)
    form = {
        "title": "",
        "flip_probability": "0.25",
        "question_text": ["Stunden?"],
        "question_type": ["numeric"],
        "question_min": ["2.5"],
        "question_max": ["40"],
        "question_unit": ["Stunden"],
        "question_mechanism": [""],
        "question_options": [""],
        "csrf_token": csrf_token(client.get("/analyst/surveys/new").text),
    }
    page = client.post("/analyst/surveys/new", data=form)
    assert page.status_code == 400
    assert 'value="2,5"' in page.text
    form["title"] = "Stunden"
    assert client.post("/analyst/surveys/new", data=form).status_code == 302
