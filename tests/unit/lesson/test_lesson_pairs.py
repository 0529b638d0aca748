"""The lesson of two questions asked together (a paired question): its steps speak of pairs of
answers, and its step on asking together shows what the joint randomization kept of how the
two answers go together, against separate questions at the same total epsilon, with the class's
own figures, in English and in German."""

from __future__ import annotations

import math
import re

import pytest

from tests.unit.kinds.test_paired import DEFINITION
from tests.unit.lesson.test_lesson_arithmetic import alternatives, check_formula, plain
from tests.unit.lesson.test_lesson_in_german import GERMAN
from tests.unit.lesson.test_lesson_pages import lesson, numbers_in, text_of
from tests.unit.results.test_results_api import submit, submit_and_close

#: 120 students: the yes/no pair's cells (No/No, No/Yes, Yes/No, Yes/Yes) sent 35, 25, 20 and
#: 40 times; the year pair's six cells 20 times each.
ROWS = list(
    zip([0] * 35 + [1] * 25 + [2] * 20 + [3] * 40, [cell % 6 for cell in range(120)], strict=True)
)
#: Step 8 of a pair: what asking together kept (the budgets come after it, as step 9).
TOGETHER = 8


@pytest.fixture
def pair_class(app, client, make_survey, analyst, sign_in_as):
    slug, _ = make_survey(DEFINITION)
    submit_and_close(app, slug, ROWS)
    sign_in_as(client, analyst)
    return slug


@pytest.mark.parametrize("question", [1, 2], ids=["2x2", "3x2"])
def test_a_pair_gets_nine_steps_each_shown(client, pair_class, question):
    for step in range(1, 10):
        page = client.get(lesson(pair_class, step, question)).get_data(as_text=True)
        assert page.count('aria-label="Step ') == 9, step
        assert 'class="lesson-note"' not in page, step
    together = client.get(lesson(pair_class, TOGETHER, question)).get_data(as_text=True)
    assert "Asking the two together" in together and 'id="lesson-kept-together"' in together
    budgets = client.get(lesson(pair_class, 9, question)).get_data(as_text=True)
    assert 'id="lesson-total"' in budgets
    assert "Two questions asked together count once in this sum" in budgets
    download = client.get(f"/analyst/surveys/{pair_class}/lesson.html?question={question}")
    assert download.status_code == 200
    assert download.get_data(as_text=True).count('class="lesson-step"') == 9


def test_a_yes_no_question_keeps_its_eight_steps(client, make_survey, analyst, sign_in_as):
    slug, _ = make_survey()
    sign_in_as(client, analyst)
    page = client.get(lesson(slug, 8)).get_data(as_text=True)
    assert page.count('aria-label="Step ') == 8 and 'data-step="budgets"' in page
    assert "count once in this sum" not in page


def test_the_coin_of_a_pair_speaks_of_pairs_of_answers(client, pair_class):
    words = plain(client.get(lesson(pair_class, 1, 2)).get_data(as_text=True))
    assert "Two questions asked together have 6 pairs of answers." in words
    assert "else sent one of the other pairs" in words
    assert "your two real answers" in words and "spent once for the pair" in words
    assert "a question of 6 options" not in words
    # The cells are a 6-option question's: P = 3 / 8, Q = 1 / 8 at p = 0.25.
    page = client.get(lesson(pair_class, 1, 2)).get_data(as_text=True)
    assert numbers_in(text_of(page, "lesson-keep")) == [37.5]
    assert numbers_in(text_of(page, "lesson-other")) == [12.5]


def test_what_asking_together_kept_at_the_classs_epsilon(client, pair_class):
    """p = 0.25, epsilon ln 3: together P - Q = 1/2 - 1/6 = 1/3; separately, at ln 3 / 2 each,
    1 - 2p' = 2 - sqrt 3 per question, (2 - sqrt 3)^2 = 7 - 4 sqrt 3 = 0.0718 for the pair;
    (1/3 / 0.0718)^2 = 21.6: about 22 times the students; phi = 0.3, 80% at 5%:
    (1.96 + 0.8416)^2 / (kept 0.3)^2 = 785 and 16,919, said to two figures."""
    page = client.get(lesson(pair_class, TOGETHER, 1)).get_data(as_text=True)
    assert text_of(page, "lesson-kept-together") == "33.3%"
    assert text_of(page, "lesson-kept-separately") == f"{100 * (7 - 4 * math.sqrt(3)):.1f}%"
    assert text_of(page, "lesson-half-epsilon") == "0.55"
    words = plain(page)
    assert "at ε = 1.10 over 4 pairs of answers" in words
    assert "about 22 times as many students" in text_of(page, "lesson-more-students")
    assert numbers_in(text_of(page, "lesson-needed"))[:5] == [0.3, 80, 5, 790, 17000]
    together, separately = alternatives(page)
    assert together == "P - Q = 0.5 - 0.167 = 0.333"
    assert separately == "(P1' - Q1') x (P2' - Q2') = 0.268 x 0.268 = 0.072"
    assert check_formula(together) == 1 and check_formula(separately) == 1


