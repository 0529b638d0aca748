"""An instructor's launch signs them in as the analyst account their platform account is linked
to: linked once on a page of its own (signing in with an account, or making one), from then on
with no form; never for a launch not bound to the browser, never for an anonymous launch, never
for a learner; the platform's user id kept only as a keyed digest."""

from __future__ import annotations

import dataclasses
import logging
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from survey_app.extensions import db
from survey_app.lti import instructors
from survey_app.lti.instructor_links import sub_digest
from survey_app.lti.launches import RESOURCE_LINK_REQUEST, Launch
from survey_app.storage.lti_models import LtiInstructorLink, LtiPlatform
from tests.conftest import ANALYST_PASSWORD, create_test_analyst
from tests.lti_platform import CLAIM, CLIENT_ID, INSTRUCTOR
from tests.unit.lti.test_launches import begin, database_dump, kept, platform, post_launch

__all__ = ["platform"]

SUB = "moodle-user-7f3a9c"
NAME = "Professor Grace Hopper"
EMAIL = "grace.hopper@lms.example.edu"
OTHER_EMAIL = "colleague@example.edu"
NEW_PASSWORD = "violet kettle orbit 93"


def instructor_launch(client, platform, slug: str | None, sub: str | None = SUB, **claims):
    """An instructor's launch of a resource link naming ``slug`` (no ``sub`` when None)."""
    query = begin(client, platform)
    body = {
        CLAIM + "roles": [INSTRUCTOR],
        CLAIM + "custom": {"survey": slug},
        "name": NAME,
        "email": EMAIL,
        "sub": sub,
    } | claims
    token = platform.id_token(query["nonce"], body, drop=("sub",) if sub is None else ())
    return post_launch(client, token, query["state"])


def link_with_password(client, link_page: str, email: str, password: str):
    # No CSRF token: the ticket in the address and the linker cookie stand for it.
    assert client.get(link_page).status_code == 200
    return client.post(
        link_page,
        data={
            "existing-email": email,
            "existing-password": password,
            "action": "sign-in",
        },
    )


def links(app) -> list[LtiInstructorLink]:
    with app.app_context():
        return list(db.session.execute(select(LtiInstructorLink)).scalars())


def signed_in(client, slug: str) -> bool:
    return client.get(f"/analyst/surveys/{slug}").status_code == 200


@pytest.fixture
def slug(make_survey):
    return make_survey()[0]


def test_the_first_launch_links_by_a_sign_in_and_the_next_signs_in_with_no_form(
    client, app, platform, slug, analyst
):
    landed = instructor_launch(client, platform, slug)
    assert landed.status_code == 303
    link_page = urlsplit(landed.location).path
    assert link_page.startswith("/lti/link/")
    assert any(c.startswith("survey_app_lti_linker=") for c in landed.headers.getlist("Set-Cookie"))
    assert not signed_in(client, slug)  # nothing signed in before the password is typed
    page = client.get(link_page)
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    assert page.text.count("<h1") == 1
    for field in ("existing-email", "existing-password", "new-email", "new-password"):
        assert f'<label for="{field}">' in page.text, field

    linked = link_with_password(client, link_page, analyst, ANALYST_PASSWORD)
    assert linked.status_code == 303
    assert urlsplit(linked.location).path == f"/analyst/surveys/{slug}"
    assert signed_in(client, slug)
    (link,) = links(app)
    with app.app_context():
        issuer = db.session.get(LtiPlatform, link.platform_id).issuer
        assert link.sub_digest == sub_digest(app.secret_key, issuer, SUB) != SUB

    # Another browser, the next day: the course signs the instructor in by itself.
    browser = app.test_client()
    again = instructor_launch(browser, platform, slug)
    assert again.status_code == 303
    assert urlsplit(again.location).path == f"/analyst/surveys/{slug}"
    assert signed_in(browser, slug)


def test_a_linked_instructor_of_another_accounts_survey_is_signed_in_and_refused_in_words(
    client, app, platform, slug, analyst
):
    with app.app_context():
        create_test_analyst(OTHER_EMAIL, ANALYST_PASSWORD)
        db.session.commit()
    link_page = urlsplit(instructor_launch(client, platform, slug).location).path
    refused = link_with_password(client, link_page, OTHER_EMAIL, ANALYST_PASSWORD)
    assert refused.status_code == 403 and "another account of this survey app" in refused.text
    # Linked all the same, and the next launch says the same at once.
    assert len(links(app)) == 1
    browser = app.test_client()
    again = instructor_launch(browser, platform, slug)
    assert again.status_code == 403 and "another account of this survey app" in again.text
    assert browser.get("/analyst/").status_code == 200  # signed in as the colleague


