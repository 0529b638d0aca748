"""The link page makes a new account for anyone the platform calls an instructor (no e-mail is
checked), unless the operator turns that off (SURVEY_APP_LTI_CREATE_ACCOUNTS=false): the page
then offers only a sign-in with an existing account, and a post asking for a new one makes none."""

from __future__ import annotations

from urllib.parse import urlsplit

from sqlalchemy import func, select

from survey_app.config import from_environment
from survey_app.extensions import db
from survey_app.storage.models import Analyst
from tests.unit.lti.test_in_frame import resource_link_launch
from tests.unit.lti.test_launches import platform

__all__ = ["platform"]

PASSWORD = "violet kettle orbit 93"


def accounts(app) -> int:
    with app.app_context():
        return db.session.execute(select(func.count()).select_from(Analyst)).scalar_one()


def test_the_setting_is_on_unless_the_operator_turns_it_off(monkeypatch, tmp_path):
    monkeypatch.delenv("SURVEY_APP_LTI_CREATE_ACCOUNTS", raising=False)
    assert from_environment(str(tmp_path), with_secret_key=False)["LTI_CREATE_ACCOUNTS"] is True
    monkeypatch.setenv("SURVEY_APP_LTI_CREATE_ACCOUNTS", "false")
    assert from_environment(str(tmp_path), with_secret_key=False)["LTI_CREATE_ACCOUNTS"] is False


def test_with_the_setting_off_the_link_page_makes_no_account(app, client, platform, make_survey):
    slug, _ = make_survey()
    app.config["LTI_CREATE_ACCOUNTS"] = False
    link_page = urlsplit(resource_link_launch(client, platform, slug).location).path
    page = client.get(link_page)
    assert page.status_code == 200
    assert 'id="link-sign-in"' in page.text and 'id="link-new-account"' not in page.text
    before = accounts(app)
    data = {
        "new-email": "someone@example.edu",
        "new-password": PASSWORD,
        "new-repeat_password": PASSWORD,
        "new-confirm": "y",
        "action": "create",
    }
    refused = client.post(link_page, data=data)
    assert refused.status_code == 400 and 'id="link-new-account"' not in refused.text
    assert accounts(app) == before
