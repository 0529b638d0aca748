"""What a query string names, read once (survey_app.web.parsing): the API refuses a bad one with a
400; the dashboard says the same words on the page and shows the rest at the default."""

from __future__ import annotations

import html
import re

import pytest

from survey_app.results.tables import CONFIDENCE_LEVELS, DEFAULT_CONFIDENCE
from survey_app.web.parsing import QueryError, parse_confidence, parse_survey_list

BAD_CONFIDENCES = ["0", "1", "1.5", "-0.5", "abc", "", "nan", "inf", "95%", "0,95", "1e9"]


@pytest.mark.parametrize("raw", BAD_CONFIDENCES)
def test_a_confidence_outside_zero_one_is_refused_with_its_words(raw):
    with pytest.raises(QueryError) as refused:
        parse_confidence(raw)
    assert str(refused.value) == f"confidence must be a number in (0, 1), got {raw!r}"


@pytest.mark.parametrize(
    ("raw", "read"), [(None, DEFAULT_CONFIDENCE), ("0.8", 0.8), ("0.99", 0.99)]
)
def test_a_confidence_is_read(raw, read):
    assert parse_confidence(raw) == read


def test_a_page_takes_only_the_levels_it_offers():
    assert parse_confidence("0.9", CONFIDENCE_LEVELS) == 0.9
    with pytest.raises(QueryError, match=r"^confidence must be one of 0.9, 0.95, 0.99 here"):
        parse_confidence("0.8", CONFIDENCE_LEVELS)


@pytest.mark.parametrize(
    ("values", "slugs"),
    [
        (["a,b"], ["a", "b"]),
        (["a", "b"], ["a", "b"]),
        ([" a , b "], ["a", "b"]),
        (["b,a"], ["b", "a"]),
    ],
)
def test_a_survey_list_is_read_in_order(values, slugs):
    assert parse_survey_list(values) == slugs


@pytest.mark.parametrize(
    ("values", "why"),
    [
        ([], "surveys must name your surveys"),
        ([""], "surveys must name your surveys"),
        (["a,,b"], "surveys must name your surveys"),
        (["a,b,a"], "surveys names a survey more than once"),
        (["a", "a"], "surveys names a survey more than once"),
    ],
)
def test_a_bad_survey_list_is_refused(values, why):
    with pytest.raises(QueryError, match=f"^{why}"):
        parse_survey_list(values)


def test_a_list_may_be_empty_where_none_is_needed():
    assert parse_survey_list([], "pool", required=False) == []
    with pytest.raises(QueryError, match="^pool names a survey more than once"):
        parse_survey_list(["a,a"], "pool", required=False)


def figures_at(page: str) -> str:
    """The confidence the results panel shows, as it asks for itself again."""
    return re.search(r'data-refresh-url="[^"]*confidence=([0-9.]+)', page).group(1)


@pytest.mark.parametrize("raw", ["abc", "0.8", "1.5", ""])
def test_the_dashboard_says_why_it_shows_another_confidence(
    client, sign_in_as, analyst, survey, raw
):
    sign_in_as(client, analyst)
    slug, _ = survey
    for path in ("", "/results-panel"):
        response = client.get(f"/analyst/surveys/{slug}{path}", query_string={"confidence": raw})
        assert response.status_code == 200
        page = html.unescape(response.text)
        notice = re.search(r'<p class="notice error" id="confidence-error">([^<]*)</p>', page)
        assert notice, "the page does not say why"
        assert f"got {raw!r}" in notice.group(1)
        assert notice.group(1).endswith("the results are at 95%.")
        # The rest works, at the default.
        assert figures_at(page) == "0.95"


def test_a_confidence_offered_shows_no_notice(client, sign_in_as, analyst, survey):
    sign_in_as(client, analyst)
    slug, _ = survey
    page = client.get(f"/analyst/surveys/{slug}?confidence=0.99").text
    assert 'id="confidence-error"' not in page
    assert figures_at(page) == "0.99"
    assert 'id="confidence-error"' not in client.get(f"/analyst/surveys/{slug}").text


@pytest.mark.parametrize("raw", ["abc", "1.5", ""])
def test_the_api_and_the_dashboard_give_the_same_words(
    app, client, sign_in_as, analyst, survey, raw
):
    from tests.unit.results.test_results_api import bearer, new_token

    slug, _ = survey
    response = client.get(
        f"/api/v1/surveys/{slug}/results",
        query_string={"confidence": raw},
        headers=bearer(new_token(app, analyst)),
    )
    assert response.status_code == 400
    words = response.get_json()["error"]
    with pytest.raises(QueryError) as refused:
        parse_confidence(raw)
    assert words == str(refused.value)
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}", query_string={"confidence": raw}).text
    assert f"({words})" in html.unescape(page)
