"""The analyst's pages: sign-in, CSRF, cookies, redirects, the builder, planning, the dashboard.

Every figure a page shows is compared with what :mod:`survey_app.privacy` computes, formatted as
the page formats it (``presenters.percent``); nothing here re-derives the math.
"""

from __future__ import annotations

import html
import math
import re
import uuid
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa
from sqlalchemy import func, select

from survey_app import planning, privacy
from survey_app.accounts import create_analyst, find_analyst
from survey_app.extensions import db
from survey_app.models import Analyst, Question, Survey, SurveyStatus, Tally
from survey_app.presenters import format_epsilon, format_points, percent, percent_high, percent_low
from survey_app.results import MIN_ANSWERS_FOR_SHARES, survey_results
from survey_app.submissions import record_submission
from survey_app.surveys import create_survey, find_survey, parse_definition
from tests.conftest import SAMPLE_DEFINITION

#: The account the ``analyst`` fixture creates (tests/conftest.py).
ANALYST_EMAIL = "prof@example.edu"
ANALYST_PASSWORD = "correct horse battery"
OTHER_EMAIL = "other@example.edu"
OTHER_PASSWORD = "another long passphrase"

CSRF_FIELD = re.compile(r'name="csrf_token"[^>]*?value="([^"]+)"')

NASTY_TAG = '<script>alert("x")</script>'
ATTRIBUTE_BREAKER = "\" onmouseover='alert(1)' x=\""
HOSTILE_DEFINITION = {
    "title": f"Title {NASTY_TAG}",
    "intro": f"Intro {NASTY_TAG} {ATTRIBUTE_BREAKER}",
    "flip_probability": 0.25,
    "questions": [
        {"text": f"Question {NASTY_TAG} {ATTRIBUTE_BREAKER}", "type": "yes_no"},
        {
            "text": "Pick one",
            "type": "choice",
            "options": [f"</textarea>{NASTY_TAG}", f"{ATTRIBUTE_BREAKER}", "<b>bold</b>"],
        },
    ],
}


# --------------------------------------------------------------------------- helpers


def csrf_token(page: str) -> str:
    match = CSRF_FIELD.search(page)
    assert match, "the page has no CSRF token"
    return match.group(1)


def sign_in(client, email: str = ANALYST_EMAIL, password: str = ANALYST_PASSWORD, **fields):
    """Sign in through the form, as a browser does; returns the POST's response."""
    token = csrf_token(client.get("/analyst/login").text)
    data = {"email": email, "password": password, "csrf_token": token, **fields}
    return client.post("/analyst/login", data=data)


def token_of(client) -> str:
    """A valid CSRF token of the client's (signed-in) session."""
    return csrf_token(client.get("/analyst/surveys/new").text)


def is_signed_in(client) -> bool:
    return client.get("/analyst/").status_code == 200


def builder_fields(
    title: str = "Study habits",
    intro: str = "Answer honestly.",
    flip_probability: str = "0.25",
    questions: list[tuple[str, str, str]] | None = None,
    action: str = "save",
) -> dict:
    """The builder's form fields; a question is (text, type, options one a line)."""
    questions = questions or [
        ("Have you ever copied homework?", "yes_no", ""),
        ("How often?", "choice", "Never\nOnce\nOften"),
    ]
    return {
        "title": title,
        "intro": intro,
        "flip_probability": flip_probability,
        "question_text": [q[0] for q in questions],
        "question_type": [q[1] for q in questions],
        "question_options": [q[2] for q in questions],
        "action": action,
    }


def state_of(app, slug: str) -> dict | None:
    """What is stored of a survey: its fields, status, questions and tallies."""
    with app.app_context():
        survey = find_survey(slug)
        if survey is None:
            return None
        tallies = db.session.execute(
            select(Tally.question_id, Tally.value, func.sum(Tally.noisy_count))
            .group_by(Tally.question_id, Tally.value)
            .join(Question, Question.id == Tally.question_id)
            .where(Question.survey_id == survey.id)
        ).all()
        return {
            "title": survey.title,
            "intro": survey.intro,
            "flip_probability": survey.flip_probability,
            "status": survey.status,
            "owner": survey.owner.email,
            "questions": [(q.text, q.kind.value, q.choices) for q in survey.questions],
            "tallies": sorted(map(tuple, tallies)),
        }


def survey_count(app) -> int:
    with app.app_context():
        return db.session.execute(select(func.count()).select_from(Survey)).scalar_one()


def submit(app, slug: str, rows: list[tuple[int, ...]]) -> None:
    """Record randomized submissions through the same code the submission API runs."""
    with app.app_context():
        question_ids = [q.id for q in find_survey(slug).questions]
    for values in rows:
        with app.app_context():
            body = {
                "submission_id": str(uuid.uuid4()),
                "answers": {
                    str(qid): value for qid, value in zip(question_ids, values, strict=True)
                },
            }
            record_submission(slug, body)


def results_of(app, slug: str | list[str], confidence: float = 0.95):
    """The results of one survey, or of several pooled (a list of slugs)."""
    slugs = [slug] if isinstance(slug, str) else slug
    with app.app_context():
        results = survey_results([find_survey(each) for each in slugs], confidence)
        return {
            "respondents": results.respondents,
            "epsilon": results.epsilon_per_question,
            "epsilon_total": results.epsilon_total,
            "questions": [
                {
                    "id": q.id,
                    "kind": q.kind.value,
                    "n": q.n,
                    "half_width": q.half_width,
                    "widest_exact_half_width": q.widest_exact_half_width,
                    "too_early": q.too_early,
                    "options": [(o.label, o.noisy_count, o.estimate) for o in q.options],
                    "shown": [o.shown_share for o in q.options],
                }
                for q in results.questions
            ],
        }


def section(page: str, question_id: int) -> str:
    """The dashboard's section of one question."""
    start = page.index(f'<section class="result panel" id="question-{question_id}"')
    return page[start : page.index("</section>", start)]


