"""A survey definition's errors, and the checks every text field of it passes.

An error is a message for definition files and the command line ("questions[1].options: must
have 2 to 12 options, got 1") and, for pages that word it themselves (the builder,
survey_app.builder.errors), its parts: the field (that JSON path), the rule broken (``key``) and
the figures the message gives (``values``). The rules themselves are in survey_app.surveys.services.
"""

from __future__ import annotations

import re
import unicodedata

#: The longest a question's text may be.
MAX_QUESTION_LENGTH = 1000


class SurveyDefinitionError(ValueError):
    """A survey definition is invalid; the message names the field and what is wrong.

    ``field`` is the JSON path the message starts with ("" for a file's own errors), ``key``
    the rule it broke ("empty", "too_long", "option_count", ...) and ``values`` its figures.
    """

    def __init__(self, message: str, field: str = "", key: str = "", **values: object) -> None:
        super().__init__(message)
        self.field = field
        self.key = key
        self.values = values

    @property
    def path(self) -> tuple[str | int, ...]:
        """The field as parts: "questions[1].options" is ("questions", 1, "options")."""
        return tuple(
            int(part) if part.isdigit() else part for part in re.findall(r"\w+", self.field)
        )


def refused(field: str, key: str, detail: str, **values: object) -> SurveyDefinitionError:
    """The error "<field>: <detail>", with its parts."""
    return SurveyDefinitionError(f"{field}: {detail}", field, key, **values)


#: Characters that draw nothing yet are not control or format characters.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
_ZERO_WIDTH_JOINER = "\u200d"


def hidden_character(text: str, line_breaks: bool) -> tuple[int, str] | None:
    """The first control or invisible character of ``text`` (position and code), if any.

    Such characters make two options that look the same differ, hide text from the page or
    turn it around (bidirectional overrides), and can break the CSV. Refused: control
    characters (line breaks only where ``line_breaks``), format characters (zero-width spaces,
    bidirectional controls, the byte-order mark...), surrogates, private-use and unassigned
    code points, line and paragraph separators, and blank letters. A zero-width joiner is let
    through between two pictographs, where it joins an emoji ("👩‍💻").
    """
    for position, char in enumerate(text):
        if line_breaks and char in "\r\n":
            continue
        category = unicodedata.category(char)
        if char == _ZERO_WIDTH_JOINER and 0 < position < len(text) - 1:
            before, after = text[position - 1], text[position + 1]
            if unicodedata.category(after) == "So" and (
                unicodedata.category(before) in ("So", "Sk") or before == "\ufe0f"
            ):
                continue
        if category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or char in _INVISIBLE:
            return position, f"U+{ord(char):04X}"
    return None


def checked_text(
    field: str, value: object, max_length: int, required: bool = True, line_breaks: bool = False
) -> str:
    """A text field, stripped: text, without hidden characters, not empty where ``required``,
    at most ``max_length`` characters."""
    if not isinstance(value, str):
        kind = type(value).__name__
        raise refused(field, "not_text", f"must be text, got {kind}", kind=kind)
    hidden = hidden_character(value, line_breaks)
    if hidden is not None:
        position, code = hidden
        raise refused(
            field,
            "hidden_character",
            f"contains an invisible or control character ({code}, character "
            f"{position + 1}); type the text again without it",
            code=code,
            position=position + 1,
        )
    text = value.strip()
    if required and not text:
        raise refused(field, "empty", "must not be empty")
    if len(text) > max_length:
        raise refused(
            field, "too_long", f"must be at most {max_length} characters", limit=max_length
        )
    return text
