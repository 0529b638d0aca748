"""LTI 1.3 launches against a spec-following platform of the tests' own (tests/lti_platform.py):
the login redirect, the key set, a learner's and an instructor's launch, and every fault the
security checklist names (SECURITY.md, "LTI launch"): each a 4xx in words, no session, nothing
written."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from urllib.parse import urlsplit

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from sqlalchemy import func, select

from survey_app.extensions import db
from survey_app.lti.platforms import add_platform
from survey_app.storage.models import Submission, Survey
from tests.lti_platform import CLAIM, CLIENT_ID, DEPLOYMENT_ID, INSTRUCTOR, Platform, SigningKey

LOGIN_HINT = "opaque-login-hint-42"


@pytest.fixture
def platform(app):
    """The tests' platform, serving its key set on loopback, registered with the app."""
    running = Platform()
    with app.app_context():
        add_platform(running.issuer, CLIENT_ID, [DEPLOYMENT_ID], running.urls)
        db.session.commit()
    yield running
    running.stop()


def begin(client, platform: Platform) -> dict[str, str]:
    """The platform's login initiation, and its authorization endpoint's checks of the tool's
    redirect; the query the tool sent it (state and nonce among it)."""
    response = client.get(
        "/lti/login",
        query_string={
            "iss": platform.issuer,
            "login_hint": LOGIN_HINT,
            "target_link_uri": "http://localhost/lti/launch",
            "lti_message_hint": "message-hint-7",
            "client_id": CLIENT_ID,
            "lti_deployment_id": DEPLOYMENT_ID,
        },
    )
    assert response.status_code == 302, response.text
    query = platform.authorize(response.location, "http://localhost/lti/launch", LOGIN_HINT)
    assert query["lti_message_hint"] == "message-hint-7"
    return query


def post_launch(client, token: str, state: str):
    return client.post("/lti/launch", data={"id_token": token, "state": state})


def database_dump(app) -> str:
    """Every row of every table, as text."""
    from sqlalchemy import MetaData

    with app.app_context():
        metadata = MetaData()
        metadata.reflect(bind=db.engine)
        return "\n".join(
            f"{table.name}: {row!r}"
            for table in metadata.sorted_tables
            for row in db.session.execute(table.select()).all()
        )


def kept(app) -> str:
    """What a refused launch must leave as it was: the whole database."""
    return database_dump(app)


@pytest.fixture
def open_survey_slug(make_survey):
    return make_survey()[0]


def test_the_key_set_publishes_the_tools_public_key_named_by_its_thumbprint(client, app):
    keys = client.get("/lti/jwks.json").get_json()["keys"]
    (key,) = keys
    assert key["kty"] == "RSA" and key["alg"] == "RS256" and key["use"] == "sig"
    assert "d" not in key and "p" not in key  # the public half only
    # Made once and kept: the same key on the next request, and in an owner-only file.
    assert client.get("/lti/jwks.json").get_json()["keys"] == keys
    from pathlib import Path

    path = Path(app.instance_path) / "lti_private_key.pem"
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_learner_lands_on_the_survey_and_nothing_of_them_is_kept(
    client, app, platform, open_survey_slug
):
    query = begin(client, platform)
    token = platform.id_token(
        query["nonce"], claims={CLAIM + "custom": {"survey": open_survey_slug}}
    )
    before = kept(app)
    response = post_launch(client, token, query["state"])
    assert response.status_code == 303, response.text
    assert urlsplit(response.location).path == f"/s/{open_survey_slug}"
    # No session: a learner is never signed in; the login is used up.
    assert "session=" not in response.headers.get("Set-Cookie", "")
    # The login is used up, and nothing else changed.
    assert kept(app) == "\n".join(
        line for line in before.splitlines() if not line.startswith("lti_logins:")
    )
    # Used once: the same launch again is refused.
    again = post_launch(client, token, query["state"])
    assert again.status_code == 400


def test_an_instructor_lands_on_the_surveys_dashboard_or_first_links_an_account(
    client, platform, open_survey_slug
):
    instructor = {CLAIM + "roles": [INSTRUCTOR], CLAIM + "custom": {"survey": open_survey_slug}}
    query = begin(client, platform)
    # Anonymous (no sub): on to the dashboard, which asks to sign in.
    token = platform.id_token(query["nonce"], claims=instructor, drop=("sub",))
    response = post_launch(client, token, query["state"])
    assert response.status_code == 303
    assert urlsplit(response.location).path == f"/analyst/surveys/{open_survey_slug}"
    # With a sub, not linked yet: the page that links it first (test_instructors.py).
    query = begin(client, platform)
    response = post_launch(client, platform.id_token(query["nonce"], instructor), query["state"])
    assert response.status_code == 303
    assert urlsplit(response.location).path.startswith("/lti/link/")


