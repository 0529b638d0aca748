"""Fixtures the unit tests share: a signed-in client, a second analyst, a survey of numbers."""

from __future__ import annotations

import pytest

from survey_app.extensions import db
from tests.analyst_helpers import OTHER_EMAIL, OTHER_PASSWORD, create_test_analyst, is_signed_in
from tests.numeric_helpers import HOURS


@pytest.fixture
def signed_in(client, analyst, sign_in_as):
    """The test client, signed in as the ``analyst`` fixture's account."""
    sign_in_as(client, analyst)
    assert is_signed_in(client)
    return client


@pytest.fixture
def other_analyst(app, sign_in_as):
    """A second analyst, signed in on a client of their own."""
    with app.app_context():
        create_test_analyst(OTHER_EMAIL, OTHER_PASSWORD)
        db.session.commit()
    other = app.test_client()
    sign_in_as(other, OTHER_EMAIL)
    assert is_signed_in(other)
    return other


@pytest.fixture
def hours(make_survey):
    """An open survey asking hours a week (0 to 40, the hybrid mechanism) and a yes/no question."""
    return make_survey(HOURS)