def table_rows(fragment: str) -> list[tuple[str, ...]]:
    """The body rows of the first data table in ``fragment``, as unescaped cell texts."""
    body = fragment[fragment.index("<tbody>") : fragment.index("</tbody>")]
    rows = []
    for row in re.findall(r"<tr\b[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
        rows.append(tuple(html.unescape(re.sub(r"\s+", " ", c)).strip() for c in cells))
    return rows


def svg_blocks(page: str) -> list[str]:
    """The page's result charts (not the QR code of the join link)."""
    return re.findall(r'<svg class="chart".*?</svg>', page, re.S)


def flat(page: str) -> str:
    """The page with every run of white space made one space, to find sentences in it."""
    return re.sub(r"\s+", " ", page)


@pytest.fixture
def signed_in(client, analyst, sign_in_as):
    """The test client, signed in as the ``analyst`` fixture's account."""
    sign_in_as(client, analyst)
    assert is_signed_in(client)
    return client


@pytest.fixture
def other_analyst(app, sign_in_as):
    """A second analyst, signed in on a client of their own."""
    with app.app_context():
        create_analyst(OTHER_EMAIL, OTHER_PASSWORD)
        db.session.commit()
    other = app.test_client()
    sign_in_as(other, OTHER_EMAIL)
    assert is_signed_in(other)
    return other


# --------------------------------------------------------------------------- sign-in


def test_login_page_has_the_form(client):
    page = client.get("/analyst/login")
    assert page.status_code == 200
    assert 'name="email"' in page.text and 'name="password"' in page.text
    assert csrf_token(page.text)


def test_sign_in_then_sign_out(client, analyst):
    assert not is_signed_in(client)
    response = sign_in(client)
    assert response.status_code == 302
    assert response.headers["Location"] == "/analyst/"
    surveys_page = client.get("/analyst/")
    assert surveys_page.status_code == 200
    assert ANALYST_EMAIL in surveys_page.text

    response = client.post("/analyst/logout", data={"csrf_token": csrf_token(surveys_page.text)})
    assert response.status_code == 302
    assert response.headers["Location"] == "/analyst/login"
    assert not is_signed_in(client)


def test_email_is_matched_without_case_or_spaces(client, analyst):
    assert sign_in(client, email="  PROF@Example.EDU ").status_code == 302
    assert is_signed_in(client)


@pytest.mark.parametrize(
    ("email", "password"),
    [
        (ANALYST_EMAIL, "wrong password"),
        (ANALYST_EMAIL, ANALYST_PASSWORD.upper()),
        (ANALYST_EMAIL, ANALYST_PASSWORD + " "),
        ("nobody@example.edu", ANALYST_PASSWORD),
        ("", ""),
        (ANALYST_EMAIL, ""),
    ],
)
def test_bad_sign_in_is_refused(client, analyst, email, password):
    response = sign_in(client, email, password)
    assert response.status_code == 401
    assert 'name="password"' in response.text
    assert not is_signed_in(client)


def test_sign_out_by_get_is_not_possible(signed_in):
    assert signed_in.get("/analyst/logout").status_code == 405
    assert is_signed_in(signed_in)


@pytest.mark.parametrize(
    "path",
    [
        "/analyst/",
        "/analyst/surveys/new",
        "/analyst/surveys/SLUG",
        "/analyst/surveys/SLUG/edit",
        "/analyst/surveys/SLUG/preview",
        "/analyst/surveys/SLUG/results-panel",
        "/analyst/privacy-readout?flip_probability=0.25",
    ],
)
def test_pages_need_sign_in(client, survey, path):
    path = path.replace("SLUG", survey[0])
    response = client.get(path)
    assert response.status_code == 302
    location = urlsplit(response.headers["Location"])
    assert location.path == "/analyst/login"
    assert "Academic integrity" not in response.text


@pytest.mark.parametrize("action", ["open", "close"])
def test_status_buttons_need_sign_in(app, client, survey, action):
    before = state_of(app, survey[0])
    response = client.post(f"/analyst/surveys/{survey[0]}/{action}")
    assert response.status_code in (302, 400)
    assert state_of(app, survey[0]) == before


# --------------------------------------------------------------------------- CSRF


def test_csrf_is_on_in_the_test_app(app):
    # TESTING does not turn Flask-WTF's CSRF off; only WTF_CSRF_ENABLED would.
    assert app.testing
    assert app.config.get("WTF_CSRF_ENABLED", True) is True


def _other_session_token(app) -> str:
    return csrf_token(app.test_client().get("/analyst/login").text)


TOKEN_VARIANTS = ["missing", "garbage", "other-session"]


def _with_token(app, data: dict, variant: str) -> dict:
    data = dict(data)
    if variant == "garbage":
        data["csrf_token"] = "IjAwMCI.not-a-token.at-all"
    elif variant == "other-session":
        data["csrf_token"] = _other_session_token(app)
    return data


@pytest.mark.parametrize("variant", TOKEN_VARIANTS)
def test_login_without_its_token_is_refused(app, client, analyst, variant):
    client.get("/analyst/login")
    data = _with_token(app, {"email": ANALYST_EMAIL, "password": ANALYST_PASSWORD}, variant)
    response = client.post("/analyst/login", data=data)
    assert response.status_code == 400
    assert not is_signed_in(client)


@pytest.mark.parametrize("variant", TOKEN_VARIANTS)
def test_logout_without_its_token_is_refused(app, signed_in, variant):
    response = signed_in.post("/analyst/logout", data=_with_token(app, {}, variant))
    assert response.status_code == 400
    assert is_signed_in(signed_in)


@pytest.mark.parametrize("variant", TOKEN_VARIANTS)
@pytest.mark.parametrize("action", ["save", "add_choice"])
def test_new_survey_without_its_token_is_refused(app, signed_in, variant, action):
    response = signed_in.post(
        "/analyst/surveys/new", data=_with_token(app, builder_fields(action=action), variant)
    )
    assert response.status_code == 400
    assert survey_count(app) == 0


@pytest.mark.parametrize("variant", TOKEN_VARIANTS)
def test_edit_without_its_token_is_refused(app, signed_in, make_survey, variant):
    slug, _ = make_survey(status="draft")
    before = state_of(app, slug)
    data = _with_token(app, builder_fields(title="Changed"), variant)
    response = signed_in.post(f"/analyst/surveys/{slug}/edit", data=data)
    assert response.status_code == 400
    assert state_of(app, slug) == before


@pytest.mark.parametrize("variant", TOKEN_VARIANTS)
@pytest.mark.parametrize(("status", "action"), [("draft", "open"), ("open", "close")])
def test_status_change_without_its_token_is_refused(
    app, signed_in, make_survey, variant, status, action
):
    slug, _ = make_survey(status=status)
    before = state_of(app, slug)
    response = signed_in.post(
        f"/analyst/surveys/{slug}/{action}",
        data=_with_token(app, {"confirmed": "yes"}, variant),
    )
    assert response.status_code == 400
    assert state_of(app, slug) == before


# --------------------------------------------------------------------------- cookies


def session_cookie_header(response) -> str:
    headers = [h for h in response.headers.getlist("Set-Cookie") if h.startswith("session=")]
    assert headers, "no session cookie was set"
    return headers[-1]


def cookie_attributes(header: str) -> set[str]:
    return {part.strip().split("=")[0].lower() for part in header.split(";")[1:]}


def test_session_cookie_over_http_is_httponly_and_lax(client, analyst):
    header = session_cookie_header(sign_in(client))
    attributes = cookie_attributes(header)
    assert "httponly" in attributes
    assert "samesite=lax" in header.lower().replace(" ", "")
    # Plain HTTP on loopback must keep working, so the cookie is not Secure there.
    assert "secure" not in attributes


def https_sign_in(app, referer: str | None):
    client = app.test_client()
    token = csrf_token(client.get("/analyst/login", base_url="https://localhost").text)
    headers = {"Referer": referer} if referer else {}
    return client.post(
        "/analyst/login",
        base_url="https://localhost",
        headers=headers,
        data={"email": ANALYST_EMAIL, "password": ANALYST_PASSWORD, "csrf_token": token},
    )


def test_session_cookie_over_https_is_secure(app, analyst):
    response = https_sign_in(app, referer="https://localhost/analyst/login")
    assert response.status_code == 302
    header = session_cookie_header(response)
    assert {"secure", "httponly"} <= cookie_attributes(header)
    assert "samesite=lax" in header.lower().replace(" ", "")


def test_sign_in_over_https_works_as_a_browser_sends_it(app, analyst):
    # A browser obeying the pages' own Referrer-Policy (no-referrer) sends no Referer header.
    response = app.test_client().get("/analyst/login", base_url="https://localhost")
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert https_sign_in(app, referer=None).status_code == 302


def test_session_cookie_is_secure_when_configured_always(app, analyst):
    app.config["SESSION_COOKIE_SECURE_ALWAYS"] = True
    header = session_cookie_header(sign_in(app.test_client()))
    assert "secure" in cookie_attributes(header)


def test_forwarded_proto_from_an_untrusted_proxy_is_ignored(app, analyst):
    client = app.test_client()
    response = client.get("/analyst/login", headers={"X-Forwarded-Proto": "https"})
    assert "secure" not in cookie_attributes(session_cookie_header(response))


def test_session_cookie_changes_at_sign_in(client, analyst):
    client.get("/analyst/login")
    before = client.get_cookie("session").value
    assert sign_in(client).status_code == 302
    after = client.get_cookie("session").value
    assert after != before
    assert is_signed_in(client)


def test_session_from_before_sign_in_is_not_carried_over(client, analyst):
    with client.session_transaction() as session:
        session["planted"] = "by an attacker"
    assert sign_in(client).status_code == 302
    with client.session_transaction() as session:
        assert "planted" not in session
        assert session.get("_user_id")


# --------------------------------------------------------------------------- passwords


def test_password_is_stored_as_a_scrypt_hash_only(app, analyst):
    with app.app_context():
        stored = find_analyst(ANALYST_EMAIL).password_hash
        assert stored.startswith("scrypt:")
        assert ANALYST_PASSWORD not in stored
        # Nothing in any table holds the password in plain text.
        for table in db.metadata.sorted_tables:
            for row in db.session.execute(sa.select(table)).all():
                assert ANALYST_PASSWORD not in repr(tuple(row))


# --------------------------------------------------------------------------- redirects


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/",
        "http://evil.example/analyst/",
        "//evil.example/",
        "///evil.example/",
        "/\\evil.example/",
        "\\\\evil.example/",
        "/\\/evil.example/",
        "javascript:alert(1)",
        "JavaScript:alert(document.cookie)",
        "http:/evil.example",
        "https:evil.example",
        "/\t/evil.example",
        "/\n/evil.example",
        " //evil.example/",
        "data:text/html,<script>alert(1)</script>",
        "evil.example",
    ],
)
def test_next_never_leaves_the_site(client, analyst, target):
    response = sign_in(client, next=target)
    assert response.status_code == 302
    location = response.headers["Location"]
    assert location == "/analyst/"
    assert is_signed_in(client)


def test_next_from_the_query_string_is_checked_too(client, analyst):
    page = client.get("/analyst/login?next=//evil.example/")
    response = client.post(
        "/analyst/login",
        data={
            "email": ANALYST_EMAIL,
            "password": ANALYST_PASSWORD,
            "csrf_token": csrf_token(page.text),
            "next": "//evil.example/",
        },
    )
    assert response.headers["Location"] == "/analyst/"


