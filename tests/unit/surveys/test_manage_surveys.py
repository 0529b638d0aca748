"""Managing surveys: duplicate, archive, delete (asked first), and closing asked first.

Deleting is checked table by table (questions, tallies, submissions, one-time codes). Runs on
SQLite, and on PostgreSQL in CI's second pass.
"""

from __future__ import annotations

import html
import uuid

import pytest
from sqlalchemy import func, select

from survey_app.classroom.codes import issue_codes
from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.storage.models import (
    OneTimeCode,
    Question,
    Submission,
    Survey,
    SurveyStatus,
    Tally,
)
from survey_app.surveys.copies import COPY_MARK, copy_question, copy_title
from survey_app.surveys.services import (
    MAX_TITLE_LENGTH,
    SurveyStateError,
    archive_survey,
    close_survey,
    find_survey,
    open_survey,
)
from tests.analyst_helpers import csrf_token, state_of, submit
from tests.conftest import SAMPLE_DEFINITION

# signed_in, other_analyst: the analyst pages' fixtures (tests/unit/conftest.py).

TITLE = SAMPLE_DEFINITION["title"]
ANSWERS = [(1, 0), (0, 2), (1, 1), (1, 2), (0, 0)]


def token(client) -> str:
    return csrf_token(client.get("/analyst/surveys/new").text)


def post(client, slug: str, action: str, **fields):
    return client.post(
        f"/analyst/surveys/{slug}/{action}", data={"csrf_token": token(client), **fields}
    )


def survey_with_codes(
    app, make_survey, answers: int = 0, codes: int = 8, status: str = "open"
) -> str:
    """A survey that requires one-time codes: ``codes`` issued, ``answers`` of them used.

    Open, unless ``status`` says "draft" or "closed" (closed after the answers).

    It also hides results from the projector until closed: a setting a copy takes.
    """
    slug, question_ids = make_survey(status="draft")
    with app.app_context():
        survey = find_survey(slug)
        issued = issue_codes(survey, codes)
        survey.hide_results_until_closed = True
        if status != "draft":
            open_survey(survey)
        db.session.commit()
    for code, (yes_no, choice) in zip(issued, ANSWERS[:answers], strict=False):
        with app.app_context():
            record_submission(
                slug,
                {
                    "submission_id": str(uuid.uuid4()),
                    "answers": {str(question_ids[0]): yes_no, str(question_ids[1]): choice},
                    "code": code,
                },
            )
    if status == "closed":
        with app.app_context():
            close_survey(find_survey(slug))
            db.session.commit()
    return slug


def rows_of(app, survey_id: int) -> dict[str, int]:
    """How many rows of each table belong to one survey (by id, so also after it is gone)."""
    with app.app_context():
        question_ids = select(Question.id).where(Question.survey_id == survey_id)

        def count(model, *where) -> int:
            return db.session.execute(
                select(func.count()).select_from(model).where(*where)
            ).scalar_one()

        return {
            "surveys": count(Survey, Survey.id == survey_id),
            "questions": count(Question, Question.survey_id == survey_id),
            "tallies": count(Tally, Tally.question_id.in_(question_ids)),
            "submissions": count(Submission, Submission.survey_id == survey_id),
            "one_time_codes": count(OneTimeCode, OneTimeCode.survey_id == survey_id),
        }


def survey_id_of(app, slug: str) -> int:
    with app.app_context():
        return find_survey(slug).id


def listed(client) -> str:
    return client.get("/analyst/").text


# --------------------------------------------------------------------------- duplicate


