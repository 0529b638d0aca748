"""A choice's ticket naming an analyst account carries a marker of the account (a keyed digest
of its password hash): a new password, which ends every session of the account, ends the ticket
too. Naming the account on the way (the link page) keeps the ticket's age, counted from the
course's request; and once the signed answer is returned, the chooser cookie is deleted, so the
ticket opens nothing more in that browser."""

from __future__ import annotations

import time
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from survey_app.accounts.services import find_analyst, set_password
from survey_app.extensions import db
from survey_app.lti import deep_linking
from survey_app.lti.launches import LaunchRefused
from survey_app.lti.views import CHOOSER_COOKIE
from survey_app.storage.lti_models import LtiPlatform
from tests.unit.lti.test_in_frame import (
    FRAMED,
    a_launch,
    deep_linking_launch,
    in_the_frame,
    linked,
    signed_answer,
)
from tests.unit.lti.test_launches import platform

__all__ = ["platform"]


def framed_choice(app, client, platform, analyst) -> str:
    """A linked instructor's deep linking launch in the frame: the choice's path."""
    linked(app, analyst)
    landed = deep_linking_launch(client, platform, **FRAMED)
    assert landed.status_code == 303
    in_the_frame(client)
    return urlsplit(landed.location).path


def test_a_new_password_ends_the_choice_naming_the_account(
    app, client, platform, make_survey, analyst
):
    slug, _ = make_survey()
    chooser = framed_choice(app, client, platform, analyst)
    assert client.get(chooser).status_code == 200
    with app.app_context():
        set_password(find_analyst(analyst), "a brand new passphrase 77 x")
        db.session.commit()
    refused = client.get(chooser)
    assert refused.status_code == 400 and slug not in refused.text
    posted = client.post(chooser, data={"survey": slug})
    assert posted.status_code == 400 and signed_answer(posted.text) is None


def test_naming_the_account_on_the_way_keeps_the_tickets_age(app, platform):
    account = SimpleNamespace(id=3, password_hash="scrypt:some-hash")
    with app.app_context():
        row = db.session.execute(select(LtiPlatform)).scalar_one()
        plain = deep_linking.ticket(app.secret_key, a_launch(row.id), "this-browser")
    start = time.time()
    with pytest.MonkeyPatch.context() as patch:
        # Named twenty minutes after the course asked, read twelve minutes later: 32 in all.
        patch.setattr("itsdangerous.timed.time.time", lambda: start + 20 * 60)
        named = deep_linking.for_analyst(app.secret_key, plain, account)
        patch.setattr("itsdangerous.timed.time.time", lambda: start + 32 * 60)
        with pytest.raises(LaunchRefused):
            deep_linking.read_ticket(app.secret_key, named, "this-browser")


def test_the_returned_answer_deletes_the_chooser_cookie_and_the_choice_opens_no_more(
    app, client, platform, make_survey, analyst
):
    slug, _ = make_survey()
    chooser = framed_choice(app, client, platform, analyst)
    returned = client.post(chooser, data={"survey": slug})
    assert returned.status_code == 200 and signed_answer(returned.text)
    (deleted,) = [
        header
        for header in returned.headers.getlist("Set-Cookie")
        if header.startswith(CHOOSER_COOKIE + "=")
    ]
    assert "Max-Age=0" in deleted and "Path=/lti/deep-link" in deleted
    again = client.post(chooser, data={"survey": slug})
    assert again.status_code == 400 and signed_answer(again.text) is None
