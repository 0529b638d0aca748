"""Numeric questions in the app (issue 14): definitions, submissions, results, API JSON.

The mechanisms' math is tested in test_numeric_mechanisms.py; here the app around it: bad
bounds refused with a clear error, reports outside the mechanism's range refused (400) and
nothing stored, and results equal to what survey_app.privacy computes from the reports.
"""

from __future__ import annotations

import html
import json
import math
import re
import uuid

import numpy as np
import pytest

from survey_app import privacy
from survey_app.cli import main as survey_app_command
from survey_app.extensions import db
from survey_app.models import Submission, Tally
from survey_app.surveys import SurveyDefinitionError, find_survey, parse_definition

HOURS = {
    "title": "Study time",
    "flip_probability": 0.25,
    "questions": [
        {
            "text": "Hours a week on this course?",
            "type": "numeric",
            "min": 0,
            "max": 40,
            "unit": "hours",
            # Named: these tests read the hybrid's reports and its spread. The one chosen by
            # default (the narrowest range at the class size) is tested with CHOSEN_HOURS.
            "mechanism": "hybrid",
        },
        {"text": "Used the forum?", "type": "yes_no"},
    ],
}
#: The same, with the mechanism left to the app's choice.
CHOSEN_HOURS = {
    **HOURS,
    "questions": [
        {key: value for key, value in HOURS["questions"][0].items() if key != "mechanism"},
        HOURS["questions"][1],
    ],
}


def numeric(**fields) -> dict:
    return {"text": "How many?", "type": "numeric", "min": 0, "max": 10, **fields}


def definition_with(question: dict, flip_probability: float = 0.25) -> dict:
    return {"title": "T", "flip_probability": flip_probability, "questions": [question]}


def post(client, slug: str, answers: dict, submission_id: str | None = None):
    body = {"submission_id": submission_id or str(uuid.uuid4()), "answers": answers}
    return client.post(f"/api/v1/surveys/{slug}/responses", json=body)


# --------------------------------------------------------------------------- definitions


def test_a_numeric_question_is_parsed():
    parsed = parse_definition(CHOSEN_HOURS).questions[0]
    assert (parsed.kind.value, parsed.minimum, parsed.maximum, parsed.unit) == (
        "numeric",
        0.0,
        40.0,
        "hours",
    )
    assert parsed.mechanism is None
    named = parse_definition(definition_with(numeric(mechanism="laplace"))).questions[0]
    assert named.mechanism == "laplace" and named.unit == ""


@pytest.mark.parametrize(
    ("question", "message"),
    [
        (numeric(min=5, max=5), "questions[0].max: must be above min (5), got 5"),
        (numeric(min=6, max=5), "questions[0].max: must be above min (6), got 5"),
        ({"text": "x", "type": "numeric", "max": 5}, "questions[0].min: missing"),
        ({"text": "x", "type": "numeric", "min": 5}, "questions[0].max: missing"),
        (numeric(min="0"), "questions[0].min: must be a number, got '0'"),
        (numeric(max=True), "questions[0].max: must be a number, got True"),
        (numeric(min=float("nan")), "questions[0].min: must be a finite number"),
        (numeric(max=float("inf")), "questions[0].max: must be a finite number"),
        (numeric(max=10**400), "questions[0].max: must be a finite number"),
        (
            numeric(min=-1e308, max=1e308),
            "questions[0].min: must be between -1,000,000,000,000 and 1,000,000,000,000",
        ),
        (
            numeric(max=1e200),
            "questions[0].max: must be between -1,000,000,000,000 and 1,000,000,000,000, "
            "got 1e+200",
        ),
        (
            numeric(max=1e-300),
            "questions[0].max: must be at least 1e-06 above min (a millionth, and a "
            "billionth of the bounds' size), got min=0.0, max=1e-300",
        ),
        (numeric(min=1e9, max=1e9 + 0.5), "questions[0].max: must be at least 1 above min"),
        (numeric(max=0.1234567), "questions[0].max: must have at most 6 decimals, got 0.1234567"),
        (numeric(mechanism="duchi"), "questions[0].mechanism: must be 'laplace' or 'hybrid'"),
        (numeric(options=["a", "b"]), "questions[0].options: a numeric question has no options"),
        (numeric(unit="x" * 41), "questions[0].unit: must be at most 40 characters"),
        ({"text": "x", "type": "yes_no", "min": 0}, "questions[0].min: only a numeric question"),
        ({"text": "x", "type": "number"}, "must be 'yes_no', 'choice' or 'numeric'"),
    ],
)
def test_bad_numeric_questions_are_refused_naming_the_field(question, message):
    with pytest.raises(SurveyDefinitionError) as raised:
        parse_definition(definition_with(question))
    assert message in str(raised.value)


def test_a_numeric_question_needs_a_flip_probability_that_leaves_it_information():
    with pytest.raises(SurveyDefinitionError, match="flip_probability: must be at most 0.4975"):
        parse_definition(definition_with(numeric(), flip_probability=0.499))
    assert parse_definition(definition_with(numeric(), flip_probability=0.4975))
    # ... which is where its epsilon reaches the numeric mechanisms' floor, 0.01.
    assert privacy.epsilon_from_flip_probability(0.4975) >= privacy.MIN_NUMERIC_EPSILON


def test_toml_definition_with_a_numeric_question(runner, analyst, tmp_path, app):
    path = tmp_path / "hours.toml"
    path.write_text(
        'title = "Study time"\nflip_probability = 0.25\n\n[[questions]]\n'
        'text = "Hours a week?"\ntype = "numeric"\nmin = 0\nmax = 40\nunit = "hours"\n'
        'mechanism = "laplace"\n',
        encoding="utf-8",
    )
    result = runner.invoke(survey_app_command, ["create-survey", str(path), "--owner", analyst])
    assert result.exit_code == 0, result.output
    slug = result.output.strip().splitlines()[-1]
    with app.app_context():
        question = find_survey(slug).questions[0]
        assert (question.minimum, question.maximum, question.unit) == (0.0, 40.0, "hours")
        assert question.mechanism.name == "laplace"


