"""One-time codes: issued once and kept only as hashes; one submission per code, atomically.

Runs on SQLite, and on PostgreSQL in CI's second pass (the submission statement differs).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import threading
import uuid
from html.parser import HTMLParser

import pytest
from sqlalchemy import func, inspect, select

from survey_app.accounts.services import create_analyst
from survey_app.classroom import codes
from survey_app.extensions import db
from survey_app.storage.database import forget_arrival_order
from survey_app.storage.models import JOIN_CODE_ALPHABET, OneTimeCode, Submission, Survey
from survey_app.surveys.services import close_survey, find_survey


def post_json(client, slug: str, body: object):
    return client.post(
        f"/api/v1/surveys/{slug}/responses", data=json.dumps(body), content_type="application/json"
    )


def submission(question_ids: list[int], code: str | None, submission_id: str | None = None):
    body = {
        "submission_id": submission_id or str(uuid.uuid4()),
        "answers": {str(question_ids[0]): 1, str(question_ids[1]): 2},
    }
    if code is not None:
        body["code"] = code
    return body


@pytest.fixture
def coded_survey(app, make_survey, runner):
    """An open survey requiring codes: (slug, question ids, five codes as printed)."""
    slug, question_ids = make_survey(status="draft")
    result = runner.invoke(args=["issue-codes", slug, "5"])
    assert result.exit_code == 0, result.output
    printed = result.stdout.strip().splitlines()
    with app.app_context():
        join_code = find_survey(slug).join_code
    # The join code goes with the codes on the slips: said on standard error (standard
    # output is the codes alone).
    assert f"Join code: {join_code}" in result.stderr
    assert runner.invoke(args=["open-survey", slug]).exit_code == 0
    return slug, question_ids, printed


def stored_rows(app) -> tuple[int, list[tuple]]:
    with app.app_context():
        count = db.session.execute(select(func.count()).select_from(Submission)).scalar_one()
        rows = db.session.execute(select(OneTimeCode.code_sha256, OneTimeCode.used_on)).all()
        return count, sorted(rows)


def test_the_command_prints_codes_once_and_the_database_keeps_only_their_hashes(app, coded_survey):
    slug, _, printed = coded_survey
    assert len(printed) == len(set(printed)) == 5
    for code in printed:
        assert len(code) == 11 and code[5] == "-"
        assert all(char in JOIN_CODE_ALPHABET for char in code.replace("-", ""))
    with app.app_context():
        survey = find_survey(slug)
        assert survey.requires_codes and survey.join_code
        stored = db.session.execute(
            select(OneTimeCode.code_sha256).where(OneTimeCode.survey_id == survey.id)
        ).scalars()
        assert sorted(stored) == sorted(
            hashlib.sha256(code.replace("-", "").encode()).hexdigest() for code in printed
        )
    # No column of any table holds a code as printed or as stored.
    with app.app_context(), db.engine.connect() as connection:
        for table in inspect(connection).get_table_names():
            dump = repr(connection.exec_driver_sql(f"SELECT * FROM {table}").all())
            for code in printed:
                assert code not in dump and code.replace("-", "") not in dump, table


def test_the_used_code_table_has_no_submission_id_and_no_time_finer_than_the_day(app):
    with app.app_context(), db.engine.connect() as connection:
        columns = {
            column["name"]: str(column["type"]).upper()
            for column in inspect(connection).get_columns("one_time_codes")
        }
    assert set(columns) == {"survey_id", "code_sha256", "used_on"}
    assert columns["used_on"] == "DATE"


def test_a_code_answers_once_and_a_retry_of_its_submission_is_still_200(app, client, coded_survey):
    slug, question_ids, printed = coded_survey
    first = submission(question_ids, printed[0])
    assert post_json(client, slug, first).status_code == 201
    retry = post_json(client, slug, first)
    assert retry.status_code == 200, retry.get_json()
    again = post_json(client, slug, submission(question_ids, printed[0]))
    assert again.status_code == 409
    assert again.get_json()["code"] == "code_used"
    count, rows = stored_rows(app)
    assert count == 1
    assert sum(used_on is not None for _, used_on in rows) == 1
    with app.app_context():
        survey = find_survey(slug)
        assert survey.respondents == 1  # counted once


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (None, "code_required"),
        ("", "code_required"),
        ("ABCDE", "code_invalid"),
        ("ABCDE-FGHJ0", "code_invalid"),  # 0 is not in the alphabet
        ("AAAAA-AAAAA", "code_invalid"),  # well formed, never issued
        (12345, "code_invalid"),
        (["ABCDE-FGHJK"], "code_invalid"),
    ],
)
def test_a_submission_without_a_valid_code_is_refused_and_stores_nothing(
    app, client, coded_survey, code, reason
):
    slug, question_ids, _ = coded_survey
    before = stored_rows(app)
    body = submission(question_ids, None)
    if code is not None:
        body["code"] = code
    response = post_json(client, slug, body)
    assert response.status_code == 403
    assert response.get_json()["code"] == reason
    assert stored_rows(app) == before


def test_a_code_is_read_in_any_case_with_spaces_or_dashes(app, client, coded_survey):
    slug, question_ids, printed = coded_survey
    typed = " " + printed[1].lower().replace("-", " ") + " "
    assert post_json(client, slug, submission(question_ids, typed)).status_code == 201
    # Pasted from a chat: a non-breaking space where the dash was, full-width letters.
    pasted = (
        printed[2]
        .replace("-", "\u00a0")
        .translate({ord(char): ord(char) + 0xFEE0 for char in "ACDEFHJKMNPQRTWXY"})
    )
    assert pasted != printed[2]
    assert post_json(client, slug, submission(question_ids, pasted)).status_code == 201


def test_a_code_of_another_survey_is_refused(app, client, coded_survey, make_survey, runner):
    slug, question_ids, _ = coded_survey
    other, _ = make_survey(status="draft")
    other_codes = runner.invoke(args=["issue-codes", other, "1"]).stdout.split()
    response = post_json(client, slug, submission(question_ids, other_codes[0]))
    assert (response.status_code, response.get_json()["code"]) == (403, "code_invalid")


def test_a_survey_without_codes_ignores_a_code(client, survey):
    slug, question_ids = survey
    assert post_json(client, slug, submission(question_ids, "ABCDE-FGHJK")).status_code == 201


def test_the_public_definition_and_the_page_say_a_code_is_needed(client, coded_survey, survey):
    slug, _, _ = coded_survey
    assert client.get(f"/api/v1/surveys/{slug}").get_json()["requires_code"] is True
    assert 'id="one-time-code"' in client.get(f"/s/{slug}").get_data(as_text=True)
    plain, _ = survey
    assert client.get(f"/api/v1/surveys/{plain}").get_json()["requires_code"] is False
    assert 'id="one-time-code"' not in client.get(f"/s/{plain}").get_data(as_text=True)


def test_a_survey_that_opened_without_codes_cannot_start_taking_them(app, runner, survey):
    slug, _ = survey
    result = runner.invoke(args=["issue-codes", slug, "3"])
    assert result.exit_code == 2
    assert "opened without one-time codes" in result.stderr
    with app.app_context():
        assert not find_survey(slug).requires_codes
        assert db.session.execute(select(func.count()).select_from(OneTimeCode)).scalar() == 0


@pytest.mark.parametrize(("typed", "count"), [("40", 40), (" 1,000 ", 1000), ("1 000", 1000)])
def test_a_number_of_codes_is_read_as_a_class_size_is(typed, count):
    # One rule for the counts a professor types (typed_numbers.typed_count): the pages write
    # "2,000", so "1,000" is a thousand, for codes as for students.
    assert codes.parse_code_count(typed) == count


@pytest.mark.parametrize("count", ["0", "2001", "99999999", "ten", "1.5", "٣", "1.000", "9" * 5000])
def test_a_bad_number_of_codes_is_refused_in_one_line(runner, make_survey, count):
    slug, _ = make_survey(status="draft")
    result = runner.invoke(args=["issue-codes", slug, count])
    assert result.exit_code == 2
    assert "number of codes" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_two_submissions_with_one_code_at_once_store_exactly_one(app, coded_survey):
    slug, question_ids, printed = coded_survey
    statuses: list[int] = []
    start = threading.Barrier(2)

    def submit() -> None:
        client = app.test_client()
        start.wait(timeout=30)
        statuses.append(post_json(client, slug, submission(question_ids, printed[2])).status_code)

    workers = [threading.Thread(target=submit, daemon=True) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)  # a liveness bound, not a speed target
    assert sorted(statuses) == [201, 409]
    count, rows = stored_rows(app)
    assert count == 1 and sum(used_on is not None for _, used_on in rows) == 1


def test_closing_rewrites_used_codes_so_their_order_of_use_is_gone(app, client, coded_survey):
    slug, question_ids, printed = coded_survey
    with app.app_context(), db.engine.connect() as connection:
        if connection.dialect.name == "postgresql":
            # The worker's database served earlier tests: their rows' space, freed by VACUUM,
            # would take rewritten rows wherever the free space map says, in any order. A
            # compact table shows the order the rewrite itself writes.
            autocommit = connection.execution_options(isolation_level="AUTOCOMMIT")
            autocommit.exec_driver_sql("VACUUM FULL one_time_codes")
    for code in printed:
        assert post_json(client, slug, submission(question_ids, code)).status_code == 201
    with app.app_context():
        forget_arrival_order(find_survey(slug).id)
        with db.engine.connect() as connection:
            if connection.dialect.name == "postgresql":
                stored = connection.exec_driver_sql(
                    "SELECT code_sha256 FROM one_time_codes ORDER BY ctid"
                ).scalars()
                writers = connection.exec_driver_sql(
                    "SELECT count(DISTINCT xmin::text) FROM one_time_codes"
                ).scalar()
                assert writers == 1
            else:
                stored = connection.exec_driver_sql(
                    "SELECT code_sha256 FROM one_time_codes"
                ).scalars()
            stored = list(stored)
            assert stored == sorted(stored)


# --------------------------------------------------------------------------- the dashboard

CSRF_FIELD = re.compile(r'name="csrf_token"[^>]*?value="([^"]+)"')


def csrf_token(client) -> str:
    return CSRF_FIELD.search(client.get("/analyst/").get_data(as_text=True)).group(1)


def post_form(client, path: str, **fields):
    return client.post(path, data={"csrf_token": csrf_token(client), **fields})


def test_the_professor_requires_codes_issues_slips_and_csv(app, client, sign_in_as, make_survey):
    slug, _ = make_survey(status="draft")
    sign_in_as(client, "prof@example.edu")
    page = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    assert 'id="require-codes"' in page
    assert (
        post_form(client, f"/analyst/surveys/{slug}/codes/required", required="1").status_code
        == 302
    )
    with app.app_context():
        assert find_survey(slug).requires_codes

    assert client.post(f"/analyst/surveys/{slug}/codes", data={"count": "3"}).status_code == 400
    slips = post_form(client, f"/analyst/surveys/{slug}/codes", count="3", format="slips")
    assert slips.status_code == 200
    assert slips.headers["Cache-Control"] == "no-store"
    html = slips.get_data(as_text=True)
    assert html.count('class="slip"') == 3
    sheet = post_form(client, f"/analyst/surveys/{slug}/codes", count="2", format="csv")
    assert sheet.mimetype == "text/csv"
    # Named by the survey's title and the day (survey_app.web.file_names), never by its slug.
    assert sheet.headers["Content-Disposition"] == (
        f'attachment; filename="academic-integrity-sample-{dt.date.today()}-one-time-codes.csv"'
    )
    lines = sheet.get_data(as_text=True).splitlines()
    assert lines[0] == "\ufeffcode" and len(lines) == 3
    with app.app_context():
        survey = find_survey(slug)
        hashes = set(
            db.session.execute(
                select(OneTimeCode.code_sha256).where(OneTimeCode.survey_id == survey.id)
            ).scalars()
        )
        join_code = survey.join_code
    assert len(hashes) == 5
    for code in lines[1:]:
        assert codes.code_sha256(code.replace("-", "")) in hashes
        assert code not in html  # each code is shown once, in its own response
    # Each slip's QR code carries its code in the fragment of the join link.
    assert f"/j/{join_code}#code=" not in html  # only inside the SVG's drawing, not as text
    dashboard = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    assert 'id="issue-codes"' in dashboard and "<strong>5</strong> codes issued" in dashboard


def issued_count(app, slug: str) -> int:
    with app.app_context():
        survey_id = find_survey(slug).id
        return db.session.execute(
            select(func.count()).select_from(OneTimeCode).where(OneTimeCode.survey_id == survey_id)
        ).scalar()


def test_a_reloaded_slips_page_issues_no_second_batch(app, client, sign_in_as, make_survey):
    """The browser's "send the form again?" on the slips page: the codes were issued and shown
    once; the dashboard says so instead of issuing as many again."""
    slug, _ = make_survey(status="draft")
    sign_in_as(client, "prof@example.edu")
    post_form(client, f"/analyst/surveys/{slug}/codes/required", required="1")
    dashboard = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    batch = re.search(r'name="batch" value="([^"]+)"', dashboard).group(1)
    fields = {"count": "4", "format": "slips", "batch": batch}
    first = post_form(client, f"/analyst/surveys/{slug}/codes", **fields)
    assert first.status_code == 200 and first.get_data(as_text=True).count('class="slip"') == 4
    again = post_form(client, f"/analyst/surveys/{slug}/codes", **fields)
    assert again.status_code == 302 and again.headers["Location"].endswith(f"/surveys/{slug}")
    shown = client.get(again.headers["Location"]).text  # the message, at the page's top
    assert "codes are shown only once. If you did not print or save them" in shown
    assert issued_count(app, slug) == 4
    # A new visit to the dashboard names a new batch: issuing more works.
    dashboard = client.get(f"/analyst/surveys/{slug}").get_data(as_text=True)
    other = re.search(r'name="batch" value="([^"]+)"', dashboard).group(1)
    assert other != batch
    more = post_form(client, f"/analyst/surveys/{slug}/codes", **{**fields, "batch": other})
    assert more.status_code == 200 and issued_count(app, slug) == 8


def test_slips_carry_no_qr_code_of_a_bare_path(app, client, sign_in_as, make_survey):
    """Reached by a name that is not loopback, without SURVEY_APP_PUBLIC_URL: the slips (on
    paper, so worse than a screen) carry no QR code of a path, and the page says why."""
    slug, _ = make_survey(status="draft")
    sign_in_as(client, "prof@example.edu")
    post_form(client, f"/analyst/surveys/{slug}/codes/required", required="1")
    hall = app.test_client()
    hall.set_cookie("session", client.get_cookie("session").value, domain="lecture-hall.example")
    page = hall.get(f"/analyst/surveys/{slug}", base_url="http://lecture-hall.example").text
    token = CSRF_FIELD.search(page).group(1)
    slips = hall.post(
        f"/analyst/surveys/{slug}/codes",
        data={"csrf_token": token, "count": "2", "format": "slips"},
        base_url="http://lecture-hall.example",
    ).get_data(as_text=True)
    assert slips.count('class="slip"') == 2
    assert "<svg" not in slips and 'id="slips-address-missing"' in slips
    app.config["PUBLIC_URL"] = "https://surveys.example.edu"
    slips = post_form(client, f"/analyst/surveys/{slug}/codes", count="2", format="slips").text
    assert slips.count('class="slip-qr"') == 2 and 'id="slips-address-missing"' not in slips
    assert "Go to <strong>https://surveys.example.edu/</strong>" in slips


def test_another_analyst_cannot_issue_codes(app, client, sign_in_as, make_survey):
    slug, _ = make_survey(status="draft")
    with app.app_context():
        create_analyst("someone.else@example.edu", "another long passphrase")
        db.session.commit()
    sign_in_as(client, "someone.else@example.edu")
    assert post_form(client, f"/analyst/surveys/{slug}/codes", count="3").status_code == 404
    assert (
        post_form(client, f"/analyst/surveys/{slug}/codes/required", required="1").status_code
        == 404
    )
    with app.app_context():
        assert db.session.execute(select(func.count()).select_from(OneTimeCode)).scalar() == 0
        assert not db.session.execute(select(Survey.requires_codes)).scalar()


def test_codes_cannot_be_dropped_once_the_survey_opened(app, client, sign_in_as, coded_survey):
    slug, _, _ = coded_survey
    sign_in_as(client, "prof@example.edu")
    response = post_form(client, f"/analyst/surveys/{slug}/codes/required", required="0")
    response = client.get(response.headers["Location"])
    assert "only while the survey is a draft" in response.get_data(as_text=True)
    with app.app_context():
        assert find_survey(slug).requires_codes


class ByIds(HTMLParser):
    """Each element with an id: its attributes and its text (child elements' text included)."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.attributes: dict[str, dict[str, str | None]] = {}
        self.text: dict[str, str] = {}
        self._open: list[str | None] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.attributes[attributes["id"]] = attributes
            self.text[attributes["id"]] = ""
        if tag not in {"input", "br", "img", "meta", "link", "hr"}:
            self._open.append(attributes.get("id"))

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        for element_id in filter(None, self._open):
            self.text[element_id] += data


def issued_codes(app) -> int:
    with app.app_context():
        return db.session.execute(select(func.count()).select_from(OneTimeCode)).scalar_one()


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("abc", "must be a whole number, got 'abc'"),
        ("3000", "must be from 1 to 2000, got 3000"),
        ("0", "must be from 1 to 2000, got 0"),
        ("", "must be a whole number"),
        ('4" autofocus onfocus="alert(1)', "must be a whole number"),
    ],
)
def test_a_bad_number_of_codes_comes_back_as_typed_with_the_reason_by_the_field(
    app, client, sign_in_as, make_survey, typed, reason
):
    slug, _ = make_survey(status="draft")
    sign_in_as(client, "prof@example.edu")
    post_form(client, f"/analyst/surveys/{slug}/codes/required", required="1")
    response = post_form(client, f"/analyst/surveys/{slug}/codes", count=typed, format="slips")

    # The dashboard again, not a redirect that would reset the field to 40.
    assert response.status_code == 400
    page = ByIds(response.get_data(as_text=True))
    field = page.attributes["code-count"]
    assert field["value"] == typed
    assert field["aria-invalid"] == "true"
    assert field["aria-describedby"].split() == ["code-count-error", "code-count-hint"]
    assert "onfocus" not in field  # the typed text stays inside the value
    assert reason in page.text["code-count-error"]
    assert page.text["code-count-error"].startswith("The number of codes")
    assert issued_codes(app) == 0

    # A good number afterwards: the field is back to its default, with no error.
    page = ByIds(client.get(f"/analyst/surveys/{slug}").get_data(as_text=True))
    assert page.attributes["code-count"]["value"] == str(codes.DEFAULT_CODE_COUNT)
    assert "aria-invalid" not in page.attributes["code-count"]
    assert "code-count-error" not in page.attributes