def test_a_rotated_key_is_fetched_once_and_accepted(client, platform, open_survey_slug):
    custom = {CLAIM + "custom": {"survey": open_survey_slug}}
    query = begin(client, platform)
    assert (
        post_launch(client, platform.id_token(query["nonce"], custom), query["state"]).status_code
        == 303
    )
    fetches = platform.key_set_fetches
    new = platform.rotate()
    query = begin(client, platform)
    token = platform.id_token(query["nonce"], custom, key=new)
    assert post_launch(client, token, query["state"]).status_code == 303
    assert platform.key_set_fetches == fetches + 1  # the unknown kid: fetched again, once


def hs256_with_public_key(platform, nonce):
    """Algorithm confusion: HS256 "signed" with the platform's public key (PEM) as the secret,
    under a kid of its set."""
    public = (
        platform.keys[0]
        .key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    body = jwt.decode(platform.id_token(nonce), options={"verify_signature": False})
    header = {"kid": platform.keys[0].kid, "alg": "HS256", "typ": "JWT"}

    def part(data) -> str:
        raw = json.dumps(data, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    signing_input = f"{part(header)}.{part(body)}"
    mac = hmac.new(public, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


def _expired(platform, nonce):
    past = int(time.time()) - 3600
    return platform.id_token(nonce, {"exp": past, "iat": past - 300})


#: Each fault of a launch: how the token is spoiled, and the words the page says.
FAULTS = {
    "a key not in the set": (
        lambda platform, nonce: platform.id_token(nonce, key=SigningKey(platform.keys[0].kid)),
        "not signed as LTI 1.3 asks",
    ),
    "an unknown kid": (
        lambda platform, nonce: platform.id_token(nonce, kid="no-such-key"),
        "a key its key set does not hold",
    ),
    "exp in the past": (_expired, "expired"),
    "a wrong aud": (
        lambda platform, nonce: platform.id_token(nonce, {"aud": "another-tool", "azp": "x"}),
        "meant for another tool",
    ),
    "a wrong azp": (
        lambda platform, nonce: platform.id_token(
            nonce, {"aud": [CLIENT_ID, "other"], "azp": "other"}
        ),
        "meant for another tool",
    ),
    "a wrong iss": (
        lambda platform, nonce: platform.id_token(nonce, {"iss": "https://evil.example"}),
        "meant for another tool",
    ),
    "an unknown deployment": (
        lambda platform, nonce: platform.id_token(nonce, {CLAIM + "deployment_id": "other"}),
        "deployment of the tool is not registered",
    ),
    "another nonce": (
        lambda platform, nonce: platform.id_token("a-nonce-of-another-login-" + "x" * 20),
        "does not match its login",
    ),
    "no roles": (
        lambda platform, nonce: platform.id_token(nonce, drop=(CLAIM + "roles",)),
        "without the roles",
    ),
    "a wrong version": (
        lambda platform, nonce: platform.id_token(nonce, {CLAIM + "version": "1.1"}),
        "does not take",
    ),
    "no nonce": (
        lambda platform, nonce: platform.id_token(nonce, drop=("nonce",)),
        "not signed as LTI 1.3 asks",
    ),
    "not a token": (lambda platform, nonce: "not.a.token", "not signed as LTI 1.3 asks"),
    "an HS256 token keyed by the public key": (
        lambda platform, nonce: hs256_with_public_key(platform, nonce),
        "not signed as LTI 1.3 asks",
    ),
    "iat in the future": (
        lambda platform, nonce: platform.id_token(
            nonce, {"iat": int(time.time()) + 3600, "exp": int(time.time()) + 7200}
        ),
        "not signed as LTI 1.3 asks",
    ),
    "exp just outside the clock's tolerance": (
        lambda platform, nonce: platform.id_token(
            nonce, {"exp": int(time.time()) - 31, "iat": int(time.time()) - 300}
        ),
        "expired",
    ),
    "one aud and another azp": (
        lambda platform, nonce: platform.id_token(nonce, {"azp": "another-tool"}),
        "meant for another tool",
    ),
    "another message type": (
        lambda platform, nonce: platform.id_token(
            nonce, {CLAIM + "message_type": "LtiSubmissionReviewRequest"}
        ),
        "does not take",
    ),
    "no deployment": (
        lambda platform, nonce: platform.id_token(nonce, drop=(CLAIM + "deployment_id",)),
        "deployment of the tool is not registered",
    ),
    "a resource link without its id": (
        lambda platform, nonce: platform.id_token(nonce, {CLAIM + "resource_link": {}}),
        "does not take",
    ),
    # Validly signed, but a list or an object where a string goes: refused, never a 500.
    "a message type that is a list": (
        lambda platform, nonce: platform.id_token(
            nonce, {CLAIM + "message_type": ["LtiResourceLinkRequest"]}
        ),
        "does not take",
    ),
    "a message type that is an object": (
        lambda platform, nonce: platform.id_token(nonce, {CLAIM + "message_type": {"a": 1}}),
        "does not take",
    ),
    "a deployment id that is an object": (
        lambda platform, nonce: platform.id_token(nonce, {CLAIM + "deployment_id": {"a": 1}}),
        "deployment of the tool is not registered",
    ),
    "deep linking settings that are not an object": (
        lambda platform, nonce: platform.id_token(
            nonce,
            {
                CLAIM + "message_type": "LtiDeepLinkingRequest",
                "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": "x",
            },
        ),
        "does not take",
    ),
}


@pytest.mark.parametrize("fault", FAULTS)
def test_a_spoiled_launch_is_refused_in_words_with_nothing_written(
    client, app, platform, open_survey_slug, fault
):
    spoil, words = FAULTS[fault]
    query = begin(client, platform)
    before = kept(app)
    response = post_launch(client, spoil(platform, query["nonce"]), query["state"])
    assert 400 <= response.status_code < 500, (fault, response.status_code)
    assert words in response.text, response.text
    assert kept(app) == before
    assert "session=" not in response.headers.get("Set-Cookie", "")


def test_a_mismatched_or_missing_state_is_refused(client, app, platform):
    query = begin(client, platform)
    token = platform.id_token(query["nonce"])
    before = kept(app)
    # The form's state is not the cookie's (a launch begun in another browser).
    assert post_launch(client, token, "x" * 43).status_code == 400
    # No cookie at all and a state of no login (a learner's launch without its cookie is
    # accepted only for a live login: test_framing.py).
    for cookie in list(client._cookies.values()):
        if cookie.key.startswith("survey_app_lti_state_"):
            client.delete_cookie(cookie.key, path="/lti/launch")
    refused = post_launch(client, token, "y" * 43)
    assert refused.status_code == 400 and "does not match a login begun here" in refused.text
    assert kept(app) == before


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"login_hint": LOGIN_HINT, "target_link_uri": "x"}, "sent no issuer"),
        (
            {"iss": "https://unknown.example", "login_hint": "h", "target_link_uri": "x"},
            "not registered",
        ),
    ],
)
def test_a_login_from_no_registered_platform_is_refused(client, app, query, words):
    before = kept(app)
    response = client.get("/lti/login", query_string=query)
    assert response.status_code == 400 and words in response.text
    assert kept(app) == before