def test_bad_bounds_in_a_file_are_one_line_errors(runner, analyst, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(
        'title = "T"\nflip_probability = 0.25\n[[questions]]\ntext = "x"\ntype = "numeric"\n'
        "min = 10\nmax = nan\n",
        encoding="utf-8",
    )
    result = runner.invoke(survey_app_command, ["create-survey", str(path), "--owner", analyst])
    assert result.exit_code == 2
    assert "questions[0].max: must be a finite number, got nan" in result.output


# --------------------------------------------------------------------------- submissions


@pytest.fixture
def hours(make_survey):
    return make_survey(HOURS)


def test_the_public_definition_carries_the_browsers_parameters(client, hours, app):
    slug, (number_id, _) = hours
    document = client.get(f"/api/v1/surveys/{slug}").get_json()
    question = document["questions"][0]
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    assert question["type"] == "numeric"
    assert (question["min"], question["max"], question["unit"]) == (0.0, 40.0, "hours")
    assert question["mechanism"]["name"] == "hybrid" == mechanism.name
    assert question["mechanism"]["parameters"] == mechanism.browser_parameters()
    assert question["mechanism"]["named_in_definition"] is True
    assert question["report_range"] == list(mechanism.output_range)
    assert question["mechanism"]["real_epsilon"] <= question["epsilon"]
    assert question["options"] == []


def test_reports_in_range_are_stored_and_counted(client, hours, app):
    slug, (number_id, yes_no_id) = hours
    low, high = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid").output_range
    for report in [low, high, 700, 700]:
        response = post(client, slug, {str(number_id): report, str(yes_no_id): 1})
        assert response.status_code == 201, response.get_json()
    with app.app_context():
        counts = {}
        for tally in db.session.query(Tally).filter_by(question_id=number_id):
            counts[tally.value] = counts.get(tally.value, 0) + tally.noisy_count
        assert {value: c for value, c in counts.items() if c} == {low: 1, high: 1, 700: 2}


@pytest.mark.parametrize("offset", [-1, 1])
def test_reports_outside_the_range_are_refused_and_nothing_is_stored(client, hours, app, offset):
    slug, (number_id, yes_no_id) = hours
    low, high = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid").output_range
    value = low - 1 if offset < 0 else high + 1
    response = post(client, slug, {str(number_id): value, str(yes_no_id): 1})
    assert response.status_code == 400
    assert response.get_json() == {
        "error": f"answers[{number_id}]: must be in {low} .. {high}, got {value}",
        "code": "invalid",
    }
    for bad in [2.5, "700", None, True]:
        assert post(client, slug, {str(number_id): bad, str(yes_no_id): 1}).status_code == 400
    with app.app_context():
        assert db.session.query(Submission).count() == 0
        assert db.session.query(Tally).filter_by(question_id=number_id).count() == 0


def test_a_retry_of_a_numeric_submission_is_counted_once(client, hours, app):
    slug, (number_id, yes_no_id) = hours
    submission_id = str(uuid.uuid4())
    answers = {str(number_id): 123, str(yes_no_id): 0}
    assert post(client, slug, answers, submission_id).status_code == 201
    assert post(client, slug, answers, submission_id).status_code == 200
    other = {str(number_id): 124, str(yes_no_id): 0}
    refused = post(client, slug, other, submission_id)
    assert (refused.status_code, refused.get_json()["code"]) == (409, "already_used")
    with app.app_context():
        total = sum(t.noisy_count for t in db.session.query(Tally).filter_by(question_id=number_id))
        assert total == 1


def test_laplaces_negative_reports_are_accepted(client, make_survey, app):
    slug, (number_id,) = make_survey(definition_with(numeric(mechanism="laplace")))
    low, high = privacy.numeric_mechanism(0.0, 10.0, math.log(3), "laplace").output_range
    assert low < -1000
    assert post(client, slug, {str(number_id): -1000}).status_code == 201
    assert post(client, slug, {str(number_id): low - 1}).status_code == 400


# --------------------------------------------------------------------------- results


def test_results_are_the_privacy_packages_figures(client, hours, app, sign_in_as, analyst):
    slug, (number_id, yes_no_id) = hours
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    rng = np.random.default_rng(2026_12_14)
    reports = mechanism.randomize(rng.uniform(0, 40, 30), rng).tolist()
    for report in reports:
        assert post(client, slug, {str(number_id): report, str(yes_no_id): 1}).status_code == 201
    sign_in_as(client, analyst)
    document = client.get(f"/api/v1/surveys/{slug}/results?confidence=0.9").get_json()
    question = document["questions"][0]
    expected = mechanism.estimate_mean(reports, 0.9)
    histogram = mechanism.histogram(reports, 10)
    assert document["respondents"] == 30
    assert question["n"] == 30 and question["options"] == []
    assert question["mean"] == pytest.approx(expected.mean, rel=1e-12)
    assert question["half_width"] == expected.half_width
    assert (question["ci_low"], question["ci_high"]) == (expected.ci_low, expected.ci_high)
    assert question["bernstein_half_width"] == expected.bernstein_half_width
    assert question["chebyshev_half_width"] == expected.chebyshev_half_width
    assert question["consistent"] is True
    assert question["mechanism"] == "hybrid" and question["unit"] == "hours"
    assert "definition asks for this mechanism" in question["mechanism_reason"]
    assert question["histogram"]["edges"] == list(histogram.edges)
    assert question["histogram"]["shares"] == pytest.approx(list(histogram.shares))
    assert json.dumps(document)  # plain JSON: no NumPy numbers left


def test_pooling_needs_the_same_bounds(make_survey, app):
    from survey_app.results import PoolingError, survey_results

    first, _ = make_survey(HOURS)
    same, _ = make_survey(HOURS)
    wider = json.loads(json.dumps(HOURS))
    wider["questions"][0]["max"] = 60
    other, _ = make_survey(wider)
    with app.app_context():
        assert survey_results([find_survey(first), find_survey(same)]).pooled
        with pytest.raises(PoolingError, match="same questions"):
            survey_results([find_survey(first), find_survey(other)])


# --------------------------------------------------------------------------- the respondent page


def test_the_respondent_page_asks_for_a_number_with_its_bounds(client, hours, app):
    slug, (number_id, _) = hours
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    assert f'<label for="answer-{number_id}">Your answer (hours)</label>' in page
    assert f'id="answer-{number_id}" type="text" inputmode="decimal"' in page
    assert "A number from 0 to\n        40 hours." in page
    assert 'data-mechanism="hybrid"' in page
    # The parameters are JSON in an attribute, quotes escaped.
    attribute = re.search(r'data-parameters="([^"]*)"', page).group(1)
    assert json.loads(html.unescape(attribute)) == mechanism.browser_parameters()
    # Not inside any form: the true number never goes anywhere but the script.
    controls = page.split('id="survey"', 1)[1].split('<div id="thank-you"')[0]
    assert "<form" not in controls


def test_the_privacy_words_cover_numbers_groups_and_warners_coins(client, hours):
    slug, _ = hours
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    assert 'id="numeric-privacy"' in page
    assert "nobody can be more than 3 times surer of your\n  number" in page
    # p = 0.25: Warner's second coin says "lie" half the time.
    assert "that says “send the opposite” 50% of the time" in page
    # Two questions at ln 3 each: 2.20 in all, so 4.40 for two people and 10.99 for five.
    assert "for a group of k people the cost adds up to k × ε" in page
    assert "ε&nbsp;=&nbsp;4.40 for 2\n    people and ε&nbsp;=&nbsp;10.99 for 5" in page


def test_a_survey_of_numbers_alone_says_nothing_of_yes_no_flips(client, make_survey):
    slug, _ = make_survey({**HOURS, "questions": HOURS["questions"][:1]})
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    assert 'id="numeric-privacy"' in page
    assert "of your yes/no answer" not in page
    assert 'id="warner-coins"' not in page and "Multiple-choice" not in page


def test_a_survey_of_yes_no_questions_alone_says_nothing_of_swapped_options(client, make_survey):
    slug, _ = make_survey({**HOURS, "questions": HOURS["questions"][1:]})
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    assert 'id="warner-coins"' in page and "of your yes/no answer" in page
    assert "Multiple-choice" not in page and 'id="numeric-privacy"' not in page


def test_a_survey_of_choice_questions_alone_says_nothing_of_yes_no_answers(client, make_survey):
    choice = {"text": "Which?", "type": "choice", "options": ["A", "B", "C"]}
    slug, _ = make_survey({**HOURS, "questions": [choice]})
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    assert 'id="choice-privacy"' in page and "Multiple-choice" in page
    assert "yes/no" not in page and 'id="warner-coins"' not in page


def test_a_survey_without_numbers_says_nothing_of_them(client, survey):
    slug, _ = survey
    page = client.get(f"/s/{slug}").get_data(as_text=True)
    assert 'id="numeric-privacy"' not in page and 'id="group-privacy"' in page


# --------------------------------------------------------------------------- the dashboard


def submit_numbers(client, slug, number_id, yes_no_id, values, seed=7):
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    rng = np.random.default_rng(seed)
    reports = mechanism.randomize(np.asarray(values, dtype=float), rng).tolist()
    for report in reports:
        assert post(client, slug, {str(number_id): report, str(yes_no_id): 1}).status_code == 201
    return mechanism, reports


def outward(low: float, high: float) -> str:
    """A range of 0 to 40 in words: one decimal, rounded outward."""
    low_text = f"{math.floor(low * 10) / 10:.1f}".rstrip("0").rstrip(".")
    high_text = f"{math.ceil(high * 10) / 10:.1f}".rstrip("0").rstrip(".")
    return f"<strong>{low_text}</strong> and <strong>{high_text} hours</strong>"


@pytest.mark.parametrize("status", ["open", "closed"])
def test_the_dashboard_says_the_average_the_mechanism_and_why(
    client, hours, sign_in_as, analyst, close, status
):
    slug, (number_id, yes_no_id) = hours
    mechanism, reports = submit_numbers(client, slug, number_id, yes_no_id, [10.0] * 200)
    if status == "closed":
        close(slug)
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    estimate = privacy.estimate_mean_with_live_range(mechanism, reports, 0.95)
    # Range 40: one decimal; the mean to nearest, the range outward: while open the live one
    # (the page is read again and again), once closed the narrowest fixed-size one.
    mean = f"{estimate.mean:.1f}".rstrip("0").rstrip(".")
    assert f"The average answer is about <strong>{mean} hours</strong>" in page
    if status == "open":
        assert outward(estimate.live_low, estimate.live_high) in page
        assert "guaranteed at least 95% of the time, however often you look" in page
    else:
        assert outward(estimate.ci_low, estimate.ci_high) in page
    assert estimate.live_high - estimate.live_low > estimate.ci_high - estimate.ci_low
    assert "The hybrid mechanism (Wang et al., 2019) randomized each number" in page
    assert "The survey’s definition asks for this mechanism" in page
    assert 'id="spread-' in page and "How the answers spread" in page
    assert page.count('<td class="num">') >= 10  # the ten bins' shares


def test_the_dashboard_before_enough_answers(client, hours, sign_in_as, analyst):
    slug, _ = hours
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    assert "No answers yet: the average appears once 10 people have answered." in page


def test_a_named_laplace_mechanism_is_said_to_be_the_definitions(
    client, make_survey, sign_in_as, analyst
):
    definition = json.loads(json.dumps(HOURS))
    definition["questions"][0]["mechanism"] = "laplace"
    slug, (number_id, yes_no_id) = make_survey(definition)
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "laplace")
    rng = np.random.default_rng(3)
    for report in mechanism.randomize(np.full(12, 20.0), rng).tolist():
        assert post(client, slug, {str(number_id): report, str(yes_no_id): 0}).status_code == 201
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    assert "The Laplace mechanism randomized each number" in page
    assert "The survey’s definition asks for this mechanism" in page


