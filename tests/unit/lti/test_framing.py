"""The tool inside the course's frame: the LTI pages and the survey page a launch lands on may be
framed by the registered platforms' origins and no other, every other page by none; the login's
cookies cross a site over HTTPS; a learner's launch that lost its state cookie is accepted once,
an instructor's is refused with nothing written; a data privacy launch answers in words."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from sqlalchemy import delete, event

from survey_app.extensions import db
from survey_app.lti import launches
from survey_app.lti.platforms import add_platform
from survey_app.storage.lti_models import LtiFrameOrigin
from tests.lti_platform import CLAIM, CLIENT_ID, DEPLOYMENT_ID, INSTRUCTOR, LEARNER, Platform
from tests.unit.lti.test_launches import LOGIN_HINT, begin, kept, platform, post_launch

__all__ = ["platform"]

SCHOOL = "https://school.example.edu"
STATE_COOKIE = "survey_app_lti_state_"


@pytest.fixture
def framed_platform(app, platform: Platform) -> Platform:
    """The tests' platform with a school's own host named as a frame origin, too."""
    with app.app_context():
        add_platform(platform.issuer, CLIENT_ID, [DEPLOYMENT_ID], platform.urls, [SCHOOL])
        db.session.commit()
    return platform


@pytest.fixture
def survey_slug(make_survey):
    return make_survey()[0]


def frame_ancestors(response) -> list[str]:
    """The sources of the response's frame-ancestors directive, in order."""
    directives = [part.strip() for part in response.headers["Content-Security-Policy"].split(";")]
    (directive,) = [part for part in directives if part.startswith("frame-ancestors ")]
    return directive.split()[1:]


def assert_framed_by(response, origins: list[str]) -> None:
    assert frame_ancestors(response) == origins
    assert "X-Frame-Options" not in response.headers


def assert_never_framed(response) -> None:
    assert frame_ancestors(response) == ["'none'"]
    assert response.headers.getlist("X-Frame-Options") == ["DENY"]


def without_state_cookies(client) -> None:
    """The browser lost the login's state cookie (a course's frame, third-party cookies off)."""
    for cookie in list(client._cookies.values()):
        if cookie.key.startswith(STATE_COOKIE):
            client.delete_cookie(cookie.key, path="/lti/launch")


def learner_token(platform: Platform, nonce: str, slug: str) -> str:
    return platform.id_token(nonce, claims={CLAIM + "custom": {"survey": slug}})


def test_the_lti_pages_and_the_launched_survey_page_list_exactly_the_platforms_origins(
    client, framed_platform, survey_slug
):
    origins = sorted([framed_platform.base, SCHOOL])  # the issuer's and auth URL's, the named
    assert_framed_by(client.get("/lti/jwks.json"), origins)
    assert_framed_by(client.get("/lti/data-privacy"), origins)
    refused = post_launch(client, "not-a-token", "no-such-state")
    assert refused.status_code == 400
    assert_framed_by(refused, origins)
    query = begin(client, framed_platform)
    landed = post_launch(
        client, learner_token(framed_platform, query["nonce"], survey_slug), query["state"]
    )
    assert landed.status_code == 303
    assert_framed_by(landed, origins)
    assert landed.location.endswith(f"/s/{survey_slug}?launched=1")
    page = client.get(landed.location)
    assert page.status_code == 200
    assert_framed_by(page, origins)
    # The rest of the page's policy is as every page's.
    assert "form-action 'self'" in page.headers["Content-Security-Policy"]


@pytest.mark.parametrize("query", ["", "?launched=0", "?launched=yes", "?launched=1&launched=2x"])
def test_a_survey_page_not_reached_from_a_launch_is_never_framed(
    client, framed_platform, survey_slug, query
):
    response = client.get(f"/s/{survey_slug}{query}")
    assert response.status_code == 200
    if query.startswith("?launched=1"):  # the first value counts (as request.args reads it)
        assert_framed_by(response, sorted([framed_platform.base, SCHOOL]))
    else:
        assert_never_framed(response)


def test_a_launched_survey_that_has_closed_says_so_in_the_frame(
    client, framed_platform, make_survey
):
    slug, _ = make_survey(status="closed")
    response = client.get(f"/s/{slug}?launched=1")
    assert response.status_code == 410
    assert_framed_by(response, sorted([framed_platform.base, SCHOOL]))


def test_the_other_pages_are_never_framed(client, framed_platform, survey_slug):
    for address in ("/", "/join?code=nothing", "/analyst/login", f"/s/{survey_slug}/results"):
        assert_never_framed(client.get(address))


def test_no_platform_registered_no_page_is_framed(client, survey_slug):
    assert_never_framed(client.get("/lti/jwks.json"))
    assert_never_framed(client.get(f"/s/{survey_slug}?launched=1"))


