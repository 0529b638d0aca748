"""Students see what the class learned: a survey setting, off by default, that shows a closed
survey's results (in the dashboard's words) and how each answer was protected on its page; only
after closing, only when on, and nothing new stored."""

from __future__ import annotations

import copy
import html
import math
import re

import pytest
from sqlalchemy import text

from survey_app.extensions import db
from survey_app.surveys.definition_checks import SurveyDefinitionError
from survey_app.surveys.services import SAMPLE_SURVEY, parse_definition
from tests.numeric_helpers import HOURS, submit_numbers
from tests.unit.classroom.test_projector import csrf_token
from tests.unit.lesson.test_lesson_pages import ROWS
from tests.unit.results.test_results_api import submit, submit_and_close

SHOWING = {**copy.deepcopy(SAMPLE_SURVEY), "show_results_after_close": True}


def words(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_setting_is_off_unless_a_definition_asks():
    assert parse_definition(SAMPLE_SURVEY).show_results_after_close is False
    assert parse_definition(SHOWING).show_results_after_close is True


@pytest.mark.parametrize("value", ["yes", 1, None, "true"])
def test_the_setting_is_true_or_false(value):
    with pytest.raises(SurveyDefinitionError, match="show_results_after_close: must be true or"):
        parse_definition({**SAMPLE_SURVEY, "show_results_after_close": value})


def test_the_builder_saves_and_shows_the_setting(app, client, analyst, sign_in_as):
    sign_in_as(client, analyst)
    page = client.get("/analyst/surveys/new").get_data(as_text=True)
    assert 'id="show_results_after_close"' in page and "checked" not in re.search(
        r'<input type="checkbox" id="show_results_after_close"[^>]*>', page
    ).group(0)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    fields = {
        "csrf_token": token,
        "title": "Built",
        "flip_probability": "0.25",
        "question_text": "Did you?",
        "question_type": "yes_no",
        "action": "save",
    }
    client.post("/analyst/surveys/new", data={**fields, "show_results_after_close": "1"})
    client.post("/analyst/surveys/new", data={**fields, "title": "Built without"})
    with app.app_context():
        from survey_app.storage.models import Survey

        shown = {s.title: s.show_results_after_close for s in db.session.query(Survey).all()}
        slug = db.session.query(Survey).filter_by(title="Built").one().slug
    assert shown == {"Built": True, "Built without": False}
    edit = client.get(f"/analyst/surveys/{slug}/edit").get_data(as_text=True)
    assert re.search(r'id="show_results_after_close"[^>]*checked', edit)


def test_a_duplicate_keeps_the_setting(app, client, make_survey, analyst, sign_in_as):
    slug, _ = make_survey(SHOWING, status="closed")
    sign_in_as(client, analyst)
    client.post(f"/analyst/surveys/{slug}/duplicate", data={"csrf_token": csrf_token(client, slug)})
    with app.app_context():
        from survey_app.storage.models import Survey

        copies = db.session.query(Survey).filter(Survey.slug != slug).all()
        assert [each.show_results_after_close for each in copies] == [True]


def stored(app) -> dict[str, list]:
    """Every row of the tables that hold answers or their counts, in key order."""
    with app.app_context():
        return {
            table: db.session.execute(text(f"SELECT * FROM {table} ORDER BY 1, 2")).all()
            for table in ("submissions", "tallies", "released_tallies", "surveys")
        }


def test_nothing_shows_while_open_or_when_off(app, client, make_survey):
    showing, _ = make_survey(SHOWING)
    submit(app, showing, ROWS)
    page = client.get(f"/s/{showing}")
    assert page.status_code == 200 and 'id="class-results"' not in page.get_data(as_text=True)
    assert client.get(f"/s/{showing}/results").status_code == 403
    draft, _ = make_survey(SHOWING, status="draft")
    assert client.get(f"/s/{draft}/results").status_code == 404
    hidden, _ = make_survey()
    submit_and_close(app, hidden, ROWS)
    closed = client.get(f"/s/{hidden}")
    assert closed.status_code == 410
    assert 'id="class-results"' not in closed.get_data(as_text=True)
    assert client.get(f"/s/{hidden}/results").status_code == 404


def test_a_closed_survey_shows_the_classs_results_in_the_dashboards_words(
    app, client, make_survey, analyst, sign_in_as
):
    slug, _ = make_survey(SHOWING)
    submit_and_close(app, slug, ROWS)
    before = stored(app)
    page = client.get(f"/s/{slug}")
    assert page.status_code == 410  # it takes no more answers; its page says what it learned
    results = client.get(f"/s/{slug}/results")
    assert results.status_code == 200
    assert stored(app) == before, "showing the results stored something"
    said = words(results.get_data(as_text=True))
    assert said == words(page.get_data(as_text=True))
    # The dashboard's own sentences, word for word.
    owner = app.test_client()
    sign_in_as(owner, analyst)
    dashboard = words(owner.get(f"/analyst/surveys/{slug}").get_data(as_text=True))
    sentences = re.findall(r"About \S+ would truly answer “[^”]+”: .*? of the time\.", dashboard)
    assert len(sentences) == 4  # "Yes", and each of the three options
    for sentence in sentences:
        assert sentence in said
    # How each answer was protected: p and epsilon (rounded up: never understated).
    protected = said[said.index("How your answer was protected") :]
    assert "p = 0.25 (25% of the time)" in protected
    epsilon = float(re.search(r"ε = ([\d.]+) a question", protected).group(1))
    assert math.log(3) <= epsilon < math.log(3) + 0.01
    assert "3 times surer" in protected
    # Nothing per person: no submission id, no randomized answer list.
    ids = [row[0] for row in before["submissions"]]
    assert len(ids) == len(ROWS) and not any(identifier in said for identifier in ids)


def test_a_survey_of_one_question_speaks_of_one(app, client, make_survey, analyst, sign_in_as):
    one = {**copy.deepcopy(SHOWING), "questions": SHOWING["questions"][:1]}
    slug, _ = make_survey(one)
    submit_and_close(app, slug, [(value,) for value, _ in ROWS])
    said = words(client.get(f"/s/{slug}/results").get_data(as_text=True))
    epsilon = re.search(r"ε = ([\d.]+) a question: nobody", said)
    assert epsilon and math.log(3) <= float(epsilon.group(1)) < math.log(3) + 0.01
    assert "question:" in said and "for all 1 question" not in said
    sign_in_as(client, analyst)
    budgets = words(client.get(f"/analyst/surveys/{slug}/lesson?step=8").get_data(as_text=True))
    assert "Answering the survey’s one question at ε = " in budgets
    assert "all 1 question" not in budgets


def test_too_few_answers_say_so_in_the_dashboards_words(
    app, client, make_survey, analyst, sign_in_as
):
    slug, _ = make_survey(SHOWING)
    submit_and_close(app, slug, ROWS[:2])
    said = words(client.get(f"/s/{slug}/results").get_data(as_text=True))
    assert "What the class learned 2 people answered." in said
    assert said.count("they show once 10 people have answered") == 1
    sign_in_as(client, analyst)
    dashboard = words(client.get(f"/analyst/surveys/{slug}").get_data(as_text=True))
    waiting = re.findall(
        r"2 people have answered: too early for .*?hides nearly everything\.", dashboard
    )
    assert len(waiting) == len(SHOWING["questions"])
    for sentence in waiting:
        assert sentence in said
    assert "would truly answer" not in said


def test_an_average_is_said_in_the_dashboards_words(app, client, make_survey, analyst, sign_in_as):
    slug, (number_id, yes_no_id) = make_survey({**HOURS, "show_results_after_close": True})
    submit_numbers(client, slug, number_id, yes_no_id, [20.0] * 40)
    submit_and_close(app, slug, [])
    said = words(client.get(f"/s/{slug}/results").get_data(as_text=True))
    sign_in_as(client, analyst)
    dashboard = words(client.get(f"/analyst/surveys/{slug}").get_data(as_text=True))
    headline = re.search(r"On average about .*? of the time\.", dashboard)
    assert headline and headline.group(0) in said


def test_a_survey_without_yes_no_says_what_its_protection_equals():
    from survey_app.respondents.words import protection_words

    explanation = {
        "has_yes_no": False,
        "flip_percent": "25",
        "epsilon": math.log(3),
        "epsilon_total": 2 * math.log(3),
        "question_count": 2,
        "questions": "2 questions",
        "odds": 3.0,
    }
    said = words(protection_words(0.25, explanation))
    assert "as much protection as sending the opposite of a yes/no answer 25% of the time" in said
    assert "(p = 0.25). That is ε = 1.10 a question and ε = 2.20 for all 2 questions:" in said
    assert "with probability" not in said and "3 times surer" in said