# --------------------------------------------------------------------------- planning


def test_the_dashboard_plans_numeric_questions_in_their_unit(client, hours, sign_in_as, analyst):
    slug, (number_id, yes_no_id) = hours
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}?margin=10").get_data(as_text=True)
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    needed = mechanism.respondents_for(4.0, 0.95)  # ±10 points of a range of 40 hours
    assert "to know the average within <strong>±4 hours</strong>" in page
    assert f"about <strong>{needed:,}</strong> respondents." in page
    assert mechanism.half_width(needed) <= 4.0 < mechanism.half_width(needed - 1)


def test_a_survey_of_numbers_alone_is_planned_by_its_averages(
    client, make_survey, sign_in_as, analyst
):
    """No share to estimate: the plan speaks of averages, and its trade-off table of hours."""
    slug, (number_id,) = make_survey({**HOURS, "questions": HOURS["questions"][:1]})
    sign_in_as(client, analyst)
    page = html.unescape(client.get(f"/analyst/surveys/{slug}?margin=10").get_data(as_text=True))
    planning = page[page.index('id="planning-heading"') : page.index('id="export-heading"')]
    assert "share" not in planning and "yes/no" not in planning
    needed = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid").respondents_for(4.0, 0.95)
    assert re.search(
        rf"To know the average within <strong>±10 points of its range</strong> at 95% "
        rf"confidence, this survey needs about\s*<strong>{needed:,}</strong> respondents.",
        planning,
    )
    assert "No one has answered yet." in planning
    # The trade-off table: each row's margins are the guaranteed ones, in hours.
    table = planning[planning.index('id="number-trade-off"') :]
    rows = re.findall(r"<tr\s*(?:class=\"current\")?>\s*<th scope=\"row\">(.*?)</tr>", table, re.S)
    assert len(rows) == 7
    current = [row for row in rows if "(this survey)" in row]
    assert len(current) == 1 and current[0].startswith("25%")
    cells = re.findall(r'<td class="num">(.*?)</td>', current[0])
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    assert cells[1] == f"±{math.ceil(mechanism.half_width(20) * 10 - 1e-9) / 10:g} hours"
    assert cells[-1] == f"{needed:,}"
    assert "±16 hours (40 points of the range) or more says next to nothing" in planning
    assert post(client, slug, {str(number_id): 700}).status_code == 201  # a report on the grid
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    assert "1 respondent has answered so far." in page


