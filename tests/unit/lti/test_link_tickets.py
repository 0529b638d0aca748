"""A link page's ticket is good for one link: once the instructor's platform account is linked,
the page refuses it (a second sign-in there must not re-point the link to another account), and
the linker cookie is deleted, with the attributes it was set with, on every outcome that ends
it: the link, the refusal of another account's survey after the link, any refusal."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from survey_app.extensions import db
from survey_app.lti.instructors import LINKER_COOKIE
from survey_app.storage.lti_models import LtiInstructorLink
from tests.conftest import ANALYST_PASSWORD, create_test_analyst
from tests.unit.lti.test_in_frame import resource_link_launch
from tests.unit.lti.test_launches import platform

__all__ = ["platform"]

OTHER = "other@example.edu"
THIRD = "third@example.edu"


@pytest.fixture
def two_more_accounts(app) -> dict[str, int]:
    with app.app_context():
        accounts = [create_test_analyst(email, ANALYST_PASSWORD) for email in (OTHER, THIRD)]
        db.session.commit()
        return {account.email: account.id for account in accounts}


def linked_accounts(app) -> list[int]:
    with app.app_context():
        return [link.analyst_id for link in db.session.execute(select(LtiInstructorLink)).scalars()]


def sign_in_on(client, link_page: str, email: str):
    data = {"existing-email": email, "existing-password": ANALYST_PASSWORD, "action": "sign-in"}
    return client.post(link_page, data=data)


def deletes_linker(response) -> bool:
    return any(
        header.startswith(LINKER_COOKIE + "=") and "Max-Age=0" in header
        for header in response.headers.getlist("Set-Cookie")
    )


def keep_linker(client, value: str) -> None:
    """A browser that kept the cookie anyway (or an attacker replaying it)."""
    client.set_cookie(LINKER_COOKIE, value, path="/lti/link")


def test_the_not_owner_refusal_after_a_link_ends_the_ticket_and_a_replay_re_points_nothing(
    app, client, platform, make_survey, two_more_accounts
):
    slug, _ = make_survey()  # the survey of the fixture's analyst, not of OTHER's
    landed = resource_link_launch(client, platform, slug)
    link_page = urlsplit(landed.location).path
    linker = client.get_cookie(LINKER_COOKIE, path="/lti/link").value
    refused = sign_in_on(client, link_page, OTHER)
    assert refused.status_code == 403 and deletes_linker(refused)
    assert linked_accounts(app) == [two_more_accounts[OTHER]]
    keep_linker(client, linker)
    replayed = sign_in_on(client, link_page, THIRD)
    assert replayed.status_code == 400 and "open the link again from the course" in replayed.text
    assert deletes_linker(replayed)
    assert linked_accounts(app) == [two_more_accounts[OTHER]]


def test_a_used_ticket_is_refused_and_never_moves_the_link(
    app, client, platform, make_survey, analyst, two_more_accounts
):
    slug, _ = make_survey()
    landed = resource_link_launch(client, platform, slug)
    link_page = urlsplit(landed.location).path
    linker = client.get_cookie(LINKER_COOKIE, path="/lti/link").value
    done = sign_in_on(client, link_page, analyst)
    assert done.status_code == 303 and deletes_linker(done)
    (owner,) = linked_accounts(app)
    keep_linker(client, linker)
    assert client.get(link_page).status_code == 400
    keep_linker(client, linker)
    assert sign_in_on(client, link_page, THIRD).status_code == 400
    assert linked_accounts(app) == [owner]
