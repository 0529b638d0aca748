"""One owner for "the number who answered": a page view reads the tallies once.

The count of those who answered comes from the tallies the results are computed from
(survey_app.results.releases.respondents_in); the dashboard and the projector's state must not read
the tallies again for it. The statements sent to the database are counted with SQLAlchemy's
``before_cursor_execute`` event.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import event

from survey_app.extensions import db
from tests.unit.results.test_results_api import submit

ROWS = [(1, 0), (0, 2), (1, 1), (0, 0), (1, 2), (1, 0), (0, 1)]
#: A statement that reads the live tallies: ``FROM tallies`` or a join on them (the release's
#: copy into released_tallies reads them too, but only when a release is due).
READS_TALLIES = re.compile(r"\b(FROM|JOIN)\s+tallies\b", re.IGNORECASE)


@pytest.fixture
def tally_reads(app):
    """The statements run while the block runs that read the live tallies."""

    class Recorder:
        def __init__(self):
            self.statements: list[str] = []

        def __enter__(self):
            with app.app_context():
                self.engine = db.engine
            event.listen(self.engine, "before_cursor_execute", self.record)
            return self

        def __exit__(self, *exc):
            event.remove(self.engine, "before_cursor_execute", self.record)

        def record(self, conn, cursor, statement, parameters, context, executemany):
            if READS_TALLIES.search(statement):
                self.statements.append(statement)

    return Recorder


@pytest.mark.parametrize("status", ["open", "closed"])
def test_one_dashboard_render_reads_the_tallies_once(
    app, client, make_survey, analyst, sign_in_as, tally_reads, status
):
    slug, _ = make_survey()
    submit(app, slug, ROWS)
    if status == "closed":
        client_close(app, slug)
    sign_in_as(client, analyst)
    client.get(f"/analyst/surveys/{slug}")  # a release, if one is due, is made here
    with tally_reads() as reads:
        page = client.get(f"/analyst/surveys/{slug}")
    assert page.status_code == 200
    assert len(reads.statements) == 1, reads.statements
    assert f"{len(ROWS)} " in page.get_data(as_text=True)


def test_a_pooled_dashboard_reads_each_surveys_tallies_once(
    app, client, make_survey, analyst, sign_in_as, tally_reads
):
    first, _ = make_survey()
    second, _ = make_survey()
    submit(app, first, ROWS)
    submit(app, second, ROWS[:3])
    sign_in_as(client, analyst)
    url = f"/analyst/surveys/{first}?pool={second}"
    client.get(url)  # releases, if due, are made here
    with tally_reads() as reads:
        page = client.get(url)
    assert page.status_code == 200
    assert 'id="pooled-summary"' in page.get_data(as_text=True)
    assert len(reads.statements) == 2, reads.statements


def test_one_projector_poll_reads_the_tallies_once(
    app, client, make_survey, analyst, sign_in_as, tally_reads
):
    slug, _ = make_survey()
    submit(app, slug, ROWS)
    sign_in_as(client, analyst)
    url = f"/analyst/surveys/{slug}/present/state"
    client.get(url)  # a release, if one is due, is made here
    with tally_reads() as reads:
        state = client.get(url)
    assert state.status_code == 200
    assert state.get_json()["respondents"] == len(ROWS)
    assert len(reads.statements) == 1, reads.statements
    # ... and so does a poll that finds nothing changed (304).
    with tally_reads() as reads:
        unchanged = client.get(url, headers={"If-None-Match": state.headers["ETag"]})
    assert unchanged.status_code == 304
    assert len(reads.statements) == 1, reads.statements


@pytest.mark.parametrize(
    ("page_url", "archived"), [("/analyst/", False), ("/analyst/archived", True)]
)
def test_a_list_of_surveys_reads_the_tallies_once_however_many_surveys(
    app, client, make_survey, analyst, sign_in_as, tally_reads, page_url, archived
):
    from survey_app.surveys.services import archive_survey, close_survey, find_survey

    slugs = [make_survey()[0] for _ in range(3)]
    for count, slug in enumerate(slugs, start=1):
        submit(app, slug, ROWS[:count])
        if archived:
            with app.app_context():
                close_survey(find_survey(slug))
                archive_survey(find_survey(slug))
                db.session.commit()
    sign_in_as(client, analyst)
    with tally_reads() as reads:
        page = client.get(page_url)
    assert page.status_code == 200
    counts = re.findall(r'<td class="num">(\d+)</td>', page.get_data(as_text=True))
    assert sorted(map(int, counts)) == [1, 2, 3]
    assert len(reads.statements) == 1, reads.statements


def client_close(app, slug: str) -> None:
    from survey_app.surveys.services import close_survey, find_survey

    with app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()
