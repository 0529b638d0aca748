"""The shipped catalogs (survey_app/translations/): each complete, checked and compiled as its
source says, holding every message the app's Python and templates ask for; plural forms as
CLDR has them (German, French, and Polish's more forms in a catalog made here)."""

from __future__ import annotations

import gettext
import io
import re
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from survey_app.web.languages import DEFAULT_LANGUAGE, SHIPPED_LANGUAGES

REPOSITORY = Path(__file__).resolve().parents[3]
TRANSLATIONS = REPOSITORY / "survey_app" / "translations"
#: The languages with a catalog: every shipped one but English, the messages' own.
TRANSLATED = [code for code in SHIPPED_LANGUAGES if code != DEFAULT_LANGUAGE]
#: The counts whose plural forms are checked: CLDR's rules differ for 0, 1, teens, 21...
COUNTS = (0, 1, 2, 3, 5, 11, 21, 100)


def catalog_of(language: str) -> Catalog:
    with (TRANSLATIONS / language / "LC_MESSAGES" / "messages.po").open("rb") as source:
        return read_po(source, locale=language)


def test_every_shipped_language_but_english_has_a_catalog_and_no_other_does():
    assert sorted(path.name for path in TRANSLATIONS.iterdir() if path.is_dir()) == sorted(
        TRANSLATED
    )


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_compiled_catalog_is_its_source_compiled(language):
    """The .mo the app reads is exactly what `pybabel compile` makes of the .po: never stale."""
    compiled = io.BytesIO()
    write_mo(compiled, catalog_of(language))
    shipped = (TRANSLATIONS / language / "LC_MESSAGES" / "messages.mo").read_bytes()
    assert shipped == compiled.getvalue(), f"run: pybabel compile -d {TRANSLATIONS}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_and_checked(language):
    """No entry untranslated or fuzzy, and each keeps its figures (%(name)s) and plural forms
    (babel's checkers)."""
    catalog = catalog_of(language)
    assert not catalog.fuzzy
    for message in catalog:
        if not message.id:
            continue
        assert not message.fuzzy, message.id
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(forms), f"untranslated: {message.id!r}"
        if message.pluralizable:
            assert len(forms) == catalog.num_plurals, message.id
    assert [(m.id, errors) for m, errors in catalog.check()] == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_figure_and_its_percent_sign_never_part_at_a_line_end(language):
    """German and French set a space before "%": a no-break one, as Babel's numbers do, so
    that a phone never breaks "25" from its "%"."""
    for message in catalog_of(language):
        if not message.id:
            continue
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        for form in forms:
            assert " %%" not in form and " %" not in form.replace(" %(", ""), message.id


#: A tag of markup in a message: a translation may not add, drop or change one, since the
#: pages place some messages as markup (results.question_words, the templates' trans blocks).
TAG = re.compile(r"</?[a-zA-Z][^>]*>")


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_translation_keeps_its_messages_markup_as_it_is(language):
    for message in catalog_of(language):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        tags = sorted(TAG.findall(ids[0]))
        for form in forms:
            assert sorted(TAG.findall(form)) == tags, message.id