@pytest.mark.parametrize("status", ["draft", "open", "closed"])
def test_duplicate_copies_the_definition_and_settings_and_nothing_gathered(
    app, signed_in, make_survey, status
):
    answers = 0 if status == "draft" else len(ANSWERS)
    slug = survey_with_codes(app, make_survey, answers=answers, status=status)
    before = state_of(app, slug)

    response = post(signed_in, slug, "duplicate")

    assert response.status_code == 302
    copy_slug = response.headers["Location"].split("/")[-2]
    assert response.headers["Location"].endswith(f"/analyst/surveys/{copy_slug}/edit")
    assert copy_slug != slug
    builder = signed_in.get(f"/analyst/surveys/{copy_slug}/edit").text
    assert f"a copy of “{TITLE}”" in html.unescape(builder)  # the message says what it is
    assert html.escape(TITLE + COPY_MARK) in builder  # the title field, ready to rename

    with app.app_context():
        original, copy = find_survey(slug), find_survey(copy_slug)
        assert copy.owner_id == original.owner_id
        assert copy.title == TITLE + COPY_MARK
        assert copy.intro == original.intro
        assert copy.flip_probability == original.flip_probability
        assert copy.requires_codes is True and copy.hide_results_until_closed is True
        assert copy.status == SurveyStatus.DRAFT
        assert copy.join_code is None and copy.archived is False
        assert [(q.position, q.text, q.kind, q.choices) for q in copy.questions] == [
            (q.position, q.text, q.kind, q.choices) for q in original.questions
        ]
        assert {q.id for q in copy.questions}.isdisjoint(q.id for q in original.questions)
        copy_id = copy.id
    gathered = rows_of(app, copy_id)
    assert gathered == {
        "surveys": 1,
        "questions": 2,
        "tallies": 0,
        "submissions": 0,
        "one_time_codes": 0,
    }
    assert state_of(app, slug) == before  # the original is as it was


def test_a_copied_question_has_every_column_but_its_identity(app, make_survey):
    # Every column of Question, whatever a new question type adds, reaches the copy.
    slug, _ = make_survey(status="open")
    with app.app_context():
        for question in find_survey(slug).questions:
            copied = copy_question(question)
            for column in Question.__table__.columns:
                if column.key in ("id", "survey_id"):
                    assert getattr(copied, column.key) is None
                else:
                    assert getattr(copied, column.key) == getattr(question, column.key)
            if question.choices is not None:  # a list of its own, not the original's
                assert copied.choices is not question.choices


def test_a_long_title_is_shortened_to_fit_its_copy_mark(app, signed_in, make_survey):
    slug, _ = make_survey({**SAMPLE_DEFINITION, "title": "T" * MAX_TITLE_LENGTH})
    copy_slug = post(signed_in, slug, "duplicate").headers["Location"].split("/")[-2]
    with app.app_context():
        title = find_survey(copy_slug).title
    assert len(title) == MAX_TITLE_LENGTH and title.endswith(COPY_MARK)


def copied_titles(app, signed_in, slug: str, times: int, of_the_copy: bool) -> list[str]:
    """Duplicate ``times``, each time the original (or else the last copy); the copies' titles."""
    titles = []
    for _ in range(times):
        copy_slug = post(signed_in, slug, "duplicate").headers["Location"].split("/")[-2]
        with app.app_context():
            titles.append(find_survey(copy_slug).title)
        if of_the_copy:
            slug = copy_slug
    return titles


def test_a_copy_of_a_copy_counts_on_rather_than_piling_marks_up(app, signed_in, make_survey):
    slug, _ = make_survey()
    titles = copied_titles(app, signed_in, slug, 3, of_the_copy=True)
    assert titles == [TITLE + COPY_MARK, TITLE + " (copy 2)", TITLE + " (copy 3)"]


def test_copies_of_one_survey_for_several_sections_are_numbered(app, signed_in, make_survey):
    """The same survey copied for each section: "(copy)", "(copy 2)", "(copy 3)"."""
    slug, _ = make_survey()
    titles = copied_titles(app, signed_in, slug, 3, of_the_copy=False)
    assert titles == [TITLE + COPY_MARK, TITLE + " (copy 2)", TITLE + " (copy 3)"]


@pytest.mark.parametrize(
    "title, copied",
    [
        ("Quiz (copy 9)", "Quiz (copy 10)"),
        ("Quiz (copy of notes)", "Quiz (copy of notes) (copy)"),  # not a mark: left alone
    ],
)
def test_copy_titles(title, copied):
    assert copy_title(title) == copied


def test_a_copy_title_skips_the_owners_titles():
    taken = {"Quiz (copy)", "Quiz (copy 2)", "Quiz (copy 4)"}
    assert copy_title("Quiz", taken) == "Quiz (copy 3)"
    assert copy_title("Quiz (copy 2)", taken) == "Quiz (copy 3)"
    assert copy_title("Quiz (copy 3)", taken) == "Quiz (copy 5)"


def test_a_counted_copy_of_a_full_length_title_still_fits():
    full = "T" * (MAX_TITLE_LENGTH - len(" (copy 9)")) + " (copy 9)"
    copied = copy_title(full)
    assert len(copied) == MAX_TITLE_LENGTH and copied.endswith("T (copy 10)")


