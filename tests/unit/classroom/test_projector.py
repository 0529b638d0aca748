"""The projector view: nothing private on it, a state document that answers 304 while nothing
changes, and results hidden from the room until the survey closes when the professor asks."""

from __future__ import annotations

import re

import pytest

from survey_app.extensions import db
from survey_app.surveys.services import close_survey, find_survey
from tests.unit.results.test_results_api import submit


def present(slug: str) -> str:
    return f"/analyst/surveys/{slug}/present"


def state(slug: str) -> str:
    return f"/analyst/surveys/{slug}/present/state"


def csrf_token(client, slug: str) -> str:
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    return re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)


def set_hidden(client, slug: str, hide: bool):
    return client.post(
        f"/analyst/surveys/{slug}/results-visibility",
        data={"csrf_token": csrf_token(client, slug), "hide": "1" if hide else "0"},
    )


def test_the_projector_shows_how_to_join_and_nothing_private(
    app, client, survey, analyst, sign_in_as
):
    sign_in_as(client, analyst)
    app.config["PUBLIC_URL"] = "https://surveys.example.edu"
    page = client.get(present(survey[0])).get_data(as_text=True)
    with app.app_context():
        code = find_survey(survey[0]).join_code
    assert f'id="present-code" aria-label="Join code: {" ".join(code)}">{code}</p>' in page
    assert "https://surveys.example.edu/" in page
    assert re.search(r'<figure class="join-qr present-qr" id="present-qr"[^>]*><svg ', page)
    assert analyst not in page, "the professor's email is on the projector"
    # No control that changes the survey: no form at all (sign-out, close, open...).
    assert "<form" not in page
    assert "Close the survey" not in page


def test_the_projector_is_the_owners_alone(app, client, survey, sign_in_as):
    from survey_app.accounts.services import create_analyst

    with app.app_context():
        create_analyst("other@example.edu", "another long passphrase 42")
        db.session.commit()
    assert client.get(present(survey[0])).status_code == 302  # to the sign-in page
    assert client.get(state(survey[0])).status_code == 401
    assert client.get(state(survey[0])).get_json()["code"] == "signed_out"
    sign_in_as(client, "other@example.edu")
    assert client.get(present(survey[0])).status_code == 404
    assert client.get(state(survey[0])).status_code == 404


def test_the_state_answers_304_until_a_submission_changes_it(
    app, client, survey, analyst, sign_in_as
):
    sign_in_as(client, analyst)
    first = client.get(state(survey[0]))
    assert first.status_code == 200
    version = first.get_json()["version"]
    assert first.headers["ETag"] == f'"{version}"'
    assert first.headers["Cache-Control"] == "no-store"
    again = client.get(state(survey[0]), headers={"If-None-Match": f'"{version}"'})
    assert again.status_code == 304 and again.get_data() == b""
    submit(app, survey[0], [(1, 0)])
    changed = client.get(state(survey[0]), headers={"If-None-Match": f'"{version}"'})
    assert changed.status_code == 200
    document = changed.get_json()
    assert document["version"] != version
    assert document["respondents"] == 1
    assert document["respondents_words"] == "1 person has answered"


def test_the_state_carries_each_questions_words_and_chart_once_enough_answered(
    app, client, survey, analyst, sign_in_as
):
    sign_in_as(client, analyst)
    submit(app, survey[0], [(1, 2)] * 6)
    early = client.get(state(survey[0])).get_json()
    assert [q["number"] for q in early["questions"]] == [1, 2]
    assert all("options" not in q for q in early["questions"])
    assert "Too early for shares" in early["questions"][0]["html"]
    # Counts randomized answers could well give (none lopsided), so every option has a range.
    submit(app, survey[0], [(1, 0)] * 10 + [(0, 1)] * 14 + [(1, 2)] * 16)
    document = client.get(state(survey[0])).get_json()
    yes_no, choice = document["questions"]
    assert document["respondents"] == 46
    assert '<svg class="chart"' in yes_no["html"]
    assert "chebyshev" not in yes_no["html"], "the room sees one range, not two"
    assert [option["label"] for option in choice["options"]] == ["Never", "Once", "Often"]
    assert sum(option["share"] for option in choice["options"]) == pytest.approx(1.0)
    for option in choice["options"]:
        assert option["exact_ci_low"] <= option["share"] <= option["exact_ci_high"]


