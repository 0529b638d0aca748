"""While a survey is open its owner sees results only in releases of several submissions.

The attack: read the results, let one student arrive, read again; the difference would be that
student's randomized answers. Every view its owner has (results JSON and CSV, pooled JSON, the
dashboard's results, the projector's state) is read after each arrival; what derives from
answers must change only when at least a batch of submissions has arrived since it last did.
Runs on SQLite, and on PostgreSQL in the second pass of CI.
"""

from __future__ import annotations

import re
import threading
import time
import uuid

import pytest

from survey_app.config import ConfigurationError, release_batch
from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.results.releases import shown_counts
from survey_app.surveys.services import close_survey, find_survey, open_survey
from tests.unit.results.test_results_api import bearer, new_token, submit

BATCH = 5
#: Varied answers (yes/no, then one of three options), so that any arrival changes the counts.
ROWS = [(index % 2, index % 3) for index in range(40)]
#: Everything on a page that derives from answers: shares, ranges and the charts drawn.
FIGURES = re.compile(r"-?\d+(?:\.\d+)?%|<svg class=\"chart\".*?</svg>", re.S)


@pytest.fixture
def token(app, analyst) -> str:
    return new_token(app, analyst)


def views(client, token: str, slugs: list[str]) -> dict[str, object]:
    """What the owner sees of the answers in each view, without the live count of arrivals."""
    slug = slugs[0]
    auth = bearer(token)
    document = client.get(f"/api/v1/surveys/{slug}/results", headers=auth).get_json()
    pooled = client.get(f"/api/v1/results?surveys={','.join(slugs)}", headers=auth).get_json()
    panel = client.get(f"/analyst/surveys/{slug}/results-panel").get_data(as_text=True)
    projector = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    return {
        "results JSON": {key: value for key, value in document.items() if key != "answered"},
        "pooled JSON": {key: value for key, value in pooled.items() if key != "answered"},
        "results CSV": client.get(f"/api/v1/surveys/{slug}/results.csv", headers=auth).data,
        "dashboard": FIGURES.findall(panel),
        "projector": [
            (question.get("options"), FIGURES.findall(question["html"]))
            for question in projector["questions"]
        ],
        "released": document["respondents"],
        "answered": document["answered"],
    }


def arrive_one_by_one(app, client, token, slugs, count: int) -> list[dict]:
    """Submit ``count`` answers to the first survey one at a time, reading every view after
    each; the views before the first and after each arrival."""
    seen = [views(client, token, slugs)]
    start = seen[0]["answered"]
    for row in ROWS[start : start + count]:
        submit(app, slugs[0], [row])
        seen.append(views(client, token, slugs))
    return seen


def assert_changes_only_in_releases(seen: list[dict], batch: int) -> int:
    """Every view changes only together with the release, by at least ``batch`` answers."""
    releases = 0
    for before, after in zip(seen, seen[1:], strict=False):
        assert after["answered"] == before["answered"] + 1  # the count is live
        released = after["released"] - before["released"]
        for view in ("results JSON", "pooled JSON", "results CSV", "dashboard", "projector"):
            if released == 0:
                assert after[view] == before[view], (view, after["answered"])
        if released:
            releases += 1
            assert released >= batch, (before["released"], after["released"])
            assert after["results JSON"] != before["results JSON"]
    return releases


def test_the_owners_views_change_only_in_releases(
    app, client, token, make_survey, analyst, sign_in_as
):
    (slug, _), (other, _) = make_survey(), make_survey()
    submit(app, other, ROWS[:12])
    submit(app, slug, ROWS[:10])
    sign_in_as(client, analyst)
    seen = arrive_one_by_one(app, client, token, [slug, other], 21)
    # From 10 answers: releases at 10 (the first read), 15, 20, 25 and 30.
    assert [view["released"] for view in seen[::5]] == [10, 15, 20, 25, 30]
    assert assert_changes_only_in_releases(seen, BATCH) == 4
    assert seen[-1]["dashboard"] and seen[-1]["projector"][0][0], "figures were shown"