def test_a_copy_of_an_archived_survey_is_on_the_list(app, signed_in, make_survey):
    slug, _ = make_survey(status="closed")
    post(signed_in, slug, "archive")
    copy_slug = post(signed_in, slug, "duplicate").headers["Location"].split("/")[-2]
    page = listed(signed_in)
    assert copy_slug in page and f'/analyst/surveys/{slug}"' not in page


# --------------------------------------------------------------------------- archive


@pytest.mark.parametrize("status", ["draft", "closed"])
def test_archive_hides_from_the_list_and_shows_under_archived(app, signed_in, make_survey, status):
    slug, _ = make_survey(status=status)
    kept, _ = make_survey({**SAMPLE_DEFINITION, "title": "Still listed"}, status="draft")
    link = f'href="/analyst/surveys/{slug}"'
    assert link in listed(signed_in) and 'id="archived-link"' not in listed(signed_in)

    response = post(signed_in, slug, "archive")

    assert response.status_code == 302
    dashboard = signed_in.get(response.headers["Location"]).text
    assert "Archived: the survey is off your survey list" in dashboard
    assert 'id="archived-badge"' in dashboard and 'id="unarchive-survey"' in dashboard
    page = listed(signed_in)
    assert link not in page and f'href="/analyst/surveys/{kept}"' in page
    assert 'id="archived-link"' in page and "Archived surveys (1)" in page
    archived = signed_in.get("/analyst/archived")
    assert archived.status_code == 200 and link in archived.text
    assert f'href="/analyst/surveys/{kept}"' not in archived.text
    # Results and exports stay.
    assert signed_in.get(f"/analyst/surveys/{slug}").status_code == 200
    assert signed_in.get(f"/api/v1/surveys/{slug}/results.csv").status_code == 200
    assert signed_in.get(f"/api/v1/surveys/{slug}/responses.csv").status_code == 200

    back = post(signed_in, slug, "unarchive", back="archived")
    assert back.headers["Location"].endswith("/analyst/archived")
    assert link in listed(signed_in) and 'id="archived-link"' not in listed(signed_in)
    assert link not in signed_in.get("/analyst/archived").text


def test_an_open_survey_is_not_archived_and_the_page_says_why(app, signed_in, survey):
    slug, _ = survey
    dashboard = signed_in.get(f"/analyst/surveys/{slug}").text
    assert 'id="archive-survey"' not in dashboard and "close the survey first" in dashboard
    response = post(signed_in, slug, "archive")
    assert response.status_code == 302
    page = signed_in.get(response.headers["Location"]).text
    assert "still taking answers: close it first, then archive it." in page
    with app.app_context():
        assert find_survey(slug).archived is False
    assert f'href="/analyst/surveys/{slug}"' in listed(signed_in)


def test_an_archived_draft_does_not_open_until_put_back(app, signed_in, make_survey):
    slug, _ = make_survey(status="draft")
    post(signed_in, slug, "archive")
    page = signed_in.get(post(signed_in, slug, "open").headers["Location"]).text
    assert "An archived survey cannot open: put it back on your survey list first." in page
    assert state_of(app, slug)["status"] == SurveyStatus.DRAFT
    post(signed_in, slug, "unarchive")
    post(signed_in, slug, "open")
    assert state_of(app, slug)["status"] == SurveyStatus.OPEN


def test_the_rules_hold_outside_the_views_too(app, make_survey):
    slug, _ = make_survey(status="open")
    with app.app_context():
        survey = find_survey(slug)
        with pytest.raises(SurveyStateError, match="close it first"):
            archive_survey(survey)
        db.session.rollback()
        assert find_survey(slug).archived is False


def test_when_everything_is_archived_the_list_says_so(app, signed_in, make_survey):
    slug, _ = make_survey(status="closed")
    post(signed_in, slug, "archive")
    page = listed(signed_in)
    assert "Every one of your surveys is archived" in page and "no surveys yet" not in page


# --------------------------------------------------------------------------- delete


def test_the_delete_page_names_the_survey_and_what_is_lost(app, signed_in, make_survey):
    slug = survey_with_codes(app, make_survey, answers=5, codes=7)
    page = signed_in.get(f"/analyst/surveys/{slug}/delete")
    assert page.status_code == 200
    text = html.unescape(page.text)
    assert f"<h1>Delete “{TITLE}” and its 5 answers?</h1>" in text
    assert "This cannot be undone." in text and "its 7 one-time codes" in text
    assert 'id="delete-open-warning"' in text  # it is open: people answering are turned away
    assert 'name="confirmed" value="yes"' in text and 'id="cancel-delete"' in text


