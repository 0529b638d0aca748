"""The lesson's pages: every number each step shows, worked out again here from the counts
submitted (and, for the ranges, read off the dashboard), the owner's alone, the released counts
only while open, and the download a self-contained file."""

from __future__ import annotations

import base64
import hashlib
import html
import math
import re

import pytest

from survey_app import privacy
from survey_app.extensions import db
from survey_app.surveys.services import find_survey
from tests.unit.privacy.test_exact_intervals import feldman_cousins_table
from tests.unit.results.test_results_api import submit, submit_and_close

P = 0.25  # the sample survey's flip probability
BROWSER_P = math.ceil(P * 2**32) / 2**32  # the flip probability the browser really uses
#: 40 students: 14 phones sent "Yes" to question 1; question 2's options got 10, 12 and 18.
ROWS = [(1, 0)] * 10 + [(1, 1)] * 4 + [(0, 1)] * 8 + [(0, 2)] * 18


def lesson(slug: str, step: int = 1, question: int | None = None, **extra) -> str:
    query = f"?step={step}" + (f"&question={question}" if question else "")
    query += "".join(f"&{key}={value}" for key, value in extra.items())
    return f"/analyst/surveys/{slug}/lesson{query}"


def text_of(page: str, element_id: str) -> str:
    """The text of the element with that id (its tags dropped, entities decoded)."""
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</(strong|span|p|td|ul|table)>', page, re.S)
    assert match, f"no #{element_id} on the page"
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(1))).strip()


def numbers_in(text: str) -> list[float]:
    """The numbers in a text, in order ('−10%' is -10; '1,000' is 1000)."""
    found = re.findall(r"[-−]?\d[\d,]*(?:\.\d+)?", text)
    return [float(each.replace("−", "-").replace(",", "")) for each in found]


def shown_percent(page: str, element_id: str) -> float:
    """A share shown as a percentage, as a share."""
    return numbers_in(text_of(page, element_id))[0] / 100


@pytest.fixture
def closed_class(app, client, make_survey, analyst, sign_in_as):
    slug, _ = make_survey()
    submit_and_close(app, slug, ROWS)
    sign_in_as(client, analyst)
    return slug


def dashboard_ranges(client, slug: str, label: str) -> dict[str, tuple[float, float]]:
    """The exact, live and Chebyshev ranges in the dashboard's table row of an answer."""
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    row = re.search(rf'<th scope="row">{label}</th>(.*?)</tr>', page, re.S).group(1)
    cells = [
        html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td.*?</td>", row)
    ]
    # Randomized count, raw share, estimate, exact, live, Chebyshev.
    ranges = [tuple(value / 100 for value in numbers_in(cell)) for cell in cells[3:6]]
    return dict(zip(("exact", "live", "chebyshev"), ranges, strict=True))


def exact_range_by_brute_force(count: int, n: int, keep: float, other: float) -> tuple:
    """The exact 95% range of a noisy count, from the likelihood-ratio construction written
    plainly in test_exact_intervals (not the app's), its ends rounded outward as shown."""
    low, high = feldman_cousins_table(n, keep, other, 0.95)[count]
    return (math.floor(low * 1000 + 1e-9) / 1000, math.ceil(high * 1000 - 1e-9) / 1000)


def test_the_coin_says_epsilon_and_the_odds(client, closed_class):
    page = client.get(lesson(closed_class, 1)).get_data(as_text=True)
    assert numbers_in(text_of(page, "lesson-p")) == [P]
    assert numbers_in(text_of(page, "lesson-keep")) == [1 - P]
    assert numbers_in(text_of(page, "lesson-warner-q")) == [2 * P]
    epsilon = math.log((1 - P) / P)
    # Epsilon is rounded up to two decimals, never down (it must not understate the loss).
    shown = numbers_in(text_of(page, "lesson-epsilon"))[0]
    assert epsilon <= shown < epsilon + 0.01
    assert numbers_in(text_of(page, "lesson-odds")) == [pytest.approx((1 - P) / P)]
    assert "<math" in page and 'alttext="epsilon = ln(0.75 / 0.25)' in page


