"""Pooling sections: the dashboard's picker and pooled view, and GET /api/v1/results?surveys=.

Pooled figures are compared with what :mod:`survey_app.privacy` gives for the summed noisy
counts, counted here from the rows each section was sent; access is each analyst's own only.
"""

from __future__ import annotations

import re

import pytest

from survey_app import privacy
from survey_app.accounts.access import MAX_POOLED_SURVEYS
from survey_app.accounts.services import find_analyst
from survey_app.extensions import db
from survey_app.results.documents import results_document
from survey_app.results.tables import survey_results
from survey_app.surveys.services import create_survey, find_survey, open_survey, parse_definition
from tests.analyst_helpers import (
    OTHER_EMAIL,
    ROWS,
    assert_results_shown,
    flat,
    results_of,
    submit,
)
from tests.conftest import SAMPLE_DEFINITION
from tests.unit.results.test_results_api import bearer, new_token

# signed_in, other_analyst: the analyst pages' fixtures (tests/unit/conftest.py).

TITLE = SAMPLE_DEFINITION["title"]
#: Randomized answers of a second section (yes/no, choice).
OTHER_ROWS = [
    (0, 1),
    (0, 0),
    (1, 2),
    (0, 1),
    (1, 1),
    (0, 0),
    (0, 2),
    (1, 1),
    (0, 1),
    (1, 0),
    (0, 0),
]


def counts_of(rows, question: int, options: int) -> list[int]:
    return [sum(1 for row in rows if row[question] == value) for value in range(options)]


@pytest.fixture
def sections(app, make_survey):
    """Two open sections of the sample survey, answered: their slugs."""
    first, _ = make_survey()
    second, _ = make_survey()
    submit(app, first, ROWS)
    submit(app, second, OTHER_ROWS)
    return first, second


def survey_of(app, email: str, definition: dict) -> str:
    """An open survey of the analyst ``email``."""
    with app.app_context():
        survey = create_survey(find_analyst(email), parse_definition(definition))
        db.session.commit()
        open_survey(survey)
        db.session.commit()
        return survey.slug


# --------------------------------------------------------------------------- the dashboard


@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_pooled_dashboard_shows_the_summed_counts(app, signed_in, sections, confidence):
    first, second = sections
    page = signed_in.get(f"/analyst/surveys/{first}?pool={second}&confidence={confidence}").text
    pooled = results_of(app, [first, second], confidence)
    assert_results_shown(page, pooled, confidence)
    # The noisy counts shown are those of both sections together, and each estimate with both
    # of its ranges is what privacy gives for them.
    rows = ROWS + OTHER_ROWS
    assert pooled["respondents"] == len(rows)
    for index, (question, options) in enumerate(zip(pooled["questions"], (2, 3), strict=True)):
        counts = counts_of(rows, index, options)
        assert [count for _, count, _ in question["options"]] == counts
        expected = privacy.RandomizedResponse(0.25, options).estimate(counts, confidence)
        assert [e for _, _, e in question["options"]] == expected
    words = flat(page)
    assert (
        f'<strong id="respondent-count">{len(rows)}</strong> people have answered in all.' in words
    )
    summary = flat(re.search(r'<p class="notice" id="pooled-summary">(.*?)</p>', page, re.S)[1])
    assert f"this survey: {len(ROWS)} answered" in summary
    assert f": {len(OTHER_ROWS)} answered" in summary
    assert summary.count(f"“{SAMPLE_DEFINITION['title']}”") == 2
    # Links keep the pooled view: the confidence form, the self-refresh, the JSON.
    assert f'<input type="hidden" name="pool" value="{second}">' in page
    assert (
        f'data-refresh-url="/analyst/surveys/{first}/results-panel?confidence={confidence}'
        f'&amp;pool={second}"'
    ) in page
    assert f'href="/api/v1/results?surveys={first},{second}&amp;confidence={confidence}"' in page
    assert f'href="/analyst/surveys/{first}?confidence={confidence}" id="pool-off"' in page


