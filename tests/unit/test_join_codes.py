"""Joining by code: every survey that opens gets a short code without lookalike characters, and
/j/<code>, the join box on / and the public definition lead a class to it."""

from __future__ import annotations

import html
import json
import re

import pytest
from sqlalchemy import select

import survey_app.server
from survey_app import surveys
from survey_app.extensions import db
from survey_app.models import JOIN_CODE_ALPHABET, Survey, normalise_join_code
from survey_app.surveys import SAMPLE_SURVEY, find_survey

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
