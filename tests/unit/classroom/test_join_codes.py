"""Joining by code: every survey that opens gets a short code without lookalike characters, and
/j/<code>, the join box on / and the public definition lead a class to it."""

from __future__ import annotations

import datetime as dt
import html
import json
import re
import threading

import pytest
from flask import Flask
from sqlalchemy import select

import survey_app.server
from survey_app import config, create_app
from survey_app.extensions import db
from survey_app.storage.models import (
    JOIN_CODE_ALPHABET,
    SignInAttempts,
    Survey,
    normalise_join_code,
    utc_now,
)
from survey_app.surveys import services as surveys
from survey_app.surveys.services import SAMPLE_SURVEY, find_survey
from survey_app.web.ratelimits import sign_in_throttle
from tests.analyst_helpers import csrf_token
from tests.conftest import TEST_SECRET_KEY

CODE = re.compile(rf"^[{JOIN_CODE_ALPHABET}]{{6}}$")


def code_of(app, slug: str) -> str | None:
    with app.app_context():
        return find_survey(slug).join_code


def test_an_open_survey_has_a_code_without_lookalikes(app, survey):
    code = code_of(app, survey[0])
    assert CODE.match(code)
    assert not set(code) & set("0O1IL5S2ZUVBG")


def test_the_alphabet_itself_has_no_lookalikes():
    """Every code, join or one-time, is drawn from this alphabet: checked whole, not by sample."""
    lookalikes = set("0O1IL5S2ZUVBG")  # 0/O, 1/I/L, 5/S, 2/Z, U/V, 8/B, 6/G
    assert not set(JOIN_CODE_ALPHABET) & lookalikes
    assert len(set(JOIN_CODE_ALPHABET)) == len(JOIN_CODE_ALPHABET)  # uniform draws
    assert all(char.isascii() and (char.isupper() or char.isdigit()) for char in JOIN_CODE_ALPHABET)
    assert len(JOIN_CODE_ALPHABET) >= 20  # 20^6 = 64 million codes: few collisions to retry


def test_a_code_already_taken_is_drawn_again(app, make_survey, monkeypatch):
    taken = code_of(app, make_survey()[0])
    draws = iter([taken, taken, "K7W3PX"])
    drawn = []

    def new_join_code() -> str:
        drawn.append(next(draws))
        return drawn[-1]

    monkeypatch.setattr(surveys, "new_join_code", new_join_code)
    slug, _ = make_survey()
    assert drawn == [taken, taken, "K7W3PX"]
    assert code_of(app, slug) == "K7W3PX"
    with app.app_context():
        stored = db.session.execute(select(Survey.join_code)).scalars().all()
    assert sorted(stored) == sorted([taken, "K7W3PX"])


def test_a_draft_has_no_code_until_it_opens_and_keeps_it_after(app, runner, make_survey):
    slug, _ = make_survey(status="draft")
    assert code_of(app, slug) is None
    assert runner.invoke(args=["open-survey", slug]).exit_code == 0
    code = code_of(app, slug)
    assert CODE.match(code)
    assert runner.invoke(args=["close-survey", slug]).exit_code == 0
    assert runner.invoke(args=["open-survey", slug]).exit_code == 0
    assert code_of(app, slug) == code


def test_codes_differ_between_surveys(app, make_survey):
    codes = [code_of(app, make_survey()[0]) for _ in range(12)]
    assert len(set(codes)) == len(codes)
    with app.app_context():
        stored = db.session.execute(select(Survey.join_code)).scalars().all()
    assert sorted(stored) == sorted(codes)


@pytest.mark.parametrize("typed", ["{code}", "{lower}", " {code} ", "{spaced}", "{dashed}"])
def test_a_code_in_any_case_with_spaces_or_dashes_leads_to_the_survey(app, client, survey, typed):
    slug = survey[0]
    code = code_of(app, slug)
    text = typed.format(
        code=code,
        lower=code.lower(),
        spaced=f"{code[:3]} {code[3:]}",
        dashed=f"{code[:3]}-{code[3:]}",
    )
    for response in (client.get("/join", query_string={"code": text}), client.get(f"/j/{text}")):
        assert response.status_code == 302
        assert response.headers["Location"] == f"/s/{slug}"


@pytest.mark.parametrize("typed", ["", "ABC", "ABCDEFG", "0O1IL5", "<script>", "K7W3P" + "é"])
def test_a_wrong_code_says_so_and_keeps_what_was_typed(client, survey, typed):
    response = client.get("/join", query_string={"code": typed})
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert 'id="join-error"' in page and 'id="join-code"' in page
    assert "<script>" not in page.split("<main", 1)[1]  # shown as text, never as markup