@pytest.mark.parametrize("target", ["/analyst/surveys/new", "/analyst/?confidence=0.9"])
def test_next_within_the_site_is_followed(client, analyst, target):
    response = sign_in(client, next=target)
    assert response.headers["Location"] == target


def test_sign_in_returns_to_the_page_that_asked_for_it(client, survey):
    slug = survey[0]
    login_url = client.get(f"/analyst/surveys/{slug}").headers["Location"]
    page = client.get(login_url)
    assert f'value="/analyst/surveys/{slug}"' in page.text  # the hidden next field
    response = client.post(
        "/analyst/login",
        data={
            "email": ANALYST_EMAIL,
            "password": ANALYST_PASSWORD,
            "csrf_token": csrf_token(page.text),
            "next": f"/analyst/surveys/{slug}",
        },
    )
    assert response.headers["Location"] == f"/analyst/surveys/{slug}"


# --------------------------------------------------------------------------- the builder


def slug_from(response) -> str:
    assert response.status_code == 302, response.text
    path = urlsplit(response.headers["Location"]).path
    assert path.startswith("/analyst/surveys/")
    return path.rsplit("/", 1)[1]


def test_builder_page_offers_the_fields(signed_in):
    page = signed_in.get("/analyst/surveys/new")
    assert page.status_code == 200
    for name in ("title", "intro", "flip_probability", "question_text", "question_type"):
        assert f'name="{name}"' in page.text
    for button in ('value="add_yes_no"', 'value="add_choice"', 'value="save"', 'value="remove_0"'):
        assert button in page.text
    assert 'id="privacy-readout"' in page.text


def test_create_survey_with_both_question_types(app, signed_in):
    fields = builder_fields(
        title="  Study habits  ",
        flip_probability="0.2",
        questions=[
            ("Have you ever copied homework?", "yes_no", ""),
            ("How often?", "choice", " Never \n\nOnce\r\n  \nOften\n"),
        ],
    )
    fields["csrf_token"] = token_of(signed_in)
    slug = slug_from(signed_in.post("/analyst/surveys/new", data=fields))

    state = state_of(app, slug)
    assert state["title"] == "Study habits"
    assert state["intro"] == "Answer honestly."
    assert state["flip_probability"] == 0.2
    assert state["status"] == SurveyStatus.DRAFT
    assert state["owner"] == ANALYST_EMAIL
    assert state["questions"] == [
        ("Have you ever copied homework?", "yes_no", None),
        ("How often?", "choice", ["Never", "Once", "Often"]),
    ]
    assert state["tallies"] == []  # a draft has no tallies until it opens
    dashboard = signed_in.get(f"/analyst/surveys/{slug}")
    assert "Draft saved" in dashboard.text


@pytest.mark.parametrize(
    ("action", "expected_types"),
    [
        ("add_yes_no", ["yes_no", "choice", "yes_no"]),
        ("add_choice", ["yes_no", "choice", "choice"]),
        ("remove_0", ["choice"]),
        ("remove_1", ["yes_no"]),
        ("remove_7", ["yes_no", "choice"]),
    ],
)
def test_add_and_remove_buttons_rerender_and_save_nothing(app, signed_in, action, expected_types):
    fields = builder_fields(title="Kept title", action=action)
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post("/analyst/surveys/new", data=fields)
    assert response.status_code == 200
    assert survey_count(app) == 0
    page = response.text
    selected = re.findall(r'<option value="(\w+)" selected>', page)
    assert selected == expected_types
    assert page.count('name="question_text"') == len(expected_types)
    assert 'value="Kept title"' in page
    assert ">Answer honestly.</textarea>" in page
    assert 'value="Have you ever copied homework?"' in page or action == "remove_0"
    assert ("Never\nOnce\nOften</textarea>" in page) is (action != "remove_1")


@pytest.mark.parametrize("action", ["remove_²", "remove_" + "9" * 5000, "remove_-1", "remove_"])
def test_odd_remove_buttons_remove_nothing(app, signed_in, action):
    fields = builder_fields(title="", action=action)  # an empty title: nothing can be saved
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post("/analyst/surveys/new", data=fields)
    assert response.status_code in (200, 400)
    assert response.text.count('name="question_text"') == 2
    assert survey_count(app) == 0


def test_removing_the_last_question_then_saving_is_refused(app, signed_in):
    fields = builder_fields(questions=[("Only one", "yes_no", "")], action="remove_0")
    fields["csrf_token"] = token_of(signed_in)
    page = signed_in.post("/analyst/surveys/new", data=fields).text
    assert 'name="question_text"' not in page
    fields = {k: v for k, v in fields.items() if not k.startswith("question_")}
    fields["action"] = "save"
    response = signed_in.post("/analyst/surveys/new", data=fields)
    assert response.status_code == 400
    assert "questions" in response.text
    assert survey_count(app) == 0


BAD_BUILDER_INPUTS = {
    "empty title": ({"title": "   "}, "title"),
    "long title": ({"title": "T" * 201}, "title"),
    "p = 0.5": ({"flip_probability": "0.5"}, "flip_probability"),
    "p = 0": ({"flip_probability": "0"}, "flip_probability"),
    "p negative": ({"flip_probability": "-0.1"}, "flip_probability"),
    "p above 1": ({"flip_probability": "1.5"}, "flip_probability"),
    "p not a number": ({"flip_probability": "a lot"}, "flip_probability"),
    "p empty": ({"flip_probability": ""}, "flip_probability"),
    "p nan": ({"flip_probability": "nan"}, "flip_probability"),
    "p inf": ({"flip_probability": "inf"}, "flip_probability"),
    "empty question": (
        {"questions": [("", "yes_no", ""), ("How often?", "choice", "A\nB")]},
        "questions[0].text",
    ),
    "one option": (
        {"questions": [("Q", "yes_no", ""), ("How often?", "choice", "Only\n\n")]},
        "questions[1].options",
    ),
    "no options": (
        {"questions": [("Q", "yes_no", ""), ("How often?", "choice", "")]},
        "questions[1].options",
    ),
    "13 options": (
        {"questions": [("Q", "choice", "\n".join(f"Option {i}" for i in range(13)))]},
        "questions[0].options",
    ),
    "repeated options": (
        {"questions": [("Q", "choice", "Same\nSame")]},
        "questions[0].options",
    ),
    "unknown type": ({"questions": [("Q", "free_text", "")]}, "questions[0].type"),
}


@pytest.mark.parametrize(
    ("changes", "field"), BAD_BUILDER_INPUTS.values(), ids=BAD_BUILDER_INPUTS.keys()
)
def test_invalid_builder_input_rerenders_with_400_and_keeps_what_was_typed(
    app, signed_in, changes, field
):
    fields = builder_fields(**changes)
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post("/analyst/surveys/new", data=fields)

    assert response.status_code == 400
    assert survey_count(app) == 0
    page = response.text
    error = re.search(
        r'<div class="notice error" role="alert" id="builder-error">(.*?)</div>', page, re.S
    )
    assert error and html.escape(field, quote=True) in error.group(1)
    # What was typed is still there, to be corrected rather than typed again.
    assert f'value="{html.escape(fields["title"], quote=True)}"' in page
    assert f'value="{html.escape(shown_number(fields["flip_probability"]), quote=True)}"' in page
    for text in fields["question_text"]:
        assert f'name="question_text" value="{html.escape(text, quote=True)}"' in page
    for options in fields["question_options"]:
        if options.strip():
            lines = [line.strip() for line in options.splitlines() if line.strip()]
            assert html.escape("\n".join(lines), quote=True) in page


def shown_number(typed: str) -> str:
    """The builder shows a typed number as Python reads it ("0" -> "0.0"), other text as is."""
    try:
        return str(float(typed))
    except ValueError:
        return typed


def test_edit_a_draft(app, signed_in, make_survey):
    slug, _ = make_survey(status="draft")
    page = signed_in.get(f"/analyst/surveys/{slug}/edit")
    assert page.status_code == 200
    assert f'value="{SAMPLE_DEFINITION["title"]}"' in page.text
    assert 'value="Have you ever copied homework?"' in page.text
    assert "Never\nOnce\nOften</textarea>" in page.text
    assert 'value="0.25"' in page.text

    fields = builder_fields(
        title="Renamed",
        intro="",
        flip_probability="0.3",
        questions=[("Which lab?", "choice", "Chemistry\nPhysics"), ("Goggles on?", "yes_no", "")],
    )
    fields["csrf_token"] = csrf_token(page.text)
    response = signed_in.post(f"/analyst/surveys/{slug}/edit", data=fields)
    assert slug_from(response) == slug
    state = state_of(app, slug)
    assert state["title"] == "Renamed"
    assert state["intro"] == ""
    assert state["flip_probability"] == 0.3
    assert state["status"] == SurveyStatus.DRAFT
    assert state["questions"] == [
        ("Which lab?", "choice", ["Chemistry", "Physics"]),
        ("Goggles on?", "yes_no", None),
    ]