def test_what_arrived_and_the_estimate(client, closed_class):
    page = client.get(lesson(closed_class, 2)).get_data(as_text=True)
    assert text_of(page, "lesson-n") == "40"
    assert "last release" not in page  # closed: every answer is in
    assert '<td class="num">14</td>' in page and '<td class="num">26</td>' in page
    # The flips push a raw share toward an equal share for every answer: 1 / 2, or 1 / 3.
    assert numbers_in(text_of(page, "lesson-biased")) == [50]
    choice = client.get(lesson(closed_class, 2, question=2)).get_data(as_text=True)
    assert numbers_in(text_of(choice, "lesson-biased")) == [pytest.approx(100 / 3, abs=0.05)]
    page = client.get(lesson(closed_class, 3)).get_data(as_text=True)
    raw = 14 / 40
    assert numbers_in(text_of(page, "lesson-raw")) == [raw]
    estimate = (raw - P) / (1 - 2 * P)
    assert shown_percent(page, "lesson-estimate") == pytest.approx(estimate, abs=0.0005)
    # The working, in the formula's text alternative: (0.35 - 0.25) / (1 - 2 x 0.25) = ...
    assert "(0.35 - 0.25) / (1 - 2 x 0.25) = 0.1 / 0.5 = 0.2" in html.unescape(page)


def test_how_sure_matches_the_notes_and_the_dashboard(client, closed_class):
    page = client.get(lesson(closed_class, 4)).get_data(as_text=True)
    notes = math.sqrt(1 / 0.05) / (2 * (1 - 2 * P) * math.sqrt(40))
    shown = shown_percent(page, "lesson-notes-bound")
    # To a tenth of a point, the digits of the formula's result beside it (0.707: 70.7).
    assert shown == pytest.approx(notes, abs=0.0005)
    assert html.unescape(page).count(f"= {shown:.3f}") >= 1
    ranges = dashboard_ranges(client, closed_class, "Yes")
    assert tuple(v / 100 for v in numbers_in(text_of(page, "lesson-exact"))) == ranges["exact"]
    # The exact range worked out again by brute force (every share tested against every count).
    assert ranges["exact"] == exact_range_by_brute_force(14, 40, 1 - BROWSER_P, BROWSER_P)
    assert tuple(v / 100 for v in numbers_in(text_of(page, "lesson-live"))) == ranges["live"]
    chebyshev = shown_percent(page, "lesson-chebyshev")
    flip = math.ceil(P * 2**32) / 2**32  # the browser's p
    assert chebyshev == pytest.approx(
        math.sqrt(flip * (1 - flip) / (40 * 0.05)) / (1 - 2 * flip), abs=0.001
    )
    # The chart draws each range on one axis, with words for it.
    assert 'role="img" aria-labelledby="range-chart-title"' in page
    title = text_of(
        page.replace("<title", "<span").replace("</title>", "</span>"), "range-chart-title"
    )
    exact = text_of(page, "lesson-exact")
    assert f"Exact range (the dashboard’s, once closed), {exact}" in title


def test_how_sure_at_the_confidence_the_dashboard_picked(client, closed_class):
    """At 90% the notes' delta is 0.1: sqrt(10) / (2 x 0.5 x sqrt(40)) = 1 / 2, and the
    dashboard's 90% exact range is the one shown."""
    page = client.get(lesson(closed_class, 4, confidence="0.9")).get_data(as_text=True)
    assert shown_percent(page, "lesson-notes-bound") == pytest.approx(0.5, abs=0.0005)
    assert "sqrt(1 / 0.1)" in html.unescape(page)
    dashboard = client.get(f"/analyst/surveys/{closed_class}?confidence=0.9").get_data(as_text=True)
    row = re.search(r'<th scope="row">Yes</th>(.*?)</tr>', dashboard, re.S).group(1)
    cells = [
        html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td.*?</td>", row)
    ]
    exact = tuple(v / 100 for v in numbers_in(cells[3]))
    assert tuple(v / 100 for v in numbers_in(text_of(page, "lesson-exact"))) == exact
    assert exact != dashboard_ranges(client, closed_class, "Yes")["exact"]  # not the 95% one


