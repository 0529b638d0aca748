"""Signed-in sessions end on the server: sign-out, a password change, "sign out everywhere",
the idle timeout and the absolute lifetime each refuse a session cookie saved before them."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from sqlalchemy import func, select

from survey_app.accounts import services as accounts
from survey_app.accounts.services import find_analyst, verify_password
from survey_app.extensions import db
from survey_app.storage.models import AnalystSession
from survey_app.surveys.services import find_survey
from tests.analyst_helpers import (
    ANALYST_EMAIL,
    ANALYST_PASSWORD,
    csrf_token,
    is_signed_in,
    route_addresses,
    sign_in,
)

NEW_PASSWORD = "a brand new passphrase"


def saved_cookie(client) -> str:
    """The session cookie as a thief (or a forgotten browser tab) would keep it."""
    return client.get_cookie("session").value


def replay(app, cookie: str, path: str = "/analyst/"):
    """A fresh client presenting only ``cookie``: what the server makes of that alone."""
    thief = app.test_client()
    thief.set_cookie("session", cookie)
    return thief.get(path)


def assert_refused(app, cookie: str, slug: str) -> None:
    assert replay(app, cookie).status_code == 302  # to the sign-in page
    assert "/analyst/login" in replay(app, cookie).headers["Location"]
    export = replay(app, cookie, f"/api/v1/surveys/{slug}/results.csv")
    assert export.status_code == 401
    assert replay(app, cookie, f"/analyst/surveys/{slug}").status_code == 302


def assert_accepted(app, cookie: str, slug: str) -> None:
    assert replay(app, cookie).status_code == 200
    assert replay(app, cookie, f"/api/v1/surveys/{slug}/results.csv").status_code == 200


def post_action(client, path: str, page: str = "/analyst/account"):
    token = csrf_token(client.get(page).text)
    return client.post(path, data={"csrf_token": token})


def change_password(client, current: str, new: str, repeat: str | None = None):
    token = csrf_token(client.get("/analyst/account").text)
    return client.post(
        "/analyst/account",
        data={
            "csrf_token": token,
            "current_password": current,
            "new_password": new,
            "repeat_password": new if repeat is None else repeat,
        },
    )


@pytest.fixture
def signed_in_client(client, analyst):
    assert sign_in(client).status_code == 302
    return client


def test_a_saved_cookie_works_while_the_session_lives(app, signed_in_client, survey):
    assert_accepted(app, saved_cookie(signed_in_client), survey[0])


def test_signing_out_ends_the_session_on_the_server(app, signed_in_client, survey):
    cookie = saved_cookie(signed_in_client)
    response = post_action(signed_in_client, "/analyst/logout", page="/analyst/")
    assert response.status_code == 302
    assert_refused(app, cookie, survey[0])
    with app.app_context():
        assert db.session.execute(select(func.count()).select_from(AnalystSession)).scalar() == 0


def test_signing_out_ends_only_that_session(app, client, analyst, survey):
    laptop, projector = app.test_client(), app.test_client()
    assert sign_in(laptop).status_code == 302 and sign_in(projector).status_code == 302
    projector_cookie = saved_cookie(projector)
    laptop_cookie = saved_cookie(laptop)
    post_action(laptop, "/analyst/logout", page="/analyst/")
    assert_refused(app, laptop_cookie, survey[0])
    assert_accepted(app, projector_cookie, survey[0])


def test_a_password_change_ends_every_other_session(app, analyst, survey):
    laptop, phone = app.test_client(), app.test_client()
    assert sign_in(laptop).status_code == 302 and sign_in(phone).status_code == 302
    phone_cookie, old_laptop_cookie = saved_cookie(phone), saved_cookie(laptop)

    response = change_password(laptop, ANALYST_PASSWORD, NEW_PASSWORD)
    assert response.status_code == 302
    assert "Every other device was signed out" in laptop.get(response.headers["Location"]).text

    assert_refused(app, phone_cookie, survey[0])
    assert_refused(app, old_laptop_cookie, survey[0])
    assert is_signed_in(laptop)  # this browser got a new session
    with app.app_context():
        assert verify_password(find_analyst(ANALYST_EMAIL), NEW_PASSWORD)
    assert sign_in(app.test_client(), password=ANALYST_PASSWORD).status_code == 401
    assert sign_in(app.test_client(), password=NEW_PASSWORD).status_code == 302


@pytest.mark.parametrize(
    ("current", "new", "repeat", "message"),
    [
        ("not my password", NEW_PASSWORD, None, "not your current password"),
        (ANALYST_PASSWORD, "short pw", None, "at least 12 characters"),
        (ANALYST_PASSWORD, "password1234", None, "most common passwords"),
        (ANALYST_PASSWORD, "aaaaaaaaaaaaaaaa", None, "repeats one or two characters"),
        (ANALYST_PASSWORD, NEW_PASSWORD, NEW_PASSWORD + "!", "differ"),
    ],
)
def test_a_refused_password_change_changes_nothing(
    app, signed_in_client, survey, current, new, repeat, message
):
    cookie = saved_cookie(signed_in_client)
    response = change_password(signed_in_client, current, new, repeat)
    assert response.status_code == 400
    assert message in response.text
    assert_accepted(app, cookie, survey[0])
    with app.app_context():
        assert verify_password(find_analyst(ANALYST_EMAIL), ANALYST_PASSWORD)


def test_current_password_tries_are_throttled_as_sign_ins_are(app, analyst, monkeypatch):
    """Someone holding a signed-in browser (not its password) may not guess the password on the
    account form faster than at the sign-in page: the tries count with the sign-ins, under the
    same limit (here 3 a minute: the sign-in and two tries), and beyond it even the right
    password is refused in words (429) until the window passes, and nothing changes."""
    app.config["RATELIMIT_ENABLED"] = True
    app.config["LOGIN_RATE_LIMIT"] = "3 per minute"
    browser = app.test_client()
    assert sign_in(browser).status_code == 302
    cookie = saved_cookie(browser)
    tries = [change_password(browser, f"guess number {n}", NEW_PASSWORD) for n in range(3)]
    assert [each.status_code for each in tries] == [400, 400, 429]
    refused = change_password(browser, ANALYST_PASSWORD, NEW_PASSWORD)
    assert refused.status_code == 429
    assert "Too many attempts. Please wait a minute and try again." in refused.text
    assert "not your current password" not in refused.text  # not checked at all
    assert int(refused.headers["Retry-After"]) == 60
    with app.app_context():
        assert verify_password(find_analyst(ANALYST_EMAIL), ANALYST_PASSWORD)
    assert is_signed_in(browser) and replay(app, cookie).status_code == 200
    throttle = app.extensions["sign_in_throttle"]
    later = throttle.clock() + 121  # past the window and the one it slides over
    monkeypatch.setattr(throttle, "clock", lambda: later)
    assert change_password(browser, ANALYST_PASSWORD, NEW_PASSWORD).status_code == 302
    with app.app_context():
        assert verify_password(find_analyst(ANALYST_EMAIL), NEW_PASSWORD)


def test_the_password_form_needs_its_csrf_token(app, signed_in_client):
    response = signed_in_client.post(
        "/analyst/account",
        data={
            "current_password": ANALYST_PASSWORD,
            "new_password": NEW_PASSWORD,
            "repeat_password": NEW_PASSWORD,
        },
    )
    assert response.status_code == 400
    with app.app_context():
        assert verify_password(find_analyst(ANALYST_EMAIL), ANALYST_PASSWORD)


def test_sign_out_everywhere_ends_every_session(app, analyst, survey):
    clients = [app.test_client() for _ in range(3)]
    for each in clients:
        assert sign_in(each).status_code == 302
    cookies = [saved_cookie(each) for each in clients]
    response = post_action(clients[0], "/analyst/account/sign-out-everywhere")
    assert response.status_code == 302
    for cookie in cookies:
        assert_refused(app, cookie, survey[0])


def test_sign_out_everywhere_needs_its_csrf_token(app, signed_in_client, survey):
    cookie = saved_cookie(signed_in_client)
    assert signed_in_client.post("/analyst/account/sign-out-everywhere").status_code == 400
    assert_accepted(app, cookie, survey[0])


def test_the_cookie_holds_a_session_key_not_the_analysts_id(app, signed_in_client):
    with signed_in_client.session_transaction() as session:
        key = session["_user_id"]
    with app.app_context():
        analyst_id = find_analyst(ANALYST_EMAIL).id
        stored = db.session.execute(select(AnalystSession.key_sha256)).scalars().all()
    assert key != str(analyst_id) and len(key) >= 40
    assert key not in stored  # only its digest is kept
    assert len(stored) == 1 and re.fullmatch(r"[0-9a-f]{64}", stored[0])


def test_a_forged_cookie_with_the_analysts_id_is_refused(app, signed_in_client, survey):
    with app.app_context():
        analyst_id = find_analyst(ANALYST_EMAIL).id
    with signed_in_client.session_transaction() as session:
        session["_user_id"] = str(analyst_id)
    assert not is_signed_in(signed_in_client)


class Clock:
    """Moves the time the session checks see."""

    def __init__(self):
        self.offset = dt.timedelta(0)

    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC).replace(tzinfo=None) + self.offset


@pytest.fixture
def clock(monkeypatch) -> Clock:
    moved = Clock()
    monkeypatch.setattr(accounts, "_now", moved.now)
    return moved


def test_an_idle_session_ends_after_the_idle_timeout(app, signed_in_client, survey, clock):
    assert app.config["SESSION_IDLE_TIMEOUT"] == dt.timedelta(hours=8)  # the default
    cookie = saved_cookie(signed_in_client)
    clock.offset = dt.timedelta(hours=7, minutes=59)
    assert_accepted(app, cookie, survey[0])
    clock.offset = dt.timedelta(hours=8, minutes=1)
    assert_refused(app, cookie, survey[0])


def test_use_keeps_a_session_alive_until_its_absolute_lifetime(app, signed_in_client, clock):
    assert app.config["SESSION_MAX_AGE"] == dt.timedelta(hours=24)  # the default
    # Seven hours apart, the idle clock restarts at each visit...
    for hours in (7, 14, 21):
        clock.offset = dt.timedelta(hours=hours)
        assert is_signed_in(signed_in_client), hours
    # ...but no session outlives its absolute lifetime.
    clock.offset = dt.timedelta(hours=24, minutes=1)
    assert not is_signed_in(signed_in_client)


def test_the_session_timeouts_are_settable(monkeypatch, tmp_path):
    from survey_app import config

    monkeypatch.setenv("SURVEY_APP_SESSION_IDLE_HOURS", "0.5")
    monkeypatch.setenv("SURVEY_APP_SESSION_MAX_HOURS", "12")
    settings = config.from_environment(str(tmp_path), with_secret_key=False)
    assert settings["SESSION_IDLE_TIMEOUT"] == dt.timedelta(minutes=30)
    assert settings["SESSION_MAX_AGE"] == dt.timedelta(hours=12)
    monkeypatch.setenv("SURVEY_APP_SESSION_IDLE_HOURS", "never")
    with pytest.raises(config.ConfigurationError, match="SURVEY_APP_SESSION_IDLE_HOURS"):
        config.from_environment(str(tmp_path), with_secret_key=False)


def test_old_sessions_are_removed_at_the_next_sign_in(app, analyst, clock):
    assert sign_in(app.test_client()).status_code == 302
    clock.offset = dt.timedelta(days=2)
    assert sign_in(app.test_client()).status_code == 302
    with app.app_context():
        assert db.session.execute(select(func.count()).select_from(AnalystSession)).scalar() == 1


def test_analyst_pages_are_never_cached(signed_in_client, survey):
    for path in (
        "/analyst/login",
        "/analyst/",
        "/analyst/account",
        f"/analyst/surveys/{survey[0]}",
    ):
        response = signed_in_client.get(path)
        assert response.status_code == 200, path
        assert response.headers["Cache-Control"] == "no-store", path


#: Every GET route whose answer no cache may keep (security.never_cached): the analyst's
#: pages, the projector's and the lesson's, and the API's results and exports.
NEVER_CACHED = {
    "builder.surveys",
    "builder.new_survey",
    "builder.edit_survey",
    "builder.preview",
    "builder.readout",
    "sign_in.login",
    "sign_in.account",
    "dashboard.dashboard",
    "dashboard.results_panel",
    "manage.archived_surveys",
    "manage.close_survey_view",
    "manage.delete",
    "projector.present",
    "projector.present_state",
    "lesson.lesson_page",
    "lesson.lesson_download",
    "api.survey_results_json",
    "api.pooled_results_json",
    "api.survey_results_csv",
    "api.survey_responses_csv",
    # LTI: the login's redirect sets its state cookie; the key set, the choice of a survey,
    # the page that links an instructor's platform account to an account, and what the tool
    # keeps (the data privacy launch's page), and the page an instructor's launch in a frame
    # lands on (a link that opens the dashboard in a new tab).
    "lti.login",
    "lti.key_set",
    "lti.choose_survey",
    "lti.link_account",
    "lti.data_privacy",
    "lti.dashboard_in_new_tab",
}
#: The rest: what respondents see, a public definition, the static files (their own rule).
CACHEABLE = {
    "respondent.home",
    "respondent.join",
    "respondent.join_by_code",
    "respondent.survey_page",
    "respondent.class_results",
    "api.survey_definition",
    "static",
}


def test_which_answers_no_cache_keeps_is_said_for_every_route(app, make_survey, sign_in_as):
    slug, _ = make_survey(status="closed")  # closed: its responses can be exported
    with app.app_context():
        join_code = find_survey(slug).join_code
    addresses = route_addresses(app, "GET", slug, join_code)
    assert addresses.keys() == NEVER_CACHED | CACHEABLE  # a new route is put in one of them
    owner = app.test_client()
    sign_in_as(owner, ANALYST_EMAIL)
    for endpoint, address in addresses.items():
        query = {"surveys": slug} if endpoint == "api.pooled_results_json" else {}
        response = owner.get(address, query_string=query)
        response.get_data()  # a streamed export runs to its end
        assert response.status_code < 500, (endpoint, response.status_code)
        no_store = response.headers.get("Cache-Control") == "no-store"
        assert no_store is (endpoint in NEVER_CACHED), endpoint


def test_the_account_page_is_linked_and_needs_sign_in(client, signed_in_client):
    assert 'href="/analyst/account"' in signed_in_client.get("/analyst/").text
    anonymous = signed_in_client.application.test_client()
    assert anonymous.get("/analyst/account").status_code == 302
