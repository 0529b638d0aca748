"""Each answer's figure as a person reads it, on the dashboard, the projector and the students'
results page: inside the range printed beside it, "close to 0%" only where that range says so,
and one figure for one answer wherever it appears (words, chart, table), the same on every page;
and a live range, read after every answer, never gives back what an earlier look proved.

The class (p = 1/4, 25 answers, looked at after each answer on the dashboard and in looks of 5
on the projector while the survey is open): "Walk" is reported so often that its unbiased
estimate is above 100%, "Home" by nobody (its estimate is -50%), so the
shares shown (each answer's own estimate kept within 0–100%) add up to more than 100%. The
counts go straight into the database, as the submission API stores them.
"""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.by import By

from survey_app.extensions import db
from survey_app.results.tables import survey_results
from survey_app.results.words import CLOSE_POINTS, headline_range_kind
from survey_app.surveys.services import close_survey, find_survey
from survey_app.words import percent
from tests.browser.test_accessibility import signed_in
from tests.unit.results.test_results_api import submit

pytestmark = pytest.mark.browser

OPTIONS = ["Bus", "Walk", "Car", "Home"]
DEFINITION = {
    "title": "Getting here",
    "flip_probability": 0.25,
    "questions": [
        {"text": "Did you have breakfast?", "type": "yes_no"},
        {"text": "How did you get here?", "type": "choice", "options": OPTIONS},
    ],
}
#: Five answers, as (breakfast, way here): Walk three times in five, Home never.
FIVE_ANSWERS = [(1, 1), (0, 1), (1, 0), (1, 1), (0, 2)]
#: The looks while open, after 10, 15 and 20 answers (releases come every 5:
#: SURVEY_APP_RELEASE_BATCH); the last after 25, once closed.
LOOKS = (10, 5, 5)

SENTENCE = re.compile(
    r"About (-?[\d.]+)% would truly answer “([^”]+)”: "
    r"(?:between ([\d.]+)% and ([\d.]+)%|the range is the single value ([\d.]+)%)"
)
BRIEF = re.compile(r"“([^”]+)”: about (-?[\d.]+)% \(([\d.]+)% to ([\d.]+)%\)")
CLOSE = re.compile(r"close to (0|100)%")
TOTAL = re.compile(r"The shares add up to ([\d.]+)%")
ROOM_TOTAL = re.compile(r"These add up to ([\d.]+)%: each share is kept within 0–100%\.")


def expected_figures(app, slug: str) -> dict[str, str]:
    """The app's one figure for each answer, by label (results.tables.OptionResult.headline),
    for the range the pages lead with now."""
    with app.app_context():
        results = survey_results(find_survey(slug))
        kind = headline_range_kind(results)
        return {
            f"{question.number}:{option.label}": percent(option.headline(kind))
            for question in results.questions
            for option in question.options
        }


def check_sentences(text: str, number: int) -> dict[str, float]:
    """Each "About X% would truly answer" in ``text``: X inside its printed range, and "close
    to" only where that range says so. Gives the figures read, by "number:label"."""
    figures = {}
    found = list(SENTENCE.finditer(text))
    assert found, text
    for match in found:
        share, label = float(match.group(1)), match.group(2)
        low = float(match.group(3) or match.group(5))
        high = float(match.group(4) or match.group(5))
        assert low <= share <= high, match.group(0)
        figures[f"{number}:{label}"] = share
        # The words that follow this sentence, up to the next one, speak of this answer.
        following = text[match.end() :].split("About ", 1)[0]
        for end in CLOSE.findall(following):
            assert high <= CLOSE_POINTS if end == "0" else low >= 100 - CLOSE_POINTS, following
    return figures


def check_total(text: str, shares: list[float]) -> None:
    """What a choice question says its shares add up to is what the figures shown add up to,
    within their rounding (a tenth of a point each)."""
    (said,) = TOTAL.findall(text)
    assert abs(float(said) - sum(shares)) <= 0.05 * len(shares) + 1e-9, (said, shares)
    if float(said) != 100:
        assert f"The shares add up to {said}%, not 100%" in text