def test_at_epsilon_2_the_step_says_the_issues_figures(
    app, client, make_survey, analyst, sign_in_as
):
    """At epsilon 2 (p = 1 / (1 + e^2)): 61.5% together (the simulation's 62%), 21.4%
    separately (its 21%), about 8 times the students: about 230 against 1,900."""
    slug, _ = make_survey({**DEFINITION, "flip_probability": 0.119203})
    submit_and_close(app, slug, ROWS)
    sign_in_as(client, analyst)
    page = client.get(lesson(slug, TOGETHER, 1)).get_data(as_text=True)
    assert text_of(page, "lesson-kept-together") == "61.5%"
    assert text_of(page, "lesson-kept-separately") == "21.4%"
    assert text_of(page, "lesson-half-epsilon") == "1.00"
    assert "about 8 times as many students" in text_of(page, "lesson-more-students")
    assert numbers_in(text_of(page, "lesson-needed"))[3:5] == [230, 1900]
    for alternative in alternatives(page):
        assert check_formula(alternative) == 1


def test_the_classs_difference_is_the_results(client, pair_class):
    """The example: the shares of rows and the difference with its guaranteed range, as the
    results API gives them (its ends rounded outward)."""
    page = client.get(lesson(pair_class, TOGETHER, 1)).get_data(as_text=True)
    results = client.get(f"/api/v1/surveys/{pair_class}/results").get_json()
    association = results["questions"][0]["association"]
    sentence = re.search(r"In this class, [^<]*<strong[^>]*>[^<]*</strong>[^<]*", page).group(0)
    said = numbers_in(re.sub(r"<[^>]+>", "", sentence))
    among, others, difference, low, high, confidence = said
    assert difference == pytest.approx(100 * association["difference"], abs=0.05)
    assert math.floor(1000 * association["difference_ci_low"]) / 10 == pytest.approx(low)
    assert math.ceil(1000 * association["difference_ci_high"]) / 10 == pytest.approx(high)
    assert among - others == pytest.approx(difference, abs=0.1)
    assert confidence == 95
    assert (
        "“Yes” to the first question answered “Yes” to the second" in sentence
        and "answered “No”" in sentence
    )
    # A 3x2 pair has no such difference: the step says none.
    wider = client.get(lesson(pair_class, TOGETHER, 2)).get_data(as_text=True)
    assert "In this class" not in wider and 'id="lesson-kept-together"' in wider


def test_while_too_few_have_answered_the_step_shows_all_but_the_class(
    app, client, make_survey, analyst, sign_in_as
):
    slug, _ = make_survey(DEFINITION)
    submit(app, slug, ROWS[:3])
    sign_in_as(client, analyst)
    page = client.get(lesson(slug, TOGETHER, 1)).get_data(as_text=True)
    assert text_of(page, "lesson-kept-together") == "33.3%"
    assert "In this class" not in page
    estimate = client.get(lesson(slug, 3, 1)).get_data(as_text=True)
    assert 'class="lesson-note"' in estimate


def test_the_step_in_german(client, pair_class):
    """German decimals and grouping, its sentences the catalog's, the formulas adding up on
    the digits as German writes them."""
    page = client.get(lesson(pair_class, TOGETHER, 1), headers=GERMAN).get_data(as_text=True)
    assert "Beide Fragen zusammen" in page
    assert text_of(page, "lesson-kept-together") == "33,3\u00a0%"
    assert text_of(page, "lesson-kept-separately") == "7,2\u00a0%"
    assert text_of(page, "lesson-half-epsilon") == "0,55"
    assert "etwa 22-mal so viele" in text_of(page, "lesson-more-students")
    needed = text_of(page, "lesson-needed")
    assert "φ = 0,3" in needed and "etwa 790" in needed and "etwa 17.000" in needed
    together, separately = alternatives(page)
    assert together == "P - Q = 0,5 - 0,167 = 0,333"
    assert separately == "(P1' - Q1') x (P2' - Q2') = 0,268 x 0,268 = 0,072"
    for alternative in (together, separately):
        assert check_formula(alternative.replace(",", ".")) == 1
    words = plain(page)
    assert "Differenz von" in words and "Prozentpunkten" in words
    coin = plain(client.get(lesson(pair_class, 1, 1), headers=GERMAN).get_data(as_text=True))
    assert "4 Antwortpaare" in coin