def test_a_survey_no_one_answered_says_so(app, signed_in, make_survey):
    slug, _ = make_survey(status="draft")
    text = html.unescape(signed_in.get(f"/analyst/surveys/{slug}/delete").text)
    assert f"<h1>Delete “{TITLE}”?</h1>" in text and "no one has answered it" in text


def test_delete_removes_the_survey_and_everything_of_it(app, signed_in, make_survey):
    slug = survey_with_codes(app, make_survey, answers=5)
    other = survey_with_codes(app, make_survey, answers=2)
    survey_id, other_id = survey_id_of(app, slug), survey_id_of(app, other)
    assert rows_of(app, survey_id) == {
        "surveys": 1,
        "questions": 2,
        "tallies": 2 + 3,
        "submissions": 5,
        "one_time_codes": 8,
    }
    other_before = rows_of(app, other_id)

    response = post(signed_in, slug, "delete", confirmed="yes")

    assert response.status_code == 302
    assert response.headers["Location"].endswith("/analyst/")
    page = html.unescape(signed_in.get("/analyst/").text)
    assert f"“{TITLE}” and its answers were deleted." in page
    assert rows_of(app, survey_id) == dict.fromkeys(other_before, 0)
    assert rows_of(app, other_id) == other_before  # another survey keeps all of its own
    assert signed_in.get(f"/analyst/surveys/{slug}").status_code == 404
    assert app.test_client().get(f"/s/{slug}").status_code == 404


def submit_to(client, slug: str, question_ids) -> int:
    """A fresh submission's status, sent as a browser would (no code)."""
    body = {
        "submission_id": str(uuid.uuid4()),
        "answers": {str(question_ids[0]): 1, str(question_ids[1]): 2},
    }
    return client.post(f"/api/v1/surveys/{slug}/responses", json=body).status_code


def test_a_deleted_surveys_page_left_open_gets_404(app, signed_in, make_survey):
    """A student's page still open on a deleted survey that this worker knew: 404, not 500."""
    slug, question_ids = make_survey()
    answering = app.test_client()
    assert submit_to(answering, slug, question_ids) == 201  # this worker now knows the survey
    assert post(signed_in, slug, "delete", confirmed="yes").status_code == 302
    assert submit_to(answering, slug, question_ids) == 404
    assert submit_to(answering, slug, question_ids) == 404  # and again, once forgotten
    assert answering.get(f"/s/{slug}").status_code == 404


def test_a_deleted_survey_sends_nothing_to_the_next_one(app, signed_in, make_survey):
    """Nothing sent to a deleted survey is stored in the next one, which SQLite gives the
    deleted one's ids (and which may require one-time codes: they still hold)."""
    slug, question_ids = make_survey()
    answering = app.test_client()
    assert submit_to(answering, slug, question_ids) == 201  # this worker now knows the survey
    deleted_id = survey_id_of(app, slug)
    assert post(signed_in, slug, "delete", confirmed="yes").status_code == 302
    successor = survey_with_codes(app, make_survey, codes=2)
    successor_id = survey_id_of(app, successor)
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        assert successor_id == deleted_id  # the case this test is about
    for _ in range(3):
        assert submit_to(answering, slug, question_ids) == 404
    with app.app_context():
        successor_questions = [question.id for question in find_survey(successor).questions]
    assert submit_to(answering, successor, successor_questions) == 403  # its codes hold
    assert rows_of(app, successor_id)["submissions"] == 0


def test_delete_asks_first(app, signed_in, make_survey):
    slug, _ = make_survey(status="closed")
    survey_id = survey_id_of(app, slug)
    before = rows_of(app, survey_id)
    response = post(signed_in, slug, "delete")  # no confirmation: only the question
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/analyst/surveys/{slug}/delete")
    assert rows_of(app, survey_id) == before
    assert signed_in.get(f"/analyst/surveys/{slug}/delete").status_code == 200
    assert rows_of(app, survey_id) == before  # showing the page deletes nothing


# --------------------------------------------------------------------------- close


