"""The dashboard: planning figures, results and their ranges in figures, words and charts.

Every figure a page shows is compared with what :mod:`survey_app.privacy` computes, formatted as
the page formats it (``survey_app.words.percent``); nothing here re-derives the math.
"""

from __future__ import annotations

import html
import re

import pytest

from survey_app import privacy
from survey_app.planning import shares as planning
from survey_app.results.releases import MIN_ANSWERS_FOR_SHARES
from survey_app.surveys.services import find_survey
from survey_app.words import (
    format_epsilon,
    format_points,
    percent,
    percent_high,
    percent_low,
    points,
)
from tests.analyst_helpers import (
    ROWS,
    assert_results_shown,
    figures,
    flat,
    results_of,
    section,
    submit,
    svg_blocks,
    table_rows,
    worded_options,
)
from tests.conftest import SAMPLE_DEFINITION

# --------------------------------------------------------------------------- planning


def needed(p: float, k: int, margin: float, confidence: float) -> int:
    """Respondents for a margin, the exact way (privacy's planned figure)."""
    return privacy.RandomizedResponse(p, k).respondents_for(margin, confidence)


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
@pytest.mark.parametrize("margin_points", [None, 20])
def test_planning_respondents_needed(app, signed_in, survey, confidence, margin_points):
    slug = survey[0]
    query = {"confidence": confidence}
    if margin_points is not None:
        query["margin"] = margin_points
    margin = (margin_points or 10) / 100
    page = signed_in.get(f"/analyst/surveys/{slug}", query_string=query).text

    needed_yes_no = needed(0.25, 2, margin, confidence)
    needed_choice = needed(0.25, 3, margin, confidence)
    chebyshev = privacy.RandomizedResponse(0.25, 3).respondents_for_chebyshev(margin, confidence)
    text = figures(page, "plan-needed")
    # A share's margin in percentage points, said in full here.
    assert f"±{format_points(margin)} percentage points" in text
    assert f"at {percent(confidence)} confidence" in text
    assert needed_choice > needed_yes_no  # 3 options need more answers than 2
    assert f"about {needed_choice:,} respondents" in text
    assert f"({needed_yes_no:,} for its yes/no questions alone)" in text
    assert f"Chebyshev’s bound with the exact variance would ask for {chebyshev:,}." in text
    assert figures(page, "plan-now") == "No one has answered yet."

    # The trade-off table: the margin each class size reaches and the respondents each p
    # needs for this margin (exact, then Chebyshev), straight from privacy.
    table = page[
        page.index(
            '<caption class="visually-hidden">How privacy, class size and precision trade off'
        ) :
    ]
    rows = table_rows(table)
    assert len(rows) == len(planning.TRADE_OFF_FLIP_PROBABILITIES) >= 3
    for row, p in zip(rows, planning.TRADE_OFF_FLIP_PROBABILITIES, strict=True):
        mechanism = privacy.RandomizedResponse(p)
        assert row[0].startswith(percent(p))
        assert ("(this survey)" in row[0]) == (p == 0.25)
        assert row[1] == format_epsilon(privacy.epsilon_from_flip_probability(p))
        margins = [
            f"±{format_points(mechanism.planned_half_width(size, confidence))}"
            for size in planning.TRADE_OFF_SIZES
        ]
        assert list(row[2:-2]) == margins
        assert row[-2] == f"{mechanism.respondents_for(margin, confidence):,}"
        assert row[-1] == f"{mechanism.respondents_for_chebyshev(margin, confidence):,}"


def test_planning_margin_reached_by_the_current_respondents(app, signed_in, survey):
    slug = survey[0]
    submit(app, slug, [(1, 0), (0, 2), (1, 1), (1, 2), (0, 0)])
    page = signed_in.get(f"/analyst/surveys/{slug}?confidence=0.9").text
    yes_no, choice = privacy.RandomizedResponse(0.25, 2), privacy.RandomizedResponse(0.25, 3)
    reached = max(yes_no.planned_half_width(5, 0.9), choice.planned_half_width(5, 0.9))
    chebyshev = max(yes_no.chebyshev_half_width(5, 0.9), choice.chebyshev_half_width(5, 0.9))
    text = figures(page, "plan-now")
    assert text.startswith("With the 5 respondents so far")
    assert f"within about {points(reached)}" in text
    assert f"(Chebyshev’s bound with the exact variance: {points(chebyshev)})" in text
    assert points(reached).endswith(" points") and "%" not in text
    assert reached >= planning.NEXT_TO_NOTHING
    assert "says next to nothing yet" in text


