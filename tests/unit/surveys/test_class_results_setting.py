"""Whether respondents see the class's results once the survey closes is set on the dashboard
at any time: while it is a draft, while it is open and after it has closed. The dashboard says
what the setting does now; only the owner changes it, and only with the form's CSRF token."""

from __future__ import annotations

import html

import pytest

from survey_app.extensions import db
from survey_app.surveys.services import close_survey, find_survey
from tests.analyst_helpers import csrf_token, submit

ROWS = [(index % 2, index % 3) for index in range(12)]


def dashboard(client, slug: str) -> str:
    return html.unescape(client.get(f"/analyst/surveys/{slug}").text)


def set_shown(client, slug: str, show: str, token: str | None = None):
    token = token or csrf_token(client.get(f"/analyst/surveys/{slug}").text)
    return client.post(
        f"/analyst/surveys/{slug}/class-results", data={"csrf_token": token, "show": show}
    )


def shown_setting(app, slug: str) -> bool:
    with app.app_context():
        return find_survey(slug).show_results_after_close


def close_now(app, slug: str) -> None:
    with app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()


def test_set_while_open_then_changed_after_closing(app, signed_in, survey):
    slug, _ = survey
    submit(app, slug, ROWS)
    page = dashboard(signed_in, slug)
    assert "Respondents will not see the class’s results once the survey closes." in page
    assert "Show the class’s results to respondents after it closes</button>" in page

    response = set_shown(signed_in, slug, "1")
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/analyst/surveys/{slug}#class-results-setting")
    assert shown_setting(app, slug) is True
    page = dashboard(signed_in, slug)
    assert "Once you close the survey, respondents see the class’s results on its page" in page
    assert signed_in.get(f"/s/{slug}/results").status_code == 403  # not while it is open

    close_now(app, slug)
    page = dashboard(signed_in, slug)
    assert "Respondents see the class’s results on the survey’s page now" in page
    assert f'href="/s/{slug}/results" id="class-results-link"' in page
    assert signed_in.get(f"/s/{slug}/results").status_code == 200

    # After closing: stopped, then shown again.
    assert set_shown(signed_in, slug, "0").status_code == 302
    assert shown_setting(app, slug) is False
    assert signed_in.get(f"/s/{slug}/results").status_code == 404
    page = dashboard(signed_in, slug)
    assert "Respondents do not see the class’s results." in page
    assert "Show the class’s results to respondents now</button>" in page
    assert set_shown(signed_in, slug, "1").status_code == 302
    assert signed_in.get(f"/s/{slug}/results").status_code == 200


def test_settable_on_a_draft_too(app, signed_in, make_survey):
    slug, _ = make_survey(status="draft")
    assert set_shown(signed_in, slug, "1").status_code == 302
    assert shown_setting(app, slug) is True


@pytest.mark.parametrize("show", ["", "yes", "2"])
def test_an_unclear_choice_is_refused_in_words(app, signed_in, survey, show):
    slug, _ = survey
    response = set_shown(signed_in, slug, show)
    assert response.status_code == 400
    assert "show=1 or show=0" in html.unescape(response.text)
    assert shown_setting(app, slug) is False


def test_without_its_csrf_token_nothing_changes(app, signed_in, survey):
    slug, _ = survey
    response = set_shown(signed_in, slug, "1", token="IjAwMCI.not-a-token.at-all")
    assert response.status_code == 400
    assert shown_setting(app, slug) is False


def test_another_analysts_survey_is_404_and_unchanged(app, survey, other_analyst):
    slug, _ = survey
    token = csrf_token(other_analyst.get("/analyst/surveys/new").text)
    assert set_shown(other_analyst, slug, "1", token=token).status_code == 404
    assert shown_setting(app, slug) is False
