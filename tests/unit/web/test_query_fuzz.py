"""Every query parameter of every page, sent odd values: never a 5xx.

The parameters are those the views read, recorded as they read them (request.args, on each GET
route of the app, signed in as the survey's owner) and checked against the source, so a new one
is fuzzed as soon as a view reads it. Each is sent the values that have broken such parsers (a
superscript digit, 5,000 digits, an exponent, a NUL, other scripts, very long text), then a few
Hypothesis draws. Runs are derandomized: no flakes, no example database written to the tree.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Request
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.datastructures import ImmutableMultiDict

from survey_app.extensions import db
from survey_app.lti.framing import LAUNCHED_PARAMETER
from survey_app.lti.launches import LOGIN_PARAMETERS
from survey_app.surveys.services import find_survey
from tests.analyst_helpers import ANALYST_EMAIL, route_addresses
from tests.unit.results.test_results_api import submit_and_close

PACKAGE = Path(__file__).resolve().parents[3] / "survey_app"

#: Every query parameter a view reads (the test below checks it against the app and its source).
QUERY_PARAMETERS = {
    # The LTI login initiation's (survey_app.lti.launches.LOGIN_PARAMETERS).
    "client_id",
    "iss",
    "login_hint",
    "lti_deployment_id",
    "lti_message_hint",
    "target_link_uri",
    # The mark of a survey page reached from a launch (survey_app.lti.framing).
    "launched",
    "class_size",
    "code",
    "confidence",
    "flip_probability",
    "labels",
    "margin",
    "next",
    "p",
    "page",
    "pool",
    "question",
    "questions",
    "ranges",
    "step",
    "surveys",
}

#: Values that have broken parsers of numbers and lists: none may be a 5xx.
ODD_VALUES = [
    "²",
    "9" * 5000,
    "-1",
    "1e3",
    "",
    "\x00",
    "٣",
    "NaN",
    "-inf",
    "0",
    "1,000",
    " 1 ",
    "+1_0",
    "0.5",
    "🙂",
    "a" * 10_000,
    ",,",
    "<b>%",
]

#: Parameters a route needs to reach the code that reads the others.
BASE_QUERY = {"api.pooled_results_json": "surveys"}

#: 40 answers to the sample survey (a yes/no, then a three-option choice): every lesson step has
#: figures to show.
ROWS = [(1, 0)] * 10 + [(1, 1)] * 4 + [(0, 1)] * 8 + [(0, 2)] * 18


class ReadParameters(ImmutableMultiDict):
    """request.args that note each name a view asks for (in ``asked``, set by the test)."""

    asked: set[str] = set()

    def get(self, key, default=None, type=None):  # noqa: A002  (Werkzeug's own name)
        self.asked.add(key)
        return super().get(key, default, type)

    def getlist(self, key, type=None):  # noqa: A002
        self.asked.add(key)
        return super().getlist(key, type)

    def __getitem__(self, key):
        self.asked.add(key)
        return super().__getitem__(key)


class RecordingRequest(Request):
    parameter_storage_class = ReadParameters


class Target:
    """The app under fuzz, the owner's client, and each GET address with what it reads."""

    def __init__(self, app, client, slug: str, addresses: dict[str, str]) -> None:
        self.app, self.client, self.slug, self.addresses = app, client, slug, addresses
        self.reads: dict[str, set[str]] = {}

    def get(self, endpoint: str, query: dict[str, str]):
        base = {BASE_QUERY[endpoint]: self.slug} if endpoint in BASE_QUERY else {}
        response = self.client.get(self.addresses[endpoint], query_string=base | query)
        response.get_data()  # a streamed export runs to its end
        return response

    def record_reads(self) -> None:
        """Each route's query parameters, as its view reads them."""
        for endpoint in self.addresses:
            ReadParameters.asked = set()
            self.get(endpoint, {})
            self.reads[endpoint] = set(ReadParameters.asked)

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return sorted((endpoint, name) for endpoint, names in self.reads.items() for name in names)

    def check(self, endpoint: str, name: str, value: str) -> None:
        response = self.get(endpoint, {name: value})
        assert response.status_code < 500, (endpoint, name, value[:40], response.status_code)


@pytest.fixture
def target(app, make_survey, sign_in_as) -> Target:
    slug, _ = make_survey()
    submit_and_close(app, slug, ROWS)
    with app.app_context():
        join_code = find_survey(slug).join_code
        db.session.remove()
    app.request_class = RecordingRequest
    client = app.test_client()
    sign_in_as(client, ANALYST_EMAIL)
    fuzzed = Target(app, client, slug, route_addresses(app, "GET", slug, join_code))
    fuzzed.record_reads()
    return fuzzed


def read_in_the_source() -> set[str]:
    """The names the package reads from request.args as literals (the lesson's by a helper)."""
    pattern = re.compile(r"request\.args\.get(?:list)?\(\s*\"(\w+)\"|_whole_number\(\s*\"(\w+)\"")
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for match in pattern.finditer(path.read_text(encoding="utf-8")):
            found.add(next(group for group in match.groups() if group))
    # The LTI login reads its parameters by name, from the query or (posted) the form; the
    # survey page its launch's mark by name too.
    return found | set(LOGIN_PARAMETERS) | {LAUNCHED_PARAMETER}


def test_every_parameter_a_view_reads_is_listed(target):
    read = set().union(*target.reads.values())
    assert read == QUERY_PARAMETERS
    assert read_in_the_source() == QUERY_PARAMETERS
    # Each route reads what it should: the fuzz below reaches the lesson's and the API's.
    assert {"step", "question", "p", "confidence"} <= target.reads["lesson.lesson_page"]
    assert {"surveys", "confidence"} <= target.reads["api.pooled_results_json"]


def test_odd_values_of_every_query_parameter_never_answer_5xx(target):
    for endpoint, name in target.pairs:
        for value in ODD_VALUES:
            target.check(endpoint, name, value)


#: Text of any character a URL can carry (no lone surrogates), short or long; and numbers.
QUERY_VALUES = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=60),
    st.integers().map(str),
    st.from_regex(r"\A[0-9²³¹٠-٩.,e+-]{1,40}\Z"),
)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_drawn_values_of_every_query_parameter_never_answer_5xx(target, data):
    endpoint, name = data.draw(st.sampled_from(target.pairs), label="parameter")
    target.check(endpoint, name, data.draw(QUERY_VALUES, label="value"))


def test_a_nul_anywhere_in_an_address_is_refused_in_words(target):
    """PostgreSQL can neither store nor compare text holding U+0000: an address with one, in a
    part of its path, a parameter's value or its name, is a 400 that says so, before any query."""
    nul_addresses = route_addresses(target.app, "GET", "a\x00b", "\x00")
    for endpoint, address in nul_addresses.items():
        if "%00" not in address:
            continue  # a route without a slug or code in its path
        response = target.client.get(address)
        assert response.status_code == 400, (endpoint, response.status_code)
        assert "NUL character" in response.get_data(as_text=True), endpoint
    for query in ({"confidence": "0.9\x00"}, {"x\x00": "1"}):
        response = target.get("api.pooled_results_json", query)
        assert response.status_code == 400
        assert "NUL character (U+0000)" in response.get_json()["error"]
