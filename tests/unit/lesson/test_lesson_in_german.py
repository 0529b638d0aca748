"""The lesson in German (and French where its numbers differ): its sentences, its counts and
plural forms, its decimals with a comma, in the text and in the formulas' MathML; and every
piece of arithmetic it shows still adds up as written, on the digits as German writes them
(test_lesson_arithmetic checks the same in English)."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from flask_babel import force_locale

from survey_app.lesson import words
from tests.conftest import SAMPLE_DEFINITION
from tests.numeric_helpers import submit_numbers
from tests.unit.lesson.test_lesson_arithmetic import (
    CLASSES,
    alternatives,
    assert_adds_up,
    check_formula,
    check_sentences,
    plain,
    step_pages,
)
from tests.unit.lesson.test_lesson_pages import ROWS, lesson, text_of
from tests.unit.results.test_results_api import submit_and_close

GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}
FRENCH = {"Accept-Language": "fr"}
#: A figure as German writes it: '−0,13', '1.000', '0,2652'.
FIGURE = r"[−-]?\d[\d.]*(?:,\d+)?"
#: The words of a formula's text alternative in German, as test_lesson_arithmetic reads them in
#: English (the symbols and operators are the same in both).
FORMULA_WORDS = {", etwa ": ", about ", " (die Summe)": " (the sum)", ", für ": ", for "}


def number(figure: str) -> float:
    """A German figure as a number: '1.234,5' is 1234.5, '−0,13' is -0.13."""
    return float(figure.replace(".", "").replace(",", ".").replace("−", "-"))


def in_english_digits(text: str) -> str:
    """A German text alternative as the English checks read it: a decimal comma as a point."""
    for german, english in FORMULA_WORDS.items():
        text = text.replace(german, english)
    return re.sub(r"(\d),(\d)", r"\1.\2", text)


def german_pages(client, slug: str, question: int) -> dict[int, str]:
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = GERMAN["Accept-Language"]
    try:
        return step_pages(client, slug, question)
    finally:
        del client.environ_base["HTTP_ACCEPT_LANGUAGE"]


def check_german_budgets(text: str) -> None:
    """Step 8 in German: m questions at epsilon each cost m x epsilon; k friends k times."""
    cost = re.search(rf"alle (\d+) Fragen mit je ε = ({FIGURE}) kosten ε = ({FIGURE})", text)
    each, total = number(cost.group(2)), cost.group(3)
    assert_adds_up(int(cost.group(1)) * each, "=", in_english_digits(total), text)
    groups = re.findall(rf"(\d+) Freunde: ε = ({FIGURE}) für eine Frage, ({FIGURE})", text)
    assert len(groups) == 3
    for k, one, whole in groups:
        assert_adds_up(int(k) * each, "=", in_english_digits(one), text)
        assert_adds_up(int(k) * number(total), "=", in_english_digits(whole), text)


def check_german_ceiling(text: str) -> None:
    """Step 6's ceiling in German: the prior odds from the prior, times e^eps, as chances."""
    found = re.search(
        rf"Die Chancen für „[^“]+“, ({FIGURE}) \(({FIGURE}) % gegen ({FIGURE}) %\), können "
        rf"höchstens um den Faktor e ε = (?:\(1 − p\) / p|P / Q) = ({FIGURE}) / ({FIGURE}) "
        rf"wachsen, auf ({FIGURE}) : eine Wahrscheinlichkeit von ({FIGURE}) %",
        text,
    )
    if found is None:
        assert "gibt es nichts zu erfahren" in text
        return
    odds, prior, against, keep, other, most, chance = found.groups()
    assert_adds_up(number(prior) / number(against), "=", in_english_digits(odds), text)
    assert_adds_up(number(odds) * number(keep) / number(other), "=", in_english_digits(most), text)
    assert_adds_up(100 * number(most) / (1 + number(most)), "=", in_english_digits(chance), text)