def test_invalid_edit_changes_nothing(app, signed_in, make_survey):
    slug, _ = make_survey(status="draft")
    before = state_of(app, slug)
    fields = builder_fields(title="Renamed", flip_probability="0.6")
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post(f"/analyst/surveys/{slug}/edit", data=fields)
    assert response.status_code == 400
    assert 'value="Renamed"' in response.text
    assert state_of(app, slug) == before


@pytest.mark.parametrize("status", ["open", "closed"])
def test_editing_a_survey_that_has_opened_is_refused(app, signed_in, make_survey, status):
    slug, _ = make_survey(status=status)
    if status == "open":
        submit(app, slug, [(1, 0)])
    before = state_of(app, slug)

    page = signed_in.get(f"/analyst/surveys/{slug}/edit")
    assert page.status_code == 302
    assert urlsplit(page.headers["Location"]).path == f"/analyst/surveys/{slug}"

    fields = builder_fields(title="Sneaky change", flip_probability="0.45")
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post(f"/analyst/surveys/{slug}/edit", data=fields)
    assert response.status_code == 302
    assert state_of(app, slug) == before
    dashboard = signed_in.get(f"/analyst/surveys/{slug}").text
    assert "can no longer change" in dashboard
    assert 'id="edit-survey"' not in dashboard


# --------------------------------------------------------------------------- open, close


def press(client, slug: str, action: str, **fields):
    page = client.get(f"/analyst/surveys/{slug}")
    return client.post(
        f"/analyst/surveys/{slug}/{action}",
        data={"csrf_token": csrf_token(page.text), **fields},
    )


def test_open_then_close_then_reopen(app, signed_in, make_survey):
    slug, question_ids = make_survey(status="draft")
    dashboard = signed_in.get(f"/analyst/surveys/{slug}").text
    assert 'id="open-survey"' in dashboard and 'id="close-survey"' not in dashboard
    assert 'id="respondent-link"' not in dashboard
    assert app.test_client().get(f"/s/{slug}").status_code == 404

    assert press(signed_in, slug, "open").status_code == 302
    state = state_of(app, slug)
    assert state["status"] == SurveyStatus.OPEN
    # Opening freezes the mechanism: a zero tally for every value of every question.
    assert state["tallies"] == [(question_ids[0], v, 0) for v in range(2)] + [
        (question_ids[1], v, 0) for v in range(3)
    ]
    dashboard = signed_in.get(f"/analyst/surveys/{slug}").text
    assert f'id="respondent-link" value="http://localhost/s/{slug}" readonly' in dashboard
    assert 'id="copy-link"' in dashboard
    assert 'id="close-survey"' in dashboard and 'id="open-survey"' not in dashboard
    assert app.test_client().get(f"/s/{slug}").status_code == 200

    # Closing asks first (tests/unit/test_manage_surveys.py has the rest of that page).
    asked = press(signed_in, slug, "close")
    assert asked.status_code == 303 and asked.headers["Location"].endswith(f"/{slug}/close")
    assert state_of(app, slug)["status"] == SurveyStatus.OPEN
    assert press(signed_in, slug, "close", confirmed="yes").status_code == 302
    assert state_of(app, slug)["status"] == SurveyStatus.CLOSED
    assert app.test_client().get(f"/s/{slug}").status_code == 410
    dashboard = signed_in.get(f"/analyst/surveys/{slug}").text
    assert "Reopen" in dashboard and 'id="respondent-link"' in dashboard

    assert press(signed_in, slug, "open").status_code == 302
    assert state_of(app, slug)["status"] == SurveyStatus.OPEN


def test_closing_a_draft_is_refused_with_a_message(app, signed_in, make_survey):
    slug, _ = make_survey(status="draft")
    page = signed_in.get(f"/analyst/surveys/{slug}")
    response = signed_in.post(
        f"/analyst/surveys/{slug}/close",
        data={"csrf_token": csrf_token(page.text), "confirmed": "yes"},
    )
    assert response.status_code == 302
    assert state_of(app, slug)["status"] == SurveyStatus.DRAFT
    assert "cannot close" in signed_in.get(f"/analyst/surveys/{slug}").text


def test_status_buttons_only_take_post(app, signed_in, survey):
    before = state_of(app, survey[0])
    assert signed_in.get(f"/analyst/surveys/{survey[0]}/open").status_code == 405
    # Closing's address shows its confirmation page; only that page's POST closes.
    assert 'id="confirm-close"' in signed_in.get(f"/analyst/surveys/{survey[0]}/close").text
    assert state_of(app, survey[0]) == before


# --------------------------------------------------------------------------- preview


@pytest.mark.parametrize("status", ["draft", "open", "closed"])
def test_preview_shows_the_respondent_page_and_can_send_nothing(signed_in, make_survey, status):
    slug, question_ids = make_survey(status=status)
    response = signed_in.get(f"/analyst/surveys/{slug}/preview")
    assert response.status_code == 200
    page = response.text
    assert 'id="preview-notice"' in page
    assert f"<h1>{SAMPLE_DEFINITION['title']}</h1>" in page
    assert "Have you ever copied homework?" in page
    for label in ("Never", "Once", "Often"):
        assert label in page
    for question_id in question_ids:
        assert f'data-question-id="{question_id}"' in page
    # Nothing can be sent from a preview: no script runs, no form exists.
    assert "<script" not in page
    assert "<form" not in page
    assert "ε&nbsp;=&nbsp;1.10" in page


# --------------------------------------------------------------------------- readout


@pytest.mark.parametrize("flip_probability", [0.01, 0.1, 0.3, 0.49])
@pytest.mark.parametrize("questions", [1, 7])
def test_readout_figures(signed_in, flip_probability, questions):
    response = signed_in.get(
        f"/analyst/privacy-readout?flip_probability={flip_probability}&questions={questions}"
    )
    assert response.status_code == 200
    readout = response.get_json()
    epsilon = privacy.epsilon_from_flip_probability(flip_probability)
    assert readout["ok"] is True
    assert readout["flip_probability"] == flip_probability
    assert readout["epsilon"] == epsilon
    assert readout["epsilon_total"] == pytest.approx(questions * epsilon, rel=1e-12)
    assert readout["question_count"] == questions
    assert readout["odds"] == pytest.approx((1 - flip_probability) / flip_probability)
    # With a 50/50 prior, an observer seeing "yes" is at most 1 - p sure.
    assert float(readout["deniability_percent"]) == pytest.approx(100 * (1 - flip_probability))
    assert float(readout["flip_percent"]) == pytest.approx(100 * flip_probability)
    summary = readout["summary"]
    assert f"ε = {format_epsilon(epsilon)} a question" in summary
    assert f"{format_epsilon(readout['epsilon_total'])} for {questions} question" in summary


def test_readout_rounds_epsilon_up(signed_in):
    # ln(0.79 / 0.21) = 1.32493...: never shown as the smaller 1.32
    readout = signed_in.get("/analyst/privacy-readout?flip_probability=0.21&questions=1").json
    assert readout["epsilon"] == pytest.approx(1.3249, abs=1e-4)
    assert "ε = 1.33 a question; 1.33 for 1 question" in readout["summary"]


def test_readout_at_a_quarter_is_ln3(signed_in):
    readout = signed_in.get("/analyst/privacy-readout?flip_probability=0.25&questions=2").json
    assert readout["epsilon"] == pytest.approx(math.log(3), rel=1e-12)
    assert readout["epsilon_total"] == pytest.approx(2 * math.log(3), rel=1e-12)
    assert readout["flip_percent"] == "25"
    assert readout["deniability_percent"] == "75"


@pytest.mark.parametrize(
    "value", ["", "abc", "0", "0.5", "0.7", "1", "-0.1", "nan", "inf", "-inf", "0x1", "1e400"]
)
def test_readout_refuses_impossible_flip_probabilities(signed_in, value):
    response = signed_in.get("/analyst/privacy-readout", query_string={"flip_probability": value})
    assert response.status_code == 200
    readout = response.get_json()
    assert readout["ok"] is False
    assert "0.5" in readout["error"]
    assert "epsilon" not in readout


