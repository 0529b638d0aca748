"""Pooling sections that ask a number: only the same bounds, unit and mechanism add up.

A "minutes" section and an "hours" one with the same bounds measure different things; two
sections randomized by the same mechanism pool whether the definition named it or it was
chosen for the survey's epsilon.
"""

from __future__ import annotations

import copy

import pytest

from survey_app.results.tables import PoolingError, survey_results
from survey_app.surveys.services import find_survey
from tests.numeric_helpers import HOURS


def with_number(**fields) -> dict:
    definition = copy.deepcopy(HOURS)
    definition["questions"][0].update(fields)
    return definition


def test_sections_that_differ_in_the_unit_are_not_pooled(make_survey, app):
    hours, _ = make_survey(HOURS)
    minutes, _ = make_survey(with_number(unit="minutes"))
    with app.app_context():
        with pytest.raises(PoolingError, match="the same bounds, unit and mechanism"):
            survey_results([find_survey(hours), find_survey(minutes)])


def test_the_same_mechanism_pools_whether_named_or_chosen(make_survey, app):
    chosen, _ = make_survey(HOURS)
    with app.app_context():
        name = find_survey(chosen).questions[0].mechanism.name
    named, _ = make_survey(with_number(mechanism=name))
    other = "laplace" if name != "laplace" else "hybrid"
    different, _ = make_survey(with_number(mechanism=other))
    with app.app_context():
        assert find_survey(named).questions[0].numeric_mechanism == name
        assert survey_results([find_survey(chosen), find_survey(named)]).pooled
        with pytest.raises(PoolingError):
            survey_results([find_survey(chosen), find_survey(different)])


def test_the_dashboard_offers_only_sections_that_pool(
    client, make_survey, sign_in_as, analyst, app
):
    from survey_app.extensions import db
    from survey_app.surveys.services import close_survey

    first, _ = make_survey(HOURS)
    same, _ = make_survey(with_number(mechanism="hybrid"))
    minutes, _ = make_survey(with_number(unit="minutes"))
    with app.app_context():
        assert find_survey(first).questions[0].mechanism.name == "hybrid"
        for slug in (same, minutes):
            close_survey(find_survey(slug))
        db.session.commit()
    sign_in_as(client, analyst)
    page = client.get(f"/analyst/surveys/{first}").get_data(as_text=True)
    assert f'name="pool" value="{same}"' in page
    assert f'name="pool" value="{minutes}"' not in page