def test_the_reruns_are_what_the_law_of_the_estimate_says(client, closed_class):
    page = client.get(lesson(closed_class, 5)).get_data(as_text=True)
    assert text_of(page, "lesson-runs") == "1,000"
    # 8 of 40 truly "Yes" (the estimate, 20%): each phone reports "Yes" with 0.75 or 0.25.
    true_yes, n = 8, 40
    variance = n * P * (1 - P)  # every report has variance p (1 - p), whatever its answer
    std = math.sqrt(variance) / (n * (1 - 2 * P))
    # Mean within 4 standard errors of the 1,000 runs (plus the display's rounding); spread
    # within 10% (its relative standard error is 2.2%): see test_lesson_math.
    mean = shown_percent(page, "lesson-rerun-mean")
    assert abs(mean - true_yes / n) <= 4 * std / math.sqrt(1000) + 0.0005
    assert shown_percent(page, "lesson-rerun-std") == pytest.approx(std, rel=0.10)
    assert shown_percent(page, "lesson-rerun-expected-std") == pytest.approx(std, abs=0.0005)
    assert shown_percent(page, "lesson-rerun-actual") == pytest.approx(0.2, abs=0.0005)
    # The middle 95% of the re-runs: about 1.96 standard deviations either side of the mean
    # (the estimate's law is close to normal at n = 40). The slack: its ends are whole noisy
    # counts, one step of the estimate (1 / (n (1 - 2p)) = 5 points) apart; a 2.5% quantile of
    # 1,000 draws has a standard error of sqrt(0.025 x 0.975 / 1000) / (phi(1.96) / std),
    # about 1.2 points, of which 2 are allowed; and a tenth's rounding. A wrong spread (twice
    # or half the law's) misses by 13 points or more.
    low, high = (v / 100 for v in numbers_in(text_of(page, "lesson-rerun-middle")))
    density = math.exp(-(1.96**2) / 2) / math.sqrt(2 * math.pi) / std
    slack = 1 / (n * (1 - 2 * P)) + 2 * math.sqrt(0.025 * 0.975 / 1000) / density + 0.001
    assert low == pytest.approx(true_yes / n - 1.96 * std, abs=slack)
    assert high == pytest.approx(true_yes / n + 1.96 * std, abs=slack)
    assert page.count('class="lesson-bar"') >= 5


def test_bayes_with_the_class_as_the_prior(client, closed_class):
    page = client.get(lesson(closed_class, 6)).get_data(as_text=True)
    prior = 0.2
    assert shown_percent(page, "lesson-prior") == pytest.approx(prior, abs=0.0005)
    after_yes = prior * (1 - P) / (prior * (1 - P) + (1 - prior) * P)
    after_no = prior * P / (prior * P + (1 - prior) * (1 - P))
    assert shown_percent(page, "lesson-after-yes") == pytest.approx(after_yes, abs=0.0005)
    assert shown_percent(page, "lesson-after-no") == pytest.approx(after_no, abs=0.0005)
    prior_odds = prior / (1 - prior)
    odds = (1 - P) / P * prior_odds
    assert numbers_in(text_of(page, "lesson-prior-odds")) == [pytest.approx(prior_odds, abs=5e-4)]
    assert numbers_in(text_of(page, "lesson-ceiling-odds")) == [pytest.approx(odds, abs=5e-4)]
    assert shown_percent(page, "lesson-ceiling") == pytest.approx(odds / (1 + odds), abs=0.0005)
    floor = P / (1 - P) * prior_odds
    assert shown_percent(page, "lesson-floor") == pytest.approx(floor / (1 + floor), abs=0.0005)
    # The formula with the class's numbers: b (1 - p) over b (1 - p) + (1 - b) p.
    assert "0.2 x 0.75 / (0.2 x 0.75 + 0.8 x 0.25) = 0.429" in html.unescape(page)