@pytest.mark.parametrize(
    ("questions", "counted"),
    [("abc", 1), ("0", 1), ("-3", 1), ("999", 50), ("²", 1), ("9" * 5000, 1), ("٣", 3)],
    ids=["letters", "zero", "negative", "many", "superscript", "5000 digits", "arabic-indic"],
)
def test_readout_question_count_is_kept_in_range(signed_in, questions, counted):
    readout = signed_in.get(
        "/analyst/privacy-readout",
        query_string={"flip_probability": "0.25", "questions": questions},
    ).json
    assert readout["question_count"] == counted


def test_builder_readout_counts_the_survey_questions(signed_in, make_survey):
    slug, _ = make_survey(status="draft")  # two questions
    page = signed_in.get(f"/analyst/surveys/{slug}/edit").text
    total = 2 * math.log(3)
    assert f"{total:.2f} for 2 questions" in page


# --------------------------------------------------------------------------- planning


def figures(page: str, element_id: str) -> str:
    match = re.search(rf'<p id="{element_id}">(.*?)</p>', page, re.S)
    assert match, element_id
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", match.group(1)))).strip()


def needed(p: float, k: int, margin: float, confidence: float) -> int:
    """Respondents for a margin, the exact way (privacy's planned figure)."""
    return privacy.RandomizedResponse(p, k).respondents_for(margin, confidence)


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
@pytest.mark.parametrize("margin_points", [None, 20])
def test_planning_respondents_needed(app, signed_in, survey, confidence, margin_points):
    slug = survey[0]
    query = {"confidence": confidence}
    if margin_points is not None:
        query["margin"] = margin_points
    margin = (margin_points or 10) / 100
    page = signed_in.get(f"/analyst/surveys/{slug}", query_string=query).text

    needed_yes_no = needed(0.25, 2, margin, confidence)
    needed_choice = needed(0.25, 3, margin, confidence)
    chebyshev = privacy.RandomizedResponse(0.25, 3).respondents_for_chebyshev(margin, confidence)
    text = figures(page, "plan-needed")
    assert f"±{format_points(margin)} points" in text
    assert f"at {percent(confidence)} confidence" in text
    assert needed_choice > needed_yes_no  # 3 options need more answers than 2
    assert f"about {needed_choice:,} respondents" in text
    assert f"({needed_yes_no:,} for its yes/no questions alone)" in text
    assert f"The textbook Chebyshev bound would ask for {chebyshev:,}." in text
    assert figures(page, "plan-now") == "No one has answered yet."

    # The trade-off table: the margin each class size reaches and the respondents each p
    # needs for this margin (exact, then Chebyshev), straight from privacy.
    table = page[
        page.index(
            '<caption class="visually-hidden">How privacy, class size and precision trade off'
        ) :
    ]
    rows = table_rows(table)
    assert len(rows) == len(planning.TRADE_OFF_FLIP_PROBABILITIES) >= 3
    for row, p in zip(rows, planning.TRADE_OFF_FLIP_PROBABILITIES, strict=True):
        mechanism = privacy.RandomizedResponse(p)
        assert row[0].startswith(percent(p))
        assert ("(this survey)" in row[0]) == (p == 0.25)
        assert row[1] == format_epsilon(privacy.epsilon_from_flip_probability(p))
        margins = [
            f"±{format_points(mechanism.planned_half_width(size, confidence))}"
            for size in planning.TRADE_OFF_SIZES
        ]
        assert list(row[2:-2]) == margins
        assert row[-2] == f"{mechanism.respondents_for(margin, confidence):,}"
        assert row[-1] == f"{mechanism.respondents_for_chebyshev(margin, confidence):,}"


def test_planning_margin_reached_by_the_current_respondents(app, signed_in, survey):
    slug = survey[0]
    submit(app, slug, [(1, 0), (0, 2), (1, 1), (1, 2), (0, 0)])
    page = signed_in.get(f"/analyst/surveys/{slug}?confidence=0.9").text
    yes_no, choice = privacy.RandomizedResponse(0.25, 2), privacy.RandomizedResponse(0.25, 3)
    reached = max(yes_no.planned_half_width(5, 0.9), choice.planned_half_width(5, 0.9))
    chebyshev = max(yes_no.chebyshev_half_width(5, 0.9), choice.chebyshev_half_width(5, 0.9))
    text = figures(page, "plan-now")
    assert text.startswith("With the 5 respondents so far")
    assert f"within about ±{format_points(reached)} points" in text
    assert f"(the textbook Chebyshev bound: ±{format_points(chebyshev)} points)" in text
    assert reached >= planning.NEXT_TO_NOTHING
    assert "says next to nothing yet" in text


def test_plan_figures_equal_the_privacy_functions(app, survey):
    slug = survey[0]
    submit(app, slug, [(1, 0)] * 40)
    with app.app_context():
        plan = planning.make_plan(find_survey(slug), 0.15, 0.95)
    yes_no, choice = privacy.RandomizedResponse(0.25, 2), privacy.RandomizedResponse(0.25, 3)
    assert plan.needed_yes_no == yes_no.respondents_for(0.15, 0.95)
    assert plan.needed_worst == max(plan.needed_yes_no, choice.respondents_for(0.15, 0.95))
    assert plan.needed_chebyshev == max(
        yes_no.respondents_for_chebyshev(0.15, 0.95), choice.respondents_for_chebyshev(0.15, 0.95)
    )
    assert plan.margin_now == max(
        yes_no.planned_half_width(40, 0.95), choice.planned_half_width(40, 0.95)
    )
    assert plan.margin_now_chebyshev == max(
        yes_no.chebyshev_half_width(40, 0.95), choice.chebyshev_half_width(40, 0.95)
    )
    assert [row.is_current for row in plan.trade_off].count(True) == 1


@pytest.mark.parametrize("margin", ["abc", "0.1", "51", "-5", "nan"])
def test_planning_refuses_bad_margins_and_keeps_the_default(signed_in, survey, margin):
    page = signed_in.get(f"/analyst/surveys/{survey[0]}", query_string={"margin": margin})
    assert page.status_code == 200
    assert "The margin must" in page.text
    yes_no = needed(0.25, 2, 0.10, 0.95)
    assert "±10 points" in figures(page.text, "plan-needed")
    assert f"{yes_no:,} for its yes/no questions alone" in figures(page.text, "plan-needed")


# --------------------------------------------------------------------------- dashboard


#: Randomized answers to the sample survey (yes/no, choice): enough for shares (12 >= 10).
ROWS = [
    (1, 0),
    (1, 2),
    (0, 2),
    (1, 1),
    (1, 2),
    (0, 0),
    (1, 2),
    (0, 1),
    (1, 0),
    (0, 2),
    (1, 2),
    (1, 1),
]


def range_text(low: float, high: float) -> str:
    return f"{percent_low(low)} – {percent_high(high)}"


def worded_options(question: dict) -> list[tuple[str, privacy.Estimate, float]]:
    """(label, estimate, shown share) of the answers the words speak of: yes/no says "Yes" only."""
    return [
        (label, estimate, share)
        for (label, _, estimate), share in zip(question["options"], question["shown"], strict=True)
        if question["kind"] == "choice" or label == "Yes"
    ]


def assert_results_shown(page: str, results: dict, confidence: float, live: bool = True) -> None:
    """The dashboard shows ``results``: while the survey is open (``live``) its words and chart
    lead with the live ranges, once closed with the exact ones; the table gives both."""
    assert f'<strong id="respondent-count">{results["respondents"]}</strong>' in page
    for question in results["questions"]:
        part = flat(section(page, question["id"]))
        expected = [
            (
                label,
                str(noisy_count),
                percent(e.noisy_share),
                percent(e.estimate),
                range_text(e.exact_low, e.exact_high),
                range_text(e.live_low, e.live_high),
                range_text(e.ci_low, e.ci_high),
            )
            for label, noisy_count, e in question["options"]
        ]
        assert table_rows(part) == expected
        assert f"Exact {percent(confidence)} range" in part
        assert f"Chebyshev {percent(confidence)} range" in part
        margin = percent_high(question["half_width"])
        assert f"Chebyshev range: ±{margin} around the estimate" in part
        # The words: the share shown and the live (open) or exact range, for those who answered.
        worded = worded_options(question)
        for label, e, share in worded:
            low, high = (e.live_low, e.live_high) if live else (e.exact_low, e.exact_high)
            assert low < high  # the figures chosen give ranges, not points
            assert (
                f"About <strong>{percent(share)}</strong> would truly answer “{label}”: "
                f"between <strong>{percent_low(low)}</strong> and "
                f"<strong>{percent_high(high)}</strong>, guaranteed at least "
                f"{percent(confidence)} of the time{', however often you look' if live else ''}."
            ) in part
        assert part.count("would truly answer") == len(worded)
        assert (
            f"These ranges cover the {question['n']} people who answered, not the whole class"
        ) in part
        assert (
            f"The textbook Chebyshev bound is guaranteed too, but wider "
            f"(±{margin} around the raw estimate); it too covers only "
            f"the people who answered, not the whole class."
        ) in part


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_dashboard_figures_equal_the_results(app, signed_in, survey, confidence, close):
    slug = survey[0]
    submit(app, slug, ROWS)
    close(slug)  # closed: the words lead with the exact ranges
    page = signed_in.get(f"/analyst/surveys/{slug}?confidence={confidence}").text
    results = results_of(app, slug, confidence)
    assert results["respondents"] == len(ROWS)
    assert_results_shown(page, results, confidence, live=False)
    assert f'<option value="{confidence}" selected>' in page
    assert f"<strong>ε = {format_epsilon(results['epsilon'])}</strong> per question" in page
    assert f"<strong>ε = {format_epsilon(results['epsilon_total'])}</strong> for all" in page
    # The words show the exact range, not the Chebyshev one (which is wider here).
    yes = results["questions"][0]["options"][1][2]
    assert yes.ci_high - yes.ci_low > yes.exact_high - yes.exact_low
    chebyshev_words = (
        f"“Yes”: between <strong>{percent_low(yes.ci_low)}</strong> and "
        f"<strong>{percent_high(yes.ci_high)}</strong>"
    )
    assert chebyshev_words not in flat(page)


