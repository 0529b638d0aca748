"""Numeric questions' results: equal to what survey_app.privacy computes from the reports, on
the dashboard (average, mechanism and why, planning in the unit), in the CSV files, on the
projector, and kept by a copy.
"""

from __future__ import annotations

import html
import json
import math
import re

import numpy as np
import pytest

from survey_app import privacy
from survey_app.extensions import db
from survey_app.surveys.services import find_survey
from tests.numeric_helpers import (
    CHOSEN_HOURS,
    HOURS,
    post,
    submit_numbers,
)


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
    from survey_app.results.tables import PoolingError, survey_results

    first, _ = make_survey(HOURS)
    same, _ = make_survey(HOURS)
    wider = json.loads(json.dumps(HOURS))
    wider["questions"][0]["max"] = 60
    other, _ = make_survey(wider)
    with app.app_context():
        assert survey_results([find_survey(first), find_survey(same)]).pooled
        with pytest.raises(PoolingError, match="same questions"):
            survey_results([find_survey(first), find_survey(other)])


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
    estimate = privacy.live.estimate_mean_with_live_range(mechanism, reports, 0.95)
    # Range 40: one decimal; the mean to nearest, the range outward: while open the live one
    # (the page is read again and again), once closed the narrowest fixed-size one.
    mean = f"{estimate.mean:.1f}".rstrip("0").rstrip(".")
    assert f"On average about <strong>{mean} hours</strong>, somewhere between " in page
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
    assert "No answers yet.</p>" in page
    # When the average appears is said once, above the questions (results.words.release_words).
    assert page.count("The first results appear once 10 people have answered") == 1


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


