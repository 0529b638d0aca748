"""A paired question in the CSV files (survey_app/results/exports.py): results.csv names each
cell's two answers (``row_value``, ``column_value``) and gives each question's own shares as
rows of their own ("Yes / any", "any / Yes"), read alike by the csv module and pandas, with the
two columns named in a ``?labels=`` row; responses.csv gives the pair's one report as its two
answers' values, headed as randomized together."""

from __future__ import annotations

import pytest

from tests.unit.kinds.test_paired import DEFINITION
from tests.unit.results.test_exports import (
    RESULTS_HEADER,
    bearer,
    fetch,  # noqa: F401 - a fixture, used by name
    read_frame,
    read_rows,
    submit,
    token,  # noqa: F401 - a fixture, used by name
)
from tests.unit.results.test_joint_results import PAIR_REPORTS, YEAR_REPORTS


@pytest.fixture
def pairs(app, make_survey):
    slug, _ = make_survey(DEFINITION)
    submit(app, slug, list(zip(PAIR_REPORTS, YEAR_REPORTS, strict=True)))
    return slug


def by_key(rows: list[list[str]]) -> list[dict[str, str]]:
    return [dict(zip(RESULTS_HEADER, row, strict=True)) for row in rows[1:]]


def test_each_cell_names_its_two_answers_and_each_margin_has_rows(fetch, pairs):  # noqa: F811
    rows = read_rows(fetch(pairs, "results"))
    assert rows[0] == RESULTS_HEADER
    read = by_key(rows)
    pair = [row for row in read if row["question_number"] == "1"]
    said = [
        (row["option_value"], row["option"], row["row_value"], row["column_value"]) for row in pair
    ]
    assert said == [
        ("0", "No / No", "0", "0"),
        ("1", "No / Yes", "0", "1"),
        ("2", "Yes / No", "1", "0"),
        ("3", "Yes / Yes", "1", "1"),
        # Each question's own shares: no option value (none is a cell), one answer named.
        ("", "No / any", "0", ""),
        ("", "Yes / any", "1", ""),
        ("", "any / No", "", "0"),
        ("", "any / Yes", "", "1"),
    ]
    # The margins' counts are the rows' and columns' sums of reports (14 and 26, 16 and 24).
    assert [row["noisy_count"] for row in pair[4:]] == ["14", "26", "16", "24"]
    year = [row for row in read if row["question_number"] == "2"]
    assert [row["option"] for row in year[6:]] == [
        "First / any",
        "Second / any",
        "Third / any",
        "any / No",
        "any / Yes",
    ]
    assert [(row["row_value"], row["column_value"]) for row in year[:6]] == [
        (str(a), str(b)) for a in range(3) for b in range(2)
    ]


def test_the_margins_rows_are_the_apis_margins_and_pandas_reads_them_as_numbers(
    app,
    client,
    fetch,  # noqa: F811
    token,  # noqa: F811
    pairs,
):
    frame = read_frame(fetch(pairs, "results"))
    assert list(frame.columns) == RESULTS_HEADER
    document = client.get(f"/api/v1/surveys/{pairs}/results", headers=bearer(token)).get_json()
    first, second = document["questions"][0]["margins"]
    pair = frame[frame["question_number"] == 1]
    margins = pair[pair["option_value"].isna()]
    for column in ("estimate", "exact_ci_low", "exact_ci_high", "live_ci_low", "live_ci_high"):
        api = [m[column] for m in first + second]
        assert max(abs(margins[column] - api)) < 1e-4, column
    # Whole numbers where given, empty (NaN) where a row does not name that answer.
    assert margins["row_value"].tolist()[:2] == [0, 1] and margins["row_value"].isna()[2:].all()
    assert margins["column_value"].tolist()[2:] == [0, 1]
    cells = pair[pair["option_value"].notna()]
    assert (cells["row_value"] * 2 + cells["column_value"] == cells["option_value"]).all()


def test_the_labels_row_names_the_two_answers_columns(fetch, pairs):  # noqa: F811
    german = read_rows(fetch(pairs, "results", labels="de"))[1]
    named = dict(zip(RESULTS_HEADER, german, strict=True))
    assert named["row_value"] == "Antwort auf die erste Frage (Wert)"
    assert named["column_value"] == "Antwort auf die zweite Frage (Wert)"
    french = dict(
        zip(RESULTS_HEADER, read_rows(fetch(pairs, "results", labels="fr"))[1], strict=True)
    )
    assert french["row_value"] == "Réponse à la première question (valeur)"


def test_responses_give_a_pairs_report_as_its_two_answers_randomized_together(
    fetch,  # noqa: F811
    pairs,
):
    rows = read_rows(fetch(pairs, "responses"))
    assert rows[0][2:] == [
        "Q1 (randomized): Did you use an AI tool for the essay? / Did you copy any homework?",
        "Q1 value",
        "Q1 first value (randomized together): Did you use an AI tool for the essay?",
        "Q1 second value (randomized together): Did you copy any homework?",
        "Q2 (randomized): About your year",
        "Q2 value",
        "Q2 first value (randomized together): Your year of study?",
        "Q2 second value (randomized together): Did you copy any homework?",
    ]
    labels = [["No", "Yes"], ["First", "Second", "Third"]]
    for row in rows[1:]:
        for start, columns, first in ((2, 2, labels[0]), (6, 2, labels[1])):
            said, cell, a, b = row[start : start + 4]
            assert int(cell) == int(a) * columns + int(b)
            assert said == f"{first[int(a)]} / {['No', 'Yes'][int(b)]}"
    reported = sorted(int(row[3]) for row in rows[1:])
    assert reported == sorted(PAIR_REPORTS)
