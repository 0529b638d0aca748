"""What the classroom's pages say: how the class joins (on the dashboard and on the slips of
one-time codes), and the projector's notes on what it shows.

Each sentence is whole here, its figures filled in: where a survey calls for another sentence,
another whole one is chosen, so that a translation wraps each as it stands. The pages place them.
"""

from __future__ import annotations

from flask_babel import lazy_gettext, ngettext
from markupsafe import Markup

from survey_app.words import grouped, percent

#: How students join, on the dashboard: the address and the code, and the QR code beside them
#: when the page can show one (a known public address).
JOIN = lazy_gettext(
    "Students go to <strong>%(address)s</strong> and type the code "
    '<strong class="join-code" id="join-code">%(code)s</strong>. The projector view shows both '
    "in large type."
)
JOIN_OR_SCAN = lazy_gettext(
    "Students go to <strong>%(address)s</strong> and type the code "
    '<strong class="join-code" id="join-code">%(code)s</strong>, or scan the QR code with a '
    "phone’s camera. The projector view shows both in large type."
)

#: The heading of a page of slips, and what each slip says before its code: the survey's join
#: code too where it has one.
SLIP_JOIN = lazy_gettext("Go to <strong>%(address)s</strong>, then this code when asked:")
SLIP_JOIN_WITH_CODE = lazy_gettext(
    "Go to <strong>%(address)s</strong>, type <strong>%(code)s</strong>, then this code when asked:"
)

#: What a question on the projector says before it shows results (an average, or shares): the
#: count they appear at is said once for all the questions (results.words.release_words).
TOO_EARLY = {
    True: lazy_gettext("Too early for the average."),
    False: lazy_gettext("Too early for shares."),
}

#: What the projector's bars are: live ranges while the screen redraws itself.
SCOPE = lazy_gettext(
    "Shares estimated from the randomized answers; the bar is the range that holds the true "
    "share at least %(confidence)s of the time, for the people who answered."
)
SCOPE_LIVE = lazy_gettext(
    "Shares estimated from the randomized answers; the bar is the range that holds the true "
    "share at least %(confidence)s of the time, however often this screen redraws, for the "
    "people who answered."
)


def join_instructions(address: str, code: str, has_qr: bool) -> Markup:
    """How students join an open survey, as the dashboard says it (``has_qr``: with its QR
    code beside the words)."""
    return Markup(str(JOIN_OR_SCAN if has_qr else JOIN)) % {"address": address, "code": code}


def slips_heading(count: int, title: str) -> str:
    """The heading of a page of slips: "40 one-time codes for “Survey”"."""
    return ngettext(
        "%(count)s one-time code for “%(title)s”",
        "%(count)s one-time codes for “%(title)s”",
        count,
        count=grouped(count),
        title=title,
    )


def slip_join(address: str, join_code: str | None) -> Markup:
    """What each slip says before its one-time code: where to go, and the survey's join code
    where it has one."""
    if join_code:
        return Markup(str(SLIP_JOIN_WITH_CODE)) % {"address": address, "code": join_code}
    return Markup(str(SLIP_JOIN)) % {"address": address}


def too_early_words(numeric: bool) -> str:
    """What a question on the projector says before it shows results."""
    return str(TOO_EARLY[bool(numeric)])


def scope_words(headline: str, confidence: float) -> str:
    """What the projector's bars are, at ``confidence``; live ranges (``headline`` "live") hold
    however often the screen redraws."""
    return str(SCOPE_LIVE if headline == "live" else SCOPE) % {"confidence": percent(confidence)}
