"""What the tests of the analyst's pages share: signing in, CSRF tokens, the builder's fields,
recording answers, reading the dashboard's figures back, the app's routes as addresses.

Every figure a page shows is compared with what :mod:`survey_app.privacy` computes, formatted as
the page formats it (``survey_app.words.percent``); nothing here re-derives the math.
"""

from __future__ import annotations

import html
import re
import sys
import uuid
from functools import cache
from unittest import mock
from urllib.parse import urlsplit

from flask import url_for
from sqlalchemy import func, select
from werkzeug.security import generate_password_hash

from survey_app import privacy
from survey_app.accounts.services import create_analyst
from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.results.tables import survey_results
from survey_app.results.words import headline_range_kind
from survey_app.storage.database import count_arrivals
from survey_app.storage.models import Question, Survey, Tally
from survey_app.surveys.services import find_survey
from survey_app.words import percent, percent_high, percent_low, points

#: The account the ``analyst`` fixture creates (tests/conftest.py).
ANALYST_EMAIL = "prof@example.edu"
ANALYST_PASSWORD = "correct horse battery"
OTHER_EMAIL = "other@example.edu"
OTHER_PASSWORD = "another long passphrase"


#: The scrypt cost of the test accounts' hashes: a 32nd of the app's (werkzeug's N = 2**15).
#: Scrypt is slow on purpose, a tenth of a second of CPU a hash and as much again each time the
#: password is checked, and thousands of tests start with an account and sign in to it.
TEST_SCRYPT = "scrypt:1024:8:1"


@cache
def password_hash(password: str) -> str:
    """A scrypt hash of a test password, made once a session at the cost ``TEST_SCRYPT``:
    signing in checks it by the app's own path (werkzeug reads the cost from the hash)."""
    return generate_password_hash(password, method=TEST_SCRYPT)


def create_test_analyst(email: str, password: str):
    """``create_analyst`` as the app calls it (its checks of the email and the password), with
    the password's hash made once a session at a lower cost: a real scrypt hash, which signing
    in checks.

    For accounts a test only needs; what hashing and signing in do is tested with the real path
    (test_accounts.py, test_sign_in.py)."""
    hashed = password_hash(password)
    services = sys.modules[create_analyst.__module__]
    with mock.patch.object(services, "hash_password", lambda _password: hashed):
        return create_analyst(email, password)


CSRF_FIELD = re.compile(r'name="csrf_token"[^>]*?value="([^"]+)"')


def csrf_token(page: str) -> str:
    match = CSRF_FIELD.search(page)
    assert match, "the page has no CSRF token"
    return match.group(1)


def sign_in(client, email: str = ANALYST_EMAIL, password: str = ANALYST_PASSWORD, **fields):
    """Sign in through the form, as a browser does; returns the POST's response."""
    token = csrf_token(client.get("/analyst/login").text)
    data = {"email": email, "password": password, "csrf_token": token, **fields}
    return client.post("/analyst/login", data=data)


def token_of(client) -> str:
    """A valid CSRF token of the client's (signed-in) session."""
    return csrf_token(client.get("/analyst/surveys/new").text)


def is_signed_in(client) -> bool:
    return client.get("/analyst/").status_code == 200


def builder_fields(
    title: str = "Study habits",
    intro: str = "Answer honestly.",
    flip_probability: str = "0.25",
    questions: list[tuple[str, str, str]] | None = None,
    action: str = "save",
) -> dict:
    """The builder's form fields; a question is (text, type, options one a line)."""
    questions = questions or [
        ("Have you ever copied homework?", "yes_no", ""),
        ("How often?", "choice", "Never\nOnce\nOften"),
    ]
    return {
        "title": title,
        "intro": intro,
        "flip_probability": flip_probability,
        "question_text": [q[0] for q in questions],
        "question_type": [q[1] for q in questions],
        "question_options": [q[2] for q in questions],
        "action": action,
    }


#: The fields a question of the builder's form posts, one value a question each (a pair's
#: two questions' among them: every question has every kind's fields).
QUESTION_FIELDS = (
    "text",
    "type",
    "options",
    "min",
    "max",
    "unit",
    "mechanism",
    *(f"part{n}_{field}" for n in (1, 2) for field in ("text", "type", "options")),
)


