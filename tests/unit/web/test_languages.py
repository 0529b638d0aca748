"""Which language a page speaks (survey_app.web.languages): a survey's pinned language over the
student's browser, the professor's saved language over theirs, <html lang dir> after it; and
numbers written the language's way by the shared words (survey_app.words)."""

from __future__ import annotations

import html
import re

import pytest
from babel.numbers import format_decimal, format_percent
from flask_babel import force_locale

from survey_app import words
from survey_app.extensions import db
from survey_app.storage.models import Analyst, Survey
from survey_app.surveys.definition_checks import SurveyDefinitionError
from survey_app.surveys.services import SAMPLE_SURVEY, find_survey, parse_definition
from survey_app.web import languages
from survey_app.web.languages import page_language
from tests.analyst_helpers import csrf_token

HTML_TAG = re.compile(r'<html lang="([^"]+)" dir="([^"]+)">')


def html_tag(page: str) -> tuple[str, str]:
    return HTML_TAG.search(page).groups()


@pytest.mark.parametrize(
    ("accepted", "lang", "heading"),
    [
        (None, "en", "Join a survey"),
        ("de-DE,de;q=0.9,en;q=0.5", "de", "An einer Umfrage teilnehmen"),
        ("fr-CH, fr;q=0.9", "fr", "Rejoindre un sondage"),
        # A language the app does not speak: the best one it does, else English.
        ("it, fr;q=0.4", "fr", "Rejoindre un sondage"),
        ("ja", "en", "Join a survey"),
        # By preference, each tag by its language: not the first exact match further down.
        ("de-DE,en-US;q=0.9,en;q=0.8", "de", "An einer Umfrage teilnehmen"),
        ("de-CH,en;q=0.9", "de", "An einer Umfrage teilnehmen"),
        ("fr-CA,en;q=0.5", "fr", "Rejoindre un sondage"),
        ("fr;q=0, de;q=0.5", "de", "An einer Umfrage teilnehmen"),
    ],
)
def test_the_browser_chooses_among_the_shipped_languages(client, accepted, lang, heading):
    headers = {"Accept-Language": accepted} if accepted else {}
    response = client.get("/", headers=headers)
    page = response.text
    assert html_tag(page) == (lang, "ltr")
    assert f"<h1>{heading}</h1>" in page
    assert "Accept-Language" in response.vary  # a cache keeps a copy per language asked for


def test_a_surveys_language_beats_the_students_browser(client, make_survey, close):
    slug, _ = make_survey({**SAMPLE_SURVEY, "language": "fr"})
    pinned = client.get(f"/s/{slug}", headers={"Accept-Language": "de"})
    page = pinned.text
    assert html_tag(page) == ("fr", "ltr") and "Accept-Language" not in pinned.vary
    assert "Envoyer mes réponses brouillées" in page and "Antworten" not in page
    # Yes and No are the app's words, in the page's language; the options are the author's.
    assert re.search(r'autocomplete="off"> Oui\s', page) and "> Never" in page
    # Its closed page too, and a survey without a language follows the browser.
    close(slug)
    closed = client.get(f"/s/{slug}", headers={"Accept-Language": "de"})
    assert closed.status_code == 410 and html_tag(closed.text) == ("fr", "ltr")
    assert "Ce sondage est clos" in closed.text
    unpinned, _ = make_survey()
    german = client.get(f"/s/{unpinned}", headers={"Accept-Language": "de"}).text
    assert html_tag(german) == ("de", "ltr") and "Meine zufällig veränderten Antworten" in german


def test_the_api_speaks_english_whatever_is_asked(app):
    """Its documents and CSV files are read by programs: the same words in every language."""
    with app.test_request_context(
        "/api/v1/surveys/x/results.csv", headers={"Accept-Language": "fr"}
    ):
        assert words.percent(0.425) == "42.5%"
    with app.test_request_context("/s/x", headers={"Accept-Language": "fr"}):
        assert words.percent(0.425) == "42,5\u00a0%"


def test_a_definitions_language_is_kept_and_a_bad_one_refused_in_words(app, make_survey):
    slug, _ = make_survey({**SAMPLE_SURVEY, "language": "de"})
    with app.app_context():
        assert find_survey(slug).language == "de"
    assert parse_definition(SAMPLE_SURVEY).language is None
    for bad in ("xx", "DE", "de-DE", 7, ""):
        with pytest.raises(SurveyDefinitionError) as refused:
            parse_definition({**SAMPLE_SURVEY, "language": bad})
        assert str(refused.value) == (
            f"language: must be 'en', 'de' or 'fr' (the languages the app speaks), got {bad!r}"
        )


