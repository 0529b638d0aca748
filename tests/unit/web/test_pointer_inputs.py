"""What the pages' scripts listen to: single clicks and keys, never a gesture, a down event or
the device's motion (WCAG 2.1 2.5.1 Pointer gestures, 2.5.2 Pointer cancellation, 2.5.4 Motion
actuation; docs/accessibility.md cites this test, and tests/browser/test_accessibility.py
presses every control of the pages and lets go off it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPTS = sorted((ROOT / "static" / "js").rglob("*.js"))
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))

#: The events the pages' scripts may listen to, each with why it asks no gesture, acts on no
#: down event and needs no motion of the device.
ALLOWED = {
    "click": "a single press and release on the same control (the up event), or Enter or Space",
    "change": "a field's value chosen",
    "input": "a field's value typed",
    "submit": "a form sent (by its button's click or Enter)",
    "keydown": "a key (the projector's and the lesson's arrows and PageUp/PageDown)",
    "visibilitychange": "the page hidden or shown again (a phone locked, a tab changed)",
}

#: An event listened to: ``addEventListener("name"``.
LISTENER = re.compile(r"addEventListener\(\s*([\"'`])(\w+)\1")
#: A listener given in any other way: ``addEventListener(name``, ``element.onclick =``.
OTHER_LISTENER = re.compile(r"addEventListener\(\s*[^\"'`\s]|\.on[a-z]+\s*=[^=]")
#: A handler written into a page: ``<button onclick="...">``.
INLINE_HANDLER = re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.I)


def events(source: str) -> set[str]:
    return {match.group(2) for match in LISTENER.finditer(source)}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_a_script_listens_only_to_clicks_keys_and_fields(script):
    source = script.read_text(encoding="utf-8")
    assert events(source) <= set(ALLOWED), events(source) - set(ALLOWED)
    assert OTHER_LISTENER.findall(source) == []


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_page_writes_a_handler_into_its_html(template):
    assert INLINE_HANDLER.findall(template.read_text(encoding="utf-8")) == []


def test_the_scripts_listen_to_something_and_the_check_sees_what_it_should_not_allow():
    assert set().union(*(events(path.read_text(encoding="utf-8")) for path in SCRIPTS)) >= {
        "click",
        "keydown",
    }
    for forbidden in (
        'card.addEventListener("touchstart", swipe)',
        "button.addEventListener('pointerdown', act)",
        'window.addEventListener("devicemotion", shake)',
        'addEventListener("mousedown", act)',
    ):
        assert not events(forbidden) <= set(ALLOWED), forbidden
    assert OTHER_LISTENER.findall("button.onmousedown = act;") != []
    assert OTHER_LISTENER.findall("target.addEventListener(kind, act)") != []
    assert OTHER_LISTENER.findall("if (a.onclick == null) {}") == []
    assert INLINE_HANDLER.findall('<button type="button" onpointerdown="go()">Go</button>') != []
