"""Which language a page speaks: the one rule, and the translations it reads.

A page speaks a language other than English only when its words are translated: its area (its
blueprint, or the error pages) is one of TRANSLATED_AREAS; every other page speaks English, its
words and its numbers alike, so that no page says English sentences with German numbers under
``lang="de"``. On a translated page, a survey may pin the language its students see (a class is
taught in one language); a signed-in professor's pages follow the language saved on the
account; otherwise the browser's Accept-Language decides among the shipped languages, and
English when it names none of them.

The API (/api/v1) always speaks English: programs read its documents and CSV files, whose keys
and headers stay the same in every language.

A language ships when survey_app/translations/ holds its catalog (README: Languages).
"""

from __future__ import annotations

from pathlib import Path

from babel import Locale
from babel.lists import format_list
from flask import Flask, g, has_request_context, request
from flask_babel import Babel, force_locale, get_locale, gettext, lazy_gettext, refresh

#: Where the catalogs are: a language ships when its compiled catalog is here.
TRANSLATIONS = Path(__file__).resolve().parents[1] / "translations"
#: The languages a page may speak: English (the source of every message) first, the default,
#: then each language with a catalog, by its code.
SHIPPED_LANGUAGES = (
    "en",
    *sorted(
        {catalog.parents[1].name for catalog in TRANSLATIONS.glob("*/LC_MESSAGES/messages.mo")}
        - {"en"}
    ),
)
DEFAULT_LANGUAGE = SHIPPED_LANGUAGES[0]
#: Parsed once: words worded outside a request (commands, exports) ask for it at every figure.
_DEFAULT_LOCALE = Locale.parse(DEFAULT_LANGUAGE)


def _own_name(code: str) -> str:
    """A language's name in itself, as a select lists it (CLDR's, capitalised): "Français"."""
    name = Locale.parse(code).get_display_name(code)
    return name[:1].upper() + name[1:]


#: Each shipped language's name in itself, for the builder's and the account page's select.
LANGUAGE_NAMES = {code: _own_name(code) for code in SHIPPED_LANGUAGES}

#: The error pages' area (they belong to no blueprint of their own).
ERROR_PAGES = "errors"
#: The students' pages' area: their blueprint's name.
STUDENTS_PAGES = "respondent"
#: What each area's pages are, in words, in the order the account page lists them.
AREA_NAMES = {
    STUDENTS_PAGES: lazy_gettext("the students' pages"),
    ERROR_PAGES: lazy_gettext("the error pages"),
    "sign_in": lazy_gettext("the sign-in and account pages"),
    "manage": lazy_gettext("the survey lists"),
    "dashboard": lazy_gettext("the dashboard"),
    "projector": lazy_gettext("the projector"),
    "codes": lazy_gettext("the code slips"),
    "builder": lazy_gettext("the builder"),
    "lesson": lazy_gettext("the lesson"),
    "lti": lazy_gettext("the page that adds a survey to a course"),
}
#: The areas whose pages are translated (every visible word, numbers the language's way): the
#: others speak English whatever the account or the browser asks for.
TRANSLATED_AREAS = frozenset(
    {STUDENTS_PAGES, ERROR_PAGES, "sign_in", "manage", "dashboard", "projector", "codes"}
    | {"builder", "lesson", "lti"}
)
#: Where an error handler says the page is now an error page, for the rest of the request.
_AREA = "page_area"

#: The API's paths: English whatever is asked (its words are for programs first).
API_PREFIX = "/api/"
#: Where the page pins its language (a survey's), for the rest of the request.
_PINNED = "page_language"


def is_shipped(language: object) -> bool:
    """Whether ``language`` is the code of a shipped language ("de"; not "DE", not "xx")."""
    return isinstance(language, str) and language in SHIPPED_LANGUAGES


def pin(language: str | None) -> None:
    """The page speaks ``language`` (a survey's own) whatever the browser asks for; None pins
    nothing. A view calls it before it renders."""
    if language is not None and is_shipped(language):
        g.setdefault(_PINNED, language)
        refresh()  # a locale read earlier in the request is read again


