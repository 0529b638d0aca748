"""Account rules: strong passwords; API tokens that can be listed, revoked and expire;
sign-in throttled per account as well as per address, and logged without addresses; a browser
that signed in before throttled by its device cookie, not the account's count."""

from __future__ import annotations

import base64
import datetime as dt
import logging
import re
import time

import pytest
from itsdangerous import URLSafeTimedSerializer

from survey_app.accounts import services as accounts
from survey_app.accounts.devices import (
    DEVICE_COOKIE_MAX_AGE,
    DEVICE_COOKIE_PREFIX,
    MAX_DEVICE_COOKIES,
    device_cookie_name,
)
from survey_app.accounts.services import AccountError, check_new_password, common_passwords
from survey_app.extensions import db
from tests.analyst_helpers import ANALYST_EMAIL, ANALYST_PASSWORD, csrf_token, sign_in
from tests.conftest import TEST_SECRET_KEY

# --------------------------------------------------------------------------- passwords


@pytest.mark.parametrize(
    ("password", "problem"),
    [
        ("eleven char", "at least 12 characters"),
        ("a" * 12, "repeats one or two characters"),
        ("abababababab", "repeats one or two characters"),
        ("password1234", "most common passwords"),
        ("PASSWORD1234", "most common passwords"),
        ("Sunshine2024!!", "most common passwords"),  # a common word, decorated
        ("qwertyuiop123", "most common passwords"),
        ("the.professor", "the email address’s name"),
    ],
)
def test_weak_passwords_are_refused(password, problem):
    with pytest.raises(AccountError, match=re.escape(problem)):
        check_new_password(password, "the.professor@example.edu")


@pytest.mark.parametrize(
    "password", ["correct horse battery", "Tr0mb0ne-at-dusk", "zq8#Lm2!vR6p", "x" * 11 + "yz"]
)
def test_reasonable_passwords_are_accepted(password):
    check_new_password(password, "prof@example.edu")


def test_the_common_list_is_shipped_and_large():
    common = common_passwords()
    assert len(common) > 15_000
    assert {"password", "123456", "qwerty", "sunshine"} <= common


def test_create_analyst_refuses_a_common_password_and_creates_nothing(app, runner):
    result = runner.invoke(
        args=["create-analyst", "new@example.edu", "--password-stdin"], input="password1234\n"
    )
    assert result.exit_code == 2
    assert "most common passwords" in result.stderr
    with app.app_context():
        assert accounts.find_analyst("new@example.edu") is None


# --------------------------------------------------------------------------- API tokens


def token_status(client, token: str, slug: str) -> int:
    return client.get(
        f"/api/v1/surveys/{slug}/results", headers={"Authorization": f"Bearer {token}"}
    ).status_code


def listed(runner, email: str = ANALYST_EMAIL) -> list[list[str]]:
    result = runner.invoke(args=["list-tokens", email])
    assert result.exit_code == 0, result.output
    return [line.split() for line in result.output.splitlines()[1:]]


def test_tokens_are_listed_revoked_and_stop_working(app, runner, client, survey, analyst):
    slug = survey[0]
    assert runner.invoke(args=["list-tokens", analyst]).output.strip() == "No API tokens."
    first = runner.invoke(args=["create-token", analyst]).output.splitlines()[-1]
    second = runner.invoke(args=["create-token", analyst]).output.splitlines()[-1]
    rows = listed(runner)
    assert [row[1] for row in rows] == ["…" + first[-4:], "…" + second[-4:]]
    assert all("never" in row for row in rows)
    assert not any(first in " ".join(row) for row in rows)  # only the end of a token shows
    assert token_status(client, first, slug) == token_status(client, second, slug) == 200

    revoked = runner.invoke(args=["revoke-token", analyst, rows[0][0]])
    assert revoked.exit_code == 0, revoked.output
    assert token_status(client, first, slug) == 401
    assert token_status(client, second, slug) == 200
    assert [row[0] for row in listed(runner)] == [rows[1][0]]


def test_revoking_an_unknown_or_someone_elses_token_fails(app, runner, analyst):
    with app.app_context():
        accounts.create_analyst("other@example.edu", "another long passphrase")
        db.session.commit()
    runner.invoke(args=["create-token", "other@example.edu"])
    other_id = listed(runner, "other@example.edu")[0][0]
    for token_id in (other_id, "999"):
        result = runner.invoke(args=["revoke-token", analyst, token_id])
        assert result.exit_code == 2
        assert "no API token with the id" in result.stderr
    assert len(listed(runner, "other@example.edu")) == 1