def test_the_trade_off_gives_epsilon_for_each_p(client, closed_class):
    page = client.get(lesson(closed_class, 7)).get_data(as_text=True)
    table = re.search(r'id="trade-off-table".*?</table>', page, re.S).group(0)
    rows = re.findall(r'<tr data-p="([\d.]+)"[^>]*class="([^"]*)".*?</tr>', table, re.S)
    assert [float(p) for p, _ in rows] == [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45]
    assert [float(p) for p, kind in rows if "current" in kind] == [P]
    for p, whole in re.findall(r'<tr data-p="([\d.]+)"(.*?)</tr>', table, re.S):
        cells = re.findall(r'<td class="num">([^<]*)</td>', whole)
        epsilon = math.log((1 - float(p)) / float(p))
        assert epsilon <= float(cells[0]) < epsilon + 0.01
        # Chebyshev with the exact variance at the browser's p, n = 40: rounded up to a tenth.
        flip = math.ceil(float(p) * 2**32) / 2**32
        chebyshev = math.sqrt(flip * (1 - flip) / (40 * 0.05)) / (1 - 2 * flip)
        assert chebyshev <= numbers_in(cells[2])[0] / 100 <= chebyshev + 0.001
    # The control, without JavaScript: ?p= picks a row, whose words show beside it.
    picked = client.get(lesson(closed_class, 7, p="0.4")).get_data(as_text=True)
    assert text_of(picked, "trade-off-words").startswith("At p = 0.4: ε = 0.41;")


def test_the_forms_carry_a_confidence_only_off_the_default(client, closed_class):
    default = client.get(lesson(closed_class, 7)).get_data(as_text=True)
    assert 'name="confidence"' not in default
    chosen = client.get(lesson(closed_class, 7, confidence="0.9")).get_data(as_text=True)
    hidden = '<input type="hidden" name="confidence" value="0.9">'
    assert chosen.count(hidden) == 2  # the question chooser's and step 7's control's
    # The control slides over the trade-off's flip probabilities, a row a step.
    slider = re.search(r'<input type="range" id="trade-off-p"[^>]*>', default).group(0)
    assert 'min="0.05" max="0.45" step="0.05"' in slider


def test_a_long_question_is_written_out_under_the_chooser(client, make_survey, sign_in_as, analyst):
    long_text = "How many hours did you spend on the problem set " + "x" * 40 + "?"
    short_text = "Did you start it early?"
    slug, _ = make_survey(
        {
            "title": "Problem sets",
            "flip_probability": 0.25,
            "questions": [
                {"text": long_text, "type": "yes_no"},
                {"text": short_text, "type": "yes_no"},
            ],
        }
    )
    sign_in_as(client, analyst)
    page = html.unescape(client.get(lesson(slug, 1, question=1)).get_data(as_text=True))
    option = re.search(r'<option value="1"[^>]*>(.*?)</option>', page).group(1)
    assert option.endswith("…") and len(option) < len(long_text)
    assert text_of(page, "lesson-question") == f"1. {long_text}"
    short = client.get(lesson(slug, 1, question=2)).get_data(as_text=True)
    assert f"2. {short_text}</option>" in short and 'id="lesson-question"' not in short


def test_budgets_compose_and_groups_multiply(client, closed_class):
    page = client.get(lesson(closed_class, 8)).get_data(as_text=True)
    epsilon = math.log(3)
    shown = 1.10  # ln 3 rounded up, as every page shows it
    total = numbers_in(text_of(page, "lesson-total"))[0]
    # Two questions: the sum of epsilon as shown (never below the true 2 ln 3).
    assert total == pytest.approx(2 * shown) and total >= 2 * epsilon
    # e^2.20, rounded up: at least e^(2 ln 3) = 9.
    odds = numbers_in(text_of(page, "lesson-total-odds"))[0]
    assert math.exp(2 * shown) <= odds < math.exp(2 * shown) + 0.01
    said = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    assert re.search(r"Answering all 2 questions at ε = [\d.]+ each costs ε = ", said)
    groups = text_of(page, "lesson-groups")
    for k in (2, 5, 10):
        line = re.search(rf"{k} friends: ε = ([\d.]+) for one question, ([\d.]+)", groups)
        # k times epsilon as shown: what the reader's multiplication gives, never below k ln 3.
        one, survey = float(line.group(1)), float(line.group(2))
        assert one == pytest.approx(k * shown) and one >= k * epsilon
        assert survey == pytest.approx(2 * k * shown) and survey >= 2 * k * epsilon


