"""Which language a page speaks: the one rule, and the translations it reads.

A survey may pin the language its students see (a class is taught in one language); a signed-in
professor's pages follow the language saved on the account; otherwise the browser's
Accept-Language decides among the shipped languages, and English when it names none of them.

The API (/api/v1) always speaks English: programs read its documents and CSV files, whose keys
and headers stay the same in every language.

A language ships when survey_app/translations/ holds its catalog (README: Languages).
"""

from __future__ import annotations

from babel import Locale
from flask import Flask, g, has_request_context, request
from flask_babel import Babel, get_locale, refresh

#: The languages a page may speak: English (the source of every message) first, the default.
SHIPPED_LANGUAGES = ("en", "de", "fr")
DEFAULT_LANGUAGE = SHIPPED_LANGUAGES[0]
#: Each shipped language's name in itself, for the builder's and the account page's select.
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "fr": "Français"}

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


def select_language() -> str:
    """The current page's language: a pinned one, the signed-in professor's, else the
    browser's best match among the shipped languages (English when none)."""
    if not has_request_context() or request.path.startswith(API_PREFIX):
        return DEFAULT_LANGUAGE
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


def current_locale() -> Locale:
    """The current page's locale (English outside a request)."""
    return get_locale() or Locale.parse(DEFAULT_LANGUAGE)


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
