"""The projector's last-resort fit (static/js/projector-fit.js) under Node: given a card's
measured content and box heights, the next smaller scale; none when it fits, and never below
the smallest words (then the card scrolls inside itself)."""

from __future__ import annotations

import json

from survey_app.classroom.projector_pages import FIT_STEPS
from tests.unit.node_scripts import js_module, run_node_script

#: (scale, content height, box height) -> what the next scale must be.
CASES = [
    (1.0, 500, 500, None),  # fits
    (1.0, 400, 500, None),
    (1.0, 510, 500, "smaller"),  # a sliver over: at least one step
    (1.0, 1000, 500, "smaller"),
    (1.0, 10_000, 500, "smallest"),  # far over: straight to the smallest
    (0.68, 1000, 500, None),  # already the smallest: it scrolls
    (0.7, 1000, 500, "smallest"),
    (1.0, 100, 0, None),  # a box not laid out
]


def test_the_next_scale_is_smaller_and_never_below_the_smallest(tmp_path):
    source = f"""
    import {{ SMALLEST_FIT, smallerScale }} from "{js_module("projector-fit.js")}";
    const cases = {json.dumps([case[:3] for case in CASES])};
    console.log(JSON.stringify({{
      smallest: SMALLEST_FIT,
      next: cases.map(([scale, content, box]) => smallerScale(scale, content, box)),
    }}));
    """
    found = run_node_script(tmp_path, source)
    assert found["smallest"] == FIT_STEPS[-1], "one smallest scale, in Python and in JS"
    for (scale, _, _, want), got in zip(CASES, found["next"], strict=True):
        if want is None:
            assert got is None
        elif want == "smallest":
            assert got == found["smallest"]
        else:
            assert found["smallest"] <= got <= scale - 0.05
