"""An instructor inside the course's frame, where the session cookie (SameSite=Lax) never
arrives: deep linking's choice acts for the analyst its signed ticket names, posted with no CSRF
token (the ticket and the chooser cookie stand for it); the link page works the same way and
goes on to that choice; a resource link launched in a frame lands on a page that opens the
dashboard in a new tab. Each test drops every cookie but the LTI ones before the pages the
frame would show, as a cross-site frame does."""

from __future__ import annotations

import re
import time
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from survey_app.accounts.services import find_analyst
from survey_app.extensions import db
from survey_app.lti import deep_linking
from survey_app.lti.instructor_links import link_instructor, sub_digest
from survey_app.lti.launches import DEEP_LINKING_REQUEST, Launch, LaunchRefused
from survey_app.storage.lti_models import LtiPlatform
from survey_app.surveys.services import create_survey, parse_definition
from tests.conftest import ANALYST_PASSWORD, SAMPLE_DEFINITION, create_test_analyst
from tests.lti_platform import CLAIM, INSTRUCTOR
from tests.unit.lti.test_launches import begin, platform, post_launch

__all__ = ["platform"]

SUB = "canvas-user-5be1"
CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
#: The header Chromium, Firefox and Safari send on a frame's navigation.
FRAMED = {"Sec-Fetch-Dest": "iframe"}


def in_the_frame(client) -> None:
    """Drop the session (and any other non-LTI) cookie: a cross-site frame never sends it."""
    for cookie in list(client._cookies.values()):
        if not cookie.key.startswith("survey_app_lti_"):
            client.delete_cookie(cookie.key, domain=cookie.domain, path=cookie.path)


def linked(app, analyst_email: str) -> None:
    """The instructor ``SUB`` of the tests' platform linked to ``analyst_email``'s account."""
    with app.app_context():
        row = db.session.execute(select(LtiPlatform)).scalar_one()
        link_instructor(
            row.id, sub_digest(app.secret_key, row.issuer, SUB), find_analyst(analyst_email)
        )
        db.session.commit()


def deep_linking_launch(client, platform, **headers):
    query = begin(client, platform)
    token = platform.deep_linking_request(query["nonce"], [INSTRUCTOR], claims={"sub": SUB})
    return client.post(
        "/lti/launch", data={"id_token": token, "state": query["state"]}, headers=headers
    )


def resource_link_launch(client, platform, slug: str, **headers):
    query = begin(client, platform)
    claims = {"sub": SUB, CLAIM + "roles": [INSTRUCTOR], CLAIM + "custom": {"survey": slug}}
    token = platform.id_token(query["nonce"], claims)
    return client.post(
        "/lti/launch", data={"id_token": token, "state": query["state"]}, headers=headers
    )


def signed_answer(page: str) -> str | None:
    found = re.search(r'name="JWT" value="([^"]+)"', page)
    return found.group(1) if found else None


@pytest.fixture
def others_survey(app) -> str:
    with app.app_context():
        colleague = create_test_analyst("colleague@example.edu", ANALYST_PASSWORD)
        survey = create_survey(colleague, parse_definition(SAMPLE_DEFINITION))
        db.session.commit()
        return survey.slug


def a_launch(platform_id: int) -> Launch:
    return Launch(platform_id, "deployment-1", DEEP_LINKING_REQUEST, True, None, "https://x/r", "d")


def account(number: int) -> SimpleNamespace:
    """An account as a ticket reads it: its number and password hash."""
    return SimpleNamespace(id=number, password_hash=f"scrypt:hash-of-{number}")