@pytest.mark.parametrize("name", ["p 0.25, 40 answers", "p 0.15, 12 answers"])
def test_every_step_adds_up_in_german(app, client, make_survey, analyst, sign_in_as, name):
    flip_probability, questions, rows = CLASSES[name]
    slug, _ = make_survey(
        {"title": name, "flip_probability": flip_probability, "questions": questions}
    )
    submit_and_close(app, slug, rows)
    sign_in_as(client, analyst)
    for question in (1, 2):
        pages = german_pages(client, slug, question)
        links = 0
        for page in pages.values():
            assert '<html lang="de"' in page
            for alternative in alternatives(page):
                links += check_formula(in_english_digits(alternative))
            check_sentences(in_english_digits(plain(page)))
        assert links >= 5  # steps 1, 3, 4, 6 and 8 have a formula with figures
        check_german_budgets(plain(pages[8]))
        check_german_ceiling(plain(pages[6]))


def test_a_number_question_adds_up_in_german(app, client, hours, analyst, sign_in_as, close):
    slug, (number_id, yes_no_id) = hours
    submit_numbers(client, slug, number_id, yes_no_id, [10.0] * 20 + [30.0] * 20)
    close(slug)
    sign_in_as(client, analyst)
    pages = german_pages(client, slug, 1)
    links = sum(
        check_formula(in_english_digits(alternative))
        for page in pages.values()
        for alternative in alternatives(page)
    )
    assert links >= 2  # step 4's bound and step 8's sum
    for page in pages.values():  # every decimal with a comma ("1.000" groups thousands)
        assert not re.search(r"\d\.\d(?!\d\d)", plain(page)), plain(page)
    bound = text_of(pages[4], "lesson-notes-bound")
    result = alternatives(pages[4])[0].rsplit("= ", 1)[1]
    assert bound == f"±{result} hours" and "," in result
    # Step 3: the average's range and its guarantee, one whole sentence of the catalog.
    assert re.search(
        r"Aus 40 zufällig veränderten Zahlen ergibt sich ein Durchschnitt von etwa \d+,\d hours ?: "
        r"zwischen \S+ und \d+,\d hours ?, garantiert in mindestens 95\s% der Fälle\.",
        plain(pages[3]),
    ), plain(pages[3])


def test_the_checks_read_german_digits():
    """A German formula that does not add up is found, as in English."""
    with pytest.raises(AssertionError):
        check_formula(in_english_digits("(roh - p) / (1 - 2p) = (0,35 - 0,25) / 0,5 = 0,3"))
    assert check_formula(in_english_digits("x = (0,35 - 0,25) / (1 - 2 x 0,25) = 0,2")) == 1
    with pytest.raises(AssertionError):
        check_german_budgets(
            "alle 2 Fragen mit je ε = 1,10 kosten ε = 2,30 2 Freunde: ε = 2,20 für eine Frage, "
            "4,60 für die Umfrage 5 Freunde: ε = 5,50 für eine Frage, 11,50 für die Umfrage "
            "10 Freunde: ε = 11,00 für eine Frage, 23,00 für die Umfrage"
        )


def test_a_yes_no_lesson_reads_right_in_german(app, client, make_survey, analyst, sign_in_as):
    slug, _ = make_survey()
    submit_and_close(app, slug, ROWS)
    sign_in_as(client, analyst)
    pages = german_pages(client, slug, 1)
    coin = pages[1]
    assert "<title>" in coin and "Lektion, Schritt 1 von 8: Die Münze" in coin
    assert "<mn>0,75</mn>" in coin and "<mn>0,25</mn>" in coin and "<mn>0.25</mn>" not in coin
    assert text_of(coin, "lesson-p") == "p = 0,25" and "(25\xa0%)" in coin
    assert "epsilon = ln(0,75 / 0,25) = ln 3, etwa 1,10" in html.unescape(coin)
    arrived = pages[2]
    assert (
        'Der Server hat <strong id="lesson-n">40</strong> zufällig veränderte Antworten erhalten.'
    ) in arrived
    assert '<th scope="row">Ja</th>' in arrived and '<th scope="row">Nein</th>' in arrived
    sure = html.unescape(plain(pages[4]))
    assert "höchstens h = ± 70,7 Prozentpunkte vom wahren Anteil entfernt" in sure
    assert "P(wirklich Ja | gesendet Ja)" in html.unescape(pages[6])
    trade_off = pages[7]
    # The control reads its numbers with a point, as HTML does; the table says them in German.
    assert 'data-p="0.25"' in trade_off and '<th scope="row">0,25 (diese Umfrage)</th>' in trade_off
    assert "Jede Frage verbraucht Privatsphäre." in pages[8]
    for page in pages.values():
        assert "The " not in plain(page) and "the " not in plain(page)
    download = client.get(f"/analyst/surveys/{slug}/lesson.html", headers=GERMAN).text
    assert download.startswith('<!doctype html>\n<html lang="de">')
    assert "(40 Antworten)" in download