def builder_form(client, **fields) -> dict:
    form = {
        "title": "Sprachen",
        "flip_probability": "0.25",
        "question_text": ["Schon einmal abgeschrieben?"],
        "question_type": ["yes_no"],
        "question_options": [""],
        **fields,
    }
    form["csrf_token"] = csrf_token(client.get("/analyst/surveys/new").text)
    return form


def test_the_builder_pins_the_students_language(app, client, analyst, sign_in_as):
    sign_in_as(client, analyst)
    assert 'id="language"' in client.get("/analyst/surveys/new").text
    saved = client.post("/analyst/surveys/new", data=builder_form(client, language="de"))
    assert saved.status_code == 302
    with app.app_context():
        survey = db.session.execute(db.select(Survey).filter_by(title="Sprachen")).scalar_one()
        assert survey.language == "de"
        slug = survey.slug
    editor = client.get(f"/analyst/surveys/{slug}/edit").text
    assert re.search(r'<option value="de" lang="de" selected>Deutsch</option>', editor)
    # A language the select never offers is refused beside the field, and nothing is saved.
    refused = client.post("/analyst/surveys/new", data=builder_form(client, language="xx"))
    assert refused.status_code == 400
    assert "The language students see is not one the builder offers" in refused.text
    with app.app_context():
        assert db.session.execute(db.select(db.func.count(Survey.id))).scalar_one() == 1


def test_a_professors_translated_pages_follow_the_language_saved_on_the_account(
    app, client, analyst, sign_in_as
):
    sign_in_as(client, analyst)
    missing = "/analyst/surveys/no-such-survey"  # an error page: translated
    assert html_tag(client.get(missing, headers={"Accept-Language": "fr"}).text)[0] == "fr"
    token = csrf_token(client.get("/analyst/account").text)
    saved = client.post("/analyst/account/language", data={"language": "de", "csrf_token": token})
    assert saved.status_code == 302
    with app.app_context():
        assert db.session.execute(db.select(Analyst.language)).scalar_one() == "de"
    # The account's language over the browser's, on every translated page.
    page = client.get(missing, headers={"Accept-Language": "fr"})
    assert page.status_code == 404
    assert html_tag(page.text) == ("de", "ltr")
    account = client.get("/analyst/account", headers={"Accept-Language": "fr"}).text
    assert html_tag(account) == ("de", "ltr") and "<h1>Ihr Konto</h1>" in account
    refused = client.post(
        "/analyst/account/language", data={"language": "tlh", "csrf_token": token}
    )
    assert refused.status_code == 400
    said = html.unescape(refused.text)
    assert "Nicht gespeichert: 'tlh' ist keine Sprache dieser Anwendung. Wählen Sie" in said
    back = client.post("/analyst/account/language", data={"language": "", "csrf_token": token})
    assert back.status_code == 302
    page = client.get(missing, headers={"Accept-Language": "fr"}).text
    assert html_tag(page) == ("fr", "ltr")


def test_an_untranslated_page_speaks_english_words_and_numbers_whatever_is_asked(
    app, client, analyst, sign_in_as, make_survey, monkeypatch
):
    """A German account on a page whose area is not translated gets lang="en" and English
    numbers, not English sentences under lang="de" with German digits."""
    slug, _ = make_survey()
    with app.app_context():
        db.session.execute(db.update(Analyst).values(language="de"))
        db.session.commit()
    sign_in_as(client, analyst)
    monkeypatch.setattr(languages, "TRANSLATED_AREAS", frozenset({"respondent", "errors"}))
    dashboard = client.get(f"/analyst/surveys/{slug}", headers={"Accept-Language": "de"})
    assert dashboard.status_code == 200
    assert html_tag(dashboard.text) == ("en", "ltr")
    assert "95%" in dashboard.text and "95 %" not in dashboard.text
    # The same page, its area counted as translated, speaks the account's language.
    monkeypatch.setattr(languages, "TRANSLATED_AREAS", frozenset({"dashboard"}))
    german = client.get(f"/analyst/surveys/{slug}", headers={"Accept-Language": "en"}).text
    assert html_tag(german) == ("de", "ltr")
    assert "95\xa0%" in german or "95 %" in german


