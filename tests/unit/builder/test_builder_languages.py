"""The builder and the survey list read right in German and French: key sentences, figures with
a decimal comma and thousands grouped the language's way, and plural forms at 1 and at 2."""

from __future__ import annotations

import html

import pytest

from tests.analyst_helpers import csrf_token, submit
from tests.unit.respondents.test_pseudo_locale import ANSWERED, GREEK

GERMAN = {"Accept-Language": "de"}
FRENCH = {"Accept-Language": "fr"}


def form(token: str, questions: list[dict], **fields) -> dict:
    """The builder's form with ``questions`` (each a dict of its fields, the rest empty)."""
    form = {"csrf_token": token, "title": "Lernzeit", "intro": "", "flip_probability": "0,25"}
    form |= {"action": "save", **fields}
    for name in ("text", "type", "options", "min", "max", "unit", "mechanism"):
        form[f"question_{name}"] = [
            q.get(name, "yes_no" if name == "type" else "") for q in questions
        ]
    return form


@pytest.fixture
def german(client, analyst, sign_in_as):
    """A signed-in professor's client whose browser asks for German, and a CSRF token."""
    sign_in_as(client, analyst)
    return client, csrf_token(client.get("/analyst/surveys/new", headers=GERMAN).text)


def test_a_new_survey_reads_right_in_german(german):
    client, _ = german
    page = html.unescape(client.get("/analyst/surveys/new", headers=GERMAN).text)
    assert '<html lang="de" dir="ltr">' in page
    assert "<h1>Eine Umfrage erstellen</h1>" in page
    assert "Eine Ja/Nein-Frage hinzufügen</button>" in page
    assert "Eine Zahlenfrage hinzufügen</button>" in page
    # Warner's q takes twice the flip probabilities the builder takes, with a decimal comma.
    assert '<span class="muted">(0,02 bis 0,98)</span>' in page
    assert ">Der Browser jeder Person entscheidet</option>" in page
    assert '"use_flip_probability": "%(value)s verwenden"' in page.replace("&#34;", '"')


def test_refusals_read_right_in_german_with_a_plural_at_1_and_at_2(german):
    client, token = german
    hours = {"text": "Stunden?", "type": "numeric", "min": "0", "max": "0,0000001"}
    one = client.post("/analyst/surveys/new", data=form(token, [hours]), headers=GERMAN)
    assert one.status_code == 400
    page = html.unescape(one.text)
    assert "Noch nicht gespeichert: 1 Sache zu ändern</h2>" in page
    assert (
        "Die größte Antwort von Frage 1 muss mindestens 0,000001 über ihrer kleinsten liegen"
        in page
    )
    huge = {**hours, "min": "-2000000000000", "max": "10"}
    two = client.post("/analyst/surveys/new", data=form(token, [huge], title=""), headers=GERMAN)
    page = html.unescape(two.text)
    assert "Noch nicht gespeichert: 2 Dinge zu ändern</h2>" in page
    assert "Der Titel ist leer: Füllen Sie das Feld aus" in page
    assert (
        "Die kleinste Antwort von Frage 1 muss zwischen -1.000.000.000.000 und "
        "1.000.000.000.000 liegen"
    ) in page
    options = {"text": "Wie oft?", "type": "choice", "options": "Nie"}
    few = client.post("/analyst/surveys/new", data=form(token, [options]), headers=GERMAN)
    assert "Frage 1 braucht mindestens 2 Optionen" in html.unescape(few.text)


def test_a_much_wider_range_is_asked_about_in_german(german):
    client, token = german
    hours = {"text": "Stunden?", "type": "numeric", "min": "0", "max": "1012,5"}
    fields = {**form(token, [hours]), "question_min_before": ["0"], "question_max_before": ["10"]}
    asked = client.post("/analyst/surveys/new", data=fields, headers=GERMAN)
    assert asked.status_code == 200
    page = html.unescape(asked.text)
    assert "Noch nicht gespeichert: ein viel breiterer Bereich als zuvor</h2>" in page
    assert (
        "Der Bereich von Frage 1 ist jetzt 0 bis 1012,5, hundertmal breiter als zuvor 0 bis 10. "
        "Trotzdem speichern?"
    ) in page
    assert ">Trotzdem speichern</button>" in page


def test_the_survey_list_and_what_saving_says_read_right_in_german(app, german, make_survey):
    client, token = german
    choice = {"text": "Wie viele?", "type": "choice", "options": "1-2\n3-4"}
    saved = client.post(
        "/analyst/surveys/new", data=form(token, [choice]), headers=GERMAN, follow_redirects=True
    )
    # The next page (the dashboard) says in German what was saved.
    page = html.unescape(saved.text)
    assert "Entwurf gespeichert. Sehen Sie sich die Vorschau an" in page
    assert "Excel zeigt Optionen wie „1-2“, „3-4“ als Datum an" in page
    slug, _ = make_survey(GREEK, status="open")
    submit(app, slug, ANSWERED)
    listed = html.unescape(client.get("/analyst/", headers=GERMAN).text)
    assert "<h1>Ihre Umfragen</h1>" in listed
    assert '<span class="badge open">geöffnet</span>' in listed
    assert '<span class="badge draft">Entwurf</span>' in listed
    assert f'<td class="num">{len(ANSWERED)}</td>' in listed


