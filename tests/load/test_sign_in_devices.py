"""Device cookies hold across gunicorn workers.

While 15 addresses guess the owner's password at once (the account's count, in the database,
lets 5 attempts through a minute and refuses the rest with 429), the browser the owner signed
in with before gets through on its device cookie, each time on a new connection (so on
different workers), and a new browser with the right password still gets 429.
"""

from __future__ import annotations

from collections import Counter

from loadkit import (
    ANALYST_PASSWORD,
    address_lines,
    device_cookie_of,
    login_form,
    owner_sign_in,
    run_parallel,
    sign_in,
)

LOGIN_LIMIT = 5
GUESSES = 15
OWNER_SIGN_INS = 3


def test_the_owners_known_browser_gets_through_while_many_addresses_guess(deployment, start_server):
    server = start_server(
        deployment,
        workers=3,
        SURVEY_APP_RATELIMIT_ENABLED="true",
        SURVEY_APP_LOGIN_RATE_LIMIT=f"{LOGIN_LIMIT} per minute",
    )
    device_cookie = device_cookie_of(server, "127.0.0.99")  # 1 of the account's 5

    guessers = [f"127.0.0.{index}" for index in range(2, 2 + GUESSES)]
    forms = {source: login_form(server, source) for source in guessers}
    owner_sources = [f"127.0.0.{index}" for index in range(100, 100 + OWNER_SIGN_INS)]
    # The owner's sign-ins run among the guesses, five requests at a time.
    tasks = [
        lambda source=source: sign_in(server, forms[source], "wrong password!", source)
        for source in guessers
    ]
    tasks[3:3] = [
        lambda source=source: owner_sign_in(server, device_cookie, source)
        for source in owner_sources
    ]
    results = run_parallel(tasks, threads=5)
    owner_results = results[3 : 3 + OWNER_SIGN_INS]
    guess_results = results[:3] + results[3 + OWNER_SIGN_INS :]

    assert owner_results == [302] * OWNER_SIGN_INS
    assert Counter(guess_results) == Counter(
        {401: LOGIN_LIMIT - 1, 429: GUESSES - (LOGIN_LIMIT - 1)}
    )
    # Once more after the guesses, and a new browser, with the right password too, waits.
    assert owner_sign_in(server, device_cookie, "127.0.0.150") == 302
    fresh = "127.0.0.200"
    assert sign_in(server, login_form(server, fresh), ANALYST_PASSWORD, fresh) == 429
    assert address_lines(server.stop()) == []