@pytest.mark.parametrize("confidence", ["0.5", "abc", "", "0.951", "1"])
def test_dashboard_falls_back_to_95_percent(app, signed_in, survey, confidence):
    slug = survey[0]
    submit(app, slug, ROWS)
    page = signed_in.get(f"/analyst/surveys/{slug}", query_string={"confidence": confidence})
    assert page.status_code == 200
    assert '<option value="0.95" selected>' in page.text
    assert_results_shown(page.text, results_of(app, slug, 0.95), 0.95)


def test_results_panel_shows_the_same_figures(app, signed_in, survey):
    slug = survey[0]
    submit(app, slug, ROWS)
    response = signed_in.get(f"/analyst/surveys/{slug}/results-panel?confidence=0.99")
    assert response.status_code == 200
    page = response.text
    assert page.lstrip().startswith('<div id="results" data-status="open"')
    assert "<html" not in page  # a fragment, for the dashboard to swap in
    assert f"/analyst/surveys/{slug}/results-panel?confidence=0.99" in page
    assert_results_shown(page, results_of(app, slug, 0.99), 0.99)


@pytest.mark.parametrize(("status", "refreshes"), [("open", True), ("closed", False)])
def test_dashboard_refreshes_itself_only_while_open(signed_in, make_survey, status, refreshes):
    slug, _ = make_survey(status=status)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    assert re.search(
        r'<script type="module" src="/static/js/analyst\.js\?v=[0-9a-f]+" '
        r'integrity="sha384-[A-Za-z0-9+/=]+"></script>',
        page,
    )
    assert f'data-status="{status}"' in page
    assert ("updates itself every 10 seconds" in page) is refreshes


def test_dashboard_before_any_answer(signed_in, survey):
    page = signed_in.get(f"/analyst/surveys/{survey[0]}").text
    assert '<strong id="respondent-count">0</strong>' in page
    assert page.count("No answers yet") == 2
    assert svg_blocks(page) == []


@pytest.mark.parametrize("answered", [1, MIN_ANSWERS_FOR_SHARES - 1])
def test_too_early_shows_the_count_instead_of_shares(app, signed_in, survey, answered, close):
    slug = survey[0]
    submit(app, slug, ROWS[:answered])
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    results = results_of(app, slug)
    # The results hold fewer than that (none at all before the first release of 5).
    assert all(q["n"] < MIN_ANSWERS_FOR_SHARES for q in results["questions"])
    people = "person has" if answered == 1 else "people have"
    for question in results["questions"]:
        part = flat(section(page, question["id"]))
        assert f"<strong>{answered}</strong> {people} answered: too early for shares." in part
        assert f"They appear once {MIN_ANSWERS_FOR_SHARES} people have answered" in part
        # No share, range or table: nothing with a percent sign.
        assert "%" not in part and "<table" not in part
    assert svg_blocks(page) == []

    # One answer more and the shares appear: at once when the survey closes (while it is
    # open, with the next release: test_releases).
    submit(app, slug, ROWS[answered:MIN_ANSWERS_FOR_SHARES])
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    assert "too early" not in page
    assert len(svg_blocks(page)) == 2
    assert_results_shown(page, results_of(app, slug), 0.95, live=False)


def test_choice_shares_add_up_to_100_percent(app, signed_in, survey):
    # "Never" reported once of 12 at p = 1/4: its unbiased estimate is below 0 and the other two
    # add up to more than 100%. Words and chart show the estimates projected onto shares that
    # add up to 100%; the table keeps the unbiased ones.
    slug = survey[0]
    submit(app, slug, [(1, 0)] + [(1, 1)] * 5 + [(0, 2)] * 6)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    yes_no, choice = results_of(app, slug)["questions"]
    estimates = [e.estimate for _, _, e in choice["options"]]
    assert estimates[0] < 0 and sum(e.clipped_estimate for _, _, e in choice["options"]) > 1.2
    assert choice["shown"] == privacy.project_to_simplex(estimates)
    assert math.isclose(sum(choice["shown"]), 1.0) and min(choice["shown"]) >= 0.0
    part = flat(section(page, choice["id"]))
    for label, _, share in worded_options(choice):
        assert f"About <strong>{percent(share)}</strong> would truly answer “{label}”" in part
    assert part.count("The shares add up to 100%.") == 1
    assert "add up to 100%" not in section(page, yes_no["id"])
    values = re.findall(r'<text class="value"[^>]*>(.*?)</text>', svg_blocks(page)[1])
    assert values == [percent(share) for share in choice["shown"]]
    assert [row[3] for row in table_rows(part)] == [percent(e) for e in estimates]


def yes_no_survey(make_survey, flip_probability: float) -> str:
    definition = {
        "title": "One question",
        "flip_probability": flip_probability,
        "questions": [{"text": "Did you?", "type": "yes_no"}],
    }
    return make_survey(definition)[0]


WIDE_WORDS = "too wide to say much yet"
OUTSIDE_WORDS = "outside 0–100%"


def test_wide_ranges_are_said_in_plain_words(app, signed_in, make_survey, close):
    # p = 1/4 and 30 answers, half "yes": the exact range is 1/3 each side of 50% (t/n from
    # 5/30 to 25/30), well above the 0.2 the warning starts at.
    slug = yes_no_survey(make_survey, 0.25)
    submit(app, slug, [(1,)] * 15 + [(0,)] * 15)
    # Open: the caution quotes the range the page leads with, the live one (wider).
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    (question,) = results_of(app, slug)["questions"]
    live = max((e.live_high - e.live_low) / 2 for _, _, e in question["options"])
    assert live > question["widest_exact_half_width"]
    assert WIDE_WORDS in page and f"(up to ±{percent_high(live)})" in page
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    widest = results_of(app, slug)["questions"][0]["widest_exact_half_width"]
    assert 0.3 < widest < 0.35
    assert WIDE_WORDS in page
    assert f"(up to ±{percent_high(widest)})" in page
    assert OUTSIDE_WORDS not in page


def test_narrow_ranges_need_no_warning(app, signed_in, make_survey, close):
    # p = 0.1 and 30 answers: the exact range is ±0.133, under 0.2, though the Chebyshev
    # half-width sqrt(0.09 / (30 * 0.05)) / 0.8 = 0.306 is above it: the warning follows the
    # range the words give (closed: the exact one).
    slug = yes_no_survey(make_survey, 0.1)
    submit(app, slug, [(1,)] * 15 + [(0,)] * 15)
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    (question,) = results_of(app, slug)["questions"]
    assert question["widest_exact_half_width"] < 0.2 < question["half_width"]
    assert WIDE_WORDS not in page
    assert OUTSIDE_WORDS not in page