def test_a_token_with_an_expiry_stops_working_then(app, runner, client, survey, monkeypatch):
    slug = survey[0]
    result = runner.invoke(args=["create-token", ANALYST_EMAIL, "--expires-in", "30d"])
    assert result.exit_code == 0, result.output
    token = result.output.splitlines()[-1]
    assert "It works until" in result.output
    assert token_status(client, token, slug) == 200
    later = dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(days=30, minutes=1)
    monkeypatch.setattr(accounts, "_now", lambda: later)
    assert token_status(client, token, slug) == 401


@pytest.mark.parametrize("lifetime", ["soon", "0d", "-3d", "30 weeks", "12"])
def test_a_bad_expiry_is_refused_and_creates_no_token(runner, analyst, lifetime):
    result = runner.invoke(args=["create-token", analyst, "--expires-in", lifetime])
    assert result.exit_code == 2
    assert "--expires-in" in result.stderr
    assert runner.invoke(args=["list-tokens", analyst]).output.strip() == "No API tokens."


def test_expired_tokens_are_marked_in_the_list(app, runner, analyst):
    with app.app_context():
        past = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(hours=1)
        accounts.create_token(accounts.find_analyst(analyst), past)
        db.session.commit()
    assert "(expired)" in runner.invoke(args=["list-tokens", analyst]).output


# --------------------------------------------------------------------------- sign-in throttle


@pytest.fixture
def throttled_app(app):
    app.config["RATELIMIT_ENABLED"] = True
    app.config["LOGIN_RATE_LIMIT"] = "3 per minute"
    return app


def attempt(app, address: str, password: str = "wrong password!"):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    token = csrf_token(client.get("/analyst/login").text)
    return client.post(
        "/analyst/login",
        data={"email": ANALYST_EMAIL, "password": password, "csrf_token": token},
    )


def test_one_account_is_throttled_across_addresses(throttled_app, analyst, caplog):
    caplog.set_level(logging.INFO)
    statuses = [attempt(throttled_app, f"198.51.100.{n}").status_code for n in range(1, 6)]
    assert statuses == [401, 401, 401, 429, 429]
    refused = attempt(throttled_app, "198.51.100.77", ANALYST_PASSWORD)
    assert refused.status_code == 429  # even the right password waits out the window
    assert "Too many sign-in attempts" in refused.text
    assert int(refused.headers["Retry-After"]) == 60
    assert "sign-in failed" in caplog.text and "too many attempts on one account" in caplog.text
    assert "198.51.100" not in caplog.text


def test_one_address_is_throttled_across_accounts(throttled_app, analyst, caplog):
    caplog.set_level(logging.INFO)
    client_address = "203.0.113.9"
    statuses = []
    for n in range(5):
        client = throttled_app.test_client()
        client.environ_base["REMOTE_ADDR"] = client_address
        token = csrf_token(client.get("/analyst/login").text)
        statuses.append(
            client.post(
                "/analyst/login",
                data={"email": f"guess{n}@example.edu", "password": "x" * 12, "csrf_token": token},
            ).status_code
        )
    assert statuses == [401, 401, 401, 429, 429]
    assert "too many attempts from one address" in caplog.text
    assert client_address not in caplog.text
    assert attempt(throttled_app, "203.0.113.10", ANALYST_PASSWORD).status_code == 302


def test_failed_sign_ins_are_logged_without_the_address(app, analyst, caplog):
    caplog.set_level(logging.INFO)
    assert attempt(app, "192.0.2.44").status_code == 401
    assert "sign-in failed" in caplog.text
    assert "192.0.2.44" not in caplog.text and "wrong password!" not in caplog.text


# --------------------------------------------------------------------------- device cookies

OTHER_EMAIL = "colleague@example.edu"


def device_cookie_header(response) -> str | None:
    """The Set-Cookie header of the device cookie, if the response sets one."""
    for header in response.headers.getlist("Set-Cookie"):
        if header.startswith(DEVICE_COOKIE_PREFIX):
            return header
    return None


def cookie_name(app, email: str = ANALYST_EMAIL) -> str:
    with app.app_context():
        return device_cookie_name(email)


def device_cookie(app, browser, email: str = ANALYST_EMAIL):
    """The browser's device cookie for ``email``'s account, or None."""
    return browser.get_cookie(cookie_name(app, email), path="/analyst/login")


def known_browser(app, address: str = "192.0.2.1", email: str = ANALYST_EMAIL):
    """A browser that has signed in to ``email`` once (from ``address``), then signed out: a
    fresh client holding only the device cookie that sign-in left, as after a restart."""
    first = app.test_client()
    first.environ_base["REMOTE_ADDR"] = address
    token = csrf_token(first.get("/analyst/login").text)
    response = first.post(
        "/analyst/login", data={"email": email, "password": ANALYST_PASSWORD, "csrf_token": token}
    )
    assert response.status_code == 302
    cookie = device_cookie(app, first, email)
    assert cookie is not None, "a successful sign-in leaves no device cookie"
    browser = app.test_client()
    browser.set_cookie(cookie.key, cookie.value, path="/analyst/login")
    return browser


