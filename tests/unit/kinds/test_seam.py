"""The question-kind seam (survey_app/kinds): a kind registered by this test alone, a scale of
five points randomized by k-ary randomized response, goes through the definition, the respondent
page, its page script under Node, the counts, the results and the CSV with nothing changed
elsewhere; and few files outside the kinds' own folders name a kind."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from jinja2 import ChoiceLoader, DictLoader

from survey_app import kinds
from survey_app.kinds.base import Kind
from survey_app.surveys.definition_checks import SurveyDefinitionError
from survey_app.surveys.services import find_survey, parse_definition
from tests.analyst_helpers import submit
from tests.unit.node_scripts import js_module, run_node_script

ROOT = Path(__file__).resolve().parents[3]
POINTS = ("1", "2", "3", "4", "5")


class Scale(Kind):
    name = "scale"
    label = "A scale of five"
    partial = "kinds/scale.html"
    script = "js/kinds/scale.js"
    script_role = "reads a point of the scale and has it scrambled"
    add_words = "a scale question"

    def option_labels(self, question) -> list[str]:
        return list(POINTS)

    def way(self, flip_percent: str) -> str:
        return "swaps a point of a scale for another at random"


#: Its respondent partial, served from here: the shared fieldset, one radio a point.
SCALE_PARTIAL = """{% from "kinds/_fieldset.html" import question_fieldset %}
{% call question_fieldset(question, number) %}
    <div class="options scale">
      {% for label in question.option_labels %}
      <label class="option"><input type="radio" name="question-{{ question.id }}"
        value="{{ loop.index0 }}" data-question-id="{{ question.id }}"> {{ label }}</label>
      {% endfor %}
    </div>
{% endcall %}
"""

#: Its page script: options.js's reading of a picked option, randomized by k-ary randomized
#: response from randomized-response.js (a page script never draws randomness itself).
SCALE_SCRIPT = """
import { randomizeChoice } from "%s";
import { optionKind } from "%s";
export const scale = optionKind(randomizeChoice);
"""

DEFINITION = {
    "title": "How was the lecture?",
    "flip_probability": 0.25,
    "questions": [
        {"text": "Rate the lecture", "type": "scale"},
        {"text": "Did you attend?", "type": "yes_no"},
    ],
}


@pytest.fixture
def scale(app):
    """The scale kind, registered (its partial served) for one test, then taken out again."""
    loader = app.jinja_env.loader
    app.jinja_env.loader = ChoiceLoader([loader, DictLoader({"kinds/scale.html": SCALE_PARTIAL})])
    kind = kinds.register(Scale())
    yield kind
    kinds.unregister(kind.name)
    app.jinja_env.loader = loader


def test_a_definition_with_a_registered_kind_parses_and_an_unregistered_one_is_refused(scale):
    parsed = parse_definition(DEFINITION)
    assert [question.kind for question in parsed.questions] == ["scale", "yes_no"]
    kinds.unregister("scale")
    with pytest.raises(SurveyDefinitionError) as refused:
        parse_definition(DEFINITION)
    assert str(refused.value) == (
        "questions[0].type: must be 'yes_no', 'choice', 'numeric' or 'paired', got 'scale'"
    )


def test_the_respondent_page_renders_the_kinds_partial(scale, client, make_survey):
    slug, (scale_id, _) = make_survey(DEFINITION)
    page = client.get(f"/s/{slug}").text
    fieldset = re.search(
        rf'<fieldset class="question" data-question-id="{scale_id}"\s+'
        r'data-question-type="scale"\s+data-option-count="5">(.*?)</fieldset>',
        page,
        flags=re.S,
    )
    assert fieldset is not None
    assert 'class="options scale"' in fieldset.group(1)
    assert re.findall(r'value="(\d)" data-question-id', fieldset.group(1)) == list("01234")


def test_its_page_script_reports_within_its_report_range_under_node(scale, app, tmp_path):
    with app.test_request_context():
        from survey_app.kinds import kind_named

        assert kind_named("scale") is scale
    script = tmp_path / "scale.mjs"
    script.write_text(
        SCALE_SCRIPT % (js_module("randomized-response.js"), js_module("kinds/options.js")),
        encoding="utf-8",
    )
    check = f"""