def test_french_says_its_own_plural_and_decimal_comma(client, analyst, sign_in_as):
    sign_in_as(client, analyst)
    token = csrf_token(client.get("/analyst/surveys/new", headers=FRENCH).text)
    new = html.unescape(client.get("/analyst/surveys/new", headers=FRENCH).text)
    assert '<span class="muted">(de 0,02 à 0,98)</span>' in new
    empty = {"text": "", "type": "yes_no"}
    refused = client.post("/analyst/surveys/new", data=form(token, [empty]), headers=FRENCH)
    page = html.unescape(refused.text)
    # French says 1 in the singular (and 0 too), 2 in the plural.
    assert "Pas encore enregistré\u00a0: 1 point à changer</h2>" in page
    assert "La question 1 est vide\u00a0: saisissez la question" in page
    both = client.post("/analyst/surveys/new", data=form(token, [empty], title=""), headers=FRENCH)
    assert "Pas encore enregistré\u00a0: 2 points à changer</h2>" in html.unescape(both.text)


def readout_in(client, token: str, questions: list[dict], headers: dict) -> dict:
    """The builder's live readout for ``questions``, a class of 40 and a margin of 10 points."""
    fields = form(token, questions, class_size="40", margin="10")
    return client.post("/analyst/privacy-readout", data=fields, headers=headers).get_json()


def test_the_readout_reads_right_in_german_with_a_plural_at_1_and_at_2(german):
    client, token = german
    page = html.unescape(client.get("/analyst/surveys/new", headers=GERMAN).text)
    assert "(wie oft eine Ja/Nein-Antwort umgekehrt wird: eine Zahl von 0,01 bis 0,49)" in page
    assert "Die Fehlerspannen gelten mit 95\u00a0% Sicherheit" in page
    one = readout_in(client, token, [{"text": "Ja?"}], GERMAN)
    assert one["summary"].startswith(
        "Jede Antwort wird in 25\u00a0% der Fälle umgekehrt (ε = 1,10 je Frage; 1,10 für 1 Frage)."
    )
    assert one["planning"]["text"] == (
        "Mit 40 Studierenden: eine Ja/Nein-Frage auf etwa ±27 Prozentpunkte genau bekannt. "
        "Tschebyscheffs Schranke mit der exakten Varianz würde ±62 Punkte sagen."
    )
    assert "verwenden Sie eine Umkehrwahrscheinlichkeit von 0,08" in one["suggestion"]["text"]
    questions = [
        {"text": "Ja?"},
        {"text": "Wie oft?", "type": "choice", "options": "Nie\nEinmal\nOft"},
        {"text": "Stunden?", "type": "numeric", "min": "0", "max": "40", "unit": "Stunden"},
        {"text": "Mehr?", "type": "numeric", "min": "0"},
    ]
    four = readout_in(client, token, questions, GERMAN)
    assert "1,10 je Frage; 4,40 für 4 Fragen" in four["summary"]
    said = four["planning"]["text"]
    assert "„Wie oft?“ (3 Optionen) auf ±32 Punkte genau" in said
    assert "würde ±62 und ±87 Punkte sagen" in said
    # The average's margin with a decimal comma, the question quoted the German way.
    assert "Mit 40 Studierenden: der Mittelwert von „Stunden?“ auf ±13,1 Stunden genau" in said
    assert said.endswith(
        "(1 Zahlenfrage ohne brauchbare kleinste und größte Antwort vorerst nicht berücksichtigt.)"
    )
    refused = client.get("/analyst/privacy-readout?flip_probability=0,6", headers=GERMAN).get_json()
    assert refused["error"] == "Die Umkehrwahrscheinlichkeit muss eine Zahl von 0,01 bis 0,49 sein"
    size = client.get(
        "/analyst/privacy-readout?flip_probability=0,3&class_size=abc", headers=GERMAN
    ).get_json()
    assert size["planning"]["error"] == (
        "Die Klassengröße muss eine ganze Zahl von Studierenden sein, etwa 40."
    )


def test_the_readout_says_french_plurals_and_quotes(client, analyst, sign_in_as):
    sign_in_as(client, analyst)
    token = csrf_token(client.get("/analyst/surveys/new", headers=FRENCH).text)
    hours = {"text": "Heures ?", "type": "numeric", "min": "0", "max": "40", "unit": "heures"}
    said = readout_in(client, token, [hours], FRENCH)
    assert said["summary"].startswith(
        "Chaque réponse est inversée 25\u00a0% du temps (ε = 1,10 par question ; 1,10 pour 1 "
        "question)."
    )
    # French quotes, their spaces unbreakable as the language's typography wants them.
    assert said["planning"]["text"] == (
        "Avec 40 étudiants : la moyenne de «\u00a0Heures ?\u00a0» à ±13,1 heures près "
        "(intervalles garantis)."
    )