def test_the_dashboard_describes_the_randomization_its_questions_get(
    client, hours, make_survey, sign_in_as, analyst
):
    """Numbers get noise, yes/no answers flips: the privacy paragraph names only what is asked."""
    sign_in_as(client, analyst)
    only, (number_id,) = make_survey({**HOURS, "questions": HOURS["questions"][:1]})
    assert post(client, only, {str(number_id): 700}).status_code == 201
    page = html.unescape(client.get(f"/analyst/surveys/{only}").get_data(as_text=True))
    privacy_text = " ".join(page[page.index('id="privacy-heading"') :].split("</p>")[0].split())
    assert "adds random noise to each number" in privacy_text
    assert "yes/no answer 25%" not in privacy_text and "multiple-choice" not in privacy_text
    assert "too early for an average. It appears once" in " ".join(page.split())
    mixed, _ = hours
    page = html.unescape(client.get(f"/analyst/surveys/{mixed}").get_data(as_text=True))
    privacy_text = " ".join(page[page.index('id="privacy-heading"') :].split("</p>")[0].split())
    assert "flips a yes/no answer 25% of the time" in privacy_text
    assert "and adds random noise to each number before sending it, all at the same" in privacy_text
    assert "multiple-choice" not in privacy_text  # it asks none


def test_a_survey_with_shares_keeps_the_yes_no_trade_off(client, hours, sign_in_as, analyst):
    slug, _ = hours
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    assert "each share is known" in page or "To know each share" in page
    assert 'id="number-trade-off"' not in page and "(yes/no questions," in page


