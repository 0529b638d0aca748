"""Every student page in a pseudo-language made here (never shipped): each message of the
catalog wrapped in ⟦ ⟧ and every Latin letter accented, so that a word of English left on a
page, a sentence not in the catalog, shows as plain ASCII letters.

The survey's own texts (title, intro, questions, options, unit) are the professor's, not the
app's: they are written here in Greek, so that nothing the app says can hide among them.
"""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser

import pytest
from babel.lists import format_list
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from survey_app.extensions import db
from survey_app.surveys.services import find_survey
from survey_app.web import languages
from survey_app.web.page_words import PAGE_WORDS
from tests.analyst_helpers import ROWS, submit
from tests.unit.web.test_translations import TRANSLATIONS

#: The pseudo-language's code: a language CLDR knows (its numbers and plural rule), which the
#: app does not ship.
PSEUDO = "eo"
ACCENTED = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "àƀçđéƒĝĥîĵķĺɱñöþʠŕšţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĹṀÑÖÞǪŔŠŢÛṼŴẊÝŽ",
        strict=True,
    )
)
#: What an accent must not touch: a figure's place (%(name)s, %%), a tag, an entity.
KEPT = re.compile(r"%\(\w+\)s|%%|<[^>]*>|&\w+;")


def pseudo(message: str) -> str:
    """ "Join a survey" -> "⟦Ĵöîñ à šûŕṽéý⟧", figures, tags and entities kept."""
    parts, last = [], 0
    for kept in KEPT.finditer(message):
        parts.append("".join(ACCENTED.get(c, c) for c in message[last : kept.start()]))
        parts.append(kept.group())
        last = kept.end()
    parts.append("".join(ACCENTED.get(c, c) for c in message[last:]))
    return "⟦" + "".join(parts) + "⟧"


@pytest.fixture
def pseudo_app(app, tmp_path, monkeypatch):
    """The app with the pseudo-language among its translations, chosen by Accept-Language."""
    with (TRANSLATIONS / "messages.pot").open("rb") as template:
        messages = read_po(template)
    catalog = Catalog(locale=PSEUDO)
    for message in messages:
        if message.id:
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            strings = tuple(pseudo(text) for text in ids)
            catalog.add(
                message.id,
                strings if isinstance(message.id, tuple) else strings[0],
                context=message.context,
            )
    folder = tmp_path / PSEUDO / "LC_MESSAGES"
    folder.mkdir(parents=True)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    (folder / "messages.mo").write_bytes(compiled.getvalue())
    app.extensions["babel"].translation_directories.append(str(tmp_path))
    monkeypatch.setattr(languages, "SHIPPED_LANGUAGES", (*languages.SHIPPED_LANGUAGES, PSEUDO))
    return app


class VisibleText(HTMLParser):
    """The text a student sees (and hears: labels, aria attributes), but the scripts'
    published hashes and file names, and what ``skipped`` (a CSS-like tag.class) holds."""

    VOID = {"input", "meta", "link", "br", "img", "hr", "source"}

    def __init__(self, skipped: tuple[tuple[str, str], ...] = ()):
        super().__init__()
        self.skipped = skipped
        self.open: list[bool] = []  # for each open element: whether its text is skipped
        self.seen: list[str] = []
        self.words: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        skip = (
            tag in ("script", "style", "code")
            or (tag == "a" and (attributes.get("href") or "").startswith("/static/"))
            or any(tag == t and c in classes for t, c in self.skipped)
            or bool(self.open and self.open[-1])
        )
        for name in ("aria-label", "placeholder", "title", "alt"):
            if attributes.get(name) and not skip:
                self.seen.append(attributes[name])
        if attributes.get("id") == "page-words":  # its sentences (besides CLDR's decimal mark)
            catalog = json.loads(attributes["data-words"])
            self.words.extend(catalog[key] for key in PAGE_WORDS)
        elif attributes.get("data-words") and not skip:  # the projector's page, in words
            self.seen.append(attributes["data-words"])
        if tag not in self.VOID:
            self.open.append(skip)

    def handle_endtag(self, tag):
        if tag not in self.VOID and self.open:
            self.open.pop()

    def handle_data(self, data):
        if data.strip() and not (self.open and self.open[-1]):
            self.seen.append(data)


def list_words() -> set[str]:
    """The words the pseudo-language's locale joins a list with ("kaj", its "and"): CLDR's,
    rightly in that language."""
    joined = format_list(["\x00", "\x01", "\x02"], locale=PSEUDO)
    return set(re.findall(r"[A-Za-z]+", joined))


def english_left(
    page: str, skipped: tuple[tuple[str, str], ...] = (), typed: tuple[str, ...] = ()
) -> list[str]:
    """The visible texts, and the page scripts' sentences, that hold an unaccented Latin
    letter: English the catalog did not translate (but what a person ``typed``, quoted back,
    and the locale's own list words)."""
    parser = VisibleText(skipped)
    parser.feed(page)
    assert parser.seen, "the page shows text"
    joining = list_words()
    leaks = []
    for text in parser.seen:
        for quoted in typed:
            text = text.replace(quoted, "")
        words = re.findall(r"[A-Za-z]+", text)
        if any(word not in joining for word in words):
            leaks.append(text.strip())
    for sentence in parser.words:
        assert sentence.startswith("⟦") and sentence.endswith("⟧"), sentence
        leaks += [sentence] if re.search(r"[A-Za-z]", KEPT.sub("", sentence)) else []
    return leaks