def test_a_ticket_names_the_analyst_only_when_given_and_refuses_tampering_age_and_browser(
    app, platform
):
    with app.app_context():
        row = db.session.execute(select(LtiPlatform)).scalar_one()
        key = app.secret_key
        plain = deep_linking.ticket(key, a_launch(row.id), "this-browser")
        named = deep_linking.ticket(key, a_launch(row.id), "this-browser", account(7))
    assert deep_linking.read_ticket(key, plain, "this-browser")["analyst"] is None
    assert deep_linking.read_ticket(key, named, "this-browser")["analyst"] == 7
    # Named afterwards (the link page's way): still tied to the same browser.
    renamed = deep_linking.for_analyst(key, plain, account(9))
    assert deep_linking.read_ticket(key, renamed, "this-browser")["analyst"] == 9
    tampered = named[:-2] + ("AA" if not named.endswith("AA") else "BB")
    for refused in (
        lambda: deep_linking.read_ticket(key, tampered, "this-browser"),
        lambda: deep_linking.read_ticket(key, named, "another-browser"),
        lambda: deep_linking.read_ticket(key, named, None),
        lambda: deep_linking.for_analyst(key, tampered, account(9)),
    ):
        with pytest.raises(LaunchRefused):
            refused()
    later = time.time() + deep_linking.TICKET_LIFETIME + 5
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("itsdangerous.timed.time.time", lambda: later)
        with pytest.raises(LaunchRefused):
            deep_linking.read_ticket(key, named, "this-browser")
        with pytest.raises(LaunchRefused):
            deep_linking.for_analyst(key, named, account(9))


def test_a_linked_instructor_chooses_in_the_frame_with_no_session_and_no_token(
    app, client, platform, make_survey, analyst, others_survey
):
    slug, _ = make_survey()
    linked(app, analyst)
    landed = deep_linking_launch(client, platform, **FRAMED)
    assert landed.status_code == 303
    chooser = urlsplit(landed.location).path
    assert chooser.startswith("/lti/deep-link/")
    in_the_frame(client)
    page = client.get(chooser)
    assert page.status_code == 200
    assert f'value="{slug}"' in page.text and others_survey not in page.text
    assert "csrf_token" not in page.text
    # A survey of another account is refused in words, nothing signed.
    refused = client.post(chooser, data={"survey": others_survey})
    assert refused.status_code == 400 and 'id="unknown-survey"' in refused.text
    assert signed_answer(refused.text) is None
    returned = client.post(chooser, data={"survey": slug})
    assert returned.status_code == 200
    claims = platform.receive_deep_link(
        signed_answer(returned.text), client.get("/lti/jwks.json").get_json()
    )
    (item,) = claims[CONTENT_ITEMS]
    assert item["custom"] == {"survey": slug}
    # The platform's pages may frame it, and its form may go to the platform's return URL.
    policy = returned.headers["Content-Security-Policy"]
    assert f"form-action 'self' {platform.base};" in policy
    assert (
        f"frame-ancestors {platform.base}" in policy and "X-Frame-Options" not in returned.headers
    )


def test_the_chooser_post_is_refused_without_its_cookie_or_with_another_browsers(
    app, client, platform, make_survey, analyst
):
    slug, _ = make_survey()
    linked(app, analyst)
    chooser = urlsplit(deep_linking_launch(client, platform).location).path
    # Another browser that learned the address: no chooser cookie.
    stranger = app.test_client()
    refused = stranger.post(chooser, data={"survey": slug})
    assert refused.status_code == 400 and signed_answer(refused.text) is None
    # Another browser with a chooser cookie of its own (its own launch's).
    stranger.set_cookie("survey_app_lti_chooser", "its-own-secret", path="/lti/deep-link")
    refused = stranger.post(chooser, data={"survey": slug})
    assert refused.status_code == 400 and "has expired or was changed" in refused.text
    # This browser, its cookie gone: refused as well.
    client.delete_cookie("survey_app_lti_chooser", path="/lti/deep-link")
    assert client.post(chooser, data={"survey": slug}).status_code == 400


def test_a_ticket_naming_no_analyst_still_needs_the_session(app, client, platform, make_survey):
    """An anonymous instructor's choice (no sub, so no link): the sign-in page, as before."""
    make_survey()
    query = begin(client, platform)
    token = platform.deep_linking_request(query["nonce"], [INSTRUCTOR], drop=("sub",))
    chooser = urlsplit(post_launch(client, token, query["state"]).location).path
    in_the_frame(client)
    asked = client.get(chooser)
    assert asked.status_code == 302 and "/analyst/login" in asked.location
    assert client.post(chooser, data={"survey": "x"}).status_code == 302
    # In a frame the sign-in page could not show: refused in words instead of an empty frame.
    framed = client.get(chooser, headers=FRAMED)
    assert framed.status_code == 403 and "open the tool in a new window" in framed.text