def test_each_platform_adds_its_issuer_and_login_origins_and_only_those(app, client):
    with app.app_context():
        add_platform(
            "https://canvas.instructure.com",
            "10000000000042",
            ["7:abc"],
            {
                "auth_url": "https://sso.canvaslms.com/api/lti/authorize_redirect",
                "token_url": "https://tokens.elsewhere.example/token",
                "jwks_url": "https://keys.elsewhere.example/jwks",
            },
            ["https://School.Instructure.com/", "https://school.instructure.com"],
        )
        add_platform(
            "https://moodle.example.edu",
            "moodle-client",
            ["1"],
            {
                name: f"https://moodle.example.edu/{name}"
                for name in ("auth_url", "token_url", "jwks_url")
            },
        )
        db.session.commit()
    assert_framed_by(
        client.get("/lti/data-privacy"),
        [
            "https://canvas.instructure.com",
            "https://moodle.example.edu",
            "https://school.instructure.com",
            "https://sso.canvaslms.com",
        ],
    )


def state_cookie_header(response) -> str:
    """The response's state cookie header (over HTTPS its name is ``__Host-`` prefixed)."""
    names = (STATE_COOKIE, "__Host-" + STATE_COOKIE)
    (header,) = [h for h in response.headers.getlist("Set-Cookie") if h.startswith(names)]
    return header


def test_over_https_the_state_cookie_crosses_sites_and_is_partitioned(client, platform):
    secure = "https://localhost"
    response = client.get(
        "/lti/login",
        base_url=secure,
        query_string={"iss": platform.issuer, "login_hint": LOGIN_HINT, "target_link_uri": "x"},
    )
    assert response.status_code == 302
    header = state_cookie_header(response)
    attributes = {part.strip() for part in header.split(";")}
    assert header.startswith("__Host-" + STATE_COOKIE)
    assert {"Secure", "HttpOnly", "SameSite=None", "Partitioned", "Path=/"} <= attributes
    # Over plain HTTP (a local install) it is an ordinary Lax cookie: no Secure, no partition.
    plain = client.get(
        "/lti/login",
        query_string={"iss": platform.issuer, "login_hint": LOGIN_HINT, "target_link_uri": "x"},
    )
    attributes = {part.strip() for part in state_cookie_header(plain).split(";")}
    assert (
        "Path=/lti/launch" in attributes
        and "SameSite=Lax" in attributes
        and not {"Secure", "Partitioned"} & attributes
    )


def test_over_https_the_launch_deletes_the_partitioned_cookie_and_the_page_sets_none(
    client, platform, survey_slug
):
    secure = "https://localhost"
    login = client.get(
        "/lti/login",
        base_url=secure,
        query_string={"iss": platform.issuer, "login_hint": LOGIN_HINT, "target_link_uri": "x"},
    )
    query = platform.authorize(login.location, f"{secure}/lti/launch", LOGIN_HINT)
    landed = client.post(
        "/lti/launch",
        base_url=secure,
        data={
            "id_token": learner_token(platform, query["nonce"], survey_slug),
            "state": query["state"],
        },
    )
    assert landed.status_code == 303
    deleted = {part.strip() for part in state_cookie_header(landed).split(";")}
    assert {"Max-Age=0", "Secure", "SameSite=None", "Partitioned"} <= deleted
    # The survey page and its answers need no cookie: in a cross-site frame they get none.
    page = client.get(urlsplit(landed.location).path + "?launched=1", base_url=secure)
    assert page.status_code == 200 and page.headers.getlist("Set-Cookie") == []


def test_a_learner_launch_without_its_cookie_is_accepted_once_not_bound_to_the_browser(
    app, client, platform, survey_slug
):
    query = begin(client, platform)
    without_state_cookies(client)
    token = learner_token(platform, query["nonce"], survey_slug)
    with app.test_request_context():
        checked = launches.verify_launch({"id_token": token, "state": query["state"]}, None)
    assert checked.bound_to_browser is False and not checked.teaches
    landed = post_launch(client, token, query["state"])
    assert landed.status_code == 303
    assert landed.location.endswith(f"/s/{survey_slug}?launched=1")
    assert "session=" not in landed.headers.get("Set-Cookie", "")
    # Its login is used up: the same post again (a replay) is refused.
    again = post_launch(client, token, query["state"])
    assert again.status_code == 400 and "does not match a login begun here" in again.text


def test_a_launch_with_its_cookie_is_bound_to_the_browser(app, client, platform, survey_slug):
    query = begin(client, platform)
    token = learner_token(platform, query["nonce"], survey_slug)
    with app.test_request_context():
        form = {"id_token": token, "state": query["state"]}
        assert launches.verify_launch(form, query["state"]).bound_to_browser is True


def test_a_cookie_naming_another_state_is_refused_not_taken_as_lost(
    client, app, platform, survey_slug
):
    query = begin(client, platform)
    (cookie,) = [c for c in client._cookies.values() if c.key.startswith(STATE_COOKIE)]
    client.set_cookie(cookie.key, "another-state-" + "x" * 30, path="/lti/launch")
    before = kept(app)
    refused = post_launch(
        client, learner_token(platform, query["nonce"], survey_slug), query["state"]
    )
    assert refused.status_code == 400 and "does not match a login begun here" in refused.text
    assert kept(app) == before