#: A survey of every kind of question, its own texts in Greek (the professor's words).
GREEK = {
    "title": "Ακαδημαϊκή ακεραιότητα",
    "intro": "Εισαγωγή.\n\nΔεύτερη παράγραφος.",
    "flip_probability": 0.25,
    "show_results_after_close": True,
    "questions": [
        {"text": "Ερώτηση ναι ή όχι;", "type": "yes_no"},
        {"text": "Πόσο συχνά;", "type": "choice", "options": ["Ποτέ", "Μία φορά", "Συχνά"]},
        {"text": "Πόσες ώρες;", "type": "numeric", "min": 0, "max": 40, "unit": "ώρες"},
    ],
}
SPEAKING = {"Accept-Language": PSEUDO}
#: Randomized answers to GREEK's three questions, enough for results (its number's mechanism
#: sends one bit: "high" or "low").
ANSWERED = [(*row, row[0]) for row in ROWS]


def test_the_pseudo_language_wraps_and_accents_every_message():
    assert pseudo("Join a survey") == "⟦Ĵöîñ à šûŕṽéý⟧"
    said = pseudo("<strong>%(odds)s times</strong>&nbsp;%%")
    assert said == "⟦<strong>%(odds)s ţîɱéš</strong>&nbsp;%%⟧"


def test_the_join_pages_say_nothing_in_english(pseudo_app, make_survey):
    client = pseudo_app.test_client()
    pages = [
        client.get("/", headers=SPEAKING),
        client.get("/join?code=", headers=SPEAKING),
        client.get("/join?code=ZZZZZZ", headers=SPEAKING),
        client.get("/join?code=K7W3P-XM4RT", headers=SPEAKING),
    ]
    assert [page.status_code for page in pages] == [200, 404, 404, 404]
    for page in pages:
        assert '<html lang="eo" dir="ltr">' in page.text
        assert english_left(page.text, typed=("ZZZZZZ", "K7W3P-XM4RT")) == []
    # The error said is the catalog's, with the code typed kept as typed.
    assert "ZZZZZZ" in pages[2].text and "⟦Ñö šûŕṽéý ĥàš ţĥé çöđé" in pages[2].text


@pytest.mark.parametrize(
    "kinds",
    [
        ("yes_no", "choice", "numeric"),
        ("choice",),
        ("numeric",),
    ],
)
def test_the_survey_page_says_nothing_in_english(pseudo_app, make_survey, kinds):
    """Every kind's fieldset, the privacy notes each kind calls for, the sent and
    already-answered states, the one-time code's field, and the scripts' sentences."""
    definition = {**GREEK, "questions": [q for q in GREEK["questions"] if q["type"] in kinds]}
    slug, _ = make_survey(definition, status="draft")
    with pseudo_app.app_context():
        survey = find_survey(slug)
        survey.requires_codes = True
        db.session.commit()
        from survey_app.surveys.services import open_survey

        open_survey(survey)
        db.session.commit()
    page = pseudo_app.test_client().get(f"/s/{slug}", headers=SPEAKING)
    assert page.status_code == 200
    assert english_left(page.text) == []
    for shown in ('id="thank-you"', 'id="already-answered"', 'id="one-time-code"'):
        assert shown in page.text
    assert 'id="page-words"' in page.text


def test_the_closed_and_error_pages_say_nothing_in_english(pseudo_app, make_survey, close):
    client = pseudo_app.test_client()
    showing, _ = make_survey(GREEK)
    hidden, _ = make_survey({**GREEK, "show_results_after_close": False})
    early = client.get(f"/s/{showing}/results", headers=SPEAKING)
    close(hidden)
    pages = {
        "early results (403)": early,
        "closed (410)": client.get(f"/s/{hidden}", headers=SPEAKING),
        "no such survey (404)": client.get("/s/unknown", headers=SPEAKING),
        "method (405)": client.post("/join", headers=SPEAKING),
    }
    assert [page.status_code for page in pages.values()] == [403, 410, 404, 405]
    for name, page in pages.items():
        assert english_left(page.text) == [], name


def test_the_class_results_page_says_its_own_words_in_the_catalogs(pseudo_app, make_survey, close):
    """The page's own sentences, each question's (the dashboard's: results.panel) whether it
    waits or shows results, and how each answer was protected."""
    slug, _ = make_survey(GREEK)
    submit(pseudo_app, slug, ANSWERED)
    close(slug)
    unanswered, _ = make_survey(GREEK)  # each question waits: "No answers yet."
    close(unanswered)
    waiting = pseudo_app.test_client().get(f"/s/{unanswered}", headers=SPEAKING)
    assert english_left(waiting.text) == []
    page = pseudo_app.test_client().get(f"/s/{slug}", headers=SPEAKING)
    assert page.status_code == 410
    assert english_left(page.text) == []
    assert page.text.count('<section class="result panel"') == 3
    assert "⟦Àƀöûţ <strong>" in page.text and "⟦Öñ àṽéŕàĝé àƀöûţ <strong>" in page.text
    assert "⟦Ýöûŕ þĥöñé ŕàñđöɱîžéđ ýöûŕ àñšŵéŕ ƀéƒöŕé šéñđîñĝ îţ" in page.text


def test_the_class_results_say_each_question_in_german(app, client, make_survey, close):
    """Each question's sentences in German: the share and its range whole, "Ja" for the
    yes/no question's answer, the average with its unit, what the shares add up to, numbers
    written the German way."""
    slug, _ = make_survey({**GREEK, "language": "de"})
    submit(app, slug, ANSWERED)
    close(slug)
    page = client.get(f"/s/{slug}/results").text
    assert " würden wahrheitsgemäß „Ja“ antworten: " in page
    assert "garantiert in mindestens 95\xa0% der Fälle." in page
    assert "Im Durchschnitt etwa <strong>" in page
    assert "Die Anteile ergeben zusammen " in page
    assert "About" not in page and "guaranteed" not in page
