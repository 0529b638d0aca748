"""Strict-Transport-Security: sent over HTTPS (directly or through a trusted proxy), for a
year unless configured, never over plain HTTP, and off with a max-age of 0."""

from __future__ import annotations

import pytest

from survey_app import create_app
from survey_app.config import ConfigurationError
from tests.conftest import TEST_SECRET_KEY

HSTS = "Strict-Transport-Security"
A_YEAR = "max-age=31536000"


def app_with(tmp_path, **settings):
    """An app on a SQLite file of its own (the headers need no tables)."""
    return create_app(
        {
            "TESTING": True,
            "SECRET_KEY": TEST_SECRET_KEY,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'db.sqlite3'}",
            "RATELIMIT_ENABLED": False,
        }
        | settings
    )


@pytest.mark.parametrize("path", ["/", "/analyst/login", "/static/css/app.css", "/no-such-page"])
def test_https_responses_carry_hsts_for_a_year(client, path):
    response = client.get(path, base_url="https://localhost")
    assert response.headers.get(HSTS) == A_YEAR


@pytest.mark.parametrize("path", ["/", "/analyst/login", "/no-such-page"])
def test_plain_http_never_carries_hsts(client, path):
    assert HSTS not in client.get(path).headers


def test_plain_http_carries_no_hsts_even_when_cookies_are_always_secure(app, client):
    app.config["SESSION_COOKIE_SECURE_ALWAYS"] = True
    assert HSTS not in client.get("/analyst/login").headers


def test_a_trusted_proxys_https_gets_hsts_and_an_untrusted_ones_does_not(tmp_path, client):
    forwarded = {"X-Forwarded-Proto": "https"}
    behind_proxy = app_with(tmp_path, TRUSTED_PROXIES=1).test_client()
    assert behind_proxy.get("/analyst/login", headers=forwarded).headers.get(HSTS) == A_YEAR
    # Without SURVEY_APP_TRUSTED_PROXIES anyone could send the header: it is not believed.
    assert HSTS not in client.get("/analyst/login", headers=forwarded).headers


def test_the_max_age_is_settable_and_zero_turns_it_off(monkeypatch, tmp_path):
    monkeypatch.setenv("SURVEY_APP_HSTS_MAX_AGE", "600")
    shorter = app_with(tmp_path).test_client()
    assert shorter.get("/", base_url="https://localhost").headers.get(HSTS) == "max-age=600"
    monkeypatch.setenv("SURVEY_APP_HSTS_MAX_AGE", "0")
    off = app_with(tmp_path).test_client()
    assert HSTS not in off.get("/", base_url="https://localhost").headers


@pytest.mark.parametrize("value", ["-1", "a year", "1.5", "²"])
def test_a_bad_max_age_is_refused_naming_the_setting(monkeypatch, tmp_path, value):
    monkeypatch.setenv("SURVEY_APP_HSTS_MAX_AGE", value)
    with pytest.raises(ConfigurationError, match="SURVEY_APP_HSTS_MAX_AGE"):
        app_with(tmp_path)