def test_a_survey_that_requires_codes_with_none_left_warns_that_nobody_can_answer(
    app, client, sign_in_as, make_survey
):
    slug, question_ids = make_survey(status="draft")
    sign_in_as(client, "prof@example.edu")
    dashboard = f"/analyst/surveys/{slug}"
    assert "codes-missing" not in ByIds(client.get(dashboard).get_data(as_text=True)).attributes
    post_form(client, f"{dashboard}/codes/required", required="1")
    page = ByIds(client.get(dashboard).get_data(as_text=True))
    assert "none has been issued yet: nobody can answer" in page.text["codes-missing"]

    # Opening is allowed (codes can be issued at any time), and says what is missing.
    opened = post_form(client, f"{dashboard}/open")
    html = client.get(opened.headers["Location"]).get_data(as_text=True)
    with app.app_context():
        assert find_survey(slug).is_open
    flashed = re.search(r'<p class="notice error">([^<]*)</p>', html)
    assert flashed, "opening said nothing of the missing codes"
    assert "none has been issued yet: nobody can answer until codes are issued." in flashed[1]
    assert flashed[1].endswith("Issue them under “One answer per student” below.")
    # The message is said once; the dashboard's own warning stays until codes are issued.
    html = client.get(dashboard).get_data(as_text=True)
    assert "Issue them under" not in html and "codes-missing" in ByIds(html).attributes

    sheet = post_form(client, f"{dashboard}/codes", count="2", format="csv")
    printed = sheet.get_data(as_text=True).splitlines()[1:]
    assert "codes-missing" not in ByIds(client.get(dashboard).get_data(as_text=True)).attributes

    for code in printed:
        assert post_json(client, slug, submission(question_ids, code)).status_code == 201
    page = ByIds(client.get(dashboard).get_data(as_text=True))
    assert "Every one-time code issued (2) has been used" in page.text["codes-missing"]

    with app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()
    assert "codes-missing" not in ByIds(client.get(dashboard).get_data(as_text=True)).attributes


