"""What a margin means is said from the figures planning uses (the true shares it plans at, the
confidence, the width past which a margin says nothing), not repeated by hand in a template."""

from __future__ import annotations

import html
import re
from pathlib import Path

from survey_app import privacy
from survey_app.planning import numbers as planning_numbers
from survey_app.planning import shares as planning

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"


def flat(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_dashboards_note_follows_the_planning_figures(monkeypatch):
    assert "30%, 50% or 70%" in planning.margin_meaning(0.95)
    assert "at least 95% of the time" in planning.margin_meaning(0.95)
    assert "±40 percentage points or more says next to nothing" in planning.margin_meaning(0.9)
    monkeypatch.setattr(privacy, "PLANNING_SHARES", (0.2, 0.5))
    monkeypatch.setattr(planning, "NEXT_TO_NOTHING", 0.35)
    words = planning.margin_meaning(0.9)
    assert "at a true share of 20% or 50%, whichever is widest" in words
    assert "at least 90% of the time" in words
    assert "A margin of ±35 percentage points or more says next to nothing" in words


def test_the_builders_note_follows_the_default_margin_and_confidence(monkeypatch):
    words = planning.builder_margin_meaning()
    assert words.startswith("Margins are at 95% confidence")
    assert "at least 95 times in 100" in words
    assert "(±10 percentage points around 40% means 30% to 50%)" in words
    monkeypatch.setattr(planning, "DEFAULT_MARGIN", 0.05)
    assert "(±5 percentage points around 40% means 35% to 45%)" in (
        planning.builder_margin_meaning()
    )


def test_the_pages_place_the_notes(signed_in, survey):
    slug, _ = survey
    dashboard = flat(signed_in.get(f"/analyst/surveys/{slug}?confidence=0.99").text)
    assert planning.margin_meaning(0.99) in dashboard
    builder = flat(signed_in.get("/analyst/surveys/new").text)
    assert planning.builder_margin_meaning() in builder


def test_no_template_writes_a_planning_figure_by_hand():
    """The sentences that name the planned shares, the planning confidence or the width that
    says nothing come from planning; a template writing them would drift from the figures."""
    next_to_nothing = round(planning_numbers.NEXT_TO_NOTHING * 100)
    by_hand = re.compile(
        rf"30%, 50%|Margins are at \d|±\s*{next_to_nothing} percentage points or more says next"
    )
    found = [
        str(path.relative_to(TEMPLATES))
        for path in TEMPLATES.rglob("*.html")
        if by_hand.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