def test_a_new_account_is_made_only_when_confirmed_and_the_password_policy_holds(
    client, app, platform, slug, analyst
):
    link_page = urlsplit(instructor_launch(client, platform, slug).location).path
    assert client.get(link_page).status_code == 200

    def create(email: str, password: str, repeat: str, confirm: bool):
        data = {
            "new-email": email,
            "new-password": password,
            "new-repeat_password": repeat,
            "action": "create",
        }
        if confirm:
            data["new-confirm"] = "y"
        return client.post(link_page, data=data)

    weak = create("new@example.edu", "password1234", "password1234", True)
    assert weak.status_code == 400 and "most common passwords" in weak.text
    assert 'aria-describedby="new-password-error"' in weak.text
    unconfirmed = create("new@example.edu", NEW_PASSWORD, NEW_PASSWORD, False)
    assert unconfirmed.status_code == 400 and "Tick this box" in unconfirmed.text
    differing = create("new@example.edu", NEW_PASSWORD, NEW_PASSWORD + "!", True)
    assert differing.status_code == 400 and "The two passwords differ" in differing.text
    not_an_address = create("new-at-example", NEW_PASSWORD, NEW_PASSWORD, True)
    assert not_an_address.status_code == 400 and "not an email address" in not_an_address.text
    taken = create(analyst, NEW_PASSWORD, NEW_PASSWORD, True)
    assert taken.status_code == 400 and "exists already" in taken.text
    assert 'aria-describedby="new-email-error"' in taken.text
    assert links(app) == []

    made = create("New@Example.edu", NEW_PASSWORD, NEW_PASSWORD, True)
    # Made, linked and signed in; the course's link opens another account's survey.
    assert made.status_code == 403 and "another account of this survey app" in made.text
    (link,) = links(app)
    from survey_app.accounts.services import authenticate

    with app.app_context():
        made_account = authenticate("new@example.edu", NEW_PASSWORD)
        assert made_account is not None and link.analyst_id == made_account.id
    assert client.get("/analyst/").status_code == 200  # signed in to the new account


def test_an_anonymous_instructor_launch_is_not_linked_and_says_so(client, app, platform, slug):
    landed = instructor_launch(client, platform, slug, sub=None)
    assert landed.status_code == 303
    assert urlsplit(landed.location).path == f"/analyst/surveys/{slug}"
    sign_in_page = client.get(landed.location, follow_redirects=True)
    assert "without a user id (an anonymous launch)" in sign_in_page.text
    assert links(app) == []


def test_a_launch_not_bound_to_the_browser_neither_signs_in_nor_offers_a_link(
    app, platform, slug, analyst
):
    with app.test_request_context():
        platform_row = db.session.execute(select(LtiPlatform)).scalar_one()
        digest = sub_digest(app.secret_key, platform_row.issuer, SUB)
        launch = Launch(
            platform_row.id,
            "deployment-1",
            RESOURCE_LINK_REQUEST,
            True,
            slug,
            instructor_digest=digest,
            bound_to_browser=False,
        )
        unlinked = instructors.arrival(launch, "/analyst/surveys/x")
        assert (unlinked.target, unlinked.analyst, unlinked.linker) == (
            "/analyst/surveys/x",
            None,
            None,
        )
        from survey_app.accounts.services import find_analyst
        from survey_app.lti.instructor_links import link_instructor

        link_instructor(platform_row.id, digest, find_analyst(analyst))
        linked = instructors.arrival(launch, "/analyst/surveys/x")
        assert linked.analyst is None and linked.linker is None
        bound = instructors.arrival(
            dataclasses.replace(launch, bound_to_browser=True), "/analyst/surveys/x"
        )
        assert bound.analyst is not None  # the same launch, bound: signed in
        db.session.rollback()


def test_a_link_page_tampered_expired_or_in_another_browser_is_refused(
    client, app, platform, slug, analyst, monkeypatch
):
    link_page = urlsplit(instructor_launch(client, platform, slug).location).path
    tampered = link_page[:-3] + ("AAA" if not link_page.endswith("AAA") else "BBB")
    refused = client.get(tampered)
    assert refused.status_code == 400 and "has expired or was changed" in refused.text
    other = app.test_client()
    assert other.get(link_page).status_code == 400  # no linker cookie: another browser
    monkeypatch.setattr(instructors, "TICKET_LIFETIME", -1)
    before = kept(app)
    expired = client.post(
        link_page,
        data={
            "existing-email": analyst,
            "existing-password": ANALYST_PASSWORD,
            "action": "sign-in",
        },
    )
    assert expired.status_code == 400 and "has expired or was changed" in expired.text
    assert kept(app) == before and links(app) == []