def test_close_asks_first_and_says_what_closing_does(app, signed_in, survey):
    slug, _ = survey
    submit(app, slug, ANSWERS[:2])
    dashboard = signed_in.get(f"/analyst/surveys/{slug}").text
    assert f'href="/analyst/surveys/{slug}/close" id="close-survey"' in dashboard

    page = signed_in.get(f"/analyst/surveys/{slug}/close")
    assert page.status_code == 200
    text = " ".join(html.unescape(page.text).split())
    assert f"<h1>Close “{TITLE}”?</h1>" in text
    assert "takes no more answers" in text and "The 2 answers so far" in text
    assert "You can reopen it later" in text
    assert state_of(app, slug)["status"] == SurveyStatus.OPEN

    unconfirmed = post(signed_in, slug, "close")
    assert unconfirmed.status_code == 303
    assert state_of(app, slug)["status"] == SurveyStatus.OPEN

    confirmed = post(signed_in, slug, "close", confirmed="yes")
    assert confirmed.status_code == 302
    assert state_of(app, slug)["status"] == SurveyStatus.CLOSED
    assert "The survey is closed" in signed_in.get(confirmed.headers["Location"]).text


@pytest.mark.parametrize(("status", "words"), [("draft", "cannot close"), ("closed", "already")])
def test_the_close_page_of_a_survey_that_is_not_open_says_why(
    app, signed_in, make_survey, status, words
):
    slug, _ = make_survey(status=status)
    response = signed_in.get(f"/analyst/surveys/{slug}/close")
    assert response.status_code == 302
    assert words in signed_in.get(response.headers["Location"]).text


# --------------------------------------------------------------------------- access, CSRF

#: (method, path after the survey's address, fields): every management request.
MANAGEMENT = [
    ("GET", "/close", {}),
    ("POST", "/close", {"confirmed": "yes"}),
    ("POST", "/duplicate", {}),
    ("POST", "/archive", {}),
    ("POST", "/unarchive", {}),
    ("GET", "/delete", {}),
    ("POST", "/delete", {"confirmed": "yes"}),
]


def everything(app) -> dict:
    """Every survey and how many rows each table holds: what no refused request may change."""
    with app.app_context():
        surveys = db.session.execute(
            select(Survey.slug, Survey.title, Survey.status, Survey.archived).order_by(Survey.id)
        ).all()
    rows = {slug: rows_of(app, survey_id_of(app, slug)) for slug, *_ in surveys}
    return {"surveys": surveys, "rows": rows}


@pytest.mark.parametrize(("method", "path", "fields"), MANAGEMENT)
def test_another_analysts_survey_is_404_and_unchanged(
    app, make_survey, other_analyst, method, path, fields
):
    slug, _ = make_survey(status="open")
    submit(app, slug, ANSWERS[:2])
    before = everything(app)
    data = {"csrf_token": token(other_analyst), **fields} if method == "POST" else None

    response = other_analyst.open(f"/analyst/surveys/{slug}{path}", method=method, data=data)
    missing = other_analyst.open(f"/analyst/surveys/nothing{path}", method=method, data=data)

    assert response.status_code == 404
    assert TITLE not in response.text
    assert response.text == missing.text and missing.status_code == 404
    assert everything(app) == before


@pytest.mark.parametrize(("method", "path", "fields"), [m for m in MANAGEMENT if m[0] == "POST"])
@pytest.mark.parametrize("csrf", ["missing", "garbage"])
def test_a_post_without_its_csrf_token_is_400_and_changes_nothing(
    app, signed_in, make_survey, method, path, fields, csrf
):
    slug, _ = make_survey(status="closed")
    with app.app_context():  # archived, so that "unarchive" would change something too
        find_survey(slug).archived = path == "/unarchive"
        db.session.commit()
    before = everything(app)
    data = dict(fields)
    if csrf == "garbage":
        data["csrf_token"] = "IjAwMCI.not-a-token.at-all"
    response = signed_in.post(f"/analyst/surveys/{slug}{path}", data=data)
    assert response.status_code == 400
    assert everything(app) == before


@pytest.mark.parametrize(("method", "path", "fields"), MANAGEMENT)
def test_management_needs_sign_in(app, client, survey, method, path, fields):
    slug, _ = survey
    before = everything(app)
    response = client.open(f"/analyst/surveys/{slug}{path}", method=method, data=fields)
    assert response.status_code in (302, 400)
    assert TITLE not in response.text
    assert everything(app) == before
    assert client.get("/analyst/archived").status_code == 302


def test_the_archived_list_shows_only_ones_own(app, signed_in, make_survey, other_analyst):
    slug, _ = make_survey(status="closed")
    post(signed_in, slug, "archive")
    assert slug in signed_in.get("/analyst/archived").text
    theirs = other_analyst.get("/analyst/archived").text
    assert slug not in theirs and TITLE not in theirs and 'id="no-archived"' in theirs