import {{ registerKind }} from "{js_module("kinds/index.js")}";
import {{ drawTable, randomizedAnswers, tableFits }} from "{js_module("answer-table.js")}";
import {{ scale }} from "{script.as_uri()}";
registerKind("scale", scale);
const questions = Array.from({{ length: 400 }}, (_, i) => ({{ id: String(i), type: "scale",
  optionCount: 5 }}));
const table = drawTable(questions, 0.25);
const answers = Object.fromEntries(questions.map((q) => [q.id, 2]));
console.log(JSON.stringify({{ fits: tableFits(table, questions),
  reports: Object.values(randomizedAnswers(questions, answers, table)) }}));
"""
    result = run_node_script(tmp_path, check)
    assert result["fits"] is True
    reports = result["reports"]
    low, high = 0, 4  # the report_range of RandomizedResponse(0.25, 5), checked below
    assert all(low <= report <= high for report in reports)
    # k-ary randomized response at epsilon = ln((1 - p) / p) = ln 3 keeps a point with
    # probability 3 / (3 + 4) = 3/7: 400 reports keep about 171.4 (sd 9.9). The draws are the
    # browser's (crypto, unseeded), so the band is 5 sd either way: a false failure is a
    # one-in-a-million event, while a mechanism that never or always keeps fails surely.
    kept = reports.count(2)
    assert 400 * 3 / 7 - 5 * 9.9 <= kept <= 400 * 3 / 7 + 5 * 9.9, kept
    # Each other point has probability 1/7 a report: all four appear (one missing: 1e-26).
    assert len(set(reports)) == 5


def test_its_submissions_are_counted_and_its_rows_are_in_the_results_and_csv(
    scale, app, client, make_survey, close, analyst, sign_in_as
):
    slug, _ = make_survey(DEFINITION)
    with app.app_context():
        question = find_survey(slug).questions[0]
        assert question.report_range == (0, 4)
        assert question.mechanism.name == "randomized_response"
    # Noisy reports as the browsers would send them: each point a known number of times.
    rows = [(point, point % 2) for point in range(5) for _ in range(point + 1)]
    submit(app, slug, rows)
    close(slug)
    sign_in_as(client, analyst)
    csv_text = client.get(f"/api/v1/surveys/{slug}/results.csv").text
    read = [
        row
        for row in csv.DictReader(io.StringIO(csv_text))
        if row["question"] == "Rate the lecture"
    ]
    assert [row["option"] for row in read] == list(POINTS)
    assert [int(row["noisy_count"]) for row in read] == [1, 2, 3, 4, 5]
    assert all(row["n"] == "15" for row in read)
    page = client.get(f"/analyst/surveys/{slug}").text
    assert "Rate the lecture" in page
    assert "swaps a point of a scale for another at random" in page


#: A kind named in code: as a quoted name, or by the enumeration and test that were replaced.
NAMES_A_KIND = re.compile(
    r"""["'](yes_no|choice|numeric|paired)["']|QuestionKind|is_numeric|\.type === \""""
)
#: The kinds' own folders, and the migrations (history: they describe the schema as it was).
OWN_FOLDERS = ("survey_app/kinds/", "static/js/kinds/", "templates/kinds/", "survey_app/storage/")
#: The files outside them that still name a kind: three at most. A file moved to ask its
#: question's kind is taken off this list, which the test below keeps exact.
STILL_NAMING = {
    "survey_app/planning/shares.py",  # the planner groups yes/no and choice questions
    "survey_app/surveys/services.py",  # the sample survey's definition
    "survey_app/surveys/words.py",  # the privacy explanation's words per kind
}


def files_naming_a_kind() -> set[str]:
    named = set()
    for folder, pattern in (("survey_app", "*.py"), ("templates", "*.html"), ("static/js", "*.js")):
        for path in (ROOT / folder).rglob(pattern):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(OWN_FOLDERS):
                continue
            source = path.read_text(encoding="utf-8").replace('inputmode="numeric"', "")
            if NAMES_A_KIND.search(source):
                named.add(relative)
    return named


def test_at_most_three_files_outside_the_kinds_name_a_kind():
    assert len(STILL_NAMING) <= 3
    assert files_naming_a_kind() == STILL_NAMING
    # The storage knows kinds only as registered names (models: a String checked by the registry).
    models = (ROOT / "survey_app/storage/models.py").read_text(encoding="utf-8")
    assert not NAMES_A_KIND.search(models)