def source_messages() -> set[str]:
    """Every message the app's Python and templates ask for, extracted now as babel.cfg says
    (with lazy_gettext, as the README's extract command)."""
    with (REPOSITORY / "babel.cfg").open(encoding="utf-8") as config:
        method_map, options_map = parse_mapping_cfg(config)
    keywords = {
        "_": None,
        "gettext": None,
        "ngettext": (1, 2),
        "lazy_gettext": None,
        "lazy_ngettext": (1, 2),
    }
    found = set()
    for _, _, message, _, _ in extract_from_dir(
        str(REPOSITORY), method_map, options_map, keywords=keywords
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_the_app_asks_for_is_in_the_catalog(language):
    """A message added to the code and not to the catalogs would show in English."""
    held = {m.id[0] if isinstance(m.id, tuple) else m.id for m in catalog_of(language) if m.id}
    missing = source_messages() - held
    assert not missing, "run pybabel extract and update (README: Languages): " + repr(missing)


def test_the_template_holds_exactly_the_messages_the_app_asks_for():
    """messages.pot, which new catalogs start from (and the pseudo-language's test reads), is
    the extraction of the code as it is now."""
    with (TRANSLATIONS / "messages.pot").open("rb") as template:
        held = {m.id[0] if isinstance(m.id, tuple) else m.id for m in read_po(template) if m.id}
    assert held == source_messages(), "run pybabel extract (README: Languages)"


def cldr_category(language: str, count: int) -> str:
    return Locale.parse(language).plural_form(count)


#: CLDR's plural categories, in the order a catalog made from them numbers its forms.
CATEGORIES = ("zero", "one", "two", "few", "many", "other")


def form_categories(catalog: Catalog) -> list[str]:
    """The CLDR category of each msgstr[i] of ``catalog``: its language's categories in CLDR's
    order, "other" last (a form that integers never reach, such as Polish's for fractions,
    has no msgstr)."""
    tags = Locale.parse(catalog.locale).plural_form.tags | {"other"}
    return [tag for tag in CATEGORIES if tag in tags][: catalog.num_plurals]


def form_index(catalog: Catalog, count: int) -> int:
    """Which msgstr[i] the catalog's Plural-Forms picks for ``count``."""
    return gettext.c2py(catalog.plural_expr)(count)


@pytest.mark.parametrize("language", TRANSLATED)
def test_plural_forms_follow_cldr(language):
    """The catalog's plural rule picks, for each count, the form of the CLDR category Babel
    gives; and the answer counts are worded so: "1 Person", "2 Personen"; "0 personne"."""
    catalog = catalog_of(language)
    order = form_categories(catalog)
    message = catalog.get(("%(count)s person answered.", "%(count)s people answered."))
    translations = Translations.load(str(TRANSLATIONS), [language])
    for count in COUNTS:
        index = form_index(catalog, count)
        assert order[index] == cldr_category(language, count), count
        said = translations.ungettext(*message.id, count) % {"count": count}
        assert said == message.string[index] % {"count": count}


def test_german_and_french_word_one_and_zero_as_cldr_does():
    """French counts 0 and 1 as one ("0 personne a répondu"); German only 1."""
    said = {
        language: [
            Translations.load(str(TRANSLATIONS), [language]).ungettext(
                "%(count)s person answered.", "%(count)s people answered.", n
            )
            % {"count": n}
            for n in (0, 1, 2, 21)
        ]
        for language in ("de", "fr")
    }
    assert said["de"] == [
        "0 Personen haben geantwortet.",
        "1 Person hat geantwortet.",
        "2 Personen haben geantwortet.",
        "21 Personen haben geantwortet.",
    ]
    assert said["fr"] == [
        "0 personne a répondu.",
        "1 personne a répondu.",
        "2 personnes ont répondu.",
        "21 personnes ont répondu.",
    ]


def test_a_language_of_more_forms_gets_each_of_them(tmp_path):
    """Polish, in a catalog made here (not shipped): 1 osoba, 2-4 and 22-24 osoby, else osób;
    the catalog's rule is the one `pybabel init` writes."""
    catalog = Catalog(locale="pl")
    forms = {
        "one": "%(count)s osoba odpowiedziała.",
        "few": "%(count)s osoby odpowiedziały.",
        "many": "%(count)s osób odpowiedziało.",
    }
    order = form_categories(catalog)
    assert order == ["one", "few", "many"]
    catalog.add(
        ("%(count)s person answered.", "%(count)s people answered."),
        tuple(forms[tag] for tag in order),
    )
    folder = tmp_path / "pl" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "messages.mo").open("wb") as compiled:
        write_mo(compiled, catalog)
    polish = Translations.load(str(tmp_path), ["pl"])
    said = {
        n: polish.ungettext("%(count)s person answered.", "%(count)s people answered.", n)
        % {"count": n}
        for n in (*COUNTS, 22, 12)
    }
    assert said[1] == "1 osoba odpowiedziała."
    assert said[2] == "2 osoby odpowiedziały." and said[3] == "3 osoby odpowiedziały."
    assert said[22] == "22 osoby odpowiedziały."
    for n in (0, 5, 11, 12, 21, 100):
        assert said[n] == f"{n} osób odpowiedziało.", n
    for n in (*COUNTS, 22, 12):
        assert order[form_index(catalog, n)] == cldr_category("pl", n), n
