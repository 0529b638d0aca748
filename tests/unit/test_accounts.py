"""Account rules: strong passwords; API tokens that can be listed, revoked and expire;
sign-in throttled per account as well as per address, and logged without addresses."""

from __future__ import annotations

import datetime as dt
import logging
import re

import pytest

from survey_app import accounts
from survey_app.accounts import AccountError, check_new_password, common_passwords
from survey_app.extensions import db
from tests.unit.test_analyst import ANALYST_EMAIL, ANALYST_PASSWORD, csrf_token

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
        ("the.professor", "the email address's name"),
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