def test_open_survey_warns_when_a_survey_that_requires_codes_has_none(app, runner, make_survey):
    slug, _ = make_survey(status="draft")
    with app.app_context():
        codes.require_codes(find_survey(slug))
        db.session.commit()
    result = runner.invoke(args=["open-survey", slug])
    assert result.exit_code == 0, result.output
    assert f"Survey {slug} is open." in result.stdout
    assert "none has been issued yet: nobody can answer" in result.stderr
    assert f"survey-app issue-codes {slug} N" in result.stderr
    # With codes to use, no warning.
    other, _ = make_survey(status="draft")
    assert runner.invoke(args=["issue-codes", other, "3"]).exit_code == 0
    result = runner.invoke(args=["open-survey", other])
    assert result.exit_code == 0 and "Warning" not in result.stderr


#: Refused submissions sent by the test below, each with a numeric report no other sends.
REFUSED = 30


def row_counts(app) -> dict[str, int]:
    """How many rows each table holds."""
    with app.app_context(), db.engine.connect() as connection:
        return {
            table: connection.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar_one()
            for table in inspect(connection).get_table_names()
        }


def test_a_refused_submission_writes_no_row_anywhere(app, client, make_survey, runner):
    """Refused for an unknown code, a used code, or its id sent before with other answers:
    no table gains a row, the count rows of a numeric question's new reports neither."""
    from tests.numeric_helpers import HOURS

    slug, question_ids = make_survey(HOURS, status="draft")
    result = runner.invoke(args=["issue-codes", slug, "2"])
    assert result.exit_code == 0, result.output
    first, second = result.stdout.strip().splitlines()
    assert runner.invoke(args=["open-survey", slug]).exit_code == 0
    with app.app_context():
        low, high = find_survey(slug).questions[0].report_range
    reports = iter(range(low, high + 1))
    taken = str(uuid.uuid4())
    body = {"submission_id": taken, "answers": {str(question_ids[0]): next(reports)}}
    body["answers"][str(question_ids[1])] = 1
    assert post_json(client, slug, {**body, "code": first}).status_code == 201
    before = row_counts(app)
    unknown = "HJ4MN-9KXPR" if "HJ4MN-9KXPR" not in (first, second) else "HJ4MN-9KXPT"
    refusals = {"an unknown code": unknown, "a used code": first, "a taken id": second}
    for index in range(REFUSED):
        reason = list(refusals)[index % 3]
        answers = {str(question_ids[0]): next(reports), str(question_ids[1]): index % 2}
        submission_id = taken if reason == "a taken id" else str(uuid.uuid4())
        refused = post_json(
            client,
            slug,
            {"submission_id": submission_id, "answers": answers, "code": refusals[reason]},
        )
        assert refused.status_code in (403, 409), (reason, refused.get_json())
    assert row_counts(app) == before