def test_plan_figures_equal_the_privacy_functions(app, survey):
    slug = survey[0]
    submit(app, slug, [(1, 0)] * 40)
    with app.app_context():
        plan = planning.make_plan(find_survey(slug), 0.15, 0.95)
    yes_no, choice = privacy.RandomizedResponse(0.25, 2), privacy.RandomizedResponse(0.25, 3)
    assert plan.needed_yes_no == yes_no.respondents_for(0.15, 0.95)
    assert plan.needed_worst == max(plan.needed_yes_no, choice.respondents_for(0.15, 0.95))
    assert plan.needed_chebyshev == max(
        yes_no.respondents_for_chebyshev(0.15, 0.95), choice.respondents_for_chebyshev(0.15, 0.95)
    )
    assert plan.margin_now == max(
        yes_no.planned_half_width(40, 0.95), choice.planned_half_width(40, 0.95)
    )
    assert plan.margin_now_chebyshev == max(
        yes_no.chebyshev_half_width(40, 0.95), choice.chebyshev_half_width(40, 0.95)
    )
    assert [row.is_current for row in plan.trade_off].count(True) == 1


@pytest.mark.parametrize("margin", ["abc", "0.1", "51", "-5", "nan"])
def test_planning_refuses_bad_margins_and_keeps_the_default(signed_in, survey, margin):
    page = signed_in.get(f"/analyst/surveys/{survey[0]}", query_string={"margin": margin})
    assert page.status_code == 200
    assert "The margin must" in page.text
    yes_no = needed(0.25, 2, 0.10, 0.95)
    assert "±10 percentage points" in figures(page.text, "plan-needed")
    assert f"{yes_no:,} for its yes/no questions alone" in figures(page.text, "plan-needed")


# --------------------------------------------------------------------------- dashboard


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_dashboard_figures_equal_the_results(app, signed_in, survey, confidence, close):
    slug = survey[0]
    submit(app, slug, ROWS)
    close(slug)  # closed: the words lead with the exact ranges
    page = signed_in.get(f"/analyst/surveys/{slug}?confidence={confidence}").text
    results = results_of(app, slug, confidence)
    assert results["respondents"] == len(ROWS)
    assert_results_shown(page, results, confidence, live=False)
    assert f'<option value="{confidence}" selected>' in page
    assert f"<strong>ε = {format_epsilon(results['epsilon'])}</strong> per question" in page
    assert f"<strong>ε = {format_epsilon(results['epsilon_total'])}</strong> for all" in page
    # The words show the exact range, not the Chebyshev one (which is wider here).
    yes = results["questions"][0]["options"][1][2]
    assert yes.ci_high - yes.ci_low > yes.exact_high - yes.exact_low
    chebyshev_words = (
        f"“Yes”: between <strong>{percent_low(yes.ci_low)}</strong> and "
        f"<strong>{percent_high(yes.ci_high)}</strong>"
    )
    assert chebyshev_words not in flat(page)


@pytest.mark.parametrize("confidence", ["0.5", "abc", "", "0.951", "1"])
def test_dashboard_falls_back_to_95_percent(app, signed_in, survey, confidence):
    slug = survey[0]
    submit(app, slug, ROWS)
    page = signed_in.get(f"/analyst/surveys/{slug}", query_string={"confidence": confidence})
    assert page.status_code == 200
    assert '<option value="0.95" selected>' in page.text
    assert_results_shown(page.text, results_of(app, slug, 0.95), 0.95)


def test_results_panel_shows_the_same_figures(app, signed_in, survey):
    slug = survey[0]
    submit(app, slug, ROWS)
    response = signed_in.get(f"/analyst/surveys/{slug}/results-panel?confidence=0.99")
    assert response.status_code == 200
    page = response.text
    assert page.lstrip().startswith('<div id="results" data-status="open"')
    assert "<html" not in page  # a fragment, for the dashboard to swap in
    assert f"/analyst/surveys/{slug}/results-panel?confidence=0.99" in page
    assert_results_shown(page, results_of(app, slug, 0.99), 0.99)