def test_a_wrong_password_or_a_throttled_sign_in_links_nothing(
    client, app, platform, slug, analyst, caplog
):
    caplog.set_level(logging.INFO)
    app.config["RATELIMIT_ENABLED"] = True
    app.config["LOGIN_RATE_LIMIT"] = "2 per minute"
    link_page = urlsplit(instructor_launch(client, platform, slug).location).path
    statuses = []
    for _ in range(2):
        wrong = link_with_password(client, link_page, analyst, "not the password at all")
        statuses.append(wrong.status_code)
        assert "do not match an account" in wrong.text
        assert 'aria-describedby="existing-password-error"' in wrong.text
    throttled = link_with_password(client, link_page, analyst, ANALYST_PASSWORD)
    assert statuses == [400, 400] and throttled.status_code == 429
    assert "Too many sign-in attempts" in throttled.text
    assert throttled.headers["Retry-After"].isdigit()
    assert "too many attempts" in caplog.text  # logged as the sign-in page logs it
    assert links(app) == [] and not signed_in(client, slug)


def test_deep_linking_reaches_the_choice_signed_in_once_linked(
    client, app, platform, slug, analyst
):
    def deep_link(browser):
        query = begin(browser, platform)
        token = platform.deep_linking_request(query["nonce"], [INSTRUCTOR], claims={"sub": SUB})
        return post_launch(browser, token, query["state"])

    first = deep_link(client)
    link_page = urlsplit(first.location).path
    assert link_page.startswith("/lti/link/")
    linked = link_with_password(client, link_page, analyst, ANALYST_PASSWORD)
    chooser = urlsplit(linked.location).path
    assert chooser.startswith("/lti/deep-link/")
    page = client.get(chooser)
    assert page.status_code == 200 and f'value="{slug}"' in page.text
    browser = app.test_client()
    again = deep_link(browser)
    assert urlsplit(again.location).path.startswith("/lti/deep-link/")
    assert browser.get(again.location).status_code == 200  # the choice, with no sign-in


def test_an_instructors_plain_id_name_and_email_are_never_stored_nor_logged(
    client, app, platform, slug, analyst, caplog
):
    caplog.set_level(logging.DEBUG)
    link_page = urlsplit(instructor_launch(client, platform, slug).location).path
    assert link_with_password(client, link_page, analyst, ANALYST_PASSWORD).status_code == 303
    assert instructor_launch(app.test_client(), platform, slug).status_code == 303
    dump = database_dump(app)
    assert "lti_instructor_links" in dump
    log = caplog.text + "\n".join(record.getMessage() for record in caplog.records)
    for value in (SUB, NAME, EMAIL, "grace.hopper"):
        assert value not in dump, value
        assert value not in log, value


def test_the_operator_unlinks_a_platforms_instructors(client, app, platform, slug, analyst, runner):
    link_page = urlsplit(instructor_launch(client, platform, slug).location).path
    link_with_password(client, link_page, analyst, ANALYST_PASSWORD)
    assert len(links(app)) == 1
    unknown = runner.invoke(
        args=["lti-unlink-instructors", "--issuer", "https://no.example", "--client-id", "x"]
    )
    assert unknown.exit_code != 0 and "no platform" in unknown.output.lower()
    done = runner.invoke(
        args=[
            "lti-unlink-instructors",
            "--issuer",
            platform.issuer,
            "--client-id",
            CLIENT_ID,
            "--email",
            analyst,
        ]
    )
    assert done.exit_code == 0, done.output
    assert "1 instructor" in done.output
    assert links(app) == []
    browser = app.test_client()
    again = instructor_launch(browser, platform, slug)
    assert urlsplit(again.location).path.startswith("/lti/link/")  # asked to link again
    link_with_password(browser, urlsplit(again.location).path, analyst, ANALYST_PASSWORD)
    assert len(links(app)) == 1
    removed = runner.invoke(
        args=["lti-remove-platform", "--issuer", platform.issuer, "--client-id", CLIENT_ID]
    )
    assert removed.exit_code == 0 and links(app) == []  # a removed platform's links go with it


def test_a_learners_launch_carries_no_digest_and_links_nothing(client, app, platform, slug):
    """Not even the keyed digest of a learner's sub is made (the dump of the 30 learners' test
    looks for plain values, which a digest would not show)."""
    from survey_app.lti import launches

    query = begin(client, platform)
    token = platform.id_token(query["nonce"], {CLAIM + "custom": {"survey": slug}, "sub": SUB})
    with app.test_request_context():
        accepted = launches.verify_launch(
            {"id_token": token, "state": query["state"]}, query["state"]
        )
        assert not accepted.teaches and accepted.instructor_digest is None
        db.session.rollback()
    assert post_launch(client, token, query["state"]).status_code == 303
    assert links(app) == []