def test_a_draft_cannot_be_joined(app, client, make_survey):
    slug, _ = make_survey(status="draft")
    with app.app_context():
        survey = find_survey(slug)
        survey.join_code = "K7W3PX"  # even if it had one
        db.session.commit()
    assert client.get("/j/K7W3PX").status_code == 404


def join_page(response) -> str:
    """The main part of a join page, where its error and its code box are."""
    return html.unescape(response.get_data(as_text=True).split("<main", 1)[1])


def join_both_ways(client, typed: str):
    """The join box's answer and the join link's answer for the same code."""
    return client.get("/join", query_string={"code": typed}), client.get(f"/j/{typed}")


def test_a_draft_with_a_code_has_not_opened_yet(app, client, runner, make_survey):
    """Issuing one-time codes gives a draft its join code (the slips show it) before class."""
    slug, _ = make_survey(status="draft")
    assert runner.invoke(args=["issue-codes", slug, "2"]).exit_code == 0
    code = code_of(app, slug)
    assert CODE.match(code)
    for response in join_both_ways(client, code.lower()):
        assert response.status_code == 404
        page = join_page(response)
        assert "has not opened yet" in page and "No survey has" not in page
        assert re.search(r'id="join-error"[^>]*>[^<]*(professor|runs it)', page)
        assert f'value="{code.lower()}"' in page  # what was typed stays in the box
        assert f"/s/{slug}" not in page


def test_a_closed_survey_leads_to_its_closed_page(app, client, make_survey):
    slug, _ = make_survey(status="closed")
    for response in join_both_ways(client, code_of(app, slug)):
        assert response.status_code == 302
        closed = client.get(response.headers["Location"])
        assert closed.status_code == 410
        assert "has closed" in closed.get_data(as_text=True)


@pytest.mark.parametrize("typed", ["ABCDE-FGHJK", "abcde fghjk", "ABCDEFGHJK", " abcde-FGHJK "])
def test_a_one_time_code_in_the_join_box_is_recognised(client, survey, typed):
    for response in join_both_ways(client, typed):
        assert response.status_code == 404
        page = join_page(response)
        error = re.search(r'id="join-error"[^>]*>(.*?)</p>', page, re.DOTALL).group(1)
        assert "one-time code" in error
        assert "6-character survey code" in error and "QR code" in error
        assert "letters and digits, like" not in error  # not the wrong-length message
        assert f'value="{typed.strip()}"' in page


@pytest.mark.parametrize("typed", ["ABCDE-FGHJ", "ABCDE-FGHJ0", "ABCDE-FGHJKM"])
def test_ten_characters_that_cannot_be_a_one_time_code_get_the_usual_message(client, typed):
    page = join_page(client.get("/join", query_string={"code": typed}))
    assert "one-time code" not in page.split('id="join-error"', 1)[1].split("</p>", 1)[0]


def test_the_front_door_has_a_join_box_and_a_sign_in_link(client):
    page = client.get("/").get_data(as_text=True)
    assert '<form method="get" action="/join"' in page
    assert 'name="code"' in page and 'autocapitalize="characters"' in page
    assert 'href="/analyst/login"' in page


def test_the_public_definition_carries_the_code(app, client, survey):
    definition = client.get(f"/api/v1/surveys/{survey[0]}").get_json()
    assert definition["join_code"] == code_of(app, survey[0])


def test_the_dashboard_shows_the_join_address_and_code(app, client, survey, analyst, sign_in_as):
    sign_in_as(client, analyst)
    app.config["PUBLIC_URL"] = "https://surveys.example.edu"
    page = client.get(f"/analyst/surveys/{survey[0]}").get_data(as_text=True)
    code = code_of(app, survey[0])
    assert "<strong>https://surveys.example.edu/</strong>" in page
    assert f'id="join-code">{code}</strong>' in page


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("k7w3px", "K7W3PX"),
        ("K7W 3PX", "K7W3PX"),
        ("K7W-3PX", "K7W3PX"),
        ("K7W3P0", None),
        # Pasted from a chat or an email: a non-breaking space, a dot, an underscore, a
        # full-width form, a line break.
        ("K7W\u00a03PX", "K7W3PX"),
        ("K7W.3PX", "K7W3PX"),
        ("K7W_3PX", "K7W3PX"),
        ("\uff2b\uff17\uff37\uff13\uff30\uff38", "K7W3PX"),
        ("K7W\n3PX", "K7W3PX"),
        # B and G are no longer drawn, but a code issued before may hold them.
        ("B7W3PG", "B7W3PG"),
        ("K7W3Pé", None),
        ("К7W3PX", None),  # a Cyrillic К: not the code's K
    ],
)
def test_normalising_a_typed_code(typed, stored):
    assert normalise_join_code(typed) == stored


