"""Cookie tossing: another host under the same parent domain sets a cookie with
Domain=<parent>, which the browser then sends to this tool too. Over HTTPS the LTI pages' own
cookies are named ``__Host-`` (which a browser takes only from this host, Secure, Path=/, no
Domain), and the tool reads them under that name alone, so a tossed cookie under the bare name
opens nothing: not the attacker's login in a victim's browser (login CSRF), not the attacker's
link page signed into by the victim."""

from __future__ import annotations

from urllib.parse import urlsplit

from sqlalchemy import select

from survey_app.extensions import db
from survey_app.lti.launches import state_name
from survey_app.storage.lti_models import LtiInstructorLink
from tests.conftest import ANALYST_PASSWORD
from tests.lti_platform import CLAIM, INSTRUCTOR
from tests.unit.lti.test_launches import platform

__all__ = ["platform"]

SECURE = "https://localhost"
ATTACKER_SUB = "sandbox-teacher-of-the-attacker"


def secure_login(client, platform) -> dict[str, str]:
    """A login over HTTPS; the query the tool sent the platform's authorization endpoint."""
    login = client.get(
        "/lti/login",
        base_url=SECURE,
        query_string={"iss": platform.issuer, "login_hint": "hint", "target_link_uri": "x"},
    )
    assert login.status_code == 302
    return platform.authorize(login.location, f"{SECURE}/lti/launch", "hint")


def instructor_token(platform, query, slug: str) -> str:
    claims = {
        "sub": ATTACKER_SUB,
        CLAIM + "roles": [INSTRUCTOR],
        CLAIM + "custom": {"survey": slug},
    }
    return platform.id_token(query["nonce"], claims)


def secure_launch(client, token: str, state: str):
    return client.post("/lti/launch", base_url=SECURE, data={"id_token": token, "state": state})


def cookie_attributes(response, name: str) -> set[str]:
    (header,) = [h for h in response.headers.getlist("Set-Cookie") if h.startswith(name)]
    return {part.strip() for part in header.split(";")}


def test_over_https_every_lti_cookie_is_host_prefixed_with_path_slash_and_no_domain(
    app, platform, make_survey
):
    slug, _ = make_survey()
    browser = app.test_client()
    login = browser.get(
        "/lti/login",
        base_url=SECURE,
        query_string={"iss": platform.issuer, "login_hint": "hint", "target_link_uri": "x"},
    )
    state = platform.authorize(login.location, f"{SECURE}/lti/launch", "hint")["state"]
    name = "__Host-survey_app_lti_state_" + state_name(state)
    attributes = cookie_attributes(login, name + "=")
    assert {"Secure", "HttpOnly", "SameSite=None", "Partitioned", "Path=/"} <= attributes
    assert not any(part.lower().startswith("domain=") for part in attributes)
    query = secure_login(browser, platform)
    landed = secure_launch(browser, instructor_token(platform, query, slug), query["state"])
    assert landed.status_code == 303 and "/lti/link/" in landed.location
    linker = cookie_attributes(landed, "__Host-survey_app_lti_linker=")
    assert {"Secure", "SameSite=None", "Partitioned", "Path=/"} <= linker
    # The state cookie's deletion has the attributes it was set with (partitioned, Path=/).
    deleted = cookie_attributes(landed, "__Host-survey_app_lti_state_")
    assert {"Max-Age=0", "Secure", "SameSite=None", "Partitioned", "Path=/"} <= deleted


def test_a_state_cookie_tossed_under_its_bare_name_binds_no_launch(app, platform, make_survey):
    slug, _ = make_survey()
    attacker = app.test_client()
    query = secure_login(attacker, platform)
    token = instructor_token(platform, query, slug)
    victim = app.test_client()
    # What a sibling host's Set-Cookie with Domain=<parent> leaves in the victim's browser.
    victim.set_cookie(
        "survey_app_lti_state_" + state_name(query["state"]), query["state"], path="/lti/launch"
    )
    refused = secure_launch(victim, token, query["state"])
    assert refused.status_code == 403, refused.location
    assert victim.get(f"/analyst/surveys/{slug}", base_url=SECURE).status_code != 200


def test_a_linker_cookie_tossed_under_its_bare_name_opens_no_link_page(
    app, platform, make_survey, analyst
):
    slug, _ = make_survey()
    attacker = app.test_client()
    query = secure_login(attacker, platform)
    landed = secure_launch(attacker, instructor_token(platform, query, slug), query["state"])
    link_page = urlsplit(landed.location).path
    linker = attacker.get_cookie("__Host-survey_app_lti_linker", domain="localhost", path="/")
    assert linker is not None
    victim = app.test_client()
    victim.set_cookie("survey_app_lti_linker", linker.value, path="/lti/link")
    refused = victim.post(
        link_page,
        base_url=SECURE,
        data={
            "existing-email": analyst,
            "existing-password": ANALYST_PASSWORD,
            "action": "sign-in",
        },
    )
    assert refused.status_code == 400 and "/lti/link" not in (refused.location or "")
    with app.app_context():
        assert db.session.execute(select(LtiInstructorLink)).first() is None