def test_pooled_results_panel_shows_the_same_figures(app, signed_in, sections):
    first, second = sections
    page = signed_in.get(f"/analyst/surveys/{first}/results-panel?pool={second}").text
    assert 'id="pooled-summary"' in page
    assert_results_shown(page, results_of(app, [first, second]), 0.95)


def test_pool_from_the_form_or_a_link_is_the_same(app, signed_in, sections, make_survey):
    first, second = sections
    third, _ = make_survey()
    # Ten: a survey's first release waits for the answers results need (releases.release_due).
    submit(app, third, ROWS[:10])
    by_link = signed_in.get(f"/analyst/surveys/{first}?pool={second},{third}").text
    # The picker's checkboxes send pool=a&pool=b; naming the survey itself adds nothing.
    by_form = signed_in.get(
        f"/analyst/surveys/{first}?pool={second}&pool={third}&pool={first}"
    ).text
    pooled = results_of(app, [first, second, third])
    assert pooled["respondents"] == len(ROWS) + len(OTHER_ROWS) + 10
    for page in (by_link, by_form):
        assert_results_shown(page, pooled, 0.95)
        assert f'name="pool" value="{second},{third}"' in page


def test_a_survey_alone_is_not_pooled(app, signed_in, sections):
    first, second = sections
    page = signed_in.get(f"/analyst/surveys/{first}").text
    assert 'id="pooled-summary"' not in page
    assert "answered so far" in page
    assert_results_shown(page, results_of(app, first), 0.95)
    assert 'name="pool" value=' not in page.split('id="pool-picker"')[0]


def picker_choices(page: str) -> list[str]:
    return re.findall(r'<input type="checkbox" name="pool" value="([^"]+)"', page)


def test_the_picker_lists_only_surveys_that_can_be_pooled(
    app, signed_in, sections, make_survey, other_analyst
):
    first, second = sections
    closed, _ = make_survey(status="closed")
    make_survey(status="draft")  # no answers yet, and its questions may still change
    make_survey({**SAMPLE_DEFINITION, "flip_probability": 0.2})
    reworded = {**SAMPLE_DEFINITION, "questions": [SAMPLE_DEFINITION["questions"][0]]}
    make_survey(reworded)
    reordered = {
        **SAMPLE_DEFINITION,
        "questions": [
            SAMPLE_DEFINITION["questions"][0],
            {"text": "How often?", "type": "choice", "options": ["Often", "Once", "Never"]},
        ],
    }
    make_survey(reordered)
    someone_elses = survey_of(app, OTHER_EMAIL, SAMPLE_DEFINITION)

    page = signed_in.get(f"/analyst/surveys/{first}").text
    assert picker_choices(page) == [second, closed]
    assert someone_elses not in page
    # Picking one shows it ticked.
    page = signed_in.get(f"/analyst/surveys/{first}?pool={closed}").text
    assert f'value="{closed}" checked>' in page
    assert f'value="{second}" >' in page


def test_the_picker_says_why_no_survey_qualifies(app, signed_in, make_survey):
    alone, _ = make_survey()
    page = flat(signed_in.get(f"/analyst/surveys/{alone}").text)
    assert picker_choices(page) == []
    assert '<p id="pool-none">You have no other survey that has opened.' in page
    make_survey({**SAMPLE_DEFINITION, "flip_probability": 0.3})
    make_survey({**SAMPLE_DEFINITION, "title": "Another title, same questions"}, status="draft")
    page = flat(signed_in.get(f"/analyst/surveys/{alone}").text)
    assert picker_choices(page) == []
    assert (
        '<p id="pool-none">None of your 1 other survey can be combined with this one: combining '
        "needs the very same questions, options and flip probability"
    ) in page


def test_a_draft_offers_no_pooling(signed_in, make_survey, sections):
    draft, _ = make_survey(status="draft")
    assert 'id="pool-picker"' not in signed_in.get(f"/analyst/surveys/{draft}").text