def attempt_from(client, address: str, password: str = "wrong password!", email=ANALYST_EMAIL):
    """One sign-in attempt by ``client`` from ``address``; the response."""
    client.environ_base["REMOTE_ADDR"] = address
    token = csrf_token(client.get("/analyst/login").text)
    return client.post(
        "/analyst/login", data={"email": email, "password": password, "csrf_token": token}
    )


def guess_from_many_addresses(app, count: int = 5) -> list[int]:
    return [attempt(app, f"198.51.100.{n}").status_code for n in range(1, count + 1)]


def test_a_known_browser_gets_through_while_strangers_guess(throttled_app, analyst):
    owner = known_browser(throttled_app)  # the account has 1 attempt of its 3
    assert guess_from_many_addresses(throttled_app) == [401, 401, 429, 429, 429]
    # The owner's browser, from another network than the one it signed in from, gets in...
    assert attempt_from(owner, "203.0.113.50", ANALYST_PASSWORD).status_code == 302
    # ... a new browser, even with the right password, waits like everyone.
    assert attempt(throttled_app, "203.0.113.51", ANALYST_PASSWORD).status_code == 429


def test_a_known_browser_that_fails_too_often_itself_loses_its_pass(throttled_app, analyst):
    owner = known_browser(throttled_app)
    guess_from_many_addresses(throttled_app)
    # Each try from another address, so that only the device's own count can stop it.
    statuses = [attempt_from(owner, f"203.0.113.{n}").status_code for n in range(60, 63)]
    assert statuses == [401, 401, 401]  # its own 3 a minute, the account's being used up
    assert attempt_from(owner, "203.0.113.63", ANALYST_PASSWORD).status_code == 429


def test_a_known_browser_stays_under_the_address_limit(throttled_app, analyst):
    owner = known_browser(throttled_app, address="203.0.113.70")
    statuses = [attempt_from(owner, "203.0.113.70").status_code for _ in range(3)]
    assert statuses == [401, 401, 429]  # 1 sign-in + 2 failures = 3 from that address
    assert attempt_from(owner, "203.0.113.70", ANALYST_PASSWORD).status_code == 429


def test_a_device_cookie_passes_only_for_its_own_account(throttled_app, analyst):
    with throttled_app.app_context():
        accounts.create_analyst(OTHER_EMAIL, ANALYST_PASSWORD)
        db.session.commit()
    colleague = known_browser(throttled_app, email=OTHER_EMAIL)
    guess_from_many_addresses(throttled_app)
    assert attempt_from(colleague, "203.0.113.80", ANALYST_PASSWORD).status_code == 429
    assert attempt_from(colleague, "203.0.113.81", ANALYST_PASSWORD, OTHER_EMAIL).status_code == 302


def test_signing_in_to_a_second_account_keeps_the_first_accounts_pass(throttled_app, analyst):
    with throttled_app.app_context():
        accounts.create_analyst(OTHER_EMAIL, ANALYST_PASSWORD)
        db.session.commit()
    owner = known_browser(throttled_app)
    # The same browser signs in to a colleague's account too: each account has its own cookie.
    assert attempt_from(owner, "192.0.2.5", ANALYST_PASSWORD, OTHER_EMAIL).status_code == 302
    assert device_cookie(throttled_app, owner) is not None
    assert device_cookie(throttled_app, owner, OTHER_EMAIL) is not None
    assert cookie_name(throttled_app) != cookie_name(throttled_app, OTHER_EMAIL)
    guess_from_many_addresses(throttled_app)
    assert attempt_from(owner, "203.0.113.85", ANALYST_PASSWORD).status_code == 302


def test_a_browser_keeps_the_device_cookies_of_its_last_five_accounts(app, monkeypatch):
    emails = [f"teacher{n}@example.edu" for n in range(MAX_DEVICE_COOKIES + 2)]
    with app.app_context():
        for email in emails:
            accounts.create_analyst(email, ANALYST_PASSWORD)
        db.session.commit()
    # Cookies are signed to the second: each sign-in a minute after the one before.
    clock = {"now": time.time()}
    monkeypatch.setattr("itsdangerous.timed.time.time", lambda: clock["now"])
    browser = app.test_client()

    def sign_in_to(email: str):
        clock["now"] += 60
        response = attempt_from(browser, "192.0.2.9", ANALYST_PASSWORD, email)
        assert response.status_code == 302
        return response

    def held() -> list[str]:
        return [email for email in emails if device_cookie(app, browser, email) is not None]

    for email in emails[:MAX_DEVICE_COOKIES]:
        sign_in_to(email)
    assert held() == emails[:5]
    dropping = sign_in_to(emails[5])
    assert held() == emails[1:6]  # the least recently signed in to is dropped
    deleted = [
        header
        for header in dropping.headers.getlist("Set-Cookie")
        if header.startswith(cookie_name(app, emails[0]) + "=;")
    ]
    assert len(deleted) == 1
    attributes = {part.strip().lower() for part in deleted[0].split(";")[1:]}
    assert {"path=/analyst/login", "httponly", "samesite=strict", "max-age=0"} <= attributes
    sign_in_to(emails[1])  # signing in again makes a cookie the newest
    sign_in_to(emails[6])
    assert held() == [emails[1], *emails[3:7]]
    # An unreadable cookie under a device cookie's name goes first.
    browser.set_cookie(DEVICE_COOKIE_PREFIX + "0" * 20, "not-ours", path="/analyst/login")
    sign_in_to(emails[0])
    assert held() == [emails[0], emails[1], *emails[4:7]]
    assert browser.get_cookie(DEVICE_COOKIE_PREFIX + "0" * 20, path="/analyst/login") is None