def test_a_number_lesson_reads_right_in_french(app, client, hours, analyst, sign_in_as, close):
    slug, (number_id, yes_no_id) = hours
    submit_numbers(client, slug, number_id, yes_no_id, [2.5, 7.5, 12.25, 30.0] * 10)
    close(slug)
    sign_in_as(client, analyst)
    step_4 = client.get(lesson(slug, 4, question=1), headers=FRENCH).text
    assert '<html lang="fr"' in step_4
    assert re.search(r"<mn>\d+,\d+</mn>", step_4), "a decimal comma in the MathML"
    assert "La borne du cours, Tchebychev avec la variance V" in html.unescape(step_4)
    # The unit as its author typed it (the survey is in English).
    assert re.fullmatch(r"±\d+,\d hours", text_of(step_4, "lesson-notes-bound"))
    step_7 = client.get(lesson(slug, 7, question=1), headers=FRENCH).text
    assert "À p\u00a0=\u00a0" not in step_7 and "À p = 0,25\u00a0: ε = " in html.unescape(step_7)


@pytest.mark.parametrize(
    ("count", "answered"),
    [(1, "1 Person geantwortet hat."), (2, "2 Personen geantwortet haben.")],
)
def test_a_count_takes_its_plural_form_in_german(app, count, answered):
    with app.test_request_context("/"), force_locale("de"):
        question = type("Question", (), {"shows_results": False})()
        assert words.waiting_note(question, 0, count) == (
            f"Noch keine Antworten: Dieser Schritt füllt sich, sobald {answered}"
        )
        assert words.precise_points(count / 100) == f"{count} Prozentpunkt" + (
            "e" if count > 1 else ""
        )
        received = str(words.received(str(count), False, count))
        assert received.endswith(
            f"{count}</strong> zufällig veränderte Antwort{'en' if count > 1 else ''} erhalten."
        )
        assert words.precise_points(0.025, long=False) == "2,5 Punkte"


def test_the_lesson_speaks_the_survey_s_language_whatever_the_browser(
    app, client, make_survey, analyst, sign_in_as
):
    """The lesson is shown to the room, as the projector is: a survey's pinned language beats
    the professor's browser, on the steps and in the download."""
    slug, _ = make_survey({**SAMPLE_DEFINITION, "language": "de"})
    submit_and_close(app, slug, ROWS)
    sign_in_as(client, analyst)
    english_browser = {"Accept-Language": "en-US,en;q=0.9"}
    step = client.get(f"/analyst/surveys/{slug}/lesson?step=1", headers=english_browser).text
    assert '<html lang="de"' in step and "Lektion, Schritt 1 von 8: Die Münze" in step
    download = client.get(f"/analyst/surveys/{slug}/lesson.html", headers=english_browser).text
    assert download.startswith('<!doctype html>\n<html lang="de">')
    unpinned, _ = make_survey()
    submit_and_close(app, unpinned, ROWS)
    english = client.get(f"/analyst/surveys/{unpinned}/lesson?step=1", headers=english_browser)
    assert '<html lang="en"' in english.text


@pytest.mark.parametrize(
    ("language", "said"),
    [("de", "(1.234 Antworten)"), ("fr", "(1\u202f234 réponses)"), ("en", "(1,234 of them)")],
)
def test_the_download_groups_its_count_of_answers(app, language, said):
    """The downloaded lesson's count of answers, its thousands grouped the language's way
    (the ``grouped`` filter), apart from the count that picks its plural form."""
    source = app.jinja_env.loader.get_source(app.jinja_env, "lesson/lesson_download.html")[0]
    sentence = re.search(r"\{% trans count=results\.respondents.*?\{% endtrans %\}", source)[0]
    with app.test_request_context("/"), force_locale(language):
        page = app.jinja_env.from_string(sentence).render(
            results=type("Results", (), {"respondents": 1234})(),
            made_on=dt.date(2026, 11, 27),
        )
    assert said in page, page