def test_pooling_surveys_of_another_shape_says_why(app, signed_in, sections, make_survey):
    first, _ = sections
    other_p, _ = make_survey({**SAMPLE_DEFINITION, "flip_probability": 0.2})
    submit(app, other_p, ROWS)
    response = signed_in.get(f"/analyst/surveys/{first}?pool={other_p}")
    assert response.status_code == 200
    page = flat(response.text)
    assert (
        f"These surveys can’t be combined: “{TITLE}” randomizes with another flip "
        "probability (0.2 instead of 0.25). Below is this survey alone."
    ) in page
    assert 'id="pooled-summary"' not in page
    assert_results_shown(response.text, results_of(app, first), 0.95)


@pytest.mark.parametrize(
    ("pool", "why"),
    [
        ("SECOND,SECOND", "pool names a survey more than once"),
        ("SECOND&pool=SECOND", "pool names a survey more than once"),
        ("SECOND,,FIRST", "pool must name your surveys, separated by commas"),
    ],
)
def test_a_pool_the_api_would_refuse_is_refused_in_words(app, signed_in, sections, pool, why):
    # The API's words (parsing.parse_survey_list), said on the page; the rest works.
    first, second = sections
    query = pool.replace("FIRST", first).replace("SECOND", second)
    for path in ("", "/results-panel"):
        response = signed_in.get(f"/analyst/surveys/{first}{path}?pool={query}")
        assert response.status_code == 200
        page = flat(response.text)
        assert f"These surveys can’t be combined: {why}" in page
        assert 'id="pooled-summary"' not in page
        assert_results_shown(response.text, results_of(app, first), 0.95)


def test_pooling_someone_elses_survey_is_404(app, signed_in, sections, other_analyst):
    first, _ = sections
    theirs = survey_of(app, OTHER_EMAIL, SAMPLE_DEFINITION)
    submit(app, theirs, OTHER_ROWS)
    for path in ("", "/results-panel"):
        mine = signed_in.get(f"/analyst/surveys/{first}{path}?pool={theirs}")
        missing = signed_in.get(f"/analyst/surveys/{first}{path}?pool=no-such-survey")
        assert mine.status_code == missing.status_code == 404
        assert mine.text == missing.text
        # ... and the other way round: their dashboard cannot pull my answers in.
        pulled = other_analyst.get(f"/analyst/surveys/{theirs}{path}?pool={first}")
        assert pulled.status_code == 404
        for secret in (str(len(ROWS) + len(OTHER_ROWS)), "Combined here"):
            assert secret not in pulled.text


# --------------------------------------------------------------------------- the API


@pytest.fixture
def token(app, analyst) -> str:
    return new_token(app, analyst)


def pooled_url(slugs: str, confidence: object = None) -> str:
    url = f"/api/v1/results?surveys={slugs}"
    return url if confidence is None else f"{url}&confidence={confidence}"


@pytest.mark.parametrize("confidence", [None, 0.9, 0.99])
def test_pooled_api_document(app, client, sections, token, confidence):
    first, second = sections
    response = client.get(pooled_url(f"{first},{second}", confidence), headers=bearer(token))
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert "no-store" in response.headers["Cache-Control"]
    document = response.get_json()
    level = confidence or 0.95
    with app.app_context():
        expected = results_document(
            survey_results([find_survey(first), find_survey(second)], level)
        )
    assert document == expected
    assert document["surveys"] == [first, second]
    assert document["confidence"] == level
    # Pooled live ranges are each look's own: the document says they are not carried.
    assert document["live_carried"] is False
    rows = ROWS + OTHER_ROWS
    assert document["respondents"] == len(rows)
    # Independently of results.py: the counts add up and the figures are privacy's for them.
    for index, question in enumerate(document["questions"]):
        options = len(question["options"])
        counts = counts_of(rows, index, options)
        assert [o["noisy_count"] for o in question["options"]] == counts
        estimates = privacy.RandomizedResponse(0.25, options).estimate(counts, level)
        for option, e in zip(question["options"], estimates, strict=True):
            assert (option["estimate"], option["ci_low"], option["ci_high"]) == (
                e.estimate,
                e.ci_low,
                e.ci_high,
            )
            assert (option["exact_ci_low"], option["exact_ci_high"]) == (e.exact_low, e.exact_high)
            assert option["exact_ci_low"] < option["exact_ci_high"]


