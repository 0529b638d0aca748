"""The lesson in the pseudo-language of tests/unit/respondents/test_pseudo_locale.py shows no
English: every step (?step=N) of a yes/no, a choice and a number question, and of two questions
asked together (a pair of yes/no questions and a pair of a choice and a yes/no question), with
answers, before enough answers came in and with none, open and closed, step 7 at a flip
probability picked, and the downloaded file.

A formula's symbols (p, b, n, ln, sqrt, E, delta, epsilon...) are mathematics, not English: they
are checked apart, and every word around them (the formula's name, "about", "for the true
share b") must come from the catalog.
"""

from __future__ import annotations

import html
import re

import pytest

from tests.analyst_helpers import submit
from tests.unit.respondents.test_pseudo_locale import (
    ANSWERED,
    GREEK,
    SPEAKING,
    english_left,
    pseudo_app,
)

__all__ = ["pseudo_app"]  # the fixture, used by name

#: The formulas' symbols: the names a formula's text alternative and its MathML use.
SYMBOLS = {"p", "b", "n", "h", "x", "P", "Q", "E", "V", "ln", "sqrt", "delta", "epsilon"}
#: A formula's box (its name, checked apart) holding its MathML.
FORMULA = re.compile(
    r'<div class="lesson-formula" role="region" tabindex="0" aria-label="([^"]*)">(.*?)</div>',
    re.S,
)
STEPS = range(1, 9)
#: Two questions asked together: a step more (what asking them together kept).
PAIR_STEPS = range(1, 10)
#: Two pairs in Greek: two yes/no questions, and a choice with a yes/no question.
GREEK_PAIRS = {
    "title": "Ζεύγη ερωτήσεων",
    "flip_probability": 0.25,
    "questions": [
        {
            "type": "paired",
            "questions": [
                {"text": "Εργαλείο;", "type": "yes_no"},
                {"text": "Αντιγραφή;", "type": "yes_no"},
            ],
        },
        {
            "text": "Έτος και αντιγραφή",
            "type": "paired",
            "questions": [
                {"text": "Έτος;", "type": "choice", "options": ["Πρώτο", "Δεύτερο", "Τρίτο"]},
                {"text": "Αντιγραφή;", "type": "yes_no"},
            ],
        },
    ],
}
#: Randomized answers to GREEK_PAIRS's two pairs: each a cell of its pair.
PAIRS_ANSWERED = [(index % 4, index % 6) for index in range(len(ANSWERED))]


def formula_words_left(page: str) -> list[str]:
    """The words of the page's formulas that are neither symbols nor the catalog's: each
    formula's name, its text alternative and the text of its MathML."""
    leaks = []
    for name, math in FORMULA.findall(page):
        if re.search(r"[A-Za-z]", html.unescape(name)):
            leaks.append(html.unescape(name))
        said = [html.unescape(each) for each in re.findall(r'alttext="([^"]*)"', math)]
        said += [html.unescape(each) for each in re.findall(r">([^<]+)<", math)]
        for text in said:
            if set(re.findall(r"[A-Za-z]+", text)) - SYMBOLS:
                leaks.append(text)
    return leaks


def leaks(page: str) -> list[str]:
    """English left anywhere on a lesson page: its text (the formulas apart), and its formulas'
    words."""
    texts = english_left(page, skipped=(("div", "lesson-formula"),))
    # A text of symbols alone is mathematics: the trade-off's column "p".
    words = [text for text in texts if set(re.findall(r"[A-Za-z]+", text)) - SYMBOLS]
    return words + formula_words_left(page)


def lesson_pages(client, slug: str, question: int, steps=STEPS, **extra) -> dict[str, str]:
    """Every step of one question's lesson, and its download, as the pseudo-language says them."""
    query = "".join(f"&{key}={value}" for key, value in extra.items())
    pages = {}
    for step in steps:
        page = client.get(
            f"/analyst/surveys/{slug}/lesson?step={step}&question={question}{query}",
            headers=SPEAKING,
        )
        assert page.status_code == 200, step
        pages[f"step {step}"] = page.text
    download = client.get(
        f"/analyst/surveys/{slug}/lesson.html?question={question}", headers=SPEAKING
    )
    assert download.status_code == 200
    pages["download"] = download.text
    return pages


@pytest.mark.parametrize("closed", [True, False], ids=["closed", "open"])
@pytest.mark.parametrize("question", [1, 2, 3], ids=["yes/no", "choice", "number"])
def test_every_step_with_answers_says_nothing_in_english(
    pseudo_app, client, analyst, sign_in_as, make_survey, close, question, closed
):
    """Closed, and open (the counts of the dashboard's last release, and the live ranges)."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK)
    submit(pseudo_app, slug, ANSWERED)
    if closed:
        close(slug)
    pages = lesson_pages(client, slug, question, p="0.45")
    for name, page in pages.items():
        assert leaks(page) == [], name
    assert 'id="lesson-n"' in pages["step 2"]
    # The steps' own words are the catalog's: the title, a step's heading, a formula's name.
    assert "⟦Ţĥé çöîñ⟧" in pages["step 1"] and '<html lang="eo"' in pages["download"]
    if question != 3:
        assert 'aria-label="⟦' in pages["step 4"] and "<math" in pages["step 4"]


@pytest.mark.parametrize("answered", [0, 4], ids=["no answers", "too early"])
@pytest.mark.parametrize("question", [1, 2, 3], ids=["yes/no", "choice", "number"])
def test_every_step_waiting_for_answers_says_nothing_in_english(
    pseudo_app, client, analyst, sign_in_as, make_survey, question, answered
):
    """An open survey: the steps that need answers say why they wait; steps 1 and 8 show."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK)
    submit(pseudo_app, slug, ANSWERED[:answered])
    pages = lesson_pages(client, slug, question)
    for name, page in pages.items():
        assert leaks(page) == [], name
    assert 'class="lesson-note"' in pages["step 2"]


@pytest.mark.parametrize("answered", [0, len(ANSWERED)], ids=["no answers", "closed"])
@pytest.mark.parametrize("question", [1, 2], ids=["two yes/no", "choice and yes/no"])
def test_every_step_of_a_pair_says_nothing_in_english(
    pseudo_app, client, analyst, sign_in_as, make_survey, close, question, answered
):
    """Its nine steps: step 1 of pairs of answers, step 8 what asking together kept (with the
    class's difference, for a pair of two answers each, once answers show), step 9 the budgets."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK_PAIRS)
    submit(pseudo_app, slug, PAIRS_ANSWERED[:answered])
    if answered:
        close(slug)
    pages = lesson_pages(client, slug, question, PAIR_STEPS, p="0.45")
    for name, page in pages.items():
        assert leaks(page) == [], name
    assert 'id="lesson-kept-together"' in pages["step 8"]
    assert 'id="lesson-pairs-once"' in pages["step 9"]
    assert ('id="lesson-pair-difference"' in pages["step 8"]) == (question == 1 and answered > 0)


def test_the_checks_find_english_in_a_formula_and_around_it():
    """A formula's words in English, or its name, are found; its symbols are not."""
    english = (
        '<div class="lesson-formula" role="region" tabindex="0" aria-label="Epsilon">'
        '<math alttext="epsilon = ln 3, about 1.10"><mi>ε</mi></math></div>'
    )
    assert formula_words_left(english) == ["Epsilon", "epsilon = ln 3, about 1.10"]
    symbols = english.replace('"Epsilon"', '"⟦Éþšîļöñ⟧"').replace("about", "⟦àƀöûţ⟧")
    assert formula_words_left(symbols) == []