@pytest.mark.parametrize(("reported", "near"), [(0, "0%"), (1, "100%")])
def test_estimates_outside_zero_one_are_said_in_plain_words(
    app, signed_in, make_survey, reported, near, close
):
    # Every randomized answer the same: (0 - p) / (1 - 2p) = -0.5, (1 - p) / (1 - 2p) = 1.5.
    # Ten such answers are still consistent with the randomization (all ten kept: 0.75^10 =
    # 5.6%), and the exact range, never empty, holds the nearest bound: 0 to 10%, 90 to 100%.
    slug = yes_no_survey(make_survey, 0.25)
    submit(app, slug, [(reported,)] * MIN_ANSWERS_FOR_SHARES)
    close(slug)  # the exact range in the words
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    yes = results_of(app, slug)["questions"][0]["options"][1][2]
    assert yes.outside_unit_interval and yes.consistent_with_randomization
    assert (yes.exact_low, yes.exact_high) == ((0.0, 0.1) if reported == 0 else (0.9, 1.0))
    assert OUTSIDE_WORDS in page
    assert f"pushed the raw estimate to {percent(yes.estimate)}" in page
    assert f"the true share is simply close to {near}" in page
    assert (
        f"About <strong>{near}</strong> would truly answer “Yes”: between "
        f"<strong>{percent_low(yes.exact_low)}</strong> and "
        f"<strong>{percent_high(yes.exact_high)}</strong>, guaranteed at least 95% of the time."
    ) in flat(page)


INCONSISTENT_WORDS = "not consistent with the randomization"


def test_answers_not_consistent_with_the_randomization_get_no_range(app, signed_in, make_survey):
    # 100 randomized "yes" of 100 at p = 1/4. At 95 % the estimate 1.5 lies further above 1
    # than the Chebyshev half-width 0.387: randomized answers give that at most 5% of the time.
    # The exact range is never empty (it holds the bound, 99 to 100%), but the page gives none.
    slug = yes_no_survey(make_survey, 0.25)
    submit(app, slug, [(1,)] * 100)
    page = signed_in.get(f"/analyst/surveys/{slug}?confidence=0.95").text
    (question,) = results_of(app, slug, 0.95)["questions"]
    yes = question["options"][1][2]
    assert not yes.consistent_with_randomization
    assert (yes.exact_low, yes.exact_high) == (0.99, 1.0)
    assert yes.estimate - yes.half_width > 1.0
    words = flat(section(page, question["id"]))
    assert INCONSISTENT_WORDS in words
    assert "sent straight to the API" in words
    assert (
        "“Yes”: the answers are not consistent with the randomization. Randomized answers give "
        "counts this lopsided at most 5% of the time (the raw estimate is "
        f"{percent(yes.estimate)})."
    ) in words
    assert "would truly answer" not in words and "between" not in words
    # The table says so in both range columns, and the chart draws no share or range.
    assert [row[-2:] for row in table_rows(words)] == [("not consistent", "not consistent")] * 2
    chart = svg_blocks(page)[0]
    for mark in ('class="exact"', 'class="share"', 'class="chebyshev"'):
        assert mark not in chart
    assert chart.count(">not consistent</text>") == 2


def test_lopsided_answers_within_the_chebyshev_bound_get_their_exact_range(
    app, signed_in, make_survey, close
):
    # The same 100 "yes" at 99%: the Chebyshev half-width (0.866) reaches back into [0, 1], so
    # they are not flagged, and the exact range, never empty, says 98 to 100%.
    slug = yes_no_survey(make_survey, 0.25)
    submit(app, slug, [(1,)] * 100)
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}?confidence=0.99").text
    (question,) = results_of(app, slug, 0.99)["questions"]
    yes = question["options"][1][2]
    assert yes.consistent_with_randomization
    assert (yes.exact_low, yes.exact_high) == (0.98, 1.0)
    words = flat(section(page, question["id"]))
    assert INCONSISTENT_WORDS not in words
    assert "between <strong>98%</strong> and <strong>100%</strong>" in words


def test_consistent_answers_are_not_flagged(app, signed_in, survey):
    slug = survey[0]
    submit(app, slug, ROWS)
    assert INCONSISTENT_WORDS not in signed_in.get(f"/analyst/surveys/{slug}").text


#: Where the chart draws 0% and how wide it draws 100% (templates/analyst/_chart.html).
CHART_LEFT, CHART_WIDTH = 16, 282


def chart_x(share: float) -> str:
    return f"{CHART_LEFT + CHART_WIDTH * share:.2f}"


def chart_span(low: float, high: float) -> str:
    return f"{(CHART_LEFT + CHART_WIDTH * high) - (CHART_LEFT + CHART_WIDTH * low):.2f}"


def test_chart_bands_follow_the_exact_and_chebyshev_ranges(app, signed_in, survey, close):
    slug = survey[0]
    submit(app, slug, ROWS * 2)
    close(slug)  # closed: the band is the exact range (open: the live one, test_live_headline)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    charts = svg_blocks(page)
    results = results_of(app, slug)
    assert len(charts) == len(results["questions"]) == 2
    for chart, question in zip(charts, results["questions"], strict=True):
        assert 'role="img"' in chart
        title = re.search(r"<title [^>]*>(.*?)</title>", chart).group(1)
        assert (
            "its exact 95% range (thick band) and the textbook Chebyshev bound (thin line), "
            f"for the {question['n']} people who answered"
        ) in title
        estimates = [e for _, _, e in question["options"]]
        # The thick band: the exact range.
        bands = re.findall(r'<rect class="exact" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', chart)
        assert bands == [
            (chart_x(e.exact_low), chart_span(e.exact_low, e.exact_high)) for e in estimates
        ]
        # The mark and the figure: the share shown.
        marks = re.findall(r'<line class="share" x1="([\d.]+)" x2="([\d.]+)"', chart)
        assert marks == [(chart_x(share), chart_x(share)) for share in question["shown"]]
        values = re.findall(r'<text class="value"[^>]*>(.*?)</text>', chart)
        assert values == [percent(share) for share in question["shown"]]
        # The thin line with its two ends: the Chebyshev range, wider than the band here.
        lines = re.findall(r'<line class="chebyshev" x1="([\d.]+)" x2="([\d.]+)"', chart)
        expected = []
        for e in estimates:
            assert e.ci_high - e.ci_low > e.exact_high - e.exact_low
            low, high = chart_x(e.ci_low), chart_x(e.ci_high)
            expected += [(low, high), (low, low), (high, high)]
        assert lines == expected
        labels = re.findall(r'<text class="label"[^>]*>(.*?)</text>', chart)
        assert labels == [label for label, _, _ in question["options"]]


def test_dashboard_makes_no_external_request(app, signed_in, survey):
    slug = survey[0]
    submit(app, slug, [(1, 0), (0, 2)])
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    for chart in svg_blocks(page):
        rest = chart.replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert "http://" not in rest and "https://" not in rest
        assert "href" not in rest
    # Every script, stylesheet and link of the page is on this site (the respondent link and
    # the join address are this site's own, absolute so they can be shared).
    for attribute, url in re.findall(r'\b(src|href|action)="([^"]*)"', page):
        assert url.startswith(("/", "#", "data:")) and not url.startswith("//"), (attribute, url)
    external = re.findall(r"https?://[^\s\"'<]+", page)
    assert set(external) <= {
        "http://www.w3.org/2000/svg",
        f"http://localhost/s/{slug}",
        "http://localhost/",
    }


# --------------------------------------------------------------------------- XSS


def assert_escaped(page: str) -> None:
    assert "<script>alert" not in page
    assert " onmouseover='alert(1)'" not in page
    assert "</textarea><script>" not in page
    assert "<b>bold</b>" not in page


@pytest.mark.parametrize(
    "path", ["", "/edit", "/preview", "/results-panel", "LIST"], ids=lambda p: p or "dashboard"
)
def test_survey_text_is_shown_as_text(app, signed_in, make_survey, path):
    status = "draft" if path == "/edit" else "open"
    slug, _ = make_survey(HOSTILE_DEFINITION, status=status)
    if status == "open":
        submit(app, slug, [(1, 0), (0, 1), (1, 2)] * 4)
    url = "/analyst/" if path == "LIST" else f"/analyst/surveys/{slug}{path}"
    page = signed_in.get(url).text
    assert_escaped(page)
    if path != "/results-panel":
        assert "Title &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page
    if path not in ("LIST",):
        assert "Question &lt;script&gt;" in page
    if path in ("", "/results-panel", "/preview", "/edit"):
        assert "&lt;b&gt;bold&lt;/b&gt;" in page


def test_svg_labels_are_escaped(app, signed_in, make_survey):
    slug, _ = make_survey(HOSTILE_DEFINITION)
    submit(app, slug, [(1, 0), (0, 1), (1, 2)] * 4)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    chart = svg_blocks(page)[1]
    labels = re.findall(r'<text class="label"[^>]*>(.*?)</text>', chart)
    assert len(labels) == 3
    for label in labels:
        assert "<" not in label and '"' not in label and "'" not in label
    assert html.unescape(labels[2]) == "<b>bold</b>"
    assert html.unescape(labels[0]).startswith("</textarea><script>")