@pytest.mark.parametrize(("status", "refreshes"), [("open", True), ("closed", False)])
def test_dashboard_refreshes_itself_only_while_open(signed_in, make_survey, status, refreshes):
    slug, _ = make_survey(status=status)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    assert re.search(
        r'<script type="module" src="/static/js/dashboard\.js\?v=[0-9a-f]+" '
        r'integrity="sha384-[A-Za-z0-9+/=]+"></script>',
        page,
    )
    assert f'data-status="{status}"' in page
    assert ("updates itself every 10 seconds" in page) is refreshes


def test_dashboard_before_any_answer(signed_in, survey):
    page = signed_in.get(f"/analyst/surveys/{survey[0]}").text
    assert '<strong id="respondent-count">0</strong>' in page
    assert page.count("No answers yet") == 2
    assert svg_blocks(page) == []


@pytest.mark.parametrize("answered", [1, MIN_ANSWERS_FOR_SHARES - 1])
def test_too_early_shows_the_count_instead_of_shares(app, signed_in, survey, answered, close):
    slug = survey[0]
    submit(app, slug, ROWS[:answered])
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    results = results_of(app, slug)
    # The results hold fewer than that (none at all: the first release waits for 10).
    assert all(q["n"] < MIN_ANSWERS_FOR_SHARES for q in results["questions"])
    people = "person has" if answered == 1 else "people have"
    for question in results["questions"]:
        part = flat(section(page, question["id"]))
        assert f"<strong>{answered}</strong> {people} answered: too early for shares." in part
        # The count shares appear at is said once, above the questions (release_words).
        assert "appear once" not in part
        # No share, range or table: nothing with a percent sign.
        assert "%" not in part and "<table" not in part
    assert flat(page).count(f"appear once {MIN_ANSWERS_FOR_SHARES} people have answered") == 1
    assert svg_blocks(page) == []

    # One answer more and the shares appear: at once when the survey closes (while it is
    # open, with the next release: test_releases).
    submit(app, slug, ROWS[answered:MIN_ANSWERS_FOR_SHARES])
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    assert "too early" not in page
    assert len(svg_blocks(page)) == 2
    assert_results_shown(page, results_of(app, slug), 0.95, live=False)


def test_choice_shares_are_each_answers_own_estimate_and_say_what_they_add_up_to(
    app, signed_in, survey
):
    # "Never" reported once of 12 at p = 1/4: its unbiased estimate is below 0 and the other two
    # add up to more than 100%. Words, chart and table show each answer's own estimate kept
    # within 0–100% (inside its range), so the shares add up to more than 100%, and say so; the
    # table gives the unbiased estimate beside the share where the two differ.
    slug = survey[0]
    submit(app, slug, [(1, 0)] + [(1, 1)] * 5 + [(0, 2)] * 6)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    yes_no, choice = results_of(app, slug)["questions"]
    estimates = [e.estimate for _, _, e in choice["options"]]
    assert estimates[0] < 0 and choice["shown"] == [
        e.clipped_estimate for _, _, e in choice["options"]
    ]
    total = sum(choice["shown"])
    assert total > 1.2
    part = flat(section(page, choice["id"]))
    for label, _, share in worded_options(choice):
        assert f"About <strong>{percent(share)}</strong> would truly answer “{label}”" in part
    assert part.count(f"The shares add up to {percent(total)}, not 100%") == 1
    assert "The shares add up to 100%." not in part
    assert "add up to" not in section(page, yes_no["id"])
    values = re.findall(r'<text class="value"[^>]*>(.*?)</text>', svg_blocks(page)[1])
    assert values == [percent(share) for share in choice["shown"]]
    cells = [row[3] for row in table_rows(part)]
    assert cells[0] == f"0% (unbiased: {percent(estimates[0])})"
    assert cells[1:] == [percent(e) for e in estimates[1:]]


def yes_no_survey(make_survey, flip_probability: float) -> str:
    definition = {
        "title": "One question",
        "flip_probability": flip_probability,
        "questions": [{"text": "Did you?", "type": "yes_no"}],
    }
    return make_survey(definition)[0]


WIDE_WORDS = "too wide to say much yet"
OUTSIDE_WORDS = "outside 0–100%"