def test_a_choice_question_gets_the_steps_that_apply(client, closed_class):
    page = client.get(lesson(closed_class, 3, question=2)).get_data(as_text=True)
    keep, other = 3 / 5, 1 / 5  # k = 3 at eps = ln 3: P = 3 / (3 + 2), Q = 1 / 5
    rows = re.findall(
        r'<tr><th scope="row">(\w+)</th><td class="num">([\d.]+)</td><td class="num">([^<]+)</td>',
        page,
    )
    assert [label for label, _, _ in rows] == ["Never", "Once", "Often"]
    for (_, raw, estimate), count in zip(rows, (10, 12, 18), strict=True):
        assert float(raw) == pytest.approx(count / 40, abs=0.0005)
        expected = (count / 40 - other) / (keep - other)
        assert numbers_in(estimate)[0] / 100 == pytest.approx(expected, abs=0.0006)
    # The first answer's working, in the formula's text alternative: 10 of 40 sent "Never".
    worked = f"= ({10 / 40:g} - {other:g}) / ({keep:g} - {other:g}) = "
    assert (
        worked + f"{10 / 40 - other:g} / {keep - other:g} = {(10 / 40 - other) / (keep - other):g}"
        in html.unescape(page)
    )
    # Steps 5 to 7 follow the first answer, with k-option randomized response's P and Q.
    for step in (5, 6, 7):
        other_step = client.get(lesson(closed_class, step, question=2)).get_data(as_text=True)
        assert "yes/no" not in other_step and "“Never”" in html.unescape(other_step)
    bayes = html.unescape(client.get(lesson(closed_class, 6, question=2)).get_data(as_text=True))
    # The prior 12.5%: 0.125 x 0.6 / (0.125 x 0.6 + 0.875 x 0.2) = 0.3.
    assert "= 0.125 x 0.6 / (0.125 x 0.6 + 0.875 x 0.2) = 0.3" in bayes


def test_how_sure_for_each_option_of_a_choice(client, closed_class):
    page = client.get(lesson(closed_class, 4, question=2)).get_data(as_text=True)
    keep, other = 3 / 5, 1 / 5  # k = 3 at eps = ln 3
    # Theorem 5's argument with P - Q for 1 - 2p: sqrt(1 / 0.05) / (2 x 0.4 x sqrt(40)).
    notes = math.sqrt(1 / 0.05) / (2 * (keep - other) * math.sqrt(40))
    assert shown_percent(page, "lesson-notes-bound") == pytest.approx(notes, abs=0.0005)
    table = re.search(r'id="lesson-option-ranges".*?</table>', page, re.S).group(0)
    rows = re.findall(r'<th scope="row">(\w+)</th>(.*?)</tr>', table, re.S)
    assert [label for label, _ in rows] == ["Never", "Once", "Often"]
    browser_keep, browser_other = privacy.RandomizedResponse(P, 3).probabilities
    for (label, cells), count in zip(rows, (10, 12, 18), strict=True):
        estimate, exact, live = (
            html.unescape(cell) for cell in re.findall(r'<td class="num">([^<]*)</td>', cells)
        )
        expected = (count / 40 - other) / (keep - other)
        assert numbers_in(estimate)[0] / 100 == pytest.approx(expected, abs=0.0006)
        ranges = dashboard_ranges(client, closed_class, label)
        shown = tuple(v / 100 for v in numbers_in(exact))
        assert shown == ranges["exact"]
        assert shown == exact_range_by_brute_force(count, 40, browser_keep, browser_other)
        assert tuple(v / 100 for v in numbers_in(live)) == ranges["live"]
    assert page.count('class="lesson-band lesson-band-exact"') == 3