def test_the_dashboard_shows_a_qr_code_only_for_a_survey_people_can_join(
    app, client, make_survey, analyst, sign_in_as
):
    sign_in_as(client, analyst)
    open_slug, _ = make_survey()
    draft_slug, _ = make_survey(status="draft")
    page = client.get(f"/analyst/surveys/{open_slug}").get_data(as_text=True)
    figure = re.search(r'<figure class="join-qr" id="join-qr"[^>]*>(<svg .*?</svg>)</figure>', page)
    assert figure, "no QR code on the dashboard of an open survey"
    svg = figure.group(1)
    assert 'class="qr"' in svg and "<script" not in svg and "href" not in svg
    assert 'id="join-qr"' not in client.get(f"/analyst/surveys/{draft_slug}").get_data(as_text=True)


# --------------------------------------------------------------------------- the command line


def printed_join(output: str) -> tuple[str, str]:
    """The join code and join link a command printed."""
    code = re.search(rf"[Jj]oin code:\s+([{JOIN_CODE_ALPHABET}]{{6}})\b", output)
    link = re.search(r"[Jj]oin link:\s+(\S+)", output)
    assert code and link, output
    return code.group(1), link.group(1)


@pytest.mark.parametrize("public_url", [None, "https://surveys.example.edu"])
def test_create_survey_open_prints_the_join_code_and_link_and_the_slug_last(
    app, runner, client, analyst, tmp_path, public_url
):
    app.config["PUBLIC_URL"] = public_url
    path = tmp_path / "survey.json"
    path.write_text(json.dumps(SAMPLE_SURVEY), encoding="utf-8")
    result = runner.invoke(args=["create-survey", str(path), "--owner", analyst, "--open"])
    assert result.exit_code == 0, result.output
    slug = result.stdout.splitlines()[-1]
    code, link = printed_join(result.stdout)
    assert code == code_of(app, slug)
    assert link == f"{public_url or ''}/j/{code}"
    joined = client.get(link.removeprefix(public_url or ""))
    assert joined.status_code == 302 and joined.headers["Location"] == f"/s/{slug}"


def test_create_survey_as_a_draft_says_when_it_gets_a_code(app, runner, analyst, tmp_path):
    path = tmp_path / "survey.json"
    path.write_text(json.dumps(SAMPLE_SURVEY), encoding="utf-8")
    result = runner.invoke(args=["create-survey", str(path), "--owner", analyst])
    assert result.exit_code == 0, result.output
    assert code_of(app, result.stdout.splitlines()[-1]) is None
    assert "join code when it opens" in result.stdout
    assert "/j/" not in result.stdout


def test_open_survey_prints_the_join_code_and_link(app, runner, make_survey):
    app.config["PUBLIC_URL"] = "https://surveys.example.edu"
    slug, _ = make_survey(status="draft")
    result = runner.invoke(args=["open-survey", slug])
    assert result.exit_code == 0, result.output
    code, link = printed_join(result.stdout)
    assert code == code_of(app, slug)
    assert link == f"https://surveys.example.edu/j/{code}"


def test_quickstart_prints_the_join_code_and_link(app, runner, client, monkeypatch):
    monkeypatch.setattr(survey_app.server, "serve", lambda **options: None)
    monkeypatch.delenv("SURVEY_APP_PUBLIC_URL", raising=False)
    with app.app_context():
        db.drop_all()
    result = runner.invoke(args=["quickstart", "--port", "5055"])
    assert result.exit_code == 0, result.output
    code, link = printed_join(result.output)
    assert link == f"http://127.0.0.1:5055/j/{code}"
    joined = client.get(f"/j/{code}")
    assert joined.status_code == 302
    assert client.get(joined.headers["Location"]).status_code == 200
    assert f"{link}" in result.output and "http://127.0.0.1:5055/ " in result.output


# ------------------------------------------------------------------- codes of closed surveys