def test_the_builder_readout_plans_numbers_in_their_unit(client, sign_in_as, analyst):
    sign_in_as(client, analyst)
    form = {
        "title": "T",
        "flip_probability": "0.25",
        "question_text": ["Hours?"],
        "question_type": ["numeric"],
        "question_min": ["0"],
        "question_max": ["40"],
        "question_unit": ["hours"],
        "question_mechanism": [""],
        "question_options": [""],
        "class_size": "100",
        "margin": "25",
    }
    page = client.get("/analyst/surveys/new").text
    form["csrf_token"] = re.search(r'name="csrf_token"[^>]*?value="([^"]+)"', page).group(1)
    readout = client.post("/analyst/privacy-readout", data=form).get_json()
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), respondents=100)
    half_width = mechanism.half_width(100)
    shown = f"{math.ceil(half_width * 10 - 1e-9) / 10:.1f}".rstrip("0").rstrip(".")
    assert readout["planning"]["text"] == (
        f"With 100 students, the average of “Hours?” within ±{shown} hours (guaranteed ranges)."
    )
    # With 20 students the margin passes 40% of the range (±16 hours): the readout says so.
    small = client.post("/analyst/privacy-readout", data={**form, "class_size": "20"}).get_json()
    wide = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid").half_width(20)
    assert wide >= 16.0 > half_width
    assert small["planning"]["text"].endswith(
        "hours, which says next to nothing (guaranteed ranges)."
    )
    assert "next to nothing" not in readout["planning"]["text"]
    # ±25 points of a range of 40 hours: ±10 hours.
    suggestion = readout["suggestion"]
    assert "±25 points (±10 hours for “Hours?”)" in suggestion["text"]
    p = suggestion["flip_probability"]
    assert 0.05 < p < privacy.MAX_SUGGESTED_FLIP_PROBABILITY
    epsilon = privacy.epsilon_from_flip_probability(p)
    assert privacy.numeric_mechanism(0.0, 40.0, epsilon).half_width(100) <= 10.0
    # A hundredth more privacy would miss the margin: the suggestion is the most private.
    looser = privacy.epsilon_from_flip_probability(p + 0.01)
    assert privacy.numeric_mechanism(0.0, 40.0, looser).half_width(100) > 10.0


def test_warners_coins_set_the_flip_probability(client, sign_in_as, analyst):
    sign_in_as(client, analyst)
    page = client.get("/analyst/surveys/new").text
    assert 'id="warner_q"' in page and 'value="0.5"' in page  # q = 2p at p = 0.25
    token = re.search(r'name="csrf_token"[^>]*?value="([^"]+)"', page).group(1)
    form = {
        "csrf_token": token,
        "title": "T",
        "flip_probability": "0.25",
        "warner_q": "0.3",
        "question_text": ["Q"],
        "question_type": ["yes_no"],
        "question_options": [""],
        "question_min": [""],
        "question_max": [""],
        "question_unit": [""],
        "question_mechanism": [""],
        "action": "apply_warner",
    }
    again = client.post("/analyst/surveys/new", data=form).text
    assert 'name="flip_probability" type="number"' in again
    assert re.search(r'id="flip_probability"[^>]*value="0.15"', again)


def test_the_builder_saves_a_numeric_question(client, sign_in_as, analyst, app):
    sign_in_as(client, analyst)
    page = client.get("/analyst/surveys/new").text
    token = re.search(r'name="csrf_token"[^>]*?value="([^"]+)"', page).group(1)
    form = {
        "csrf_token": token,
        "title": "Study time",
        "flip_probability": "0.25",
        "question_text": ["Hours a week?", "Forum?"],
        "question_type": ["numeric", "yes_no"],
        "question_options": ["", ""],
        "question_min": ["0", ""],
        "question_max": ["40,5", ""],
        "question_unit": ["hours", ""],
        "question_mechanism": ["laplace", ""],
        "action": "save",
    }
    bad = client.post("/analyst/surveys/new", data={**form, "question_max": ["zero", ""]})
    assert bad.status_code == 400
    assert "questions[0].max: must be a number, got &#39;zero&#39;" in bad.text
    assert 'value="zero"' in bad.text  # what was typed is kept
    saved = client.post("/analyst/surveys/new", data=form)
    assert saved.status_code == 302
    slug = saved.headers["Location"].rsplit("/", 1)[-1]
    with app.app_context():
        question = find_survey(slug).questions[0]
        assert (question.minimum, question.maximum, question.unit) == (0.0, 40.5, "hours")
        assert question.numeric_mechanism == "laplace"
    edit = client.get(f"/analyst/surveys/{slug}/edit").text
    assert 'id="question-max-0" name="question_max" inputmode="decimal" value="40.5"' in edit
    assert '<option value="laplace" selected>' in edit


# --------------------------------------------------------------------------- CSV


def csv_rows(response) -> list[list[str]]:
    import csv
    import io

    return list(csv.reader(io.StringIO(response.get_data(as_text=True).removeprefix("\ufeff"))))


def test_responses_csv_gives_each_randomized_number_in_its_unit(
    client, hours, sign_in_as, analyst, app, close
):
    slug, (number_id, yes_no_id) = hours
    mechanism, reports = submit_numbers(client, slug, number_id, yes_no_id, [5.0] * 12)
    close(slug)  # responses.csv waits for it
    sign_in_as(client, analyst)
    rows = csv_rows(client.get(f"/api/v1/surveys/{slug}/responses.csv"))
    assert rows[0][2:4] == ["Q1 (randomized, hours): Hours a week on this course?", "Q1 report"]
    assert sorted(int(row[3]) for row in rows[1:]) == sorted(reports)
    for row in rows[1:]:
        expected = privacy.value_of_grid_index(
            mechanism.estimate_of_output([int(row[3])])[0], 0.0, 40.0
        )
        assert float(row[2]) == pytest.approx(expected, abs=0.5e-4)
    # The column's average is the unbiased mean the dashboard shows (to the rounding).
    mean = np.mean([float(row[2]) for row in rows[1:]])
    assert mean == pytest.approx(mechanism.estimate_mean(reports).mean, abs=1e-4)


