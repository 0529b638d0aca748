"""What the page scripts say, in the page's language: one catalog, rendered into the page.

Scripts hold no sentence of their own: a page that runs them places this catalog as JSON in
the ``data-words`` of an empty ``<div id="page-words" hidden>`` (``{{ page_words_catalog() }}``;
an attribute, not a script element: the pages run no inline script of any type), and
static/js/page-words.js reads it, filling each ``%(name)s`` with its figure. So every word a
student reads comes through the translations, as the page's own text does.
"""

from __future__ import annotations

import json

from babel.numbers import get_decimal_symbol
from flask import Flask
from flask_babel import lazy_gettext
from markupsafe import Markup

from survey_app.web.languages import current_locale

#: Each sentence a page script may say, by the name the script asks for.
PAGE_WORDS = {
    # The survey page (static/js/survey.js).
    "sending": lazy_gettext("Sending your randomized answers…"),
    "connection_failed": lazy_gettext(
        "Your answers could not be sent: the connection failed. Your answers are still here; "
        "please send again."
    ),
    "no_reply": lazy_gettext(
        "No reply came from the survey: your answers may not have arrived. They are still "
        "here; please send again (if they did arrive, they are counted once)."
    ),
    # What a reply of the server means (static/js/survey-replies.js).
    "code_required": lazy_gettext("Please type the one-time code from your slip."),
    "code_invalid": lazy_gettext(
        "That code is not right for this survey. Check it against your slip (letters and "
        "digits, like K7W3P-XM4RT)."
    ),
    "code_used": lazy_gettext(
        "That code was already used: each code answers once. If you did not use it, ask for "
        "another slip."
    ),
    "not_taking_answers": lazy_gettext("This survey is not taking answers right now."),
    "busy": lazy_gettext(
        "Many people are answering right now. Please wait a moment and send again."
    ),
    "not_recorded": lazy_gettext(
        "Your answers could not be recorded (%(reason)s). Please send again."
    ),
    "error_status": lazy_gettext("error %(status)s"),
    "check_question": lazy_gettext("Please check question %(number)s: %(message)s"),
    "answer_every_question": lazy_gettext(
        "Please answer every question before sending. Not answered yet: %(numbers)s."
    ),
    "answer_every_question_number": lazy_gettext(
        "Please answer every question before sending (a number, like 12 or 2.5). Not answered "
        "yet: %(numbers)s."
    ),
    # What is wrong with a number typed (static/js/typed-numbers.js).
    "write_whole_or_decimal": lazy_gettext(
        "Write %(whole)s without a separator, or %(decimal)s with one decimal point or comma."
    ),
    "write_without_separators": lazy_gettext(
        "Write the number without thousands separators and with at most one decimal point or "
        "comma, like 1500 or 1.5."
    ),
    "type_meant": lazy_gettext("Type %(meant)s (not %(quoted)s)."),
    "too_large": lazy_gettext("This number is too large to read: type a smaller one."),
    "type_digits": lazy_gettext("Type the number with the digits 0 to 9 (not %(quoted)s)."),
    "type_alone": lazy_gettext("Type %(number)s, the number alone (not %(quoted)s)."),
    "type_one_alone": lazy_gettext("Type one number alone, like 12 or 2.5 (not %(quoted)s)."),
    "type_a_number": lazy_gettext("Type a number, like 12 or 2.5 (%(quoted)s is not one)."),
    "quoted": lazy_gettext("“%(text)s”"),
    # The projector (static/js/projector.js).
    "question_in_full": lazy_gettext("Question %(number)s in full: scroll to read it"),
    "projector_signed_out": lazy_gettext("Signed out: reload this page to sign in again."),
    # The builder (static/js/builder.js): the button that applies the flip probability suggested.
    "use_flip_probability": lazy_gettext("Use %(value)s"),
    # The dashboard (static/js/dashboard.js).
    "link_copied": lazy_gettext("Link copied."),
    "copy_selected_link": lazy_gettext("Press Ctrl+C (or ⌘C) to copy the selected link."),
}


def page_words() -> dict[str, str]:
    """The catalog in the page's language: each sentence with its ``%(name)s`` left to fill,
    and the language's decimal mark (CLDR's, through Babel: "," in German and French), with
    which a script writes a decimal it suggests."""
    sentences = {key: str(words) for key, words in PAGE_WORDS.items()}
    return {**sentences, "decimal_mark": get_decimal_symbol(current_locale())}


def page_words_catalog() -> Markup:
    """The catalog as the page places it, for static/js/page-words.js to read."""
    return Markup('<div id="page-words" hidden data-words="{}"></div>').format(
        json.dumps(page_words(), ensure_ascii=False)
    )


def register(app: Flask) -> None:
    """Templates place the catalog with ``{{ page_words_catalog() }}``."""
    app.jinja_env.globals["page_words_catalog"] = page_words_catalog
