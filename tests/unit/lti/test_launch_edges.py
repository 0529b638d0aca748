"""LTI launches at their edges: a platform whose key set is broken or holds a key of another
type, made-up kids in a flood, one launch posted twice at once, a login that expired, an
anonymous launch, a deep linking return address that would bend the page's policy, and a choice
of surveys opened in another browser. Each is refused in words (or accepted, where LTI 1.3
allows it), never a 5xx."""

from __future__ import annotations

import datetime as dt
import json
from urllib.parse import urlsplit

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

from survey_app.extensions import db
from survey_app.lti import launches
from survey_app.storage.lti_models import LtiLogin
from tests.lti_platform import CLAIM, INSTRUCTOR
from tests.unit.lti.test_launches import begin, kept, platform, post_launch

__all__ = ["platform"]

DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"


@pytest.fixture(autouse=True)
def fresh_key_sets(monkeypatch):
    """Each test starts with no key set cached and no refetch remembered (they are per process)."""
    monkeypatch.setattr(launches, "_KEY_SETS", {})
    monkeypatch.setattr(launches, "_REFETCHED", {})


@pytest.fixture
def survey_slug(make_survey):
    return make_survey()[0]


def test_a_key_set_that_is_not_json_is_a_502_in_words(client, app, platform, monkeypatch):
    def not_json(self):
        raise json.JSONDecodeError("Expecting value", "<html>", 0)

    monkeypatch.setattr("jwt.PyJWKClient.fetch_data", not_json)
    query = begin(client, platform)
    before = kept(app)
    response = post_launch(client, platform.id_token(query["nonce"]), query["state"])
    assert response.status_code == 502 and "key set could not be read" in response.text
    assert kept(app) == before


def test_a_key_of_another_type_under_the_kid_is_refused(client, app, platform, monkeypatch):
    other = ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()).public_key(), as_dict=True)
    kid = platform.keys[0].kid
    monkeypatch.setattr(
        platform.keys[0], "jwk", lambda: other | {"kid": kid, "alg": "ES256", "use": "sig"}
    )
    query = begin(client, platform)
    before = kept(app)
    response = post_launch(client, platform.id_token(query["nonce"]), query["state"])
    assert response.status_code == 400 and "key its key set does not hold" in response.text
    assert kept(app) == before


def test_made_up_kids_fetch_the_key_set_again_at_most_once_a_minute(client, platform):
    query = begin(client, platform)
    for attempt in range(5):
        token = platform.id_token(query["nonce"], kid=f"made-up-{attempt}")
        assert post_launch(client, token, query["state"]).status_code == 400
    # The first fetch, then one more for the first unknown kid: not one a request.
    assert platform.key_set_fetches == 2


def test_one_launch_posted_twice_at_once_is_accepted_once(client, app, platform, survey_slug):
    query = begin(client, platform)
    token = platform.id_token(query["nonce"], {CLAIM + "custom": {"survey": survey_slug}})
    with app.test_request_context():
        first = launches.verify_launch({"id_token": token, "state": query["state"]}, query["state"])
        second = launches.verify_launch(
            {"id_token": token, "state": query["state"]}, query["state"]
        )
        assert first == second  # both checked before either ended the login
        launches.finish_login(query["state"])
        with pytest.raises(launches.LaunchRefused):
            launches.finish_login(query["state"])
        db.session.rollback()


def test_a_login_older_than_five_minutes_is_refused(client, app, platform):
    query = begin(client, platform)
    with app.app_context():
        for login in db.session.query(LtiLogin):
            login.expires_at -= dt.timedelta(minutes=6)
        db.session.commit()
    before = kept(app)
    response = post_launch(client, platform.id_token(query["nonce"]), query["state"])
    assert response.status_code == 400 and "too late or twice" in response.text
    assert kept(app) == before


def test_an_anonymous_launch_without_sub_lands_on_the_survey(client, platform, survey_slug):
    query = begin(client, platform)
    token = platform.id_token(
        query["nonce"],
        {CLAIM + "custom": {"survey": survey_slug}},
        drop=("sub", "name", "email"),
    )
    response = post_launch(client, token, query["state"])
    assert response.status_code == 303
    assert urlsplit(response.location).path == f"/s/{survey_slug}"


def test_two_launches_at_once_in_one_browser_each_keep_their_state(client, platform, survey_slug):
    custom = {CLAIM + "custom": {"survey": survey_slug}}
    first, second = begin(client, platform), begin(client, platform)
    later = post_launch(client, platform.id_token(second["nonce"], custom), second["state"])
    earlier = post_launch(client, platform.id_token(first["nonce"], custom), first["state"])
    assert later.status_code == earlier.status_code == 303


@pytest.mark.parametrize(
    "return_url",
    [
        "https://evil.example;frame-ancestors *;x/return",
        "https:evil//x",
        "https://user:pw@lms.example.edu/return",
        "javascript://lms.example.edu/%0aalert(1)",
        "http://lms.example.edu/return",  # plain http off loopback
        "https://lms.example.edu:99999/return",
    ],
)
def test_a_deep_linking_return_address_that_is_no_plain_https_origin_is_refused(
    client, app, platform, return_url
):
    query = begin(client, platform)
    token = platform.id_token(
        query["nonce"],
        {
            CLAIM + "message_type": "LtiDeepLinkingRequest",
            CLAIM + "roles": [INSTRUCTOR],
            DEEP_LINKING_SETTINGS: {"deep_link_return_url": return_url},
        },
    )
    before = kept(app)
    response = post_launch(client, token, query["state"])
    assert response.status_code == 400 and "does not take" in response.text
    assert kept(app) == before


def test_a_deep_linking_request_that_takes_no_link_is_refused(client, platform):
    query = begin(client, platform)
    token = platform.id_token(
        query["nonce"],
        {
            CLAIM + "message_type": "LtiDeepLinkingRequest",
            CLAIM + "roles": [INSTRUCTOR],
            DEEP_LINKING_SETTINGS: {
                "deep_link_return_url": f"{platform.base}/return",
                "accept_types": ["file", "html"],
            },
        },
    )
    assert post_launch(client, token, query["state"]).status_code == 400


def test_a_choice_of_surveys_opened_in_another_browser_is_refused(
    client, app, platform, analyst, sign_in_as
):
    query = begin(client, platform)
    token = platform.deep_linking_request(query["nonce"], [INSTRUCTOR], drop=("sub",))
    chooser = urlsplit(post_launch(client, token, query["state"]).location).path
    assert chooser.startswith("/lti/deep-link/")
    # Someone else, signed in to their own account, is sent the address: no choice opens.
    other = app.test_client()
    sign_in_as(other, analyst)
    refused = other.get(chooser)
    assert refused.status_code == 400 and "has expired or was changed" in refused.text
    sign_in_as(client, analyst)
    assert client.get(chooser).status_code == 200