@pytest.fixture
def later(monkeypatch):
    """``later(hours)``: the survey services' clock moved that many hours ahead of now."""

    def move(hours: float) -> None:
        moved = utc_now() + dt.timedelta(hours=hours)
        monkeypatch.setattr(surveys, "utc_now", lambda: moved)

    return move


def without(page: str, typed: str) -> str:
    """A join page with what was typed taken out: what it says of the code, whatever the code."""
    return page.replace(typed, "TYPED")


@pytest.mark.parametrize("hours", [1, 23.9])
def test_a_closed_surveys_code_leads_to_it_within_the_grace(app, client, make_survey, later, hours):
    assert app.config["JOIN_CODE_GRACE"] == dt.timedelta(hours=24)  # the default
    slug, _ = make_survey(status="closed")
    later(hours)
    for response in join_both_ways(client, code_of(app, slug)):
        assert response.status_code == 302 and response.headers["Location"] == f"/s/{slug}"


@pytest.mark.parametrize("hours", [24.1, 24 * 400])
def test_a_closed_surveys_code_past_the_grace_answers_like_an_unknown_code(
    app, client, make_survey, later, hours
):
    slug, _ = make_survey(status="closed")
    code = code_of(app, slug)
    unknown = "HJ4MN9" if code != "HJ4MN9" else "HJ4MN8"  # never issued
    later(hours)
    for expired, never_issued in zip(
        join_both_ways(client, code), join_both_ways(client, unknown), strict=True
    ):
        assert expired.status_code == never_issued.status_code == 404
        assert without(join_page(expired), code) == without(join_page(never_issued), unknown)
        assert f"/s/{slug}" not in expired.get_data(as_text=True)
    # The survey still has it (its dashboard shows it); only typing it leads nowhere.
    assert code_of(app, slug) == code


def test_the_grace_is_settable(app, client, make_survey, later):
    app.config["JOIN_CODE_GRACE"] = dt.timedelta(hours=2)
    slug, _ = make_survey(status="closed")
    code = code_of(app, slug)
    later(1.9)
    assert client.get(f"/j/{code}").status_code == 302
    later(2.1)
    assert client.get(f"/j/{code}").status_code == 404


def test_the_grace_setting_is_read_as_hours(monkeypatch, tmp_path):
    monkeypatch.delenv("SURVEY_APP_JOIN_CODE_GRACE_HOURS", raising=False)
    settings = config.from_environment(str(tmp_path), with_secret_key=False)
    assert settings["JOIN_CODE_GRACE"] == dt.timedelta(hours=24)
    monkeypatch.setenv("SURVEY_APP_JOIN_CODE_GRACE_HOURS", "1.5")
    settings = config.from_environment(str(tmp_path), with_secret_key=False)
    assert settings["JOIN_CODE_GRACE"] == dt.timedelta(minutes=90)
    for wrong in ("0", "-3", "never", "nan"):
        monkeypatch.setenv("SURVEY_APP_JOIN_CODE_GRACE_HOURS", wrong)
        with pytest.raises(config.ConfigurationError, match="SURVEY_APP_JOIN_CODE_GRACE_HOURS"):
            config.from_environment(str(tmp_path), with_secret_key=False)


def test_reopening_within_the_grace_keeps_the_code(app, runner, make_survey, later):
    slug, _ = make_survey(status="closed")
    code = code_of(app, slug)
    later(23)
    assert runner.invoke(args=["open-survey", slug]).exit_code == 0
    assert code_of(app, slug) == code


def test_reopening_after_the_grace_draws_a_new_code(app, client, runner, make_survey, later):
    slug, _ = make_survey(status="closed")
    old = code_of(app, slug)
    later(25)
    result = runner.invoke(args=["open-survey", slug])
    assert result.exit_code == 0, result.output
    new = code_of(app, slug)
    assert CODE.match(new) and new != old
    assert printed_join(result.stdout)[0] == new  # what the professor is told to show
    assert client.get(f"/j/{new}").headers["Location"] == f"/s/{slug}"
    assert client.get(f"/j/{old}").status_code == 404  # the old code is not revived
    # Closed again, the new code has a grace of its own from this closing.
    assert runner.invoke(args=["close-survey", slug]).exit_code == 0
    later(25 + 23)
    assert client.get(f"/j/{new}").status_code == 302