def test_results_csv_gives_the_average_its_ranges_and_the_spread(
    client, hours, sign_in_as, analyst
):
    slug, (number_id, yes_no_id) = hours
    mechanism, reports = submit_numbers(client, slug, number_id, yes_no_id, [30.0] * 40)
    sign_in_as(client, analyst)
    rows = csv_rows(client.get(f"/api/v1/surveys/{slug}/results.csv?confidence=0.9"))
    header = rows[0]
    numeric = [dict(zip(header, row, strict=True)) for row in rows[1:] if row[0] == "1"]
    average, bins = numeric[0], numeric[1:]
    estimate = privacy.estimate_mean_with_live_range(mechanism, reports, 0.9)
    assert average["option"] == "average hours" and average["option_value"] == ""
    assert float(average["estimate"]) == pytest.approx(estimate.mean, abs=0.5e-4)
    # The exact columns hold the narrowest range the mechanism proves; then its live range.
    for name, low, high in (
        ("exact", estimate.ci_low, estimate.ci_high),
        ("live", estimate.live_low, estimate.live_high),
    ):
        assert low - 1e-4 < float(average[f"{name}_ci_low"]) <= low + 1e-9
        assert high - 1e-9 <= float(average[f"{name}_ci_high"]) < high + 1e-4
    assert average["simultaneous_ci_low"] == average["simultaneous_ci_high"] == ""
    low = max(0.0, estimate.mean - estimate.bernstein_half_width)
    high = min(40.0, estimate.mean + estimate.bernstein_half_width)
    assert low - 1e-4 < float(average["bernstein_ci_low"]) <= low + 1e-9
    assert high - 1e-9 <= float(average["bernstein_ci_high"]) < high + 1e-4
    assert float(average["chebyshev_ci_high"]) <= 40.0
    histogram = mechanism.histogram(reports, 10)
    # Each bar named by the answers it holds, as on the dashboard.
    assert [b["option"] for b in bins][:2] == ["share of 0 to 3 hours", "share of 4 to 7 hours"]
    assert bins[-1]["option"] == "share of 36 to 40 hours"
    assert [float(b["estimate"]) for b in bins] == pytest.approx(list(histogram.shares), abs=1e-4)


# --------------------------------------------------------------------------- projector, copies


def test_the_projector_gives_the_average_of_a_numeric_question(client, hours, sign_in_as, analyst):
    slug, (number_id, yes_no_id) = hours
    sign_in_as(client, analyst)
    mechanism, reports = submit_numbers(client, slug, number_id, yes_no_id, [20.0] * 3)
    early = client.get(f"/analyst/surveys/{slug}/present/state").get_json()["questions"]
    assert "Too early for the average: it appears once" in early[0]["html"]
    assert "Too early for shares: they appear once" in early[1]["html"]
    mechanism, more = submit_numbers(client, slug, number_id, yes_no_id, [20.0] * 12, seed=8)
    reports = [*reports, *more]
    state = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    assert state["respondents"] == 15
    number = state["questions"][0]
    assert number["n"] == 15
    estimate = mechanism.estimate_mean(reports)
    mean = f"{estimate.mean:.1f}".rstrip("0").rstrip(".")
    assert f"The average: about <strong>{mean} hours</strong>" in number["html"]


def test_a_copy_keeps_the_bounds_unit_and_mechanism(app, make_survey):
    from survey_app.copies import duplicate_survey

    definition = json.loads(json.dumps(HOURS))
    definition["questions"][0]["mechanism"] = "laplace"
    slug, _ = make_survey(definition)
    with app.app_context():
        copy = duplicate_survey(find_survey(slug))
        db.session.commit()
        question = copy.questions[0]
        assert (question.minimum, question.maximum, question.unit) == (0.0, 40.0, "hours")
        assert question.numeric_mechanism == "laplace"


