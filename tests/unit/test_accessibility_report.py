"""docs/accessibility.md, the conformance report, lists every one of WCAG 2.1's 50 level A and
AA success criteria, by number, name and level, each with a verdict for both sides of the app
and a remark that backs it (a test, or the reason it holds)."""

from __future__ import annotations

import re
from pathlib import Path

REPORT = Path(__file__).resolve().parents[2] / "docs" / "accessibility.md"

#: WCAG 2.1's success criteria at levels A and AA (https://www.w3.org/TR/WCAG21/), in order.
CRITERIA = {
    "1.1.1": ("Non-text content", "A"),
    "1.2.1": ("Audio-only and video-only (prerecorded)", "A"),
    "1.2.2": ("Captions (prerecorded)", "A"),
    "1.2.3": ("Audio description or media alternative", "A"),
    "1.2.4": ("Captions (live)", "AA"),
    "1.2.5": ("Audio description (prerecorded)", "AA"),
    "1.3.1": ("Info and relationships", "A"),
    "1.3.2": ("Meaningful sequence", "A"),
    "1.3.3": ("Sensory characteristics", "A"),
    "1.3.4": ("Orientation", "AA"),
    "1.3.5": ("Identify input purpose", "AA"),
    "1.4.1": ("Use of colour", "A"),
    "1.4.2": ("Audio control", "A"),
    "1.4.3": ("Contrast (minimum)", "AA"),
    "1.4.4": ("Resize text", "AA"),
    "1.4.5": ("Images of text", "AA"),
    "1.4.10": ("Reflow", "AA"),
    "1.4.11": ("Non-text contrast", "AA"),
    "1.4.12": ("Text spacing", "AA"),
    "1.4.13": ("Content on hover or focus", "AA"),
    "2.1.1": ("Keyboard", "A"),
    "2.1.2": ("No keyboard trap", "A"),
    "2.1.4": ("Character key shortcuts", "A"),
    "2.2.1": ("Timing adjustable", "A"),
    "2.2.2": ("Pause, stop, hide", "A"),
    "2.3.1": ("Three flashes or below threshold", "A"),
    "2.4.1": ("Bypass blocks", "A"),
    "2.4.2": ("Page titled", "A"),
    "2.4.3": ("Focus order", "A"),
    "2.4.4": ("Link purpose (in context)", "A"),
    "2.4.5": ("Multiple ways", "AA"),
    "2.4.6": ("Headings and labels", "AA"),
    "2.4.7": ("Focus visible", "AA"),
    "2.5.1": ("Pointer gestures", "A"),
    "2.5.2": ("Pointer cancellation", "A"),
    "2.5.3": ("Label in name", "A"),
    "2.5.4": ("Motion actuation", "A"),
    "3.1.1": ("Language of page", "A"),
    "3.1.2": ("Language of parts", "AA"),
    "3.2.1": ("On focus", "A"),
    "3.2.2": ("On input", "A"),
    "3.2.3": ("Consistent navigation", "AA"),
    "3.2.4": ("Consistent identification", "AA"),
    "3.3.1": ("Error identification", "A"),
    "3.3.2": ("Labels or instructions", "A"),
    "3.3.3": ("Error suggestion", "AA"),
    "3.3.4": ("Error prevention (legal, financial, data)", "AA"),
    "4.1.1": ("Parsing", "A"),
    "4.1.2": ("Name, role, value", "A"),
    "4.1.3": ("Status messages", "AA"),
}

VERDICTS = {"Supports", "Partially supports", "Does not support", "Not applicable"}

#: A row of the report's tables: | number name | level | respondent | professor | remarks |
ROW = re.compile(r"^\| (\d\.\d+\.\d+) ([^|]+?) \| ([^|]+?) \| ([^|]+?) \| ([^|]+?) \| (.*) \|$")


def rows() -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    for line in REPORT.read_text(encoding="utf-8").splitlines():
        if match := ROW.match(line):
            number, *cells = match.groups()
            assert number not in found, f"{number} is listed twice"
            found[number] = tuple(cell.strip() for cell in cells)
    return found


def test_the_list_is_wcag_2_1_a_and_aa():
    levels = [level for _, level in CRITERIA.values()]
    assert len(CRITERIA) == 50 and levels.count("A") == 30 and levels.count("AA") == 20


def test_the_report_lists_all_50_criteria_in_order_by_number_name_and_level():
    listed = rows()
    assert list(listed) == list(CRITERIA)
    for number, (name, level) in CRITERIA.items():
        assert listed[number][:2] == (name, level), number


def test_each_criterion_has_a_verdict_for_both_sides_and_a_remark_that_backs_it():
    for number, (_, _, respondent, professor, remarks) in rows().items():
        assert {respondent, professor} <= VERDICTS, number
        # A remark names a test, a check, or the reason the criterion holds ("No media.").
        assert len(remarks.split()) >= 2 and remarks.endswith((".", ")")), number


def test_the_pointer_criteria_name_their_tests():
    listed = rows()
    for number in ("2.5.1", "2.5.4"):
        assert "test_pointer_inputs.py" in listed[number][-1], number
    for number in ("2.5.2", "2.5.3"):
        assert "tests/browser/pointer.py" in listed[number][-1], number