def enter_error_page() -> None:
    """The page being made is an error page (its area, whatever the request's blueprint); an
    error handler calls it before it renders."""
    g.setdefault(_AREA, ERROR_PAGES)
    refresh()  # a locale read earlier in the request is read again


def enter_students_page() -> None:
    """The page being made is a students' page whatever the request's blueprint (the builder's
    preview shows the survey as its students see it); the view calls it before it renders."""
    g.setdefault(_AREA, STUDENTS_PAGES)
    refresh()  # a locale read earlier in the request is read again


def is_translated_area() -> bool:
    """Whether the current page's area is translated (TRANSLATED_AREAS)."""
    return g.get(_AREA, request.blueprint) in TRANSLATED_AREAS


def language_reach() -> str | None:
    """Which pages follow a chosen language, in words, while some still speak English (None
    once every area is translated): the account page says it under its language select."""
    followed = [name for area, name in AREA_NAMES.items() if area in TRANSLATED_AREAS]
    english = [name for area, name in AREA_NAMES.items() if area not in TRANSLATED_AREAS]
    if not english:
        return None
    locale = current_locale()
    return gettext(
        "It is followed by %(followed)s. Still in English until they are translated: %(english)s.",
        followed=format_list([str(name) for name in followed], locale=locale),
        english=format_list([str(name) for name in english], locale=locale),
    )


def select_language() -> str:
    """The current page's language: English on an untranslated page; else a pinned one, the
    signed-in professor's, else the browser's best match among the shipped languages (English
    when none)."""
    if not has_request_context() or request.path.startswith(API_PREFIX):
        return DEFAULT_LANGUAGE
    if not is_translated_area():
        return DEFAULT_LANGUAGE
    return chosen_language()


def chosen_language() -> str:
    """The language a translated page of this request speaks: a pinned one, the signed-in
    professor's, else the browser's best match among the shipped languages (English when
    none)."""
    pinned = g.get(_PINNED)
    if pinned:
        return pinned
    from flask_login import current_user  # the accounts' extension, bound by then

    saved = getattr(current_user, "language", None)
    if is_shipped(saved):
        return saved
    return browser_language()


def browser_language() -> str:
    """The shipped language the browser prefers most: its Accept-Language in order of
    preference, each tag by its language alone ("de-CH" is German), English when it names none
    (a browser set to "de-DE, en-US;q=0.9" gets German, not the exact match en-US)."""
    g.language_from_browser = True  # the answer varies with the header: see register
    for tag, quality in request.accept_languages:
        language = tag.replace("_", "-").split("-")[0].lower()
        if quality > 0 and language in SHIPPED_LANGUAGES:
            return language
    return DEFAULT_LANGUAGE


def for_a_translated_page(message: object) -> str:
    """``message`` (a lazy one) in the language a translated page of this request speaks: a
    message said now and shown on the next page (the sign-in page's flash), whatever this
    page's area."""
    if not has_request_context():
        return str(message)
    with force_locale(chosen_language()):
        return str(message)


def current_locale() -> Locale:
    """The current page's locale (English outside a request)."""
    return get_locale() or _DEFAULT_LOCALE


def is_english() -> bool:
    """Whether the page speaks English, the language every message is written in."""
    return current_locale().language == DEFAULT_LANGUAGE


def page_language() -> dict:
    """What ``<html>`` says of the page: ``lang`` and ``dir`` ("rtl" for right-to-left)."""
    locale = current_locale()
    return {"lang": str(locale).replace("_", "-"), "dir": locale.text_direction}


def register(app: Flask) -> None:
    """Translate the app's pages: Flask-Babel with this module's rule (a page whose language
    the browser chose says it varies with Accept-Language); templates get ``page_language()``
    for ``<html lang dir>``, and ``language_names`` for a select."""
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT_LANGUAGE)
    Babel(app, locale_selector=select_language)

    @app.after_request
    def _vary_with_the_browsers_language(response):
        # A cache between the browser and the app keeps one copy per language asked for.
        if g.get("language_from_browser"):
            response.vary.add("Accept-Language")
        return response

    app.jinja_env.globals["page_language"] = page_language
    app.jinja_env.globals["language_names"] = LANGUAGE_NAMES