def test_navigation_is_links_without_javascript(client, closed_class):
    page = client.get(lesson(closed_class, 3)).get_data(as_text=True)
    assert re.search(r'href="[^"]*step=4[^"]*" id="lesson-next" rel="next"', page)
    assert re.search(r'href="[^"]*step=2[^"]*" id="lesson-previous" rel="prev"', page)
    assert 'aria-current="step"' in page and page.count('class="lesson-step"') == 1
    last = client.get(lesson(closed_class, 8)).get_data(as_text=True)
    assert 'id="lesson-next"' not in last
    # A step out of range is the first.
    assert '<h2 id="step-1-heading">' in client.get(lesson(closed_class, 99)).get_data(as_text=True)


@pytest.mark.parametrize(
    ("name", "value"),
    [("step", "²"), ("step", "9" * 5000), ("step", "-1"), ("step", "1e3"), ("question", "٣")],
    ids=["superscript", "5000 digits", "negative", "exponent", "other script"],
)
def test_a_step_or_question_that_is_no_whole_number_is_refused_in_words(
    client, closed_class, name, value
):
    response = client.get(f"/analyst/surveys/{closed_class}/lesson", query_string={name: value})
    assert response.status_code == 400
    words = html.unescape(response.get_data(as_text=True))
    assert f"{name} must be a whole number, like 3, got" in words
    assert value[:20] in words and "9" * 21 not in words  # a long value is quoted short
    assert 'id="lesson-next"' not in words


def test_a_blank_step_is_the_first(client, closed_class):
    page = client.get(f"/analyst/surveys/{closed_class}/lesson?step=&question=").text
    assert '<h2 id="step-1-heading">' in page


def test_while_open_it_shows_only_the_released_counts(
    app, client, make_survey, analyst, sign_in_as
):
    slug, _ = make_survey()
    sign_in_as(client, analyst)
    submit(app, slug, ROWS[:3])  # fewer than a release's batch (5): nothing released yet
    page = html.unescape(client.get(lesson(slug, 2)).get_data(as_text=True))
    assert "Too early: 3 answered. This step fills in once 10 have" in page
    assert 'id="lesson-n"' not in page
    submit(app, slug, ROWS[3:15])  # 15 arrived: the dashboard releases them
    client.get(f"/analyst/surveys/{slug}")
    submit(app, slug, ROWS[15:17])  # 2 more: not yet in a release
    page = client.get(lesson(slug, 2)).get_data(as_text=True)
    assert text_of(page, "lesson-n") == "15"
    assert "randomized answers, as of the dashboard’s last release." in html.unescape(page)


def test_a_step_waits_for_the_count_the_dashboard_says(
    app, client, make_survey, analyst, sign_in_as
):
    """Released in batches of 20, an open survey's results appear once 20 have answered: the
    lesson waits for the same count the dashboard names, however many answered before."""
    app.config["RELEASE_BATCH"] = 20
    slug, _ = make_survey()
    sign_in_as(client, analyst)
    page = html.unescape(client.get(lesson(slug, 2)).get_data(as_text=True))
    assert "No answers yet: this step fills in once 20 people have answered." in page
    submit(app, slug, ROWS[:12])
    dashboard = html.unescape(client.get(f"/analyst/surveys/{slug}").get_data(as_text=True))
    assert "The first results appear once 20 people have answered" in dashboard
    page = html.unescape(client.get(lesson(slug, 2)).get_data(as_text=True))
    assert "Too early: 12 answered. This step fills in once 20 have" in page
    submit(app, slug, ROWS[12:20])
    client.get(f"/analyst/surveys/{slug}")  # the dashboard releases the 20
    page = html.unescape(client.get(lesson(slug, 2)).get_data(as_text=True))
    assert "fills in once" not in page and text_of(page, "lesson-n") == "20"