def test_wide_ranges_are_said_in_plain_words(app, signed_in, make_survey, close):
    # p = 1/4 and 30 answers, half "yes": the exact range is 1/3 each side of 50% (t/n from
    # 5/30 to 25/30), well above the 0.2 the warning starts at.
    slug = yes_no_survey(make_survey, 0.25)
    submit(app, slug, [(1,)] * 15 + [(0,)] * 15)
    # Open: the caution quotes the range the page leads with, the live one (wider).
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    (question,) = results_of(app, slug)["questions"]
    live = max((e.live_high - e.live_low) / 2 for _, _, e in question["options"])
    assert live > question["widest_exact_half_width"]
    assert WIDE_WORDS in page and f"(up to {points(live, long=True)})" in page
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    widest = results_of(app, slug)["questions"][0]["widest_exact_half_width"]
    assert 0.3 < widest < 0.35
    assert WIDE_WORDS in page
    # A share's margin in percentage points (a share itself is in %).
    assert f"(up to {points(widest, long=True)})" in page
    assert f"(up to ±{percent_high(widest)})" not in page
    assert OUTSIDE_WORDS not in page


def test_narrow_ranges_need_no_warning(app, signed_in, make_survey, close):
    # p = 0.1 and 30 answers: the exact range is ±0.133, under 0.2, though the Chebyshev
    # half-width sqrt(0.09 / (30 * 0.05)) / 0.8 = 0.306 is above it: the warning follows the
    # range the words give (closed: the exact one).
    slug = yes_no_survey(make_survey, 0.1)
    submit(app, slug, [(1,)] * 15 + [(0,)] * 15)
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    (question,) = results_of(app, slug)["questions"]
    assert question["widest_exact_half_width"] < 0.2 < question["half_width"]
    assert WIDE_WORDS not in page
    assert OUTSIDE_WORDS not in page


@pytest.mark.parametrize(("reported", "near"), [(0, "0%"), (1, "100%")])
def test_estimates_outside_zero_one_are_said_in_plain_words(
    app, signed_in, make_survey, reported, near, close
):
    # Every randomized answer the same: (0 - p) / (1 - 2p) = -0.5, (1 - p) / (1 - 2p) = 1.5.
    # Ten such answers are still consistent with the randomization (all ten kept: 0.75^10 =
    # 5.6%), and the exact range, never empty, holds the nearest bound: 0 to 10%, 90 to 100%.
    slug = yes_no_survey(make_survey, 0.25)
    submit(app, slug, [(reported,)] * MIN_ANSWERS_FOR_SHARES)
    close(slug)  # the exact range in the words
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    yes = results_of(app, slug)["questions"][0]["options"][1][2]
    assert yes.outside_unit_interval and yes.consistent_with_randomization
    assert (yes.exact_low, yes.exact_high) == ((0.0, 0.1) if reported == 0 else (0.9, 1.0))
    assert OUTSIDE_WORDS in page
    assert f"The unbiased estimate is {percent(yes.estimate)}, outside 0–100%" in page
    assert f"The share shown, {near}, is the nearest share its range allows" in page
    # A range 10 points wide says where the share is, not that it is close to 0% or 100%.
    ends = f"{percent_low(yes.exact_low)} to {percent_high(yes.exact_high)}"
    assert f"the true share may be anywhere from {ends}." in page
    assert "close to" not in page
    assert (
        f"About <strong>{near}</strong> would truly answer “Yes”: between "
        f"<strong>{percent_low(yes.exact_low)}</strong> and "
        f"<strong>{percent_high(yes.exact_high)}</strong>, guaranteed at least 95% of the time."
    ) in flat(page)


INCONSISTENT_WORDS = "not consistent with the randomization"