def test_concurrent_first_arrivals_of_a_report_are_each_counted_once(app, hours):
    """Many threads sending the same few reports at once, each new to its tally row: every
    submission is stored and counted once (PostgreSQL: the ordered insert of missing rows)."""
    import threading

    from survey_app.submissions import record_submission

    slug, (number_id, yes_no_id) = hours
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def send(worker: int) -> None:
        start.wait()
        for index in range(25):
            answers = {str(number_id): 100 + (index + worker) % 5, str(yes_no_id): index % 2}
            try:
                with app.app_context():
                    record_submission(
                        slug, {"submission_id": str(uuid.uuid4()), "answers": answers}
                    )
            except BaseException as error:  # noqa: BLE001 - reported below
                errors.append(error)

    threads = [threading.Thread(target=send, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with app.app_context():
        counts: dict[int, int] = {}
        for tally in db.session.query(Tally).filter_by(question_id=number_id):
            counts[tally.value] = counts.get(tally.value, 0) + tally.noisy_count
        assert {value: count for value, count in counts.items() if count} == {
            value: 40 for value in range(100, 105)
        }
        assert db.session.query(Submission).count() == 200


def test_without_javascript_the_builder_shows_options_only_for_multiple_choice(
    client, make_survey, sign_in_as, analyst
):
    definition = {
        "title": "T",
        "flip_probability": 0.25,
        "questions": [
            numeric(),
            {"text": "Forum?", "type": "yes_no"},
            {"text": "Which?", "type": "choice", "options": ["a", "b"]},
        ],
    }
    slug, _ = make_survey(definition, status="draft")
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}/edit").text
    boxes = re.findall(r'<div class="choice-options"([^>]*)>', page)
    assert [("hidden" in attributes) for attributes in boxes] == [True, True, False]


def test_an_average_below_the_smallest_answer_is_shown_at_it(
    client, make_survey, sign_in_as, analyst
):
    """Noise can push the unbiased mean below min: words show min, the API and CSV the mean."""
    slug, (number_id, yes_no_id) = make_survey(HOURS)
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    rng = np.random.default_rng(3)
    for _ in range(200):  # a class of 40 studying 0-4 hours, until noise gives a mean below 0
        reports = mechanism.randomize(rng.uniform(0, 4, 40), rng)
        estimate = mechanism.estimate_mean(reports)
        if estimate.mean < -1 and estimate.consistent_with_randomization:
            break
    else:
        pytest.fail("no class with a negative average in 200 seeded tries")
    for report in reports.tolist():
        assert post(client, slug, {str(number_id): report, str(yes_no_id): 1}).status_code == 201
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    raw = f"{estimate.mean:.1f}"
    assert "The average answer is about <strong>0 hours</strong>" in page
    assert f"The unbiased estimate, {raw} hours, is\n  below 0 hours" in page
    assert "Read it as near 0 hours" in page
    projector = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    assert "The average: about <strong>0 hours</strong>" in projector["questions"][0]["html"]
    assert raw not in projector["questions"][0]["html"]
    api = client.get(f"/api/v1/surveys/{slug}/results").get_json()["questions"][0]
    assert api["mean"] == pytest.approx(estimate.mean) and api["mean"] < 0
    rows = csv_rows(client.get(f"/api/v1/surveys/{slug}/results.csv"))
    average = dict(zip(rows[0], next(row for row in rows[1:] if row[0] == "1"), strict=True))
    assert float(average["estimate"]) == pytest.approx(estimate.mean, abs=1e-4)


def test_an_average_inside_the_bounds_has_no_clipping_note(client, hours, sign_in_as, analyst):
    slug, (number_id, yes_no_id) = hours
    submit_numbers(client, slug, number_id, yes_no_id, [20.0] * 40)
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    assert "The average answer is about" in page and "clipped-mean" not in page


def test_the_mechanisms_reason_compares_the_ranges_shown(client, make_survey, sign_in_as, analyst):
    """Chosen by the app: the narrowest range for the class of 40 planned (the one-bit
    mechanism at eps = ln 3), and the words compare it with the next best with the answers in."""
    slug, (number_id, yes_no_id) = make_survey(CHOSEN_HOURS)
    chosen = privacy.numeric_mechanism(0.0, 40.0, math.log(3))
    assert chosen.name == "one_bit"
    reports = chosen.randomize(np.full(60, 10.0), np.random.default_rng(3)).tolist()
    for report in reports:
        assert post(client, slug, {str(number_id): report, str(yes_no_id): 1}).status_code == 201
    sign_in_as(client, analyst)
    laplace = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "laplace")
    ratio = chosen.half_width(60) / laplace.half_width(60)
    assert ratio < 1.0
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    assert (
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        f"class of 40 planned: with these 60 answers, its range is {ratio:.0%} as wide as "
        "Laplace’s would be, for the same privacy."
    ) in page
    assert "The one-bit mechanism (Duchi et al., 2018) randomized each number" in page
    words = " ".join(page.split())
    assert "not how the answers spread" in words and "How the answers spread" not in words
    api = client.get(f"/api/v1/surveys/{slug}/results").get_json()["questions"][0]
    assert f"its range is {ratio:.0%} as wide" in api["mechanism_reason"]
    assert api["mechanism"] == "one_bit" and api["histogram"] is None


def number_form(client, **fields) -> dict:
    """The builder's form, with its CSRF token, for one number question; ``fields`` override."""
    page = client.get("/analyst/surveys/new").text
    return {
        "csrf_token": re.search(r'name="csrf_token"[^>]*?value="([^"]+)"', page).group(1),
        "title": "T",
        "flip_probability": "0.25",
        "question_text": "How much?",
        "question_type": "numeric",
        "question_options": "",
        "question_min": "0",
        "question_max": "10",
        "question_unit": "",
        "question_mechanism": "",
        "action": "save",
        **fields,
    }


@pytest.mark.parametrize(
    "typed", ["1,000", "1,000,000", "1.000,5", "2.5.1", "12 5", "1.000", "-12.500"]
)
def test_the_builder_refuses_a_bound_with_a_thousands_separator(client, sign_in_as, analyst, typed):
    """ "1,000" is a thousand in English and one in French: the builder asks which."""
    sign_in_as(client, analyst)
    form = number_form(client, question_text="Dollars?", question_max=typed)
    refused = client.post("/analyst/surveys/new", data=form)
    assert refused.status_code == 400
    text = html.unescape(refused.text)
    assert (
        f"questions[0].max: '{typed}' is not clear: write 1000 without a thousands separator, "
        "or 1.5 with one decimal point or comma"
    ) in text
    assert f'id="question-max-0" name="question_max" inputmode="decimal" value="{typed}"' in text
    saved = client.post("/analyst/surveys/new", data={**form, "question_max": "2,5"})
    assert saved.status_code == 302  # one decimal comma is still a decimal point
    # No one groups thousands after a 0: three decimals after one are clear.
    assert (
        client.post("/analyst/surveys/new", data={**form, "question_max": "0.125"}).status_code
        == 302
    )
    # Thousands grouped by spaces, and a minus sign typed as such, are clear (typed_numbers.json).
    for clear in ("1 000", "\u22123"):
        bound = "question_max" if clear == "1 000" else "question_min"
        assert client.post("/analyst/surveys/new", data={**form, bound: clear}).status_code == 302


