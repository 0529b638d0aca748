"""One rule for typed numbers: survey_app.surveys.typed_numbers (the builder) and
static/js/typed-numbers.js (the respondent page and the builder's script) read every case of
tests/typed_numbers.json the same way."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from survey_app.surveys.typed_numbers import (
    is_unclear_number,
    read_typed_number,
    typed_count,
    typed_number,
    whole_number,
)
from tests.unit.node_scripts import js_module, run_node_script

TABLE = Path(__file__).resolve().parents[2] / "typed_numbers.json"
CASES = json.loads(TABLE.read_text(encoding="utf-8"))["cases"]
#: Texts read in a page's language: each language's reading of each.
BY_LANGUAGE = json.loads(TABLE.read_text(encoding="utf-8"))["by_language"]
LANGUAGES = ("de", "fr", "en")


def outcome(value: float | None, unclear: bool) -> float | str | None:
    """A reading as the table writes it: the number, "unclear", or None."""
    return value if value is not None else ("unclear" if unclear else None)


def test_the_table_covers_each_outcome_and_the_rule_s_corners():
    outcomes = [case["value"] for case in CASES]
    assert outcomes.count("unclear") >= 10 and outcomes.count(None) >= 10
    typed = {case["typed"] for case in CASES}
    assert len(typed) == len(CASES)  # no case twice
    for corner in ("1 000", "\u22123", "1e3", "NaN", "Infinity", "0x10", "2,5", "1,500"):
        assert corner in typed


@pytest.mark.parametrize("case", CASES, ids=lambda case: repr(case["typed"][:24]))
def test_python_reads_each_case_as_the_table_says(case):
    reading = read_typed_number(case["typed"])
    assert outcome(reading.value, reading.unclear) == case["value"]
    assert typed_number(case["typed"]) == (reading.value)
    assert is_unclear_number(case["typed"]) is (case["value"] == "unclear")
    if reading.value is not None:
        assert math.isfinite(reading.value)


def test_the_browser_reads_every_case_as_the_table_says(tmp_path):
    read = run_node_script(
        tmp_path,
        f"""
        import {{ readTypedNumber, typedNumber }} from "{js_module("typed-numbers.js")}";
        const cases = {json.dumps([case["typed"] for case in CASES])};
        console.log(JSON.stringify(cases.map((typed) => {{
          const reading = readTypedNumber(typed);
          return [reading.value ?? null, reading.unclear === true, typedNumber(typed)];
        }})));
        """,
    )
    assert len(read) == len(CASES)
    for case, (value, unclear, number) in zip(CASES, read, strict=True):
        assert outcome(value, unclear) == case["value"], case["typed"]
        assert number == value, case["typed"]


def test_the_languages_table_covers_what_each_language_reads_its_own_way():
    """Grouped thousands read in one language and not the others, both ways round."""
    assert {case["typed"] for case in BY_LANGUAGE} >= {"3,5", "1.234,5", "1 234,5", "1,234.5"}
    for language in LANGUAGES:
        alone = [
            case
            for case in BY_LANGUAGE
            if isinstance(case[language], float)
            and all(case[other] == "unclear" for other in LANGUAGES if other != language)
        ]
        assert alone or language == "fr", language  # French groups with spaces: read by all


@pytest.mark.parametrize("case", BY_LANGUAGE, ids=lambda case: repr(case["typed"]))
def test_python_reads_each_case_in_each_language_as_the_table_says(case):
    for language in LANGUAGES:
        reading = read_typed_number(case["typed"], language)
        assert outcome(reading.value, reading.unclear) == case[language], language
        assert typed_number(case["typed"], language) == reading.value
        # A region of the language reads as the language does ("de-CH", "de-AT").
        regional = read_typed_number(case["typed"], f"{language}-CH")
        assert outcome(regional.value, regional.unclear) == case[language]


def test_the_browser_reads_each_case_in_each_language_as_the_table_says(tmp_path):
    read = run_node_script(
        tmp_path,
        f"""
        import {{ readTypedNumber, typedNumberMessage }} from "{js_module("typed-numbers.js")}";
        const cases = {json.dumps([case["typed"] for case in BY_LANGUAGE])};
        const languages = {json.dumps(LANGUAGES)};
        console.log(JSON.stringify(cases.map((typed) => languages.map((language) => {{
          const reading = readTypedNumber(typed, language);
          const note = typedNumberMessage(typed, language);
          return [reading.value ?? null, reading.unclear === true, note];
        }}))));
        """,
    )
    for case, readings in zip(BY_LANGUAGE, read, strict=True):
        for language, (value, unclear, message) in zip(LANGUAGES, readings, strict=True):
            assert outcome(value, unclear) == case[language], (case["typed"], language)
            # A number clear in the page's language gets no note under its field.
            assert (message == "") is (value is not None), (case["typed"], language)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("1,500", "Write 1500 without a separator, or 1.5 with one decimal point or comma."),
        (
            "\u221212.500",
            "Write -12500 without a separator, or -12.5 with one decimal point or comma.",
        ),
        (
            "1 000,500",
            "Write 1000500 without a separator, or 1000.5 with one decimal point or comma.",
        ),
        ("1,000", "Write 1000 without a separator, or 1 with one decimal point or comma."),
        (
            "1.000,5",
            "Write the number without thousands separators and with at most one decimal point "
            "or comma, like 1500 or 1.5.",
        ),
    ],
)
def test_the_page_says_how_to_write_an_unclear_number(tmp_path, typed, message):
    said = run_node_script(
        tmp_path,
        f"""
        import {{ unclearNumberMessage }} from "{js_module("typed-numbers.js")}";
        console.log(JSON.stringify(unclearNumberMessage({json.dumps(typed)})));
        """,
    )
    assert said == message
    assert is_unclear_number(typed)


def test_a_german_page_suggests_the_decimal_with_its_comma(tmp_path, app):
    """A German page suggests 1500 or 1,5 for "1,500" (unclear in every language), not 1.5."""
    from survey_app.web.page_words import page_words

    with app.test_request_context(headers={"Accept-Language": "de"}):
        german = page_words()
    said = run_node_script(
        tmp_path,
        f"""
        import {{ unclearNumberMessage }} from "{js_module("typed-numbers.js")}";
        console.log(JSON.stringify(unclearNumberMessage("1,500")));
        """,
        words=german,
    )
    sentence = german["write_whole_or_decimal"]
    assert said == sentence.replace("%(whole)s", "1500").replace("%(decimal)s", "1,5")


#: What the note under a number field says of a text that is no number: what to type instead,
#: where the text says which number was meant, else why it is none.
NOT_A_NUMBER = [
    ("about 7", "Type 7, the number alone (not “about 7”)."),
    ("12 cm", "Type 12, the number alone (not “12 cm”)."),
    ("ca. 7,5 h", "Type 7,5, the number alone (not “ca. 7,5 h”)."),
    ("7 or 8", "Type one number alone, like 12 or 2.5 (not “7 or 8”)."),
    ("about 1,500", "Write 1500 without a separator, or 1.5 with one decimal point or comma."),
    ("1e3", "Type 1000 (not “1e3”)."),
    ("2.5e-1", "Type 0.25 (not “2.5e-1”)."),
    ("\u20135", "Type -5 (not “\u20135”)."),
    ("1_000", "Type 1000 (not “1_000”)."),
    ("1\u2019000", "Type 1000 (not “1\u2019000”)."),
    ("\u0661\u0662", "Type the number with the digits 0 to 9 (not “\u0661\u0662”)."),
    ("9" * 400, "This number is too large to read: type a smaller one."),
    ("NaN", "Type a number, like 12 or 2.5 (“NaN” is not one)."),
    ("a" * 30, f"Type a number, like 12 or 2.5 (“{'a' * 20}…” is not one)."),
    ("", ""),
    ("  ", ""),
    ("7", ""),
]


def test_the_page_says_what_to_type_instead_of_a_text_that_is_no_number(tmp_path):
    said = run_node_script(
        tmp_path,
        f"""
        import {{ typedNumberMessage }} from "{js_module("typed-numbers.js")}";
        const typed = {json.dumps([typed for typed, _ in NOT_A_NUMBER])};
        console.log(JSON.stringify(typed.map(typedNumberMessage)));
        """,
    )
    assert said == [message for _, message in NOT_A_NUMBER]


def test_every_text_of_the_table_gets_the_note_its_reading_calls_for(tmp_path):
    """A clear number gets no note; an unclear one says how to write it; any other text typed
    says what is wrong with it, quoting it (never a bare "not answered")."""
    said = run_node_script(
        tmp_path,
        f"""
        import * as rule from "{js_module("typed-numbers.js")}";
        const cases = {json.dumps([case["typed"] for case in CASES])};
        const notes = cases.map((t) => [rule.typedNumberMessage(t), rule.unclearNumberMessage(t)]);
        console.log(JSON.stringify(notes));
        """,
    )
    for case, (message, unclear_message) in zip(CASES, said, strict=True):
        typed = case["typed"].strip()
        if case["value"] == "unclear":
            assert message == unclear_message, case
        elif case["value"] is not None or not typed:
            assert message == "", case
        else:
            assert message.startswith(("Type ", "This number is too large")), case
            assert "too large" in message or f"“{typed[:20]}" in message, case


# --------------------------------------------------------------------------- whole numbers

#: (what was sent, typed_count's reading, whole_number's): a count a professor types may group
#: its thousands ("1,000" is clear for a count, unlike for a number), a link's number may not.
WHOLE_CASES = [
    ("40", 40, 40),
    ("007", 7, 7),
    ("0", 0, 0),
    ("1,000", 1000, None),
    ("12,500,000", 12_500_000, None),
    ("1 000", 1000, None),
    ("1\u202f000", 1000, None),
    (" 40 ", 40, None),
    ("9" * 15, int("9" * 15), int("9" * 15)),
    ("9" * 16, None, None),
    ("9" * 5000, None, None),
    ("²", None, None),
    ("٣", None, None),
    ("1.000", None, None),
    ("2,5", None, None),
    ("4.0", None, None),
    ("1,0000", None, None),
    ("1,000 000", None, None),
    (",000", None, None),
    ("-3", None, None),
    ("+3", None, None),
    ("1e3", None, None),
    ("1_0", None, None),
    ("", None, None),
    ("\x00", None, None),
]


@pytest.mark.parametrize(("typed", "count", "whole"), WHOLE_CASES, ids=lambda v: repr(v)[:24])
def test_whole_numbers_are_ascii_digits_and_counts_may_group_thousands(typed, count, whole):
    assert typed_count(typed) == count
    assert whole_number(typed) == whole
