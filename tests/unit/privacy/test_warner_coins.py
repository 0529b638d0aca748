"""Warner's coins, p = q / 2, have one owner in each language: survey_app.privacy (parameters.py)
and static/js/warner.js, pinned to each other by tests/warner_coins.json; the builder, its
script, the survey page's words and the templates use them and compute nothing of their own."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from survey_app import privacy
from survey_app.builder.form import warner_flip_probability, warner_q_shown
from tests.unit.node_scripts import js_module, run_node_script

ROOT = Path(__file__).resolve().parents[3]
CASES = json.loads((ROOT / "tests" / "warner_coins.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda case: str(case["warner_q"]))
def test_python_sets_p_from_q_and_q_from_p(case):
    assert privacy.flip_probability_from_warner_q(case["warner_q"]) == case["flip_probability"]
    assert privacy.warner_q_from_flip_probability(case["flip_probability"]) == case["warner_q"]


def test_the_browser_sets_p_from_q_and_q_from_p_as_python_does(tmp_path):
    computed = run_node_script(
        tmp_path,
        f"""
        import * as warner from "{js_module("warner.js")}";
        const cases = {json.dumps(CASES)};
        console.log(JSON.stringify(cases.map((c) => [
          warner.flipProbabilityFromWarnerQ(c.warner_q),
          warner.warnerQFromFlipProbability(c.flip_probability),
        ])));
        """,
    )
    assert computed == [[case["flip_probability"], case["warner_q"]] for case in CASES]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), True, "0.3"])
def test_the_python_functions_take_finite_numbers_only(bad):
    with pytest.raises(ValueError, match="warner_q"):
        privacy.flip_probability_from_warner_q(bad)


def test_the_builder_reads_q_as_a_typed_number_and_shows_q_for_p():
    assert warner_flip_probability("0,3") == 0.15  # one rule for typed numbers
    assert warner_flip_probability("1,500") is None  # unclear: the draft keeps its p
    assert warner_flip_probability("abc") is None
    assert warner_q_shown(0.25) == "0.5"
    assert warner_q_shown(1 / 3) == "0.666667"
    assert warner_q_shown("0.2x") == warner_q_shown(None) == warner_q_shown(True) == ""


def test_no_template_or_page_script_computes_q_or_p_itself():
    """Only warner.js and survey_app.privacy hold the factor 2 of Warner's coins."""
    doubling = re.compile(r"\b2\s*\*|\*\s*2\b|/\s*2\b")
    # In templates (whose chart geometry halves widths): 2 p, p * 2 or q / 2.
    of_p = re.compile(r"\b2\s*\*\s*(p|\S*flip_prob\w*)\b|\b(q|\S*warner\w*)\s*/\s*2\b")
    for path in (ROOT / "templates").rglob("*.html"):
        for expression in re.findall(r"\{\{.*?\}\}|\{%.*?%\}", path.read_text(), re.DOTALL):
            assert not of_p.search(expression), (path.name, expression)
    assert of_p.search("{{ '%g'|format(2 * p) }}") and of_p.search("{{ warner_q / 2 }}")
    for path in (ROOT / "static" / "js").glob("*.js"):
        source = path.read_text(encoding="utf-8")
        if path.name == "warner.js" or "warner" not in source.lower():
            continue
        code = [line for line in source.splitlines() if not line.lstrip().startswith(("//", "*"))]
        assert not doubling.search("\n".join(code)), path.name