def test_the_lesson_is_its_owners_alone(app, client, closed_class, sign_in_as):
    from survey_app.accounts.services import create_analyst

    with app.app_context():
        create_analyst("other@example.edu", "another long passphrase 42")
        db.session.commit()
    for path in (lesson(closed_class), f"/analyst/surveys/{closed_class}/lesson.html"):
        assert client.get(path).status_code == 200
    sign_in_as(client, "other@example.edu")
    for path in (lesson(closed_class), f"/analyst/surveys/{closed_class}/lesson.html"):
        assert client.get(path).status_code == 404
    anonymous = app.test_client()
    assert anonymous.get(lesson(closed_class)).status_code == 302


def test_the_download_is_one_self_contained_file(app, client, closed_class):
    with app.app_context():
        find_survey(closed_class).title = "Ünïcode: “quotes” / slashes\\ & more"
        db.session.commit()
    response = client.get(f"/analyst/surveys/{closed_class}/lesson.html")
    disposition = response.headers["Content-Disposition"]
    assert re.fullmatch(
        r'attachment; filename="unicode-quotes-slashes-more-\d{4}-\d\d-\d\d-lesson\.html"',
        disposition,
    )
    page = response.get_data(as_text=True)
    assert "<script" not in page and "<link" not in page and "src=" not in page
    # Nothing to fetch and nowhere to go: no link, no url() in the styles, no address but the
    # SVG namespace's name.
    assert "href=" not in page and "url(" not in page and "@import" not in page
    assert "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert page.count('class="lesson-step"') == 8 and "<svg" in page and "<math" in page
    assert "<form" not in page  # the control is the page's; the file carries the table
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in response.headers["Content-Security-Policy"]
    assert "break-after: page" in style  # one step a printed page


def test_the_dashboard_and_the_projector_link_to_it(client, closed_class):
    target = f'href="/analyst/surveys/{closed_class}/lesson"'
    assert target in client.get(f"/analyst/surveys/{closed_class}").get_data(as_text=True)
    projector = client.get(f"/analyst/surveys/{closed_class}/present").get_data(as_text=True)
    assert target in projector


def test_a_number_question_gets_its_average_and_the_budget(
    app, client, hours, analyst, sign_in_as, close
):
    from tests.numeric_helpers import submit_numbers

    slug, (number_id, yes_no_id) = hours
    mechanism, reports = submit_numbers(
        client, slug, number_id, yes_no_id, [10.0] * 20 + [30.0] * 20
    )
    close(slug)
    sign_in_as(client, analyst)
    pages = {step: client.get(lesson(slug, step, question=1)) for step in range(1, 9)}
    assert all(page.status_code == 200 for page in pages.values())
    assert "randomized each number" in pages[1].get_data(as_text=True)
    epsilon = numbers_in(text_of(pages[1].get_data(as_text=True), "lesson-epsilon"))[0]
    assert math.log(3) <= epsilon < math.log(3) + 0.01
    assert text_of(pages[2].get_data(as_text=True), "lesson-n") == "40"
    expected = mechanism.estimate_mean(reports, 0.95)
    mean = numbers_in(text_of(pages[3].get_data(as_text=True), "lesson-mean"))[0]
    assert mean == pytest.approx(min(40.0, max(0.0, expected.mean)), abs=0.05)
    # Every step teaches with the number's own mechanism: no step is left to yes/no.
    for step in (4, 5, 6, 7):
        assert "yes/no" not in pages[step].get_data(as_text=True)
    sure = pages[4].get_data(as_text=True)
    chebyshev = math.sqrt(mechanism.worst_case_variance / (0.05 * 40))
    assert numbers_in(text_of(sure, "lesson-notes-bound"))[0] == pytest.approx(chebyshev, abs=0.05)
    told = pages[6].get_data(as_text=True)
    assert numbers_in(text_of(told, "lesson-ceiling"))[0] == pytest.approx(75.0)  # 3 / (1 + 3)
    total = numbers_in(text_of(pages[8].get_data(as_text=True), "lesson-total"))[0]
    assert 2 * math.log(3) <= total < 2 * math.log(3) + 0.01
    # Question 2, the yes/no one, is the lesson's subject by default.
    default = client.get(f"/analyst/surveys/{slug}/lesson").get_data(as_text=True)
    assert 'id="lesson-p"' in default and '<option value="2" selected' in default