def test_answers_not_consistent_with_the_randomization_get_no_range(app, signed_in, make_survey):
    # 100 randomized "yes" of 100 at p = 1/4. At 95 % the estimate 1.5 lies further above 1
    # than the Chebyshev half-width 0.387: randomized answers give that at most 5% of the time.
    # The exact range is never empty (it holds the bound, 99 to 100%), but the page gives none.
    slug = yes_no_survey(make_survey, 0.25)
    submit(app, slug, [(1,)] * 100)
    page = signed_in.get(f"/analyst/surveys/{slug}?confidence=0.95").text
    (question,) = results_of(app, slug, 0.95)["questions"]
    yes = question["options"][1][2]
    assert not yes.consistent_with_randomization
    assert (yes.exact_low, yes.exact_high) == (0.99, 1.0)
    assert yes.estimate - yes.half_width > 1.0
    words = flat(section(page, question["id"]))
    assert INCONSISTENT_WORDS in words
    assert "sent straight to the API" in words
    assert (
        "“Yes”: the answers are not consistent with the randomization. Randomized answers give "
        "counts this lopsided at most 5% of the time (the unbiased estimate is "
        f"{percent(yes.estimate)})."
    ) in words
    assert "would truly answer" not in words and "between" not in words
    # The table says so in both range columns, and the chart draws no share or range.
    assert [row[-2:] for row in table_rows(words)] == [("not consistent", "not consistent")] * 2
    chart = svg_blocks(page)[0]
    for mark in ('class="exact"', 'class="share"', 'class="chebyshev"'):
        assert mark not in chart
    assert chart.count(">not consistent</text>") == 2


def test_lopsided_answers_within_the_chebyshev_bound_get_their_exact_range(
    app, signed_in, make_survey, close
):
    # The same 100 "yes" at 99%: the Chebyshev half-width (0.866) reaches back into [0, 1], so
    # they are not flagged, and the exact range, never empty, says 98 to 100%.
    slug = yes_no_survey(make_survey, 0.25)
    submit(app, slug, [(1,)] * 100)
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}?confidence=0.99").text
    (question,) = results_of(app, slug, 0.99)["questions"]
    yes = question["options"][1][2]
    assert yes.consistent_with_randomization
    assert (yes.exact_low, yes.exact_high) == (0.98, 1.0)
    words = flat(section(page, question["id"]))
    assert INCONSISTENT_WORDS not in words
    assert "between <strong>98%</strong> and <strong>100%</strong>" in words


def test_consistent_answers_are_not_flagged(app, signed_in, survey):
    slug = survey[0]
    submit(app, slug, ROWS)
    assert INCONSISTENT_WORDS not in signed_in.get(f"/analyst/surveys/{slug}").text


#: Where the chart draws 0% and how wide it draws 100% (templates/results/_chart.html).
CHART_LEFT, CHART_WIDTH = 16, 282


def chart_x(share: float) -> str:
    return f"{CHART_LEFT + CHART_WIDTH * share:.2f}"


def chart_span(low: float, high: float) -> str:
    return f"{(CHART_LEFT + CHART_WIDTH * high) - (CHART_LEFT + CHART_WIDTH * low):.2f}"


def test_chart_bands_follow_the_exact_and_chebyshev_ranges(app, signed_in, survey, close):
    slug = survey[0]
    submit(app, slug, ROWS * 2)
    close(slug)  # closed: the band is the exact range (open: the live one, test_live_headline)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    charts = svg_blocks(page)
    results = results_of(app, slug)
    assert len(charts) == len(results["questions"]) == 2
    for chart, question in zip(charts, results["questions"], strict=True):
        assert 'role="img"' in chart
        title = re.search(r"<title [^>]*>(.*?)</title>", chart).group(1)
        assert (
            "its exact 95% range (thick band) and Chebyshev’s bound with the exact variance "
            "(thin line), "
            f"for the {question['n']} people who answered"
        ) in title
        estimates = [e for _, _, e in question["options"]]
        # The thick band: the exact range.
        bands = re.findall(r'<rect class="exact" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', chart)
        assert bands == [
            (chart_x(e.exact_low), chart_span(e.exact_low, e.exact_high)) for e in estimates
        ]
        # The mark and the figure: the share shown.
        marks = re.findall(r'<line class="share" x1="([\d.]+)" x2="([\d.]+)"', chart)
        assert marks == [(chart_x(share), chart_x(share)) for share in question["shown"]]
        values = re.findall(r'<text class="value"[^>]*>(.*?)</text>', chart)
        assert values == [percent(share) for share in question["shown"]]
        # The thin line with its two ends: the Chebyshev range, wider than the band here.
        lines = re.findall(r'<line class="chebyshev" x1="([\d.]+)" x2="([\d.]+)"', chart)
        expected = []
        for e in estimates:
            assert e.ci_high - e.ci_low > e.exact_high - e.exact_low
            low, high = chart_x(e.ci_low), chart_x(e.ci_high)
            expected += [(low, high), (low, low), (high, high)]
        assert lines == expected
        labels = re.findall(r'<text class="label"[^>]*>(.*?)</text>', chart)
        assert labels == [label for label, _, _ in question["options"]]