@pytest.mark.parametrize("tamper", ["other key", "changed", "unsigned"])
def test_a_forged_device_cookie_gives_no_pass(throttled_app, analyst, tamper):
    owner = known_browser(throttled_app)
    value = device_cookie(throttled_app, owner).value
    if tamper == "other key":
        payload = URLSafeTimedSerializer(TEST_SECRET_KEY).loads(value, salt="sign-in-device")
        value = URLSafeTimedSerializer("M4XnsjuGlRzZZLXgfoQqswlPjuE8U2hywNTVwl63klIa7UJ_").dumps(
            payload, salt="sign-in-device"
        )
    elif tamper == "changed":
        value = value[:-3] + ("AAA" if not value.endswith("AAA") else "BBB")
    else:
        value = value.split(".")[0]
    forged = throttled_app.test_client()
    forged.set_cookie(cookie_name(throttled_app), value, path="/analyst/login")
    guess_from_many_addresses(throttled_app)
    assert attempt_from(forged, "203.0.113.90", ANALYST_PASSWORD).status_code == 429


def test_an_expired_device_cookie_gives_no_pass(throttled_app, analyst, monkeypatch):
    owner = known_browser(throttled_app)
    guess_from_many_addresses(throttled_app)
    year_and_a_day = time.time() + DEVICE_COOKIE_MAX_AGE + 24 * 3600
    monkeypatch.setattr("itsdangerous.timed.time.time", lambda: year_and_a_day)
    assert attempt_from(owner, "203.0.113.95", ANALYST_PASSWORD).status_code == 429


def test_the_device_cookie_is_httponly_strict_long_lived_and_names_no_email(client, analyst):
    header = device_cookie_header(sign_in(client))
    assert header is not None
    attributes = {part.strip().lower() for part in header.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/analyst/login"} <= attributes
    assert f"max-age={365 * 24 * 3600}" in attributes
    assert "secure" not in attributes  # plain HTTP on loopback, as the session cookie
    value = header.split(";")[0].partition("=")[2]
    payload = base64.urlsafe_b64decode(value.split(".")[0] + "==")
    assert ANALYST_EMAIL.encode() not in payload and b"prof" not in payload
    assert ANALYST_EMAIL not in value


def test_the_device_cookie_is_secure_exactly_when_the_session_cookie_is(app, analyst):
    over_https = app.test_client()
    token = csrf_token(over_https.get("/analyst/login", base_url="https://localhost").text)
    response = over_https.post(
        "/analyst/login",
        base_url="https://localhost",
        data={"email": ANALYST_EMAIL, "password": ANALYST_PASSWORD, "csrf_token": token},
    )
    assert "secure" in device_cookie_header(response).lower().split("; ")
    app.config["SESSION_COOKIE_SECURE_ALWAYS"] = True
    always = device_cookie_header(sign_in(app.test_client()))
    assert "secure" in always.lower().split("; ")


def test_a_failed_sign_in_sets_no_device_cookie(client, analyst):
    response = sign_in(client, password="wrong password!")
    assert response.status_code == 401
    assert device_cookie_header(response) is None


def test_signing_in_again_keeps_the_browsers_device_id(app, analyst):
    owner = known_browser(app)
    first = device_cookie(app, owner).value
    assert attempt_from(owner, "192.0.2.2", ANALYST_PASSWORD).status_code == 302
    second = device_cookie(app, owner).value
    with app.app_context():
        serializer = URLSafeTimedSerializer(TEST_SECRET_KEY, salt="sign-in-device")
        assert serializer.loads(first)["device"] == serializer.loads(second)["device"]
    stranger = known_browser(app, address="192.0.2.3")
    third = device_cookie(app, stranger).value
    assert serializer.loads(third)["device"] != serializer.loads(first)["device"]