@pytest.mark.parametrize("closed_again_by", ["the command", "the dashboard"])
def test_closing_a_closed_survey_again_keeps_its_code_expired(
    app, client, runner, signed_in, make_survey, later, closed_again_by
):
    """Closing again must not move the closing time, which would give an expired code a new
    grace (someone may have kept it to try later)."""
    slug, _ = make_survey(status="closed")
    code = code_of(app, slug)
    with app.app_context():
        closed_at = find_survey(slug).closed_at
    later(25)
    assert client.get(f"/j/{code}").status_code == 404
    if closed_again_by == "the command":
        result = runner.invoke(args=["close-survey", slug])
        assert result.exit_code == 0, result.output
        assert "already closed" in result.output
    else:
        page = signed_in.get(f"/analyst/surveys/{slug}")
        response = signed_in.post(
            f"/analyst/surveys/{slug}/close",
            data={"csrf_token": csrf_token(page.text), "confirmed": "yes"},
        )
        assert response.status_code == 302
    with app.app_context():
        assert find_survey(slug).closed_at == closed_at
    assert [response.status_code for response in join_both_ways(client, code)] == [404, 404]


def test_a_survey_closed_before_closing_times_were_kept_has_no_live_code(app, client, make_survey):
    """closed_at is new: a survey closed before it has none, and closed long enough ago."""
    slug, _ = make_survey(status="closed")
    with app.app_context():
        find_survey(slug).closed_at = None
        db.session.commit()
    assert client.get(f"/j/{code_of(app, slug)}").status_code == 404


# --------------------------------------------------------------------------- the join limit

JOIN_LIMIT = 4


@pytest.fixture
def workers(app, database_url):
    """``workers(n)``: n apps with the join limit on, over the test's database, as n gunicorn
    workers (or app servers) are: each has its own memory, and only the database in common."""
    made: list[Flask] = []

    def make(count: int, **settings) -> list[Flask]:
        for _ in range(count):
            made.append(
                create_app(
                    {
                        "TESTING": True,
                        "SECRET_KEY": TEST_SECRET_KEY,
                        "SQLALCHEMY_DATABASE_URI": database_url,
                        "RATELIMIT_ENABLED": True,
                        "RATELIMIT_STORAGE_URI": "memory://",
                        "JOIN_RATE_LIMIT": f"{JOIN_LIMIT} per minute",
                    }
                    | settings
                )
            )
        return made[-count:]

    yield make
    for worker in made:
        with worker.app_context():
            db.session.remove()
            db.engine.dispose()


def join_statuses(worker: Flask, codes: list[str]) -> list[int]:
    """The status of each typed code, sent to ``worker`` in turn (by the form and by links)."""
    client = worker.test_client()
    return [
        client.get(f"/j/{code}" if index % 2 else "/join", query_string={"code": code}).status_code
        for index, code in enumerate(codes)
    ]


def test_the_join_limit_is_counted_once_across_workers(app, survey, workers):
    """Three workers, one address: the limit holds for all of them together, not per worker."""
    code = code_of(app, survey[0])
    first, second, third = workers(3, LOGIN_RATE_LIMIT="2 per minute")
    statuses = (
        join_statuses(first, [code, "HJ4MN9"])
        + join_statuses(second, [code, "HJ4MN8"])
        + join_statuses(third, [code, code])
    )
    assert statuses == [302, 404, 302, 404, 429, 429]
    # Refused, a student gets the join form again, saying that the network is busy.
    busy = first.test_client().get("/join", query_string={"code": code})
    assert busy.status_code == 429 and busy.headers["Retry-After"] == "60"
    assert "Many people are joining from this network" in join_page(busy)
    assert f'value="{code}"' in join_page(busy)
    # Sign-ins from the same address have counts of their own.
    with third.test_request_context(environ_base={"REMOTE_ADDR": "127.0.0.1"}):
        assert sign_in_throttle().attempt("prof@example.edu") is None


