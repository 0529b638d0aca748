"""The analyst's pages keep survey text inert (escaped everywhere it is shown) and each
analyst's surveys their own (another's are 404 and unchanged).
"""

from __future__ import annotations

import html
import re

import pytest
from sqlalchemy import select

from survey_app.accounts.services import find_analyst
from survey_app.extensions import db
from survey_app.storage.models import Analyst, Survey
from survey_app.surveys.services import create_survey, parse_definition
from tests.analyst_helpers import (
    ANALYST_EMAIL,
    OTHER_EMAIL,
    builder_fields,
    slug_from,
    state_of,
    submit,
    svg_blocks,
    token_of,
)

NASTY_TAG = '<script>alert("x")</script>'
ATTRIBUTE_BREAKER = "\" onmouseover='alert(1)' x=\""
HOSTILE_DEFINITION = {
    "title": f"Title {NASTY_TAG}",
    "intro": f"Intro {NASTY_TAG} {ATTRIBUTE_BREAKER}",
    "flip_probability": 0.25,
    "questions": [
        {"text": f"Question {NASTY_TAG} {ATTRIBUTE_BREAKER}", "type": "yes_no"},
        {
            "text": "Pick one",
            "type": "choice",
            "options": [f"</textarea>{NASTY_TAG}", f"{ATTRIBUTE_BREAKER}", "<b>bold</b>"],
        },
    ],
}


# --------------------------------------------------------------------------- XSS


def assert_escaped(page: str) -> None:
    assert "<script>alert" not in page
    assert " onmouseover='alert(1)'" not in page
    assert "</textarea><script>" not in page
    assert "<b>bold</b>" not in page


@pytest.mark.parametrize(
    "path", ["", "/edit", "/preview", "/results-panel", "LIST"], ids=lambda p: p or "dashboard"
)
def test_survey_text_is_shown_as_text(app, signed_in, make_survey, path):
    status = "draft" if path == "/edit" else "open"
    slug, _ = make_survey(HOSTILE_DEFINITION, status=status)
    if status == "open":
        submit(app, slug, [(1, 0), (0, 1), (1, 2)] * 4)
    url = "/analyst/" if path == "LIST" else f"/analyst/surveys/{slug}{path}"
    page = signed_in.get(url).text
    assert_escaped(page)
    if path != "/results-panel":
        assert "Title &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page
    if path not in ("LIST",):
        assert "Question &lt;script&gt;" in page
    if path in ("", "/results-panel", "/preview", "/edit"):
        assert "&lt;b&gt;bold&lt;/b&gt;" in page


def test_svg_labels_are_escaped(app, signed_in, make_survey):
    slug, _ = make_survey(HOSTILE_DEFINITION)
    submit(app, slug, [(1, 0), (0, 1), (1, 2)] * 4)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    chart = svg_blocks(page)[1]
    labels = re.findall(r'<text class="label"[^>]*>(.*?)</text>', chart)
    assert len(labels) == 3
    for label in labels:
        assert "<" not in label and '"' not in label and "'" not in label
    assert html.unescape(labels[2]) == "<b>bold</b>"
    assert html.unescape(labels[0]).startswith("</textarea><script>")


def test_builder_keeps_hostile_text_inert_when_rerendered(app, signed_in):
    fields = builder_fields(
        title=NASTY_TAG + ATTRIBUTE_BREAKER,
        intro="</textarea>" + NASTY_TAG,
        flip_probability='"><script>alert(1)</script>',
        questions=[(ATTRIBUTE_BREAKER, "choice", "</textarea><b>bold</b>\n" + NASTY_TAG)],
    )
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post("/analyst/surveys/new", data=fields)
    assert response.status_code == 400
    assert_escaped(response.text)
    assert '"><script>' not in response.text


# --------------------------------------------------------------------------- access


def other_survey(app) -> str:
    """A survey of the second analyst."""
    with app.app_context():
        owner = find_analyst(OTHER_EMAIL)
        survey = create_survey(
            owner,
            parse_definition(
                {
                    "title": "Other analyst's survey",
                    "flip_probability": 0.2,
                    "questions": [{"text": "Other question?", "type": "yes_no"}],
                }
            ),
        )
        db.session.commit()
        return survey.slug


ACCESS_CASES = [
    ("GET", "", "open"),
    ("GET", "/edit", "draft"),
    ("GET", "/preview", "draft"),
    ("GET", "/results-panel", "open"),
    ("POST", "/edit", "draft"),
    ("POST", "/open", "draft"),
    ("POST", "/open", "closed"),
    ("POST", "/close", "open"),
    ("GET", "API/results", "open"),
    ("GET", "API/results.csv", "open"),
    ("GET", "API/responses.csv", "open"),
    ("GET", "POOLED", "open"),
]


def access_url(slug: str, path: str) -> str:
    if path == "POOLED":
        return f"/api/v1/results?surveys={slug}"
    if path.startswith("API"):
        return f"/api/v1/surveys/{slug}{path[3:]}"
    return f"/analyst/surveys/{slug}{path}"


@pytest.mark.parametrize(("method", "path", "status"), ACCESS_CASES)
def test_another_analysts_survey_is_404_and_unchanged(
    app, make_survey, other_analyst, method, path, status
):
    slug, _ = make_survey(status=status)
    if status == "open":
        submit(app, slug, [(1, 2), (0, 1)])
    before = state_of(app, slug)
    data = None
    if method == "POST":
        data = builder_fields(title="Taken over") if path == "/edit" else {}
        data["csrf_token"] = token_of(other_analyst)

    response = other_analyst.open(access_url(slug, path), method=method, data=data)
    missing = other_analyst.open(access_url("no-such-survey", path), method=method, data=data)

    assert response.status_code == 404
    body = response.get_data(as_text=True)
    for secret in ("Academic integrity", "copied homework", "How often", "Never", ANALYST_EMAIL):
        assert secret not in body
    # Indistinguishable from a survey that does not exist.
    assert missing.status_code == 404
    assert body == missing.get_data(as_text=True)
    assert state_of(app, slug) == before


def test_each_analyst_lists_only_their_own_surveys(app, signed_in, survey, other_analyst):
    theirs = other_survey(app)
    mine = signed_in.get("/analyst/").text
    other = other_analyst.get("/analyst/").text
    assert survey[0] in mine and theirs not in mine
    assert "Other analyst&#39;s survey" not in mine
    assert theirs in other and survey[0] not in other
    assert "Academic integrity" not in other
    assert signed_in.get(f"/analyst/surveys/{theirs}").status_code == 404
    assert other_analyst.get(f"/analyst/surveys/{theirs}").status_code == 200


def test_a_new_survey_belongs_to_whoever_built_it(app, other_analyst, analyst):
    fields = builder_fields(title="Built by the other analyst")
    fields["csrf_token"] = token_of(other_analyst)
    slug = slug_from(other_analyst.post("/analyst/surveys/new", data=fields))
    assert state_of(app, slug)["owner"] == OTHER_EMAIL
    with app.app_context():
        owners = (
            db.session.execute(select(Analyst.email).select_from(Survey).join(Survey.owner))
            .scalars()
            .all()
        )
    assert owners == [OTHER_EMAIL]