def test_survey_text_stays_text_on_every_lesson_page(app, client, make_survey, analyst, sign_in_as):
    from tests.unit.accounts.test_analyst_pages_safety import HOSTILE_DEFINITION, assert_escaped

    slug, _ = make_survey({**HOSTILE_DEFINITION, "show_results_after_close": True})
    submit_and_close(app, slug, ROWS)
    sign_in_as(client, analyst)
    for question in (1, 2):
        for step in range(1, 9):
            assert_escaped(client.get(lesson(slug, step, question=question)).get_data(as_text=True))
    download = client.get(f"/analyst/surveys/{slug}/lesson.html")
    assert_escaped(download.get_data(as_text=True))
    assert re.fullmatch(
        r'attachment; filename="[a-z0-9-]+\.html"', download.headers["Content-Disposition"]
    )
    assert_escaped(client.get(f"/s/{slug}/results").get_data(as_text=True))
    assert_escaped(client.get(f"/s/{slug}").get_data(as_text=True))


@pytest.mark.parametrize("yes", [0, 12, 40])
def test_lopsided_classes_get_every_step(app, client, make_survey, analyst, sign_in_as, yes):
    """All "No", all "Yes" or in between (the estimate then strays outside 0-100%): every step
    still draws, the prior of step 6 is the dashboard's share, kept within 0-100%."""
    slug, _ = make_survey()
    submit_and_close(app, slug, [(1, 0)] * yes + [(0, 0)] * (40 - yes))
    sign_in_as(client, analyst)
    for step in range(1, 9):
        assert client.get(lesson(slug, step)).status_code == 200
    page = client.get(lesson(slug, 6)).get_data(as_text=True)
    raw = yes / 40
    estimate = min(1.0, max(0.0, (raw - P) / (1 - 2 * P)))
    assert shown_percent(page, "lesson-prior") == pytest.approx(estimate, abs=0.0005)


def test_one_student_of_the_rerun_class_holds_yes(app, client, make_survey, analyst, sign_in_as):
    """42 students, 11 phones sent "Yes" at p = 0.25: the estimate is 2 x 11 / 42 - 1/2 = 1/42,
    one student, and the sentence says so in the singular."""
    slug, _ = make_survey()
    submit_and_close(app, slug, [(1, 0)] * 11 + [(0, 0)] * 31)
    sign_in_as(client, analyst)
    page = html.unescape(client.get(lesson(slug, 5)).get_data(as_text=True))
    assert "Suppose 1 of the 42 truly holds “Yes”" in page


def test_each_chebyshev_bound_has_one_name(client, closed_class):
    """The notes' bound (Theorem 5, variance at most 1/4) and Chebyshev's bound with the exact
    variance p(1 - p) are two bounds: each has one name wherever it appears, and the lesson,
    which shows both, says how they differ."""
    from pathlib import Path

    from survey_app.lesson.words import EXACT_VARIANCE_BOUND

    sure = " ".join(
        html.unescape(
            re.sub(r"<[^>]+>", " ", client.get(lesson(closed_class, 4)).get_data(as_text=True))
        ).split()
    )
    assert "The notes’ bound (Theorem 5: Chebyshev with the worst-case variance 1/4" in sure
    assert f"{EXACT_VARIANCE_BOUND} p(1 − p) of a report, below 1/4, is narrower" in sure
    dashboard = html.unescape(client.get(f"/analyst/surveys/{closed_class}").get_data(as_text=True))
    assert EXACT_VARIANCE_BOUND in dashboard and "notes’ bound" not in dashboard
    root = Path(__file__).resolve().parents[3]
    for path in [*root.glob("survey_app/**/*.py"), *root.glob("templates/**/*.html")]:
        text = path.read_text(encoding="utf-8")
        assert "textbook Chebyshev" not in text, path
        assert "bound from the notes" not in text, path