def test_the_dashboard_plans_numeric_questions_in_their_unit(client, hours, sign_in_as, analyst):
    slug, (number_id, yes_no_id) = hours
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}?margin=10").get_data(as_text=True)
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    needed = mechanism.respondents_for(4.0, 0.95)  # ±10% of a range of 40 hours
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
        rf"To know the average within <strong>±10% of its range</strong> at 95% "
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
    assert "±16 hours (40% of the range) or more says next to nothing" in planning
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
    assert "too early for an average. With so few answers" in " ".join(page.split())
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
    # The header says why a cell may read -14.2 hours: a randomized estimate, not an answer.
    assert rows[0][2:4] == [
        "Q1 (randomized estimate, hours; can fall outside 0 to 40): Hours a week on this course?",
        "Q1 report",
    ]
    assert sorted(int(row[3]) for row in rows[1:]) == sorted(reports)
    for row in rows[1:]:
        expected = privacy.numeric_grid.value_of_grid_index(
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
    estimate = privacy.live.estimate_mean_with_live_range(mechanism, reports, 0.9)
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


def test_the_projector_gives_the_average_of_a_numeric_question(client, hours, sign_in_as, analyst):
    slug, (number_id, yes_no_id) = hours
    sign_in_as(client, analyst)
    mechanism, reports = submit_numbers(client, slug, number_id, yes_no_id, [20.0] * 3)
    early = client.get(f"/analyst/surveys/{slug}/present/state").get_json()["questions"]
    assert "Too early for the average." in early[0]["html"]
    assert "Too early for shares." in early[1]["html"]
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
    from survey_app.surveys.copies import duplicate_survey

    definition = json.loads(json.dumps(HOURS))
    definition["questions"][0]["mechanism"] = "laplace"
    slug, _ = make_survey(definition)
    with app.app_context():
        copy = duplicate_survey(find_survey(slug))
        db.session.commit()
        question = copy.questions[0]
        assert (question.minimum, question.maximum, question.unit) == (0.0, 40.0, "hours")
        assert question.numeric_mechanism == "laplace"


def test_an_average_below_the_smallest_answer_is_shown_at_it(
    client, make_survey, sign_in_as, analyst
):
    """Noise can push the unbiased mean below min: words show min, the API and CSV the mean
    and, named headline, min."""
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
    assert "On average about <strong>0 hours</strong>" in page
    assert f"The unbiased estimate, {raw} hours, is below 0 hours" in " ".join(page.split())
    assert "Read it as near 0 hours" in page
    projector = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    assert "The average: about <strong>0 hours</strong>" in projector["questions"][0]["html"]
    assert raw not in projector["questions"][0]["html"]
    api = client.get(f"/api/v1/surveys/{slug}/results").get_json()["questions"][0]
    assert api["mean"] == pytest.approx(estimate.mean) and api["mean"] < 0
    # The figure the pages give, named beside the unbiased mean: kept within the bounds.
    assert api["headline"] == 0.0
    rows = csv_rows(client.get(f"/api/v1/surveys/{slug}/results.csv"))
    average = dict(zip(rows[0], next(row for row in rows[1:] if row[0] == "1"), strict=True))
    assert float(average["estimate"]) == pytest.approx(estimate.mean, abs=1e-4)
    assert float(average["headline"]) == 0.0


def test_an_average_inside_the_bounds_has_no_clipping_note(client, hours, sign_in_as, analyst):
    slug, (number_id, yes_no_id) = hours
    submit_numbers(client, slug, number_id, yes_no_id, [20.0] * 40)
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    assert "On average about" in page and "clipped-mean" not in page


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


def test_the_dashboard_names_the_answers_each_bar_holds(client, hours, sign_in_as, analyst):
    slug, (number_id, yes_no_id) = hours
    submit_numbers(client, slug, number_id, yes_no_id, [12.0] * 40)
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    rows = re.findall(r"<tr>\s*<td>([^<]*)</td>\s*<td class=\"num\">", page)
    assert rows == [
        "0 to 3 hours",
        *[f"{k} to {k + 3} hours" for k in range(4, 36, 4)],
        "36 to 40 hours",
    ]
    words = " ".join(page.split())  # the sentence as read, however the template wraps it
    assert "an answer counts in the bar of its nearest whole number: 4.6 counts as 5" in words


def test_answers_not_consistent_with_the_randomization_get_no_range_anywhere(
    client, hours, sign_in_as, analyst
):
    """Reports all at the lowest end: no randomized answers average that far below 0. Clipped to
    the scale, their range would be "0 to 0 hours" and read as certain: none is given, on the
    page, in the API or in the CSV, nor a spread piled at one end (the unbiased mean is
    kept)."""
    slug, (number_id, yes_no_id) = hours
    mechanism = privacy.numeric_mechanism(0.0, 40.0, math.log(3), "hybrid")
    reports = [mechanism.cells] * 60  # the Duchi part's "low"
    estimate = mechanism.estimate_mean(reports)
    assert not estimate.consistent_with_randomization
    assert estimate.ci_low == estimate.ci_high == 0.0  # what a clipped range would say
    for report in reports:
        assert post(client, slug, {str(number_id): report, str(yes_no_id): 1}).status_code == 201
    sign_in_as(client, analyst)
    page = " ".join(client.get(f"/analyst/surveys/{slug}").get_data(as_text=True).split())
    assert "No range is given." in page
    numeric_only = ("Guaranteed range: ±", "Live range, which holds", "How the answers spread")
    for said in (*numeric_only, "This range covers"):
        assert said not in page
    api = client.get(f"/api/v1/surveys/{slug}/results").get_json()["questions"][0]
    assert api["consistent"] is False
    assert api["mean"] == pytest.approx(estimate.mean)
    for name in ("headline", "ci_low", "ci_high", "live_ci_low", "live_ci_high", "histogram"):
        assert api[name] is None, name
    rows = csv_rows(client.get(f"/api/v1/surveys/{slug}/results.csv"))
    (average,) = [dict(zip(rows[0], row, strict=True)) for row in rows[1:] if row[0] == "1"]
    assert float(average["estimate"]) == pytest.approx(estimate.mean, abs=1e-4)
    ranges = [name for name in rows[0] if name.endswith(("_ci_low", "_ci_high"))]
    assert len(ranges) >= 8
    assert {name: average[name] for name in ["headline", *ranges]} == dict.fromkeys(
        ["headline", *ranges], ""
    )