def test_the_account_page_says_which_pages_follow_the_chosen_language(
    client, analyst, sign_in_as, monkeypatch
):
    sign_in_as(client, analyst)
    # Every area is translated: the account page has nothing to say of it.
    assert languages.TRANSLATED_AREAS == frozenset(languages.AREA_NAMES)
    assert 'id="language-reach"' not in client.get("/analyst/account").text
    # The sentence for a given set of translated areas, were some not.
    followed = frozenset({"respondent", "errors", "sign_in", "projector"})
    monkeypatch.setattr(languages, "TRANSLATED_AREAS", followed)
    page = html.unescape(client.get("/analyst/account").text)
    assert 'aria-describedby="language-reach"' in page
    assert (
        "It is followed by the students' pages, the error pages, the sign-in and account pages, "
        "and the projector. Still in English until they are translated: the survey lists, the "
        "dashboard, the code slips, the builder, the lesson, and the page that adds a survey "
        "to a course."
    ) in page


@pytest.mark.parametrize(("locale", "direction"), [("en", "ltr"), ("de", "ltr"), ("he", "rtl")])
def test_the_html_element_says_the_languages_direction(app, locale, direction):
    """Right-to-left languages get dir="rtl" (Babel's text direction)."""
    with app.test_request_context("/"), force_locale(locale):
        assert page_language() == {"lang": locale, "dir": direction}


# --------------------------------------------------------------------------- numbers


def test_english_numbers_are_written_as_always(app):
    with app.test_request_context("/"):
        assert [
            words.percent(0.425),
            words.percent_low(0.4865),
            words.percent_high(0.4865),
            words.format_epsilon(1.3249),
            words.format_count(1234),
            words.points(0.2781),
            words.points(0.01),
            words.points(0.015, long=True),
            words.format_number(2.5),
            words.percent_figure(0.125),
        ] == [
            "42.5%",
            "48.6%",
            "48.7%",
            "1.33",
            "1,234",
            "±28 points",
            "±1 point",
            "±1.5 percentage points",
            "2.5",
            "12.5",
        ]


@pytest.mark.parametrize("language", ["de", "fr"])
def test_german_and_french_numbers_are_written_their_way(app, language):
    """As Babel writes them for the language: "42,5 %" with a no-break space, grouped
    thousands ("1.234" in German, "1 234" with a narrow no-break space in French)."""
    headers = {"Accept-Language": language}
    with app.test_request_context("/", headers=headers):
        assert words.percent(0.425) == format_percent(0.425, "#,##0.#\u00a0%", locale=language)
        assert words.percent(0.425) == "42,5\u00a0%"
        assert words.percent_low(0.4865) == "48,6\u00a0%"
        assert words.percent_high(0.4865) == "48,7\u00a0%"
        assert words.percent(0.4) == "40\u00a0%"
        assert words.format_epsilon(1.3249) == "1,33"
        assert words.format_epsilon(1.3) == "1,30"
        assert words.format_count(1234) == format_decimal(1234, locale=language)
        assert words.format_number(2.5) == "2,5" and words.format_number(-0.0) == "0"
        assert words.format_number(1234.5) == "1234,5"  # no grouping: fields read it back
        assert words.percent_figure(0.125) == "12,5"
    assert format_decimal(1234, locale="de") == "1.234"
    assert format_decimal(1234, locale="fr") == "1\u202f234"


@pytest.mark.parametrize(
    ("language", "margins", "said"),
    [
        ("de", (0.01, 0.28, 0.015), ["±1 Punkt", "±28 Punkte", "±1,5 Punkte"]),
        # French: 1,5 is singular, as 0 and 1 (CLDR: i = 0 or 1).
        ("fr", (0.01, 0.28, 0.015), ["±1 point", "±28 points", "±1,5 point"]),
    ],
)
def test_margins_in_points_take_the_languages_plural(app, language, margins, said):
    with app.test_request_context("/", headers={"Accept-Language": language}):
        assert [words.points(margin) for margin in margins] == said


def test_the_preview_shows_the_survey_in_its_students_language(client, make_survey, signed_in):
    slug, _ = make_survey({**SAMPLE_SURVEY, "language": "de"}, status="draft")
    page = client.get(f"/analyst/surveys/{slug}/preview").text
    assert html_tag(page) == ("de", "ltr")
    assert "Antworten" in page


def test_every_area_of_pages_is_named_for_the_account_page(app):
    """The account page says which pages follow a language and which are still English: every
    blueprint's pages (but the API's, always English) and the error pages are named there."""
    from survey_app.web import languages

    named = set(languages.AREA_NAMES)
    assert named == (set(app.blueprints) - {"api"}) | {languages.ERROR_PAGES}
    assert languages.TRANSLATED_AREAS <= named
