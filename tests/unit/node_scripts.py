"""Running the browser's ES modules (static/js/) under Node, for tests of their logic.

A check writes a small .mjs script that imports modules by their file URLs (:func:`js_module`)
and prints one JSON document; the test compares it with Python's answers.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from survey_app.web.page_words import page_words

STATIC_JS = Path(__file__).resolve().parents[2] / "static" / "js"


def js_module(name: str) -> str:
    """The file URL of ``static/js/<name>``, for an ``import`` in a Node script."""
    return (STATIC_JS / name).as_uri()


def run_node_script(tmp_path: Path, source: str, words: dict | None = None) -> object:
    """Run ``source`` as an ES module under Node; return the JSON it printed. The scripts speak
    from ``words`` (a page's catalog: survey_app.web.page_words), English unless given."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (Node.js 20) is not on PATH; it is needed to test the browser modules")
    script = tmp_path / "check.mjs"
    catalog = page_words() if words is None else words
    speaking = (
        f'import {{ useWords }} from "{js_module("page-words.js")}";\n'
        f"useWords({json.dumps(catalog)});\n"
    )
    script.write_text(speaking + source, encoding="utf-8")
    completed = subprocess.run(
        [node, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)
