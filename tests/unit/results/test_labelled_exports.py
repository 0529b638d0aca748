"""results.csv?labels=de: the columns' names in a shipped language, in a second header row under
the English keys, which stay the same in every language (scripts read them)."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from pandas.api import types as pd_types

from survey_app.web import languages
from tests.numeric_helpers import HOURS
from tests.unit.results.test_exports import (
    RESULTS_HEADER,
    SAMPLE_ROWS,
    bearer,
    csv_url,
    fetch,  # noqa: F401 (a fixture)
    read_rows,
    submit,
    token,  # noqa: F401 (a fixture)
)

GERMAN = {
    "question_number": "Nummer der Frage",
    "question": "Text der Frage",
    "option": "Antwort in Worten",
    "n": "Personen, die geantwortet haben",
    "estimate": "Unverzerrte Schätzung",
    "exact_ci_low": "Exakter Bereich: unteres Ende",
    "chebyshev_ci_high": "Tschebyscheff-Bereich: oberes Ende",
    "epsilon": "Kosten für die Privatsphäre je Frage (ε)",
    "live_ci_high": "Laufender Bereich: oberes Ende",
}
FRENCH = {
    "question_number": "Numéro de la question",
    "estimate": "Estimation sans biais",
    # French sets a no-break space before a colon.
    "exact_ci_low": "Intervalle exact\xa0: borne inférieure",
    "simultaneous_ci_high": "Intervalle pour toutes les réponses à la fois\xa0: borne supérieure",
}


@pytest.fixture
def answered(app, make_survey):
    """A closed survey of every kind of row: yes/no, a choice, and a number (its average and
    its histogram's bars)."""
    choice = {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]}
    slug, _ = make_survey({**HOURS, "questions": [*HOURS["questions"], choice]})
    # The number's reports (its mechanism's own scale), then the sample's yes/no and choice.
    submit(app, slug, [(300 + 40 * index, *row) for index, row in enumerate(SAMPLE_ROWS)])
    return slug


def test_the_keys_and_rows_are_the_same_in_every_language(fetch, answered):  # noqa: F811
    """Whatever labels are asked for, and whatever the browser's language, the first row is the
    keys and the rows under the labels are the file without labels, cell for cell."""
    plain = read_rows(fetch(answered, "results"))
    assert plain[0] == RESULTS_HEADER
    assert len(plain) > 1 + 3 + 5  # the number's average and bars, the options
    for language in languages.SHIPPED_LANGUAGES:
        rows = read_rows(fetch(answered, "results", labels=language))
        assert rows[0] == RESULTS_HEADER, language
        assert rows[2:] == plain[1:], language
        assert len(rows[1]) == len(RESULTS_HEADER)
    assert set(languages.SHIPPED_LANGUAGES) >= {"en", "de", "fr"}


def test_a_browser_asking_for_german_gets_the_keys_alone(client, token, answered):  # noqa: F811
    """The API speaks English: no labels row unless asked for, whatever the Accept-Language."""
    asked = {**bearer(token), "Accept-Language": "de"}
    rows = read_rows(client.get(csv_url(answered, "results"), headers=asked))
    assert rows[0] == RESULTS_HEADER
    assert rows[1][0] == "1"  # the first question's first row, no labels


def test_the_labels_row_in_german_french_and_english(fetch, answered):  # noqa: F811
    labelled = {
        language: dict(
            zip(
                RESULTS_HEADER,
                read_rows(fetch(answered, "results", labels=language))[1],
                strict=True,
            )
        )
        for language in ("en", "de", "fr")
    }
    assert {key: labelled["de"][key] for key in GERMAN} == GERMAN
    assert {key: labelled["fr"][key] for key in FRENCH} == FRENCH
    assert labelled["en"]["estimate"] == "Unbiased estimate"
    assert labelled["en"]["exact_ci_low"] == "Exact range: low end"
    for language in ("de", "fr"):
        names = labelled[language]
        # Every column named, each name once, none left in English.
        assert all(names.values()) and len(set(names.values())) == len(RESULTS_HEADER)
        assert [key for key in RESULTS_HEADER if names[key] == labelled["en"][key]] == [], language


def test_pandas_skips_the_labels_row_as_the_dashboard_says(fetch, answered):  # noqa: F811
    """``pd.read_csv(path, skiprows=[1])`` reads the labelled file as the plain one: the same
    frame, figures as numbers; with header=[0, 1] it reads both rows as a two-level header."""
    plain = pd.read_csv(io.BytesIO(fetch(answered, "results").get_data()))
    body = fetch(answered, "results", labels="de").get_data()
    skipped = pd.read_csv(io.BytesIO(body), skiprows=[1])
    pd.testing.assert_frame_equal(skipped, plain)
    for column in ("question_number", "n", "estimate", "exact_ci_low", "epsilon"):
        assert pd_types.is_numeric_dtype(skipped[column]), column
    both = pd.read_csv(io.BytesIO(body), header=[0, 1])
    assert both.columns[6] == ("estimate", "Unverzerrte Schätzung")
    assert len(both) == len(plain)


@pytest.mark.parametrize("asked", ["xx", "", "DE", "de-DE", "german", "x" * 5000])
def test_a_language_the_app_does_not_speak_is_refused_in_words(fetch, answered, asked):  # noqa: F811
    response = fetch(answered, "results", labels=asked)
    assert response.status_code == 400
    said = response.get_json()["error"]
    assert said.startswith("labels must be the code of a language the app speaks (en, de, fr")
    assert said.endswith(f"got {asked[:20] + ('…' if len(asked) > 20 else '')!r}")
    assert len(said) < 200  # a long value is quoted back cut short
