"""gunicorn applies no X-Forwarded-* header itself: only SURVEY_APP_TRUSTED_PROXIES makes the
app believe them (a client on loopback could otherwise claim HTTPS, or another host)."""

from __future__ import annotations

from loadkit import LOGIN_PATH

FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"}


def session_cookie(server) -> str:
    status, headers, _ = server.request("GET", LOGIN_PATH, headers=FORWARDED)
    assert status == 200
    cookies = [
        value for value in headers.get_all("Set-Cookie") or [] if value.startswith("session=")
    ]
    assert cookies, "the sign-in page set no session cookie"
    return cookies[0].lower()


def test_forwarded_headers_are_ignored_without_trusted_proxies(deployment, start_server):
    server = start_server(deployment, workers=1)
    assert "secure" not in session_cookie(server)


def test_forwarded_headers_count_behind_a_trusted_proxy(deployment, start_server):
    server = start_server(deployment, workers=1, SURVEY_APP_TRUSTED_PROXIES="1")
    assert "secure" in session_cookie(server)