def chart_figures(section, number: int) -> dict[str, str]:
    """The chart's figure for each answer, by "number:label", as drawn beside its row."""
    labels = [each.text for each in section.find_elements(By.CSS_SELECTOR, "svg.chart .label")]
    values = [each.text for each in section.find_elements(By.CSS_SELECTOR, "svg.chart .value")]
    assert labels and len(labels) == len(values)
    return {f"{number}:{label}": value for label, value in zip(labels, values, strict=True)}


def send(live_app, slug: str, count: int) -> None:
    submit(live_app.app, slug, FIVE_ANSWERS * (count // len(FIVE_ANSWERS)))


def close_with_results_for_students(app, slug: str) -> None:
    with app.app_context():
        survey = find_survey(slug)
        survey.show_results_after_close = True
        close_survey(survey)
        db.session.commit()


def read_dashboard(driver, live_app, slug: str, question_ids: list[int]) -> dict:
    """Every check on the dashboard as it reads now (live ranges while open, exact once
    closed): the words, the chart and the table's "Estimate" give one figure an answer. Gives
    each answer's range as its words print it, in percent, by "number:label"."""
    driver.get(live_app.url(f"/analyst/surveys/{slug}"))
    expected = expected_figures(live_app.app, slug)
    printed = {}
    for number, question_id in enumerate(question_ids, start=1):
        section = driver.find_element(By.ID, f"question-{question_id}")
        words = section.find_element(By.CSS_SELECTOR, "ul.plain-words").text
        said = check_sentences(words, number)
        printed |= printed_ranges(words, number)
        for key, share in said.items():
            assert percent(share / 100) == expected[key], key
        drawn = chart_figures(section, number)
        assert drawn == {key: value for key, value in expected.items() if key in drawn}
        assert len(drawn) == (2 if number == 1 else len(OPTIONS))
        for row in section.find_elements(By.CSS_SELECTOR, "table.data tbody tr"):
            label = row.find_element(By.TAG_NAME, "th").text
            estimate = row.find_elements(By.TAG_NAME, "td")[2].text
            # The share shown first; the unbiased estimate beside it, named, where they differ.
            assert estimate.split(" (unbiased: ")[0] == expected[f"{number}:{label}"]
        if number == 2:
            check_total(section.text, [float(drawn[f"2:{o}"][:-1]) for o in OPTIONS])
    return printed


def printed_ranges(text: str, number: int) -> dict[str, tuple[float, float]]:
    """Each answer's range as the sentences in ``text`` print it, in percent."""
    return {
        f"{number}:{match.group(2)}": (
            float(match.group(3) or match.group(5)),
            float(match.group(4) or match.group(5)),
        )
        for match in SENTENCE.finditer(text)
    }


def check_nothing_given_back(earlier: dict, now: dict, before: int, answered: int) -> None:
    """A live range never gives back what an earlier look proved, in people: the count of
    holders it allows at the lower end never falls, and at the upper end rises by at most the
    new answers. Printed ranges are rounded outward to a tenth of a point: a tenth of a point
    of the class is allowed either way."""
    dust = 0.001 * answered
    for key, (low, high) in now.items():
        low_before, high_before = earlier[key]
        assert low / 100 * answered >= low_before / 100 * before - dust, (key, earlier, now)
        new = answered - before
        assert high / 100 * answered <= high_before / 100 * before + new + dust, (key, now)


def test_the_dashboard_gives_one_figure_an_answer_inside_its_range(
    make_chromium, live_app, analyst, make_survey
):
    # A release with every answer: the professor looks after each one, from the 10th on.
    live_app.app.config["RELEASE_BATCH"] = 1
    slug, question_ids = make_survey(DEFINITION)
    driver = signed_in(make_chromium, live_app, analyst)
    rows = FIVE_ANSWERS * 5
    submit(live_app.app, slug, rows[:9])
    earlier = None
    for answered in range(10, len(rows) + 1):  # live looks as the class answers
        submit(live_app.app, slug, rows[answered - 1 : answered])
        printed = read_dashboard(driver, live_app, slug, question_ids)
        assert len(printed) == 1 + len(OPTIONS)
        if earlier is not None:
            check_nothing_given_back(earlier, printed, answered - 1, answered)
        earlier = printed
    close_with_results_for_students(live_app.app, slug)
    read_dashboard(driver, live_app, slug, question_ids)
    choice = driver.find_element(By.ID, f"question-{question_ids[1]}").text
    # Walk above 100% raw, Home empty: each named as the unbiased estimate, beside 100% and 0%.
    assert "The unbiased estimate is -50%, outside 0–100%" in choice
    assert "The share shown, 0%, is the nearest share its range allows" in choice
    assert "The share shown, 100%, is the nearest share its range allows" in choice
    assert "0% (unbiased: -50%)" in choice
    assert "The shares add up to 120%, not 100%" in choice


def read_projector(driver, live_app, slug: str) -> None:
    """Every check on the projector as it reads now: each answer's figure inside its range, the
    same in the words and the chart, and the app's one figure."""
    driver.get(live_app.url(f"/analyst/surveys/{slug}/present"))
    expected = expected_figures(live_app.app, slug)
    for number in (1, 2):
        section = driver.find_element(By.ID, f"present-question-{number}")
        brief = list(BRIEF.finditer(section.text))
        assert brief, section.text
        for match in brief:
            label, share = match.group(1), float(match.group(2))
            low, high = float(match.group(3)), float(match.group(4))
            assert low <= share <= high, match.group(0)
            assert match.group(2) + "%" == expected[f"{number}:{label}"]
        drawn = chart_figures(section, number)
        assert drawn == {key: value for key, value in expected.items() if key in drawn}
        assert "close to" not in section.text
        # One line under the shares: the caution when the ranges are too wide, else what a
        # choice question's shares add up to when it is not 100%.
        total = ROOM_TOTAL.findall(section.text)
        if number == 1 or "Too wide yet" in section.text:
            assert total == []
        else:
            shares = [float(drawn[f"2:{option}"][:-1]) for option in OPTIONS]
            assert len(total) == (0 if percent(sum(shares) / 100) == "100%" else 1), total
            assert all(abs(float(said) - sum(shares)) <= 0.2 + 1e-9 for said in total)


def test_the_projector_gives_one_figure_an_answer_inside_its_range(
    make_chromium, live_app, analyst, make_survey
):
    slug, _ = make_survey(DEFINITION)
    driver = signed_in(make_chromium, live_app, analyst)
    driver.set_window_size(1280, 720)
    for more in LOOKS:
        send(live_app, slug, more)
        read_projector(driver, live_app, slug)
    send(live_app, slug, 5)
    close_with_results_for_students(live_app.app, slug)
    read_projector(driver, live_app, slug)
    words = driver.find_element(By.ID, "present-question-2").text
    assert "“Walk”: about 100%" in words and "“Home”: about 0%" in words
    # 25 answers over 4 options leave the ranges too wide: the room is told that, not the sum.
    assert "Too wide yet" in words and "These add up to" not in words


def test_the_students_results_page_gives_one_figure_an_answer_inside_its_range(
    make_chromium, live_app, make_survey
):
    slug, _ = make_survey(DEFINITION)
    send(live_app, slug, 25)
    close_with_results_for_students(live_app.app, slug)
    driver = make_chromium()
    driver.set_window_size(360, 740)
    driver.get(live_app.url(f"/s/{slug}/results"))
    expected = expected_figures(live_app.app, slug)
    said = {}
    for number in (1, 2):
        text = driver.find_element(By.ID, f"class-question-{number}").text
        said.update(check_sentences(text, number))
    assert {key: percent(share / 100) for key, share in said.items()} == {
        key: value for key, value in expected.items() if key in said
    }
    assert len(said) == 1 + len(OPTIONS)
    choice = driver.find_element(By.ID, "class-question-2").text
    check_total(choice, [said[f"2:{option}"] for option in OPTIONS])
    assert "The shares add up to 120%, not 100%" in choice
    assert "close to" not in choice