def test_builder_keeps_hostile_text_inert_when_rerendered(app, signed_in):
    fields = builder_fields(
        title=NASTY_TAG + ATTRIBUTE_BREAKER,
        intro="</textarea>" + NASTY_TAG,
        flip_probability='"><script>alert(1)</script>',
        questions=[(ATTRIBUTE_BREAKER, "choice", "</textarea><b>bold</b>\n" + NASTY_TAG)],
    )
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post("/analyst/surveys/new", data=fields)
    assert response.status_code == 400
    assert_escaped(response.text)
    assert '"><script>' not in response.text


# --------------------------------------------------------------------------- access


def other_survey(app) -> str:
    """A survey of the second analyst."""
    with app.app_context():
        owner = find_analyst(OTHER_EMAIL)
        survey = create_survey(
            owner,
            parse_definition(
                {
                    "title": "Other analyst's survey",
                    "flip_probability": 0.2,
                    "questions": [{"text": "Other question?", "type": "yes_no"}],
                }
            ),
        )
        db.session.commit()
        return survey.slug


ACCESS_CASES = [
    ("GET", "", "open"),
    ("GET", "/edit", "draft"),
    ("GET", "/preview", "draft"),
    ("GET", "/results-panel", "open"),
    ("POST", "/edit", "draft"),
    ("POST", "/open", "draft"),
    ("POST", "/open", "closed"),
    ("POST", "/close", "open"),
    ("GET", "API/results", "open"),
    ("GET", "API/results.csv", "open"),
    ("GET", "API/responses.csv", "open"),
    ("GET", "POOLED", "open"),
]


def access_url(slug: str, path: str) -> str:
    if path == "POOLED":
        return f"/api/v1/results?surveys={slug}"
    if path.startswith("API"):
        return f"/api/v1/surveys/{slug}{path[3:]}"
    return f"/analyst/surveys/{slug}{path}"


@pytest.mark.parametrize(("method", "path", "status"), ACCESS_CASES)
def test_another_analysts_survey_is_404_and_unchanged(
    app, make_survey, other_analyst, method, path, status
):
    slug, _ = make_survey(status=status)
    if status == "open":
        submit(app, slug, [(1, 2), (0, 1)])
    before = state_of(app, slug)
    data = None
    if method == "POST":
        data = builder_fields(title="Taken over") if path == "/edit" else {}
        data["csrf_token"] = token_of(other_analyst)

    response = other_analyst.open(access_url(slug, path), method=method, data=data)
    missing = other_analyst.open(access_url("no-such-survey", path), method=method, data=data)

    assert response.status_code == 404
    body = response.get_data(as_text=True)
    for secret in ("Academic integrity", "copied homework", "How often", "Never", ANALYST_EMAIL):
        assert secret not in body
    # Indistinguishable from a survey that does not exist.
    assert missing.status_code == 404
    assert body == missing.get_data(as_text=True)
    assert state_of(app, slug) == before


def test_each_analyst_lists_only_their_own_surveys(app, signed_in, survey, other_analyst):
    theirs = other_survey(app)
    mine = signed_in.get("/analyst/").text
    other = other_analyst.get("/analyst/").text
    assert survey[0] in mine and theirs not in mine
    assert "Other analyst&#39;s survey" not in mine
    assert theirs in other and survey[0] not in other
    assert "Academic integrity" not in other
    assert signed_in.get(f"/analyst/surveys/{theirs}").status_code == 404
    assert other_analyst.get(f"/analyst/surveys/{theirs}").status_code == 200


def test_a_new_survey_belongs_to_whoever_built_it(app, other_analyst, analyst):
    fields = builder_fields(title="Built by the other analyst")
    fields["csrf_token"] = token_of(other_analyst)
    slug = slug_from(other_analyst.post("/analyst/surveys/new", data=fields))
    assert state_of(app, slug)["owner"] == OTHER_EMAIL
    with app.app_context():
        owners = (
            db.session.execute(select(Analyst.email).select_from(Survey).join(Survey.owner))
            .scalars()
            .all()
        )
    assert owners == [OTHER_EMAIL]


@pytest.mark.parametrize(
    ("questions", "said"),
    [
        (
            None,  # the sample survey: a yes/no and a choice question
            "Each respondent’s browser flips a yes/no answer 25% of the time and swaps a "
            "multiple-choice answer for another option at random before sending it, all at the "
            "same strength.",
        ),
        (
            [{"text": "Which?", "type": "choice", "options": ["A", "B", "C"]}],
            "Each respondent’s browser swaps a multiple-choice answer for another option at "
            "random before sending it (as much protection as a 25% flip of a yes/no answer).",
        ),
        (
            [{"text": "Ever?", "type": "yes_no"}],
            "Each respondent’s browser flips a yes/no answer 25% of the time before sending it.",
        ),
    ],
)
def test_the_privacy_words_name_the_randomization_the_questions_get(
    signed_in, make_survey, questions, said
):
    definition = dict(SAMPLE_DEFINITION)
    if questions is not None:
        definition["questions"] = questions
    slug, _ = make_survey(definition)
    page = html.unescape(signed_in.get(f"/analyst/surveys/{slug}").text)
    how = re.search(r'<p id="privacy-how">(.*?) That is', page, re.S).group(1)
    assert " ".join(how.split()) == said


def test_saving_options_a_spreadsheet_reads_as_dates_says_so(signed_in):
    """Excel turns "1-2" into 2 January when it opens an export: the professor hears of it when
    saving, while the options can still change; plain labels get no such note."""
    fields = builder_fields(
        questions=[("Hours of sleep?", "choice", "1-2\n3-5\n6 or more"), ("Ever?", "yes_no", "")]
    )
    saved = signed_in.post(
        "/analyst/surveys/new", data={**fields, "csrf_token": token_of(signed_in)}
    )
    assert saved.status_code == 302
    dashboard = html.unescape(signed_in.get(saved.headers["Location"]).text)
    assert "Excel shows options such as “1-2”, “3-5” as dates" in dashboard
    plain = signed_in.post(
        "/analyst/surveys/new", data={**builder_fields(), "csrf_token": token_of(signed_in)}
    )
    assert "as dates" not in signed_in.get(plain.headers["Location"]).text


@pytest.mark.parametrize(
    ("label", "date_like"),
    [
        ("1-2", True),
        ("3/4", True),
        ("2024-05-01", True),
        (" 10 - 20 ", True),
        ("1 to 2", False),
        ("1-2 hours", False),
        ("12", False),
        ("A-B", False),
    ],
)
def test_date_like_labels(label, date_like):
    from survey_app.exports import date_like_labels

    assert date_like_labels([label]) == ([label] if date_like else [])


def test_an_open_survey_leads_with_live_ranges_and_a_closed_one_with_exact_ones(
    app, signed_in, make_survey, close
):
    """While open the page redraws itself: its words and chart give the range that stays right
    however often it is read; once closed, the exact one, with the live one in the table."""
    slug = yes_no_survey(make_survey, 0.25)
    submit(app, slug, [(1,)] * 70 + [(0,)] * 50)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    (question,) = results_of(app, slug)["questions"]
    assert_results_shown(page, results_of(app, slug), 0.95, live=True)
    assert "While the survey is open they are live ranges" in flat(page)
    yes = question["options"][1][2]
    assert yes.live_high - yes.live_low > yes.exact_high - yes.exact_low
    chart = svg_blocks(page)[0]
    low = CHART_LEFT + CHART_WIDTH * yes.live_low
    assert f'x="{low:.2f}"' in chart and "its live range" in page
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    assert_results_shown(page, results_of(app, slug), 0.95, live=False)
    assert "While the survey is open" not in flat(page)
    assert "use it if you closed the survey early" in flat(page)


def test_ranges_for_all_answers_at_once_on_request(app, signed_in, survey, close):
    slug = survey[0]
    submit(app, slug, ROWS * 4)
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}?ranges=together").text
    choice = results_of(app, slug)["questions"][1]
    words = flat(section(page, choice["id"]))
    assert "All at once, 95%" in words
    for label, _, e in choice["options"]:
        assert e.simultaneous_low <= e.exact_low and e.exact_high <= e.simultaneous_high
        assert (
            f"would truly answer “{label}”: between <strong>{percent_low(e.simultaneous_low)}"
            f"</strong> and <strong>{percent_high(e.simultaneous_high)}</strong>, guaranteed at "
            "least 95% of the time for all the answers at once."
        ) in words
    plain = flat(section(signed_in.get(f"/analyst/surveys/{slug}").text, choice["id"]))
    assert "Each answer’s range holds on its own" in plain and "All at once, 95%" not in plain
