"""The projector's page turning (static/js/projector-pages.js) under Node: which key turns
which way (a clicker's PageUp/PageDown, the arrows, Home and End), what keys stay with a
field or a button, the wrap from the last page to the first, and which page a redraw keeps.
The pages themselves are the server's (survey_app/classroom/projector_pages.py:
test_projector_pages)."""

from __future__ import annotations

import json

from tests.unit.node_scripts import js_module, run_node_script

#: (key, modifiers, target tag) -> the turn the page makes.
KEY_CASES = [
    ("PageDown", {}, "BODY", 1),
    ("PageUp", {}, "BODY", -1),
    ("ArrowRight", {}, "BODY", 1),
    ("ArrowDown", {}, "A", 1),
    ("ArrowLeft", {}, "BODY", -1),
    ("ArrowUp", {}, "BODY", -1),
    ("Home", {}, "BODY", "first"),
    ("End", {}, "BODY", "last"),
    ("Enter", {}, "BODY", None),
    ("a", {}, "BODY", None),
    ("PageDown", {"altKey": True}, "BODY", None),
    ("ArrowRight", {"ctrlKey": True}, "BODY", None),
    ("ArrowLeft", {"shiftKey": True}, "BODY", None),
    ("ArrowRight", {}, "INPUT", None),
    ("PageDown", {}, "BUTTON", None),
    ("ArrowDown", {}, "SELECT", None),
    # A question that scrolls inside itself keeps the keys that scroll it, not the others.
    ("ArrowDown", {"dataset": {"ownKeys": ""}}, "SECTION", None),
    ("ArrowUp", {"dataset": {"ownKeys": ""}}, "SECTION", None),
    ("PageDown", {"dataset": {"ownKeys": ""}}, "SECTION", 1),
    ("ArrowRight", {"dataset": {"ownKeys": ""}}, "SECTION", 1),
]

#: (page index, turn, page count) -> the page it leads to.
TURN_CASES = [
    (0, 1, 3, 1),
    (2, 1, 3, 0),
    (0, -1, 3, 2),
    (1, -1, 3, 0),
    (1, "first", 3, 0),
    (0, "last", 3, 2),
    (0, 1, 1, 0),
    (0, 1, 0, 0),
]

PAGES = [{"columns": [[1, 2], [3]]}, {"columns": [[4]]}, {"columns": [[5], [6, 7]]}]
#: (question read, pages) -> the page that holds it.
HOLDING_CASES = [(1, 0), (3, 0), (4, 1), (7, 2), (99, 0)]


def test_keys_turns_and_the_page_a_redraw_keeps(tmp_path):
    events = [
        {
            "key": key,
            "target": {"tagName": tag, **{k: v for k, v in modifiers.items() if k == "dataset"}},
            **{k: v for k, v in modifiers.items() if k != "dataset"},
        }
        for key, modifiers, tag, _ in KEY_CASES
    ]
    source = f"""
    import {{ pageHolding, turnFor, turned }} from "{js_module("projector-pages.js")}";
    const events = {json.dumps(events)};
    const turns = {json.dumps([case[:3] for case in TURN_CASES])};
    const pages = {json.dumps(PAGES)};
    const held = {json.dumps([case[0] for case in HOLDING_CASES])};
    console.log(JSON.stringify({{
      keys: events.map(turnFor),
      turns: turns.map(([index, turn, count]) => turned(index, turn, count)),
      holding: held.map((question) => pageHolding(pages, question)),
      editable: turnFor({{ key: "PageDown", target: {{ isContentEditable: true }} }}),
    }}));
    """
    found = run_node_script(tmp_path, source)
    assert found["keys"] == [case[3] for case in KEY_CASES]
    assert found["turns"] == [case[3] for case in TURN_CASES]
    assert found["holding"] == [case[1] for case in HOLDING_CASES]
    assert found["editable"] is None