def test_hidden_results_leave_the_projector_until_the_survey_closes(
    app, client, survey, analyst, sign_in_as
):
    sign_in_as(client, analyst)
    submit(app, survey[0], [(1, 2)] * 20)
    assert set_hidden(client, survey[0], True).status_code == 302
    document = client.get(state(survey[0])).get_json()
    assert document["results_hidden"] is True
    assert document["respondents"] == 20
    # Nothing on when results change or what they include: the room sees none.
    assert document["status_words"] == "Open: answer on your phone."
    assert document["summary_words"] is None
    assert all("options" not in q and "<svg" not in q["html"] for q in document["questions"])
    page = client.get(present(survey[0])).get_data(as_text=True)
    assert "The results stay hidden until the survey closes." in page
    assert '<svg class="chart"' not in page
    # The dashboard still shows them, and says the projector hides them.
    dashboard = client.get(f"/analyst/surveys/{survey[0]}").get_data(as_text=True)
    assert '<svg class="chart"' in dashboard
    assert 'id="show-results-on-projector"' in dashboard
    hidden_version = document["version"]
    with app.app_context():
        close_survey(find_survey(survey[0]))
        db.session.commit()
    closed = client.get(state(survey[0]), headers={"If-None-Match": f'"{hidden_version}"'})
    assert closed.status_code == 200
    document = closed.get_json()
    assert document["results_hidden"] is False and document["status"] == "closed"
    assert all("options" in q for q in document["questions"])


def test_showing_results_again_takes_effect_at_once(app, client, survey, analyst, sign_in_as):
    sign_in_as(client, analyst)
    submit(app, survey[0], [(1, 2)] * 20)
    set_hidden(client, survey[0], True)
    set_hidden(client, survey[0], False)
    assert client.get(state(survey[0])).get_json()["results_hidden"] is False
    with app.app_context():
        assert find_survey(survey[0]).hide_results_until_closed is False


def test_hiding_results_needs_the_csrf_token(app, client, survey, analyst, sign_in_as):
    sign_in_as(client, analyst)
    response = client.post(f"/analyst/surveys/{survey[0]}/results-visibility", data={"hide": "1"})
    assert response.status_code == 400
    with app.app_context():
        assert find_survey(survey[0]).hide_results_until_closed is False


def test_a_draft_on_the_projector_says_it_is_not_open(
    app, client, make_survey, analyst, sign_in_as
):
    sign_in_as(client, analyst)
    slug, _ = make_survey(status="draft")
    page = client.get(present(slug)).get_data(as_text=True)
    assert "This survey is a draft" in page
    assert 'id="present-qr"' not in page and 'id="present-code"' not in page


def test_without_a_public_address_no_qr_code_of_a_bare_path_is_drawn(
    app, client, survey, analyst, sign_in_as
):
    """Asked by a name that is not loopback and with no SURVEY_APP_PUBLIC_URL, links are paths
    alone: a QR code of one would lead phones nowhere."""
    sign_in_as(client, analyst)
    hall = app.test_client()
    hall.set_cookie("session", client.get_cookie("session").value, domain="lecture-hall.example")

    def page(path: str) -> str:
        response = hall.get(path, base_url="http://lecture-hall.example")
        assert response.status_code == 200
        return response.get_data(as_text=True)

    dashboard = f"/analyst/surveys/{survey[0]}"
    assert 'id="present-address-missing"' in page(present(survey[0]))
    assert 'id="present-qr"' not in page(present(survey[0]))
    assert 'id="join-qr"' not in page(dashboard)
    assert 'id="public-url-missing"' in page(dashboard)
    app.config["PUBLIC_URL"] = "https://surveys.example.edu"
    assert 'id="present-address-missing"' not in page(present(survey[0]))
    assert 'id="present-qr"' in page(present(survey[0]))
    assert 'id="join-qr"' in page(dashboard)


def test_how_to_join_follows_the_survey_from_draft_to_open_to_closed(
    app, client, make_survey, analyst, sign_in_as
):
    """A projector opened before the survey opens gets the code and QR code once it opens, in
    its state document (no reload), and loses them once the survey closes."""
    from survey_app.surveys.services import open_survey

    sign_in_as(client, analyst)
    app.config["PUBLIC_URL"] = "https://surveys.example.edu"
    slug, _ = make_survey(status="draft")
    draft = client.get(state(slug)).get_json()
    assert "This survey is a draft" in draft["join_html"]
    assert 'id="present-code"' not in draft["join_html"]
    with app.app_context():
        open_survey(find_survey(slug))
        db.session.commit()
        code = find_survey(slug).join_code
    opened = client.get(state(slug), headers={"If-None-Match": f'"{draft["version"]}"'})
    assert opened.status_code == 200
    opened = opened.get_json()
    assert opened["join_key"] != draft["join_key"]
    assert f">{code}</p>" in opened["join_html"]
    assert "https://surveys.example.edu/" in opened["join_html"]
    assert re.search(r'id="present-qr"[^>]*><svg ', opened["join_html"])
    with app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()
    closed = client.get(state(slug)).get_json()
    assert closed["join_key"] != opened["join_key"]
    assert code not in closed["join_html"] and "<svg" not in closed["join_html"]
    assert 'id="present-code"' not in client.get(present(slug)).get_data(as_text=True)