def test_pooled_api_of_one_survey_is_its_own_results(app, client, sections, token):
    first, _ = sections
    pooled = client.get(pooled_url(first), headers=bearer(token)).get_json()
    alone = client.get(f"/api/v1/surveys/{first}/results", headers=bearer(token)).get_json()
    assert pooled == alone
    assert pooled["surveys"] == [first]
    assert pooled["live_carried"] is True


def test_pooled_api_takes_the_signed_in_session(app, signed_in, sections):
    first, second = sections
    response = signed_in.get(pooled_url(f"{second},{first}"))
    assert response.status_code == 200
    assert response.get_json()["surveys"] == [second, first]


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?surveys=",
        "?surveys=,",
        "?surveys=FIRST,,SECOND",
        "?surveys=FIRST,FIRST",
        "?survey=FIRST",
    ],
)
def test_pooled_api_refuses_a_bad_parameter(client, sections, token, query):
    first, second = sections
    url = "/api/v1/results" + query.replace("FIRST", first).replace("SECOND", second)
    response = client.get(url, headers=bearer(token))
    assert response.status_code == 400
    assert response.get_json()["error"].startswith("surveys ")


def test_pooled_api_refuses_too_many_surveys(client, sections, token):
    slugs = ",".join(f"survey-{index}" for index in range(MAX_POOLED_SURVEYS + 1))
    response = client.get(pooled_url(slugs), headers=bearer(token))
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error == f"at most {MAX_POOLED_SURVEYS} surveys can be pooled at once"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"flip_probability": 0.2},
            f"“{TITLE}” randomizes with another flip probability (0.2 instead of 0.25)",
        ),
        (
            {"questions": [SAMPLE_DEFINITION["questions"][0]]},
            f"“{TITLE}” does not ask the same questions and options",
        ),
    ],
)
def test_pooled_api_refuses_surveys_of_another_shape(
    app, client, sections, make_survey, token, change, message
):
    first, _ = sections
    other, _ = make_survey({**SAMPLE_DEFINITION, **change})
    response = client.get(pooled_url(f"{first},{other}"), headers=bearer(token))
    assert response.status_code == 400
    assert response.get_json()["error"] == f"these surveys cannot be pooled: {message}"


@pytest.mark.parametrize("confidence", ["0", "1", "abc", "nan"])
def test_pooled_api_refuses_a_bad_confidence(client, sections, token, confidence):
    first, second = sections
    response = client.get(pooled_url(f"{first},{second}", confidence), headers=bearer(token))
    assert response.status_code == 400
    assert "confidence must be a number in (0, 1)" in response.get_json()["error"]


def test_pooled_api_needs_credentials(client, sections):
    first, second = sections
    response = client.get(pooled_url(f"{first},{second}"))
    assert response.status_code == 401
    assert "error" in response.get_json()


@pytest.mark.parametrize("position", ["first", "last"])
def test_pooled_api_with_someone_elses_survey_is_404(
    app, client, sections, token, other_analyst, position
):
    first, second = sections
    theirs = survey_of(app, OTHER_EMAIL, SAMPLE_DEFINITION)
    slugs = [first, second]
    slugs.insert(0 if position == "first" else 2, theirs)
    response = client.get(pooled_url(",".join(slugs)), headers=bearer(token))
    missing = client.get(pooled_url(f"{first},no-such-survey"), headers=bearer(token))
    assert response.status_code == missing.status_code == 404
    assert response.get_json() == missing.get_json()
    assert response.get_json()["error"] == "not found"
    # The owner of that survey cannot pull someone else's answers in either.
    other_token = new_token(app, OTHER_EMAIL)
    pulled = client.get(pooled_url(f"{theirs},{first}"), headers=bearer(other_token))
    assert pulled.status_code == 404
    assert pulled.get_json() == missing.get_json()
    # A survey of another shape is still a 404 when it is someone else's: its title stays hidden.
    odd = survey_of(
        app, OTHER_EMAIL, {**SAMPLE_DEFINITION, "title": "Secret", "flip_probability": 0.3}
    )
    response = client.get(pooled_url(f"{first},{odd}"), headers=bearer(token))
    assert response.status_code == 404 and "Secret" not in response.text
