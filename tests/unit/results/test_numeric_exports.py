"""results.csv of a survey with a number question, read as people read it in pandas.

The average's row has no option value or noisy count, so pandas, left to itself, reads those
columns as decimals for every question (a yes/no value of 1 becomes 1.0); the README gives the
call that keeps them whole, checked here.
"""

from __future__ import annotations

import io

import pandas as pd
from pandas.api import types as pd_types

from tests.numeric_helpers import submit_numbers

# hours: the numeric questions' fixture (tests/unit/conftest.py), an open survey asking hours.


def test_results_csv_of_numbers_and_shares_loads_whole_numbers_as_the_readme_says(
    client, hours, sign_in_as, analyst
):
    slug, (number_id, yes_no_id) = hours
    submit_numbers(client, slug, number_id, yes_no_id, [12.0] * 20)
    sign_in_as(client, analyst)
    body = client.get(f"/api/v1/surveys/{slug}/results.csv").get_data()
    plain = pd.read_csv(io.BytesIO(body))
    assert pd_types.is_float_dtype(plain["option_value"])  # what the README warns of
    frame = pd.read_csv(io.BytesIO(body), dtype={"option_value": "Int64", "noisy_count": "Int64"})
    for column in ("option_value", "noisy_count", "question_number", "n"):
        assert pd_types.is_integer_dtype(frame[column]), column
    average = frame[frame["option"] == "average hours"]
    assert len(average) == 1 and average["option_value"].isna().all()
    yes_no = frame[frame["question_number"] == 2]
    assert yes_no["option_value"].tolist() == [0, 1]
    assert yes_no["noisy_count"].sum() == 20


def test_the_dashboard_says_what_results_csv_holds_for_a_number(
    client, hours, survey, sign_in_as, analyst
):
    sign_in_as(client, analyst)
    with_number = client.get(f"/analyst/surveys/{hours[0]}").get_data(as_text=True)
    assert "for a number question, its average with its range, then a row per bar" in with_number
    without = client.get(f"/analyst/surveys/{survey[0]}").get_data(as_text=True)
    assert "for a number question" not in without