def test_the_join_limit_is_a_sliding_window(app, survey, workers):
    """A settable clock, not sleeps: the previous minute weighs as much as it still overlaps."""
    code = code_of(app, survey[0])
    first, second = workers(2)
    start = 1_000 * 60 + 30  # half a minute into a window
    for worker in (first, second):
        worker.extensions["join_throttle"].clock = lambda: now
    now = start
    assert join_statuses(first, [code] * 3) + join_statuses(second, [code] * 2) == [302] * 4 + [429]
    # A minute later, half of the previous window's 5 still counts: 2.5 + 1 <= 4 < 2.5 + 2.
    now = start + 60
    assert join_statuses(second, [code] * 2) == [302, 429]
    # Two minutes after that, nothing counts any more, and the old windows are gone.
    now = start + 180
    assert join_statuses(first, [code] * 5) == [302] * 4 + [429]
    with app.app_context():
        rows = db.session.execute(select(SignInAttempts)).scalars().all()
    assert [(row.window, row.attempts) for row in rows] == [((start + 180) // 60, 5)]
    # Buckets are keyed hashes: no client address is stored.
    assert all("127.0.0" not in row.bucket for row in rows)


def test_a_new_window_forgets_every_address_the_sliding_window_has_left(app, survey, workers):
    """Rows saying when an address joined last only as long as its windows still count: a new
    window deletes the old windows of every address, not only its own, period by period."""
    code = code_of(app, survey[0])
    (worker,) = workers(1, JOIN_RATE_LIMIT=f"{JOIN_LIMIT} per minute; 50 per hour")
    worker.extensions["join_throttle"].clock = lambda: now
    client = worker.test_client()

    def join_from(address: str) -> None:
        client.environ_base["REMOTE_ADDR"] = address
        assert client.get(f"/j/{code}").status_code == 302

    def windows() -> dict[str, list[int]]:
        """Each period's stored windows (one per bucket and window), sorted."""
        with app.app_context():
            rows = db.session.execute(select(SignInAttempts)).scalars().all()
        stored: dict[str, list[int]] = {"60": [], "3600": []}
        for row in rows:
            stored[row.bucket.rpartition(":")[2]].append(row.window)
        return {period: sorted(numbers) for period, numbers in stored.items()}

    now = start = 1_000 * 60 + 30  # the 16th hour; windows of minutes and hours differ
    minute, hour = start // 60, start // 3600
    for address in ("192.0.2.1", "192.0.2.2", "192.0.2.3"):
        join_from(address)
    now = start + 60  # the previous minute still counts: nothing is forgotten
    join_from("192.0.2.4")
    assert windows() == {"60": [minute] * 3 + [minute + 1], "3600": [hour] * 4}
    now = start + 120  # three addresses' minute has left the sliding window: gone
    join_from("192.0.2.4")
    assert windows() == {"60": [minute + 1, minute + 2], "3600": [hour] * 4}
    now = start + 2 * 3600  # and so, two hours on, have the hours of all four
    join_from("192.0.2.5")
    assert windows() == {"60": [(start + 7200) // 60], "3600": [hour + 2]}


def test_workers_forgetting_old_windows_together_never_fail(app, workers):
    """Four workers count sign-ins (address, then account, in one transaction) from many
    addresses while the minute turns: each new window deletes the others' old rows, and none
    of them fails (no lock waits in a circle on PostgreSQL, no "database is locked")."""
    apps = workers(4, LOGIN_RATE_LIMIT="1000 per minute")
    clock = {"now": 1_000 * 60.0}
    for worker in apps:
        with worker.app_context():
            sign_in_throttle().clock = lambda: clock["now"]
    errors: list[BaseException] = []

    def sign_ins(worker: Flask, first: int) -> None:
        try:
            for n in range(first, first + 60):
                with worker.test_request_context(environ_base={"REMOTE_ADDR": f"10.0.{n}.1"}):
                    sign_in_throttle().attempt(f"prof{n % 3}@example.edu")
                    db.session.commit()
                if n % 20 == 0:
                    clock["now"] += 60  # the minute turns, for every worker at once
        except BaseException as error:  # noqa: BLE001 - reported below, in the test's thread
            errors.append(error)

    threads = [
        threading.Thread(target=sign_ins, args=(worker, 100 * index))
        for index, worker in enumerate(apps)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    # A worker that read the clock just before it turned may add a row of the window before;
    # the next window's first count forgets it with the rest.
    clock["now"] += 60
    with apps[0].test_request_context(environ_base={"REMOTE_ADDR": "10.1.0.1"}):
        sign_in_throttle().attempt("prof0@example.edu")
        db.session.commit()
    with app.app_context():
        stored = db.session.execute(select(SignInAttempts.window)).scalars().all()
    assert set(stored) <= {int(clock["now"] // 60) - 1, int(clock["now"] // 60)}


def test_with_limits_off_joins_are_never_refused(app, survey, workers):
    (worker,) = workers(1, RATELIMIT_ENABLED=False)
    code = code_of(app, survey[0])
    assert join_statuses(worker, [code] * 40) == [302] * 40
    assert "join_throttle" not in worker.extensions
