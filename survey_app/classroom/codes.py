"""One-time codes: one answer per student, without knowing who answered what.

The professor asks for N codes and hands them out (printed slips, or a CSV for a mail merge).
Each is 10 characters of the join-code alphabet (no lookalikes), about 2^45 codes, shown as
``K7W3P-XM4RT``. The database keeps only each code's SHA-256 and, once it is used, the day: no
submission id, no time of day, nothing that joins a code to the answers it came with. A
submission to a survey that requires codes is stored only together with marking its code used,
all-or-nothing (see :mod:`survey_app.respondents.submissions`).

Why a plain hash: a code guessed online meets the submission rate limit, and N codes among
23^10 (about 4 x 10^13) leave a guess about N in 4 x 10^13 chances. Someone holding a copy of the
database could try every code offline; they hold the answers already, and codes only ration
submissions.

What this does not do: the server sees a code and the randomized answers in the same request.
Whoever runs the server could log both, and a professor who knows which student got which code
could then tell who sent which randomized answers. Under local differential privacy that is
still only what each browser sent: each answer stays ε-private. Hand slips out at random, and
the codes say nothing about who holds them. Services flush; the caller commits.
"""

from __future__ import annotations

import hashlib
import secrets

from flask_babel import gettext
from sqlalchemy import func, select

from survey_app.extensions import db
from survey_app.storage.models import (
    CODE_CHARACTERS,
    JOIN_CODE_ALPHABET,
    OneTimeCode,
    Survey,
    typed_code_characters,
)
from survey_app.surveys.services import SurveyStateError, unused_join_code
from survey_app.surveys.typed_numbers import typed_count
from survey_app.words import grouped

CODE_LENGTH = 10
#: How many characters the survey page's code field takes: the code with room for the spaces or
#: dashes a student copies from the slip, which are read past.
CODE_FIELD_LENGTH = 24
#: The most codes one request or command issues, and the most one survey holds.
MAX_CODES_AT_ONCE = 2000
MAX_CODES_PER_SURVEY = 20000
#: What the dashboard offers to issue: a class.
DEFAULT_CODE_COUNT = 40


class CodeRequestError(ValueError):
    """A request for codes that cannot be met: the message in English (the command line's),
    ``reason`` naming the refusal and ``figures`` its numbers, for a page that says it in its
    language (code_slips.refused_count_words)."""

    def __init__(self, message: str, reason: str, **figures: object):
        super().__init__(message)
        self.reason = reason
        self.figures = figures


def new_code() -> str:
    """A random one-time code in its stored form (10 characters, no dash)."""
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(CODE_LENGTH))


def format_code(code: str) -> str:
    """A code as printed and typed: two groups of five, ``K7W3P-XM4RT``."""
    return f"{code[:5]}-{code[5:]}"


def normalise_code(typed: object) -> str | None:
    """A code as typed (any case, anything between its characters) in its stored form, or None."""
    if not isinstance(typed, str) or len(typed) > 64:
        return None
    code = typed_code_characters(typed)
    if len(code) != CODE_LENGTH or not CODE_CHARACTERS.issuperset(code):
        return None
    return code


def code_sha256(code: str) -> str:
    """What the database keeps of a code (stored form): its SHA-256 in hex."""
    return hashlib.sha256(code.encode("ascii")).hexdigest()


def parse_code_count(value: object) -> int:
    """How many codes were asked for, checked: a whole number from 1 to MAX_CODES_AT_ONCE."""
    text = str(value).strip()
    count = typed_count(text)  # the one rule for typed counts: "1,000" and "1 000" are 1000
    if count is None:
        raise CodeRequestError(
            f"the number of codes must be a whole number, got {text[:20]!r}",
            "not_whole",
            typed=text[:20],
        )
    if not 1 <= count <= MAX_CODES_AT_ONCE:
        raise CodeRequestError(
            f"the number of codes must be from 1 to {MAX_CODES_AT_ONCE}, got {count}",
            "out_of_range",
            count=count,
            most=MAX_CODES_AT_ONCE,
        )
    return count


def require_codes(survey: Survey, required: bool = True) -> None:
    """Make a draft ask every respondent for a one-time code (or stop asking)."""
    if survey.requires_codes == required:
        return
    if not survey.is_draft:
        raise SurveyStateError(
            gettext(
                "Codes can be required or dropped only while the survey is a draft: every "
                "answer to one survey must come in the same way. Duplicate it for a new round."
            )
        )
    survey.requires_codes = required
    db.session.flush()


def issue_codes(survey: Survey, count: int) -> list[str]:
    """Create ``count`` new codes for the survey; return them (stored form), never kept.

    A draft is made to require codes, and given its join code now (the slips show it); a
    survey that opened without codes cannot start taking them.
    """
    if not survey.requires_codes:
        if not survey.is_draft:
            raise SurveyStateError(
                gettext(
                    "This survey opened without one-time codes, so it cannot take them now. "
                    "Duplicate it and issue codes for the copy."
                )
            )
        require_codes(survey)
    held = code_counts(survey)["issued"]
    if held + count > MAX_CODES_PER_SURVEY:
        raise CodeRequestError(
            f"a survey holds at most {MAX_CODES_PER_SURVEY} codes; this one has {held}",
            "survey_full",
            held=held,
            most=MAX_CODES_PER_SURVEY,
        )
    if survey.join_code is None:  # slips are printed before class: they show the join code
        survey.join_code = unused_join_code()
    codes: set[str] = set()
    while len(codes) < count:
        codes.add(new_code())
    # A repeat of an earlier code has odds of about count * held / 2^45: the primary key would
    # refuse it, and this request would fail whole rather than hand out a code twice.
    db.session.add_all(
        OneTimeCode(survey_id=survey.id, code_sha256=code_sha256(code)) for code in codes
    )
    db.session.flush()
    return sorted(codes)


def code_counts(survey: Survey) -> dict[str, int]:
    """How many codes the survey has issued, and how many of them were used."""
    issued, used = db.session.execute(
        select(func.count(), func.count(OneTimeCode.used_on)).where(
            OneTimeCode.survey_id == survey.id
        )
    ).one()
    return {"issued": issued, "used": used}


def codes_missing(survey: Survey, counts: dict[str, int] | None = None) -> str | None:
    """Why nobody can answer a survey that requires codes, for want of one; None if they can.

    Opening without codes is allowed (codes can be issued at any time, for latecomers too), so
    the professor is told instead, wherever the survey is opened and on its dashboard.
    """
    if not survey.requires_codes or not (survey.is_draft or survey.is_open):
        return None
    counts = counts if counts is not None else code_counts(survey)
    if counts["issued"] == 0:
        return gettext(
            "This survey requires a one-time code from every respondent, and none has been "
            "issued yet: nobody can answer until codes are issued."
        )
    if counts["used"] >= counts["issued"]:
        return gettext(
            "Every one-time code issued (%(count)s) has been used: nobody else can answer until "
            "more are issued.",
            count=grouped(counts["issued"]),
        )
    return None


def code_state(survey_id: int, code: str) -> str:
    """``"unknown"``, ``"used"`` or ``"unused"``: what a refused submission's code was."""
    used_on = db.session.execute(
        select(OneTimeCode.used_on).where(
            OneTimeCode.survey_id == survey_id, OneTimeCode.code_sha256 == code_sha256(code)
        )
    ).first()
    if used_on is None:
        return "unknown"
    return "unused" if used_on[0] is None else "used"