def test_the_control_one_arrival_a_release_shows_its_answers(
    app, client, token, survey, analyst, sign_in_as
):
    """With releases of 1 (a demonstration), comparing two reads gives away each arrival's
    randomized answers: what the test above checks for can happen, and is seen."""
    app.config["RELEASE_BATCH"] = 1
    slug, _ = survey
    submit(app, slug, ROWS[:10])
    sign_in_as(client, analyst)
    seen = arrive_one_by_one(app, client, token, [slug], 6)
    assert assert_changes_only_in_releases(seen, 1) == 6
    with pytest.raises(AssertionError):
        assert_changes_only_in_releases(seen, BATCH)
    for index, (before, after) in enumerate(zip(seen, seen[1:], strict=False)):
        added = [
            [
                new["noisy_count"] - old["noisy_count"]
                for old, new in zip(q_before["options"], q_after["options"], strict=True)
            ]
            for q_before, q_after in zip(
                before["results JSON"]["questions"],
                after["results JSON"]["questions"],
                strict=True,
            )
        ]
        yes_no, choice = ROWS[10 + index]
        assert added == [[yes_no == 0, yes_no == 1], [choice == v for v in range(3)]]


def release_note(client, slug: str) -> str:
    panel = client.get(f"/analyst/surveys/{slug}/results-panel").get_data(as_text=True)
    found = re.search(r'<p class="small" id="release-note">(.*?)</p>', panel, re.S)
    return found.group(1) if found else ""


def test_words_say_what_the_results_hold(app, client, survey, analyst, sign_in_as):
    slug, _ = survey
    sign_in_as(client, analyst)
    submit(app, slug, ROWS[:3])
    assert release_note(client, slug) == (
        "The first results appear once 10 people have answered, then change with every 5 new "
        "answers, so that nobody’s answers can be picked out by watching them arrive."
    )
    state = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    assert state["summary_words"] == "Results appear once 10 people have answered."
    assert state["status_words"] == "Open: answer on your phone."
    submit(app, slug, ROWS[3:12])
    assert release_note(client, slug).startswith(
        "The results below include everyone who has answered; they update with every 5 new "
        "answers, so that"
    )
    submit(app, slug, ROWS[12:15])
    panel = client.get(f"/analyst/surveys/{slug}/results-panel").get_data(as_text=True)
    assert '<strong id="respondent-count">15</strong>' in panel
    assert release_note(client, slug).startswith(
        "The results below include 12 of the 15 people who have answered;"
    )
    assert release_note(client, slug).endswith("and show everyone when you close the survey.")
    state = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    assert state["respondents_words"] == "15 people have answered"
    assert state["status_words"] == (
        "Open: answer on your phone. Results include 12 of 15 people; they update every 5 answers."
    )
    close_survey_now(app, slug)
    assert release_note(client, slug) == ""


def close_survey_now(app, slug: str) -> None:
    with app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()


def test_closing_shows_everything_and_reopening_waits_for_a_batch(app, client, token, survey):
    slug, _ = survey
    submit(app, slug, ROWS[:13])
    document = client.get(f"/api/v1/surveys/{slug}/results", headers=bearer(token)).get_json()
    assert (document["respondents"], document["answered"]) == (13, 13)
    submit(app, slug, ROWS[13:16])
    close_survey_now(app, slug)
    closed = client.get(f"/api/v1/surveys/{slug}/results", headers=bearer(token)).get_json()
    assert (closed["respondents"], closed["answered"]) == (16, 16)
    with app.app_context():
        open_survey(find_survey(slug))
        db.session.commit()
    submit(app, slug, ROWS[16:20])
    reopened = client.get(f"/api/v1/surveys/{slug}/results", headers=bearer(token)).get_json()
    assert (reopened["respondents"], reopened["answered"]) == (16, 20)
    assert reopened["questions"] == closed["questions"]
    submit(app, slug, ROWS[20:21])
    later = client.get(f"/api/v1/surveys/{slug}/results", headers=bearer(token)).get_json()
    assert (later["respondents"], later["answered"]) == (21, 21)


def test_responses_csv_waits_for_the_survey_to_close(app, client, token, survey, analyst):
    slug, _ = survey
    submit(app, slug, ROWS[:7])
    refused = client.get(f"/api/v1/surveys/{slug}/responses.csv", headers=bearer(token))
    assert refused.status_code == 409
    assert refused.get_json()["code"] == "survey_not_closed"
    assert "once the survey closes" in refused.get_json()["error"]
    close_survey_now(app, slug)
    exported = client.get(f"/api/v1/surveys/{slug}/responses.csv", headers=bearer(token))
    assert exported.status_code == 200
    assert exported.get_data(as_text=True).count("\r\n") == 1 + 7


def test_the_dashboard_offers_responses_csv_only_once_closed(
    app, client, survey, analyst, sign_in_as
):
    slug, _ = survey
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    assert 'id="download-responses"' not in page
    assert 'id="responses-after-closing"' in page
    close_survey_now(app, slug)
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    assert 'id="download-responses"' in page