def test_a_refusal_speaks_the_browsers_language(client, platform):
    query = begin(client, platform)
    token = platform.id_token(query["nonce"], kid="no-such-key")
    response = client.post(
        "/lti/launch",
        data={"id_token": token, "state": query["state"]},
        headers={"Accept-Language": "de"},
    )
    assert response.status_code == 400
    assert "mit einem Schlüssel signiert, den sein Schlüsselsatz nicht enthält" in response.text
    assert '<html lang="de"' in response.text


def test_thirty_learners_launch_and_answer_and_nothing_of_them_is_stored_or_logged(
    client, app, platform, open_survey_slug, caplog
):
    """SECURITY.md, "LTI identity": many learner launches with distinct ids, names, e-mails,
    then answers; the whole database and the log hold none of those values, nor any token."""
    import json
    import logging
    import uuid

    from sqlalchemy import MetaData

    caplog.set_level(logging.DEBUG)
    with app.app_context():
        question_ids = [q.id for q in Survey.query.filter_by(slug=open_survey_slug).one().questions]
    secrets_sent = []
    for learner in range(30):
        query = begin(client, platform)
        identity = {
            "sub": f"canvas-user-{uuid.uuid4().hex}",
            "name": f"Student Number{learner} Surname{learner}",
            "given_name": f"Given{learner}x",
            "email": f"student{learner}.{uuid.uuid4().hex[:6]}@example.edu",
            "https://purl.imsglobal.org/spec/lti/claim/lis": {
                "person_sourcedid": f"sis-{uuid.uuid4().hex}"
            },
            CLAIM + "custom": {"survey": open_survey_slug},
        }
        token = platform.id_token(query["nonce"], claims=identity)
        landed = post_launch(client, token, query["state"])
        assert landed.status_code == 303
        answered = client.post(
            f"/api/v1/surveys/{open_survey_slug}/responses",
            data=json.dumps(
                {
                    "submission_id": str(uuid.uuid4()),
                    "answers": {str(qid): learner % 2 for qid in question_ids},
                }
            ),
            content_type="application/json",
        )
        assert answered.status_code == 201, answered.get_json()
        secrets_sent += [
            identity["sub"],
            identity["name"],
            identity["given_name"],
            identity["email"],
            identity["https://purl.imsglobal.org/spec/lti/claim/lis"]["person_sourcedid"],
            token,
            token.split(".")[2],  # the signature alone
            query["nonce"],
        ]
    with app.app_context():
        metadata = MetaData()
        metadata.reflect(bind=db.engine)
        dump = "\n".join(
            repr(row)
            for table in metadata.sorted_tables
            for row in db.session.execute(table.select()).all()
        )
        stored = db.session.execute(select(func.count()).select_from(Submission)).scalar_one()
    assert stored == 30
    # The messages and whatever they carry (tracebacks too), as the log would print them.
    log = caplog.text + "\n".join(record.getMessage() for record in caplog.records)
    for value in secrets_sent + [LOGIN_HINT]:
        assert value not in dump, value
        assert value not in log, value