def builder_form(token: str, questions: list[dict], **fields) -> dict:
    """The builder's form as its page posts it, with ``questions`` (each a dict of its fields,
    the rest empty; a question's type, and each of a pair's questions', yes/no unless named)
    and ``fields`` over the defaults."""
    form = {
        "csrf_token": token,
        "title": "Study habits",
        "intro": "",
        "flip_probability": "0.25",
        "action": "save",
        **fields,
    }
    for name in QUESTION_FIELDS:
        form[f"question_{name}"] = [
            q.get(name, "yes_no" if name.endswith("type") else "") for q in questions
        ]
    return form


def state_of(app, slug: str) -> dict | None:
    """What is stored of a survey: its fields, status, questions and tallies."""
    with app.app_context():
        survey = find_survey(slug)
        if survey is None:
            return None
        count_arrivals(survey.id)  # what a reader of the counts does first (PostgreSQL)
        tallies = db.session.execute(
            select(Tally.question_id, Tally.value, func.sum(Tally.noisy_count))
            .group_by(Tally.question_id, Tally.value)
            .join(Question, Question.id == Tally.question_id)
            .where(Question.survey_id == survey.id)
        ).all()
        return {
            "title": survey.title,
            "intro": survey.intro,
            "flip_probability": survey.flip_probability,
            "status": survey.status,
            "owner": survey.owner.email,
            "questions": [(q.text, q.kind, q.choices) for q in survey.questions],
            "tallies": sorted(map(tuple, tallies)),
        }


def survey_count(app) -> int:
    with app.app_context():
        return db.session.execute(select(func.count()).select_from(Survey)).scalar_one()


def submit(app, slug: str, rows: list[tuple[int, ...]]) -> None:
    """Record randomized submissions through the same code the submission API runs."""
    with app.app_context():
        question_ids = [q.id for q in find_survey(slug).questions]
    for values in rows:
        with app.app_context():
            body = {
                "submission_id": str(uuid.uuid4()),
                "answers": {
                    str(qid): value for qid, value in zip(question_ids, values, strict=True)
                },
            }
            record_submission(slug, body)


def results_of(app, slug: str | list[str], confidence: float = 0.95):
    """The results of one survey, or of several pooled (a list of slugs)."""
    slugs = [slug] if isinstance(slug, str) else slug
    with app.app_context():
        results = survey_results([find_survey(each) for each in slugs], confidence)
        return {
            "respondents": results.respondents,
            "epsilon": results.epsilon_per_question,
            "epsilon_total": results.epsilon_total,
            "questions": [
                {
                    "id": q.id,
                    "kind": q.kind,
                    "n": q.n,
                    "half_width": q.half_width,
                    "widest_exact_half_width": q.widest_exact_half_width,
                    "too_early": q.too_early,
                    "options": [(o.label, o.noisy_count, o.estimate) for o in q.options],
                    # Each option's one figure, kept in the range the dashboard leads with.
                    "shown": [o.headline(headline_range_kind(results)) for o in q.options],
                }
                for q in results.questions
            ],
        }


def section(page: str, question_id: int) -> str:
    """The dashboard's section of one question."""
    start = page.index(f'<section class="result panel" id="question-{question_id}"')
    return page[start : page.index("</section>", start)]


