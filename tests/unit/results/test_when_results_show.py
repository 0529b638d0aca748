"""When results show is one rule (releases.shows_results, releases.results_appear_at), said
once and true at every count, the same on the dashboard and on the projector.

The class arrives one student at a time; after each arrival both pages are read as their
owner reads them. What a page says about when results come must be true of what it shows: no
"Results include everyone" while no result shows, and the count it says results appear at is
the count they do appear at, said once on each page and the same on both.
"""

from __future__ import annotations

import re

import pytest

from survey_app.results.releases import MIN_ANSWERS_FOR_SHARES, results_appear_at
from tests.unit.results.test_results_api import submit

#: Varied answers (yes/no, then one of three options).
ROWS = [(index % 2, index % 3) for index in range(31)]
APPEAR = re.compile(r"appear once (\d+) people have answered")
INCLUDE = re.compile(r"(?:Results|The results below) include (everyone|[\d,]+ of)")


def tags_out(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def read_pages(client, slug: str) -> dict:
    """What each page shows of the results and what it says about them, as text."""
    state = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    panel = client.get(f"/analyst/surveys/{slug}/results-panel").get_data(as_text=True)
    projector_text = " ".join(
        [
            state["status_words"],
            state["summary_words"] or "",
            *(tags_out(question["html"]) for question in state["questions"]),
        ]
    )
    return {
        "projector shows": [bool(question.get("options")) for question in state["questions"]],
        "dashboard shows": '<svg class="chart"' in panel,
        "projector": projector_text,
        "dashboard": tags_out(panel),
        "answered": state["respondents"],
    }


@pytest.mark.parametrize("first_look", [0, MIN_ANSWERS_FOR_SHARES - 1], ids=["from 0", "late"])
@pytest.mark.parametrize("batch", [1, 5])
def test_the_words_on_when_results_show_are_true_at_every_count(
    app, client, survey, analyst, sign_in_as, batch, first_look
):
    """Read after every arrival, or first read only once 9 have answered (a release made then
    would put the results off to 9 + a batch, against what the page said before)."""
    app.config["RELEASE_BATCH"] = batch
    slug, _ = survey
    sign_in_as(client, analyst)
    promised, first_shown = set(), None
    submit(app, slug, ROWS[:first_look])
    for answered in range(first_look, len(ROWS)):
        if answered > first_look:
            submit(app, slug, ROWS[answered - 1 : answered])
        seen = read_pages(client, slug)
        assert seen["answered"] == answered
        shown = seen["dashboard shows"]
        # Every question shows, or none does, and both pages agree.
        assert seen["projector shows"] == [shown, shown], answered
        said = {page: APPEAR.findall(seen[page]) for page in ("projector", "dashboard")}
        included = {page: INCLUDE.findall(seen[page]) for page in ("projector", "dashboard")}
        if shown:
            first_shown = answered if first_shown is None else first_shown
            assert said == {"projector": [], "dashboard": []}, answered
            assert all(len(each) == 1 for each in included.values()), (answered, included)
        else:
            assert first_shown is None, f"results shown at {first_shown} went away at {answered}"
            assert included == {"projector": [], "dashboard": []}, (answered, included)
            # Said once on each page, the same count on both, and not yet reached.
            assert len(said["projector"]) == 1 and said["projector"] == said["dashboard"], said
            count = int(said["projector"][0])
            assert count > answered
            promised.add(count)
    # The count promised all along is the count the results appeared at.
    assert promised == {first_shown} == {results_appear_at(0, batch)} == {MIN_ANSWERS_FOR_SHARES}