@pytest.mark.parametrize(
    ("low", "high"),
    [("0", "0.000001"), ("-1000000000000", "1000000000000"), ("-0.123456", "98765.654321")],
)
def test_bounds_at_the_limits_work_and_survive_a_resave(
    client, sign_in_as, analyst, app, low, high
):
    sign_in_as(client, analyst)
    form = number_form(client, question_min=low, question_max=high)
    saved = client.post("/analyst/surveys/new", data=form)
    assert saved.status_code == 302, html.unescape(saved.text)
    slug = saved.headers["Location"].rsplit("/", 1)[-1]
    assert client.get(f"/analyst/surveys/{slug}").status_code == 200
    with app.app_context():
        question = find_survey(slug).questions[0]
        bounds = (question.minimum, question.maximum)
    # Saved again from the fields the builder shows, the bounds do not move.
    edit = client.get(f"/analyst/surveys/{slug}/edit").text
    shown = [
        re.search(rf'name="question_{name}" inputmode="decimal" value="([^"]*)"', edit).group(1)
        for name in ("min", "max")
    ]
    again = client.post(
        f"/analyst/surveys/{slug}/edit",
        data={**form, "question_min": shown[0], "question_max": shown[1]},
    )
    assert again.status_code == 302
    with app.app_context():
        question = find_survey(slug).questions[0]
        assert (question.minimum, question.maximum) == bounds == (float(low), float(high))


def test_the_builder_names_a_bound_too_wide(client, sign_in_as, analyst):
    sign_in_as(client, analyst)
    refused = client.post("/analyst/surveys/new", data=number_form(client, question_max="1e200"))
    assert refused.status_code == 400
    assert "Not saved yet: questions[0].max: must be between -1,000,000,000,000" in refused.text


def test_the_dashboard_names_the_answers_each_bar_holds(client, hours, sign_in_as, analyst):
    slug, (number_id, yes_no_id) = hours
    submit_numbers(client, slug, number_id, yes_no_id, [12.0] * 40)
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    rows = re.findall(r"<tr><td>([^<]*)</td><td class=\"num\">", page)
    assert rows == [
        "0 to 3 hours",
        *[f"{k} to {k + 3} hours" for k in range(4, 36, 4)],
        "36 to 40 hours",
    ]
    assert "an answer counts in the bar of its nearest\n  whole number: 4.6 counts as 5" in page


# --------------------------------------------------------------------------- the class planned


@pytest.mark.parametrize(("given", "kept"), [(None, 40), (25, 25), (2, 2), (100_000, 100_000)])
def test_a_definition_plans_its_class_size(given, kept):
    raw = CHOSEN_HOURS if given is None else {**CHOSEN_HOURS, "expected_respondents": given}
    assert parse_definition(raw).expected_respondents == kept


@pytest.mark.parametrize("given", [1, 0, -5, 100_001, 2.5, "40", True])
def test_a_bad_class_size_is_refused_naming_the_field(given):
    with pytest.raises(SurveyDefinitionError, match="expected_respondents: must be a whole number"):
        parse_definition({**CHOSEN_HOURS, "expected_respondents": given})


def test_the_mechanism_is_chosen_for_the_class_planned_and_kept_once_open(app, make_survey):
    """A draft follows its class size; opening fixes the mechanism the browsers will use, so a
    later rule (or class size) cannot decode their reports with another."""
    slug, _ = make_survey({**CHOSEN_HOURS, "expected_respondents": 1000}, status="draft")
    with app.app_context():
        question = find_survey(slug).questions[0]
        widths = {
            name: privacy.numeric_mechanism(0.0, 40.0, math.log(3), name).half_width(1000)
            for name in privacy.NUMERIC_MECHANISMS
        }
        assert question.chosen_mechanism is None
        assert question.mechanism.name == min(widths, key=widths.get)
        from survey_app.surveys import open_survey

        open_survey(find_survey(slug))
        db.session.commit()
        question = find_survey(slug).questions[0]
        assert question.chosen_mechanism == question.mechanism.name
        find_survey(slug).expected_respondents = 10
        db.session.commit()
        assert find_survey(slug).questions[0].mechanism.name == question.chosen_mechanism


def test_the_builder_saves_the_class_size_with_the_survey(app, client, analyst, sign_in_as):
    sign_in_as(client, analyst)
    form = number_form(client, title="Planned", class_size="120")
    assert client.post("/analyst/surveys/new", data=form).status_code == 302
    with app.app_context():
        from survey_app.models import Survey

        survey = db.session.execute(db.select(Survey).filter_by(title="Planned")).scalar_one()
        assert survey.expected_respondents == 120
        slug = survey.slug
    editor = client.get(f"/analyst/surveys/{slug}/edit").text
    assert re.search(r'name="class_size"[^>]*value="120"', editor)


def test_a_survey_opened_under_the_earlier_rule_keeps_its_mechanism_and_says_so(
    app, client, make_survey, sign_in_as, analyst
):
    """The migration keeps the hybrid for surveys opened before the narrowest-range rule: their
    reason, planning and copies follow from that, not from today's rule."""
    from survey_app.copies import duplicate_survey
    from survey_app.planning_numbers import survey_numbers

    slug, (number_id, yes_no_id) = make_survey(CHOSEN_HOURS)
    with app.app_context():
        question = find_survey(slug).questions[0]
        assert question.chosen_mechanism == "one_bit"  # today's rule, fixed at opening
        question.chosen_mechanism = "hybrid"  # as the migration leaves an older survey
        db.session.commit()
    mechanism, _ = submit_numbers(client, slug, number_id, yes_no_id, [10.0] * 40)
    sign_in_as(client, analyst)
    api = client.get(f"/api/v1/surveys/{slug}/results").get_json()["questions"][0]
    assert api["mechanism"] == "hybrid"
    assert api["mechanism_reason"].startswith(
        "Chosen when the survey opened, by the rule of the time (the smaller worst-case noise)"
    )
    with app.app_context():
        survey = find_survey(slug)
        assert [number.mechanism for number in survey_numbers(survey)] == ["hybrid"]
        copy = duplicate_survey(survey)
        db.session.commit()
        assert copy.questions[0].chosen_mechanism is None  # chosen when the copy opens
        assert copy.questions[0].mechanism.name == "one_bit"
