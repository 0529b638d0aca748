"""The projector speaks the class's language: the survey's pinned one (the room is the class),
else the professor's, else the browser's; its words, plural forms and numbers that language's."""

from __future__ import annotations

from tests.analyst_helpers import submit
from tests.unit.respondents.test_pseudo_locale import ANSWERED, GREEK

GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}


def present(slug: str) -> str:
    return f"/analyst/surveys/{slug}/present"


def test_the_projector_follows_the_browser_without_a_pinned_language(
    app, client, analyst, sign_in_as, make_survey
):
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK)
    page = client.get(present(slug), headers=GERMAN).text
    assert '<html lang="de"' in page
    assert "0 Personen haben geantwortet" in page
    assert "Geöffnet: Antworten Sie auf Ihrem Handy." in page
    assert "Jede 15 Sekunde" not in page and "Alle 15 Sekunden umblättern" in page
    english = client.get(present(slug)).text
    assert '<html lang="en"' in english and "0 people have answered" in english


def test_the_survey_s_language_beats_the_browser_s(app, client, analyst, sign_in_as, make_survey):
    sign_in_as(client, analyst)
    slug, _ = make_survey({**GREEK, "language": "fr"})
    submit(app, slug, ANSWERED)
    page = client.get(present(slug), headers=GERMAN).text
    state = client.get(f"{present(slug)}/state", headers=GERMAN).get_json()
    assert '<html lang="fr"' in page
    assert state["respondents_words"] == "12 personnes ont répondu"
    # A share and its range as French writes them: a decimal comma, a no-break space before %.
    html = state["questions"][1]["html"]
    assert "«\u00a0Ποτέ\u00a0»\u00a0: environ <strong>" in html
    assert "\u00a0%</strong>" in html and "," in html.split("environ", 1)[1]
    assert state["pages"][0]["words"] in ("Questions 1 à 3 sur 3", "Question 1 sur 3")