def test_a_cookieless_launch_whose_nonce_is_another_logins_is_refused(
    client, app, platform, survey_slug
):
    first, second = begin(client, platform), begin(client, platform)
    without_state_cookies(client)
    before = kept(app)
    token = learner_token(platform, second["nonce"], survey_slug)
    refused = post_launch(client, token, first["state"])
    assert refused.status_code == 400 and "used already or does not match" in refused.text
    assert kept(app) == before


@pytest.mark.parametrize(
    "instructor_token",
    [
        lambda platform, nonce, slug: platform.id_token(
            nonce, claims={CLAIM + "roles": [INSTRUCTOR], CLAIM + "custom": {"survey": slug}}
        ),
        lambda platform, nonce, slug: platform.deep_linking_request(nonce, [INSTRUCTOR]),
        lambda platform, nonce, slug: platform.deep_linking_request(nonce, [LEARNER]),
    ],
    ids=["instructor", "deep-linking", "deep-linking-by-a-learner"],
)
def test_an_instructors_launch_without_its_cookie_is_refused_with_nothing_written(
    client, app, platform, survey_slug, instructor_token
):
    query = begin(client, platform)
    without_state_cookies(client)
    before = kept(app)
    refused = post_launch(
        client, instructor_token(platform, query["nonce"], survey_slug), query["state"]
    )
    assert refused.status_code == 403
    assert "Open the link in a new window" in refused.text
    assert kept(app) == before  # the login is still there, nothing else was written
    assert refused.headers.getlist("Set-Cookie") == []


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "No answer is linked to a user"),
        ("de", "Keine Antwort ist mit einer Person verknüpft"),
        ("fr", "Aucune réponse n’est liée à un utilisateur"),
    ],
)
def test_a_data_privacy_launch_says_in_words_that_no_answer_is_linked_to_a_user(
    client, app, platform, language, words
):
    query = begin(client, platform)
    before = kept(app)
    token = platform.data_privacy_request(query["nonce"], [LEARNER])
    landed = post_launch(client, token, query["state"])
    assert landed.status_code == 303 and urlsplit(landed.location).path == "/lti/data-privacy"
    assert kept(app) == "\n".join(
        line for line in before.splitlines() if not line.startswith("lti_logins:")
    )
    page = client.get(landed.location, headers={"Accept-Language": language})
    assert page.status_code == 200 and words in page.text
    assert f'<html lang="{language}"' in page.text
    # Used once, as every launch.
    assert post_launch(client, token, query["state"]).status_code == 400


def test_a_data_privacy_launch_gets_every_check(client, app, platform):
    query = begin(client, platform)
    before = kept(app)
    spoiled = platform.id_token(
        query["nonce"],
        {CLAIM + "message_type": "LtiDataPrivacyLaunchRequest", "aud": "another-tool"},
        drop=(CLAIM + "resource_link", "azp"),
    )
    refused = post_launch(client, spoiled, query["state"])
    assert refused.status_code == 400 and "meant for another tool" in refused.text
    assert kept(app) == before


def test_a_worker_reads_the_framing_origins_once_in_a_while_and_its_own_changes_at_once(
    app, client, framed_platform, survey_slug, monkeypatch
):
    """Each launched student's page is framed: a class at once must not read every platform
    each. Another process's change (here written to the database directly) is seen once the
    worker's copy is FRAME_ORIGINS_SECONDS old; this process's own, at once."""
    from survey_app.lti import framing

    now = [1000.0]
    monkeypatch.setattr(framing.time, "monotonic", lambda: now[0])
    statements = []
    with app.app_context():
        listen = lambda *args: statements.append(args[2])  # noqa: E731 (the statement's text)
        event.listen(db.engine, "before_cursor_execute", listen)
    origins = sorted([framed_platform.base, SCHOOL])
    assert_framed_by(client.get(f"/s/{survey_slug}?launched=1"), origins)
    platforms_read = sum("lti_platforms" in statement for statement in statements)
    assert platforms_read >= 1
    with app.app_context():
        db.session.execute(delete(LtiFrameOrigin))  # as another server's command would
        db.session.commit()
    now[0] += framing.FRAME_ORIGINS_SECONDS - 1
    assert_framed_by(client.get(f"/s/{survey_slug}?launched=1"), origins)
    assert sum("lti_platforms" in statement for statement in statements) == platforms_read
    now[0] += 2
    assert_framed_by(client.get(f"/s/{survey_slug}?launched=1"), [framed_platform.base])
    with app.app_context():
        add_platform(
            framed_platform.issuer, CLIENT_ID, [DEPLOYMENT_ID], framed_platform.urls, [SCHOOL]
        )
        db.session.commit()
    assert_framed_by(client.get(f"/s/{survey_slug}?launched=1"), origins)