def link_by_signing_in(client, link_page: str, email: str):
    """The link page's first way: sign in once with an existing account."""
    return client.post(
        link_page,
        data={"existing-email": email, "existing-password": ANALYST_PASSWORD, "action": "sign-in"},
    )


def test_the_link_page_links_in_the_frame_then_goes_on_to_the_choice(
    app, client, platform, make_survey, analyst
):
    slug, _ = make_survey()
    landed = deep_linking_launch(client, platform, **FRAMED)
    link_page = urlsplit(landed.location).path
    assert link_page.startswith("/lti/link/")
    in_the_frame(client)
    assert "csrf_token" not in client.get(link_page).text
    done = link_by_signing_in(client, link_page, analyst)
    assert done.status_code == 303
    chooser = urlsplit(done.location).path
    assert chooser.startswith("/lti/deep-link/")
    in_the_frame(client)  # the session the sign-in made never comes back to a frame
    page = client.get(chooser)
    assert page.status_code == 200 and f'value="{slug}"' in page.text
    returned = client.post(chooser, data={"survey": slug})
    assert returned.status_code == 200 and signed_answer(returned.text)


def test_a_resource_link_linked_in_the_frame_goes_on_to_the_new_tab_page(
    client, platform, make_survey, analyst
):
    slug, _ = make_survey()
    link_page = urlsplit(resource_link_launch(client, platform, slug, **FRAMED).location).path
    assert link_page.startswith("/lti/link/")
    in_the_frame(client)
    done = link_by_signing_in(client, link_page, analyst)
    assert done.status_code == 303 and urlsplit(done.location).path == f"/lti/dashboard/{slug}"


def test_over_https_the_linker_cookie_crosses_sites_and_is_partitioned(client, platform):
    secure = "https://localhost"
    login = client.get(
        "/lti/login",
        base_url=secure,
        query_string={"iss": platform.issuer, "login_hint": "hint", "target_link_uri": "x"},
    )
    query = platform.authorize(login.location, f"{secure}/lti/launch", "hint")
    token = platform.deep_linking_request(query["nonce"], [INSTRUCTOR], claims={"sub": SUB})
    landed = client.post(
        "/lti/launch", base_url=secure, data={"id_token": token, "state": query["state"]}
    )
    assert landed.status_code == 303
    (linker,) = [
        header
        for header in landed.headers.getlist("Set-Cookie")
        if header.startswith("__Host-survey_app_lti_linker=")
    ]
    attributes = {part.strip() for part in linker.split(";")}
    assert {"Secure", "HttpOnly", "SameSite=None", "Partitioned", "Path=/"} <= attributes


def test_an_instructors_launch_in_a_frame_lands_on_a_page_that_opens_the_dashboard_in_a_new_tab(
    app, client, platform, make_survey, analyst
):
    slug, _ = make_survey()
    linked(app, analyst)
    framed = resource_link_launch(client, platform, slug, **FRAMED)
    assert framed.status_code == 303
    assert urlsplit(framed.location).path == f"/lti/dashboard/{slug}"
    in_the_frame(client)
    page = client.get(framed.location)
    assert page.status_code == 200
    assert "opens in a new tab" in page.text
    link = re.search(
        r'<a href="([^"]+)" target="_blank" rel="noopener" id="open-dashboard">', page.text
    )
    assert link and link.group(1) == f"/analyst/surveys/{slug}"
    policy = page.headers["Content-Security-Policy"]
    assert f"frame-ancestors {platform.base}" in policy and "X-Frame-Options" not in page.headers
    # The dashboard itself still refuses every frame.
    dashboard = client.get(f"/analyst/surveys/{slug}")
    assert "frame-ancestors 'none'" in dashboard.headers["Content-Security-Policy"]
    assert dashboard.headers["X-Frame-Options"] == "DENY"
    # In a window of its own (no such header) the launch goes straight to the dashboard.
    window = resource_link_launch(app.test_client(), platform, slug)
    assert urlsplit(window.location).path == f"/analyst/surveys/{slug}"


def test_the_framed_page_speaks_german(client, make_survey):
    slug, _ = make_survey()
    page = client.get(f"/lti/dashboard/{slug}", headers={"Accept-Language": "de"})
    assert "Die Übersicht in einem neuen Tab öffnen" in page.text