def test_dashboard_makes_no_external_request(app, signed_in, survey):
    slug = survey[0]
    submit(app, slug, [(1, 0), (0, 2)])
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    for chart in svg_blocks(page):
        rest = chart.replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert "http://" not in rest and "https://" not in rest
        assert "href" not in rest
    # Every script, stylesheet and link of the page is on this site (the respondent link and
    # the join address are this site's own, absolute so they can be shared).
    for attribute, url in re.findall(r'\b(src|href|action)="([^"]*)"', page):
        assert url.startswith(("/", "#", "data:")) and not url.startswith("//"), (attribute, url)
    external = re.findall(r"https?://[^\s\"'<]+", page)
    assert set(external) <= {
        "http://www.w3.org/2000/svg",
        f"http://localhost/s/{slug}",
        "http://localhost/",
    }


@pytest.mark.parametrize(
    ("questions", "said"),
    [
        (
            None,  # the sample survey: a yes/no and a choice question
            "Each respondent’s browser flips a yes/no answer 25% of the time and swaps a "
            "multiple-choice answer for another option at random before sending it, all at the "
            "same strength.",
        ),
        (
            [{"text": "Which?", "type": "choice", "options": ["A", "B", "C"]}],
            "Each respondent’s browser swaps a multiple-choice answer for another option at "
            "random before sending it (as much protection as a 25% flip of a yes/no answer).",
        ),
        (
            [{"text": "Ever?", "type": "yes_no"}],
            "Each respondent’s browser flips a yes/no answer 25% of the time before sending it.",
        ),
    ],
)
def test_the_privacy_words_name_the_randomization_the_questions_get(
    signed_in, make_survey, questions, said
):
    definition = dict(SAMPLE_DEFINITION)
    if questions is not None:
        definition["questions"] = questions
    slug, _ = make_survey(definition)
    page = html.unescape(signed_in.get(f"/analyst/surveys/{slug}").text)
    how = re.search(r'<p id="privacy-how">(.*?) That is', page, re.S).group(1)
    assert " ".join(how.split()) == said


def test_an_open_survey_leads_with_live_ranges_and_a_closed_one_with_exact_ones(
    app, signed_in, make_survey, close
):
    """While open the page redraws itself: its words and chart give the range that stays right
    however often it is read; once closed, the exact one, with the live one in the table."""
    slug = yes_no_survey(make_survey, 0.25)
    submit(app, slug, [(1,)] * 70 + [(0,)] * 50)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    (question,) = results_of(app, slug)["questions"]
    assert_results_shown(page, results_of(app, slug), 0.95, live=True)
    assert "While the survey is open they are live ranges" in flat(page)
    yes = question["options"][1][2]
    assert yes.live_high - yes.live_low > yes.exact_high - yes.exact_low
    chart = svg_blocks(page)[0]
    low = CHART_LEFT + CHART_WIDTH * yes.live_low
    assert f'x="{low:.2f}"' in chart and "its live range" in page
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    assert_results_shown(page, results_of(app, slug), 0.95, live=False)
    assert "While the survey is open" not in flat(page)
    assert "use it if you closed the survey early" in flat(page)


def test_ranges_for_all_answers_at_once_on_request(app, signed_in, survey, close):
    slug = survey[0]
    submit(app, slug, ROWS * 4)
    close(slug)
    page = signed_in.get(f"/analyst/surveys/{slug}?ranges=together").text
    choice = results_of(app, slug)["questions"][1]
    words = flat(section(page, choice["id"]))
    assert "All at once, 95%" in words
    for label, _, e in choice["options"]:
        assert e.simultaneous_low <= e.exact_low and e.exact_high <= e.simultaneous_high
        assert (
            f"would truly answer “{label}”: between <strong>{percent_low(e.simultaneous_low)}"
            f"</strong> and <strong>{percent_high(e.simultaneous_high)}</strong>, guaranteed at "
            "least 95% of the time for all the answers at once."
        ) in words
    plain = flat(section(signed_in.get(f"/analyst/surveys/{slug}").text, choice["id"]))
    assert "Each answer’s range holds on its own" in plain and "All at once, 95%" not in plain