def table_rows(fragment: str) -> list[tuple[str, ...]]:
    """The body rows of the first data table in ``fragment``, as unescaped cell texts."""
    body = fragment[fragment.index("<tbody>") : fragment.index("</tbody>")]
    rows = []
    for row in re.findall(r"<tr\b[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
        rows.append(tuple(html.unescape(re.sub(r"\s+", " ", c)).strip() for c in cells))
    return rows


def svg_blocks(page: str) -> list[str]:
    """The page's result charts (not the QR code of the join link)."""
    return re.findall(r'<svg class="chart".*?</svg>', page, re.S)


def flat(page: str) -> str:
    """The page with every run of white space made one space, to find sentences in it."""
    return re.sub(r"\s+", " ", page)


def figures(page: str, element_id: str) -> str:
    match = re.search(rf'<p id="{element_id}">(.*?)</p>', page, re.S)
    assert match, element_id
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", match.group(1)))).strip()


#: Randomized answers to the sample survey (yes/no, choice): enough for shares (12 >= 10).
ROWS = [
    (1, 0),
    (1, 2),
    (0, 2),
    (1, 1),
    (1, 2),
    (0, 0),
    (1, 2),
    (0, 1),
    (1, 0),
    (0, 2),
    (1, 2),
    (1, 1),
]


def range_text(low: float, high: float) -> str:
    return f"{percent_low(low)} – {percent_high(high)}"


def worded_options(question: dict) -> list[tuple[str, privacy.Estimate, float]]:
    """(label, estimate, shown share) of the answers the words speak of: yes/no says "Yes" only."""
    return [
        (label, estimate, share)
        for (label, _, estimate), share in zip(question["options"], question["shown"], strict=True)
        if question["kind"] == "choice" or label == "Yes"
    ]


def table_estimate(shown: float, unbiased: float) -> str:
    """The table's "Estimate": the share the words show, and the unbiased estimate beside it
    where the two differ as shown."""
    if percent(shown) == percent(unbiased):
        return percent(shown)
    return f"{percent(shown)} (unbiased: {percent(unbiased)})"


def assert_results_shown(page: str, results: dict, confidence: float, live: bool = True) -> None:
    """The dashboard shows ``results``: while the survey is open (``live``) its words and chart
    lead with the live ranges, once closed with the exact ones; the table gives both."""
    assert f'<strong id="respondent-count">{results["respondents"]}</strong>' in page
    for question in results["questions"]:
        part = flat(section(page, question["id"]))
        expected = [
            (
                label,
                str(noisy_count),
                percent(e.noisy_share),
                table_estimate(shown, e.estimate),
                range_text(e.exact_low, e.exact_high),
                range_text(e.live_low, e.live_high),
                range_text(e.ci_low, e.ci_high),
            )
            for (label, noisy_count, e), shown in zip(
                question["options"], question["shown"], strict=True
            )
        ]
        assert table_rows(part) == expected
        assert f"Exact {percent(confidence)} range" in part
        assert f"Chebyshev {percent(confidence)} range" in part
        # A share's margin in percentage points: "±31 percentage points", not "±30.1%".
        margin = points(question["half_width"], long=True)
        assert margin.endswith(" percentage points") and "%" not in margin
        assert f"Chebyshev range: {margin} around the estimate" in part
        # The words: the share shown and the live (open) or exact range, for those who answered.
        worded = worded_options(question)
        for label, e, share in worded:
            low, high = (e.live_low, e.live_high) if live else (e.exact_low, e.exact_high)
            assert low < high  # the figures chosen give ranges, not points
            assert (
                f"About <strong>{percent(share)}</strong> would truly answer “{label}”: "
                f"between <strong>{percent_low(low)}</strong> and "
                f"<strong>{percent_high(high)}</strong>, guaranteed at least "
                f"{percent(confidence)} of the time{', however often you look' if live else ''}."
            ) in part
        assert part.count("would truly answer") == len(worded)
        assert (
            f"These ranges cover the {question['n']} people who answered, not the whole class"
        ) in part
        assert (
            f"Chebyshev’s bound with the exact variance is guaranteed too, but wider "
            f"({margin} around the unbiased estimate); it too covers only "
            f"the people who answered, not the whole class."
        ) in part


def slug_from(response) -> str:
    assert response.status_code == 302, response.text
    path = urlsplit(response.headers["Location"]).path
    assert path.startswith("/analyst/surveys/")
    return path.rsplit("/", 1)[1]


def route_addresses(app, method: str, slug: str, join_code: str) -> dict[str, str]:
    """Every route of the app that takes ``method``, by endpoint, as an address with its parts
    filled in: the survey's slug and join code, and a stylesheet for the static files. A route
    with a part of another name fails here, until this says how to fill it."""
    # An LTI deep linking ticket: one no signature holds (its page then refuses it in words).
    parts = {"slug": slug, "code": join_code, "filename": "css/app.css", "ticket": "not-a-ticket"}
    addresses = {}
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            if method not in rule.methods:
                continue
            assert rule.arguments <= parts.keys(), f"{rule.rule}: how is it filled in?"
            assert rule.endpoint not in addresses, f"{rule.endpoint} has two {method} routes"
            values = {name: parts[name] for name in rule.arguments}
            addresses[rule.endpoint] = url_for(rule.endpoint, **values)
    return addresses