def test_views_arriving_together_make_one_release_a_batch_apart(app, survey):
    """Readers racing submissions: every release any of them sees is a batch after the last.

    Without deciding again under the lock on the survey's row, two readers would each find a
    release due and make two, a submission or two apart (seen here on SQLite when the second
    look was taken out)."""
    slug, question_ids = survey
    seen: set[int] = set()
    errors: list[BaseException] = []
    done = threading.Event()

    def read() -> None:
        try:
            while not done.is_set():
                with app.app_context():
                    seen.add(shown_counts(find_survey(slug)).respondents)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)
            done.set()

    readers = [threading.Thread(target=read) for _ in range(4)]
    for reader in readers:
        reader.start()
    try:
        for index in range(60):
            with app.app_context():
                answers = {str(question_ids[0]): index % 2, str(question_ids[1]): index % 3}
                record_submission(slug, {"submission_id": str(uuid.uuid4()), "answers": answers})
            time.sleep(0.01)  # pacing, so that the readers look between arrivals
    finally:
        done.set()
        for reader in readers:
            reader.join()
    assert not errors, errors
    releases = sorted(seen)
    assert len(releases) >= 3  # the readers did see releases come
    gaps = [later - earlier for earlier, later in zip(releases, releases[1:], strict=False)]
    assert min(gaps) >= BATCH, releases


@pytest.mark.parametrize(("raw", "batch"), [(None, 5), ("", 5), ("1", 1), (" 12 ", 12)])
def test_the_release_batch_setting(raw, batch):
    assert release_batch(raw) == batch


@pytest.mark.parametrize("raw", ["0", "-3", "five", "2.5", "10001"])
def test_a_bad_release_batch_is_refused_naming_the_setting(raw):
    with pytest.raises(ConfigurationError, match="SURVEY_APP_RELEASE_BATCH must be a whole"):
        release_batch(raw)


def test_the_default_batch_is_five(app):
    assert app.config["RELEASE_BATCH"] == BATCH


def closed_results(client, token: str, slug: str) -> dict:
    return client.get(f"/api/v1/surveys/{slug}/results", headers=bearer(token)).get_json()


def reopen_now(app, slug: str) -> None:
    with app.app_context():
        open_survey(find_survey(slug))
        db.session.commit()


def test_closing_and_reopening_for_one_arrival_shows_nothing_new(
    app, client, token, survey, analyst, sign_in_as
):
    """The owner closes, reopens for one student, closes again: the second closing shows the
    first one's results, and no export, until a batch of new answers has come in."""
    slug, _ = survey
    submit(app, slug, ROWS[:12])
    close_survey_now(app, slug)
    first = closed_results(client, token, slug)
    assert first["respondents"] == 12
    for arrival in range(4):  # one student at a time, closing after each
        reopen_now(app, slug)
        submit(app, slug, ROWS[12 + arrival : 13 + arrival])
        close_survey_now(app, slug)
        again = closed_results(client, token, slug)
        assert (again["respondents"], again["answered"]) == (12, 13 + arrival)
        assert again["questions"] == first["questions"]
        export = client.get(f"/api/v1/surveys/{slug}/responses.csv", headers=bearer(token))
        assert export.status_code == 409 and export.get_json()["code"] == "results_held"
    sign_in_as(client, analyst)
    note = release_note(client, slug)
    assert note.startswith("You reopened this survey and closed it again before 5 new answers")
    assert "still show the 12 people who had answered before" in note
    # The fifth new answer makes a batch: closing then shows them all.
    reopen_now(app, slug)
    submit(app, slug, ROWS[16:17])
    close_survey_now(app, slug)
    final = closed_results(client, token, slug)
    assert (final["respondents"], final["answered"]) == (17, 17)
    export = client.get(f"/api/v1/surveys/{slug}/responses.csv", headers=bearer(token))
    assert export.status_code == 200
    assert release_note(client, slug) == ""


def test_a_request_that_writes_makes_its_release_in_its_own_transaction(
    app, client, survey, analyst, sign_in_as, monkeypatch
):
    """A page that writes and then shows results (a refused request for codes renders the
    dashboard) releases within its own write transaction, not in a second one that would wait
    for it (SQLite's write lock)."""
    from survey_app.storage import database

    slug, _ = survey
    sign_in_as(client, analyst)
    submit(app, slug, ROWS[:12])
    monkeypatch.setattr(database, "SQLITE_BUSY_TIMEOUT_MS", 200)
    with app.test_request_context(method="POST"):
        database.begin_session_writes()
        assert database.session_writes()
        shown = shown_counts(find_survey(slug))
        db.session.commit()
    assert shown.respondents == 12
    with app.app_context():
        assert find_survey(slug).released_respondents == 12
