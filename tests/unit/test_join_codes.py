"""Joining by code: every survey that opens gets a short code without lookalike characters, and
/j/<code>, the join box on / and the public definition lead a class to it."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from survey_app.extensions import db
from survey_app.models import JOIN_CODE_ALPHABET, Survey, normalise_join_code
from survey_app.surveys import find_survey

CODE = re.compile(rf"^[{JOIN_CODE_ALPHABET}]{{6}}$")


def code_of(app, slug: str) -> str | None:
    with app.app_context():
        return find_survey(slug).join_code


def test_an_open_survey_has_a_code_without_lookalikes(app, survey):
    code = code_of(app, survey[0])
    assert CODE.match(code)
    assert not set(code) & set("0O1IL5S2ZUV")


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


def test_a_closed_survey_leads_to_its_closed_page(app, client, make_survey):
    slug, _ = make_survey(status="closed")
    response = client.get(f"/j/{code_of(app, slug)}")
    assert response.status_code == 302
    assert client.get(response.headers["Location"]).status_code == 410


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
    [("k7w3px", "K7W3PX"), ("K7W 3PX", "K7W3PX"), ("K7W-3PX", "K7W3PX"), ("K7W3P0", None)],
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
