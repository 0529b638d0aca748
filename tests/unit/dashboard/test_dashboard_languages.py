"""The dashboard speaks the professor's language (the account's, else the browser's): its key
sentences in German and French, numbers with a decimal comma and the language's grouping, and
plural forms at one and at two."""

from __future__ import annotations

import html
import re

from tests.analyst_helpers import csrf_token, submit
from tests.unit.respondents.test_pseudo_locale import ANSWERED, GREEK

GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}
FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9"}


def page_of(client, slug: str, headers: dict, **query) -> str:
    response = client.get(f"/analyst/surveys/{slug}", query_string=query, headers=headers)
    assert response.status_code == 200
    # Runs of ASCII white space only: a no-break space is part of a number's writing.
    return re.sub(r"[ \t\r\n]+", " ", html.unescape(response.text))


def test_the_dashboard_reads_right_in_german(app, client, analyst, sign_in_as, make_survey, close):
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK)
    submit(app, slug, ANSWERED)
    close(slug)
    page = page_of(client, slug, GERMAN)
    assert '<html lang="de"' in page
    assert "Diese Umfrage ist seit " in page and " <strong>geschlossen</strong>: " in page
    assert '<strong id="respondent-count">12</strong> Personen haben bisher geantwortet.' in page
    assert "Wie diese Bereiche berechnet wurden" in page
    # A share and its range with a decimal comma and the German percent sign.
    share = page.split("würden wahrheitsgemäß „Ja“ antworten", 1)[0].rsplit("<strong>", 1)[1]
    assert share.strip().endswith("\u00a0%</strong>") and "," in share
    # The plan's figures grouped the German way: "3.001", never "3,001".
    assert "Tschebyscheffs Schranke mit der exakten Varianz würde 3.001 verlangen." in page
    assert "30\u00a0%, 50\u00a0% oder 70\u00a0%" in page
    for english in ("How these ranges", "people have answered", "Planning: how many"):
        assert english not in page


def test_counts_take_their_plural_form_at_one_and_at_two(
    app, client, analyst, sign_in_as, make_survey
):
    sign_in_as(client, analyst)
    one, _ = make_survey(GREEK)
    two, _ = make_survey(GREEK)
    submit(app, one, ANSWERED[:1])
    submit(app, two, ANSWERED[:2])
    german = [page_of(client, slug, GERMAN) for slug in (one, two)]
    assert "1</strong> Person hat bisher geantwortet." in german[0]
    assert "2</strong> Personen haben bisher geantwortet." in german[1]
    assert "Mit der 1 Person bisher ist jeder Anteil" in german[0]
    assert "Mit den 2 Personen bisher ist jeder Anteil" in german[1]
    french = [page_of(client, slug, FRENCH) for slug in (one, two)]
    assert "1</strong> personne a répondu jusqu’ici." in french[0]
    assert "2</strong> personnes ont répondu jusqu’ici." in french[1]


def test_french_writes_its_numbers_its_own_way(app, client, analyst, sign_in_as, make_survey):
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK)
    submit(app, slug, ANSWERED)
    page = page_of(client, slug, FRENCH, margin="2,5")
    assert '<html lang="fr"' in page
    # A margin typed "2,5" read as 2.5 points and said back with a decimal comma.
    assert "<strong>±2,5 points de pourcentage</strong>" in page
    # Thousands grouped with a narrow no-break space, as CLDR's French does.
    assert "\u202f" in page.split("Pour connaître chaque part", 1)[1].split("</p>", 1)[0]
    assert "Ce sondage est <strong>ouvert</strong>." in page


def test_state_refusals_and_a_malformed_pool_read_right_in_german(
    app, client, analyst, sign_in_as, make_survey
):
    """What the survey's status refuses (archiving an open survey, opening an archived one) is
    flashed in German, and so is why ``?pool=`` cannot be read; the API keeps its English."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK)
    token = csrf_token(client.get("/analyst/surveys/new", headers=GERMAN).text)
    archive = f"/analyst/surveys/{slug}/archive"
    client.post(archive, data={"csrf_token": token}, headers=GERMAN)
    page = page_of(client, slug, GERMAN)
    assert (
        "Diese Umfrage nimmt noch Antworten an: Schließen Sie sie zuerst und archivieren Sie "
        "sie dann."
    ) in page
    assert "still taking answers" not in page
    for refused, said in (
        (",", "pool muss Ihre Umfragen nennen, durch Kommas getrennt: ?pool=slug1,slug2"),
        (f"{slug},x,x", "pool nennt eine Umfrage mehr als einmal"),
    ):
        page = page_of(client, slug, GERMAN, pool=refused)
        assert f"Diese Umfragen lassen sich nicht kombinieren: {said}." in page
    english = page_of(client, slug, {"Accept-Language": "en"}, pool=",")
    assert "pool must name your surveys, separated by commas: ?pool=slug1,slug2" in english


def test_the_exports_link_the_results_with_the_columns_names_in_each_language(
    app, client, analyst, sign_in_as, make_survey, close
):
    """A professor reading German finds results.csv with a German header row under the keys,
    and one in French: each link named in its language, its address asking for ?labels=."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK)
    submit(app, slug, ANSWERED)
    close(slug)
    raw = client.get(f"/analyst/surveys/{slug}", headers=GERMAN).text
    item = raw.split('id="results-labelled">', 1)[1].split("</li>", 1)[0]
    links = dict(re.findall(r'<a href="([^"]+)" hreflang="(\w+)"', item))
    assert sorted(links.values()) == ["de", "fr"]
    assert ">Deutsch</a> und <a" in item and "pd.read_csv(path, skiprows=[1])" in item
    assert "zweiten Kopfzeile" in html.unescape(item)
    german = next(href for href, code in links.items() if code == "de")
    rows = client.get(html.unescape(german)).get_data(as_text=True).lstrip("\ufeff").splitlines()
    assert rows[0].startswith("question_number,question,")  # the keys, as in every language
    assert rows[1].startswith("Nummer der Frage,") and ",Unverzerrte Schätzung," in rows[1]
    english = page_of(client, slug, {"Accept-Language": "en"})
    assert "The same with the columns’ names in a second header row" in english


def test_a_pooling_refusal_reads_right_in_german_and_french(
    app, client, analyst, sign_in_as, make_survey
):
    """Surveys that randomize with another flip probability, or ask other questions, are not
    pooled: the dashboard says why in the page's language, the figures its way."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK)
    other_p, _ = make_survey({**GREEK, "title": "Zweite Runde", "flip_probability": 0.3})
    other_questions, _ = make_survey(
        {**GREEK, "title": "Dritte Runde", "questions": GREEK["questions"][:1]}
    )
    page = page_of(client, slug, GERMAN, pool=other_p)
    assert (
        "Diese Umfragen lassen sich nicht kombinieren: „Zweite Runde“ verändert die Antworten "
        "mit einer anderen Umkehrwahrscheinlichkeit (0,3 statt 0,25)."
    ) in page
    assert "another flip probability" not in page
    page = page_of(client, slug, FRENCH, pool=other_questions)
    assert "«\u00a0Dritte Runde\u00a0» ne pose pas les mêmes questions et options" in page
    assert "does not ask the same" not in page
