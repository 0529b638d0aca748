"""The analyst's sign-in: the form, CSRF on every form, the session cookie, passwords, and
where signing in leads.
"""

from __future__ import annotations

import functools
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa

from survey_app.accounts.services import find_analyst
from survey_app.extensions import db
from tests.analyst_helpers import (
    ANALYST_EMAIL,
    ANALYST_PASSWORD,
    builder_fields,
    csrf_token,
    is_signed_in,
    route_addresses,
    sign_in,
    state_of,
    survey_count,
)

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
        (ANALYST_EMAIL + "\x00", ANALYST_PASSWORD),  # PostgreSQL cannot compare it: never asked
    ],
)
def test_bad_sign_in_is_refused(client, analyst, email, password):
    response = sign_in(client, email, password)
    assert response.status_code == 401
    assert 'name="password"' in response.text
    assert not is_signed_in(client)


def test_an_email_with_a_nul_character_is_refused_in_words(client, analyst):
    response = sign_in(client, "prof\x00@example.edu", ANALYST_PASSWORD)
    assert response.status_code == 401
    assert "An email address cannot hold a NUL character." in response.text


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


#: The one POST that takes no CSRF token: a respondent's answers (JSON, no cookies, randomized).
#: The LTI login and launch are the platform's cross-site posts, which carry no token of ours:
#: a launch is checked by its signed id_token, its state cookie and its nonce instead
#: (tests/unit/lti), and a login writes only a login that expires unused. The LTI choice of a
#: survey and the link page work in the course's frame, where no session (so no token) exists:
#: the launch's signed ticket in their address, tied to a cookie only the launch set, stands
#: for the token (tests/unit/lti/test_in_frame.py).
CSRF_EXEMPT = {
    "api.submit_response",
    "lti.login",
    "lti.launch",
    "lti.choose_survey",
    "lti.link_account",
}


@pytest.mark.parametrize("variant", ["missing", "garbage"])
def test_every_post_without_its_token_is_refused_before_its_view_runs(
    app, make_survey, sign_in_as, monkeypatch, variant
):
    """CSRFProtect checks every POST once, for the whole app: no view checks it again, so
    this is the list of what it guards (every POST route, the exempt one aside)."""
    slug, _ = make_survey(status="draft")
    posts = route_addresses(app, "POST", slug, "ABCDEF")
    ran: list[str] = []

    def recorder(endpoint: str):
        # Named as the view, so that CSRFProtect knows the exempt one (it goes by the name).
        @functools.wraps(app.view_functions[endpoint])
        def record(*args, **kwargs):
            ran.append(endpoint)
            return "ran"

        return record

    for endpoint in posts:
        monkeypatch.setitem(app.view_functions, endpoint, recorder(endpoint))
    owner = app.test_client()
    sign_in_as(owner, ANALYST_EMAIL)
    for endpoint, address in posts.items():
        response = owner.post(address, data=_with_token(app, {"confirmed": "yes"}, variant))
        expected = 200 if endpoint in CSRF_EXEMPT else 400
        assert response.status_code == expected, endpoint
    assert sorted(ran) == sorted(CSRF_EXEMPT)
    assert len(posts) >= 15  # the builder's, the dashboard's buttons, sign-in and account


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
