"""A paired question (survey_app/kinds/paired.py): two yes/no or choice questions in one
definition, randomized together as one answer, whose report is the cell ``a k2 + b``."""

from __future__ import annotations

import json
import re
import uuid

import pytest

from survey_app.surveys.definition_checks import SurveyDefinitionError
from survey_app.surveys.services import find_survey, parse_definition
from tests.analyst_helpers import submit

AI_TOOL = {"text": "Did you use an AI tool for the essay?", "type": "yes_no"}
COPIED = {"text": "Did you copy any homework?", "type": "yes_no"}
YEAR = {"text": "Your year of study?", "type": "choice", "options": ["First", "Second", "Third"]}

DEFINITION = {
    "title": "Homework habits",
    "flip_probability": 0.25,
    "questions": [
        {"type": "paired", "questions": [AI_TOOL, COPIED]},
        {"text": "About your year", "type": "paired", "questions": [YEAR, COPIED]},
    ],
}


def refusal(questions: list) -> str:
    with pytest.raises(SurveyDefinitionError) as refused:
        parse_definition({"title": "T", "flip_probability": 0.25, "questions": questions})
    return str(refused.value)


def test_a_pair_parses_with_its_two_questions_and_a_text_made_of_theirs():
    first, second = parse_definition(DEFINITION).questions
    assert first.kind == "paired"
    assert first.text == f"{AI_TOOL['text']} / {COPIED['text']}"
    assert [part.kind for part in first.parts] == ["yes_no", "yes_no"]
    assert second.text == "About your year"
    assert second.parts[0].choices == ("First", "Second", "Third")


@pytest.mark.parametrize(
    ("pair", "words"),
    [
        ({"type": "paired"}, "questions[0].questions: a paired question needs a list of two"),
        ({"type": "paired", "questions": [AI_TOOL]}, "needs a list of two questions"),
        ({"type": "paired", "questions": [AI_TOOL, COPIED, AI_TOOL]}, "list of two questions"),
        (
            {"type": "paired", "questions": [AI_TOOL, {"type": "yes_no"}]},
            "questions[0].questions[1].text: must be text",
        ),
        (
            {
                "type": "paired",
                "questions": [AI_TOOL, {"text": "Hours?", "type": "numeric", "min": 0, "max": 9}],
            },
            "questions[0].questions[1].type: a paired question pairs 'yes_no' or 'choice' "
            "questions, got 'numeric'",
        ),
        (
            {"type": "paired", "questions": [AI_TOOL, {"type": "paired", "questions": []}]},
            "questions[0].questions[1].type: a paired question pairs 'yes_no' or 'choice' "
            "questions, got 'paired'",
        ),
        (
            {"type": "paired", "questions": [YEAR, {**YEAR, "options": list("abcde")}]},
            "questions[0].questions: the two questions’ options make 15 pairs of answers; "
            "at most 12",
        ),
        ({"type": "paired", "questions": [AI_TOOL, COPIED], "options": ["a"]}, "has no options"),
    ],
)
def test_a_pair_that_cannot_be_asked_is_refused_in_words(pair, words):
    assert words in refusal([pair])


def test_a_pair_of_three_by_four_options_is_the_largest(make_survey, app):
    four = {**YEAR, "options": ["1", "2", "3", "4"]}
    slug, _ = make_survey(
        {
            "title": "T",
            "flip_probability": 0.25,
            "questions": [{"type": "paired", "questions": [YEAR, four]}],
        }
    )
    with app.app_context():
        question = find_survey(slug).questions[0]
        assert question.report_range == (0, 11)
        assert question.mechanism.shape == (3, 4)
        assert question.option_labels[5] == "Second / 2"  # a = 1, b = 1: 1 * 4 + 1


def test_the_browser_gets_the_cells_and_the_two_questions(client, make_survey):
    slug, (pair_id, year_id) = make_survey(DEFINITION)
    survey = client.get(f"/api/v1/surveys/{slug}").get_json()
    pair = survey["questions"][0]
    assert pair["type"] == "paired"
    assert pair["shape"] == [2, 2]
    assert pair["report_range"] == [0, 3]
    assert [option["label"] for option in pair["options"]] == [
        "No / No",
        "No / Yes",
        "Yes / No",
        "Yes / Yes",
    ]
    assert [part["text"] for part in pair["parts"]] == [AI_TOOL["text"], COPIED["text"]]
    year = survey["questions"][1]
    assert year["shape"] == [3, 2]
    assert [o["label"] for o in year["parts"][0]["options"]] == ["First", "Second", "Third"]
    # One epsilon for the pair: the survey's two questions cost two, not four.
    assert survey["epsilon_total"] == pytest.approx(2 * survey["epsilon_per_question"])


def test_the_respondent_page_asks_both_questions_each_in_its_own_labelled_group(
    client, make_survey
):
    slug, (pair_id, year_id) = make_survey(DEFINITION)
    page = client.get(f"/s/{slug}").text
    fieldset = re.search(
        rf'<fieldset class="question" data-question-id="{pair_id}"\s+'
        r'data-question-type="paired"\s+data-option-count="4"\s*data-pair-columns="2">(.*?)'
        r"</fieldset>\s*</fieldset>",
        page,
        flags=re.S,
    )
    assert fieldset is not None, page
    inside = fieldset.group(1)
    # No text of its own: a heading in words, then each question in a group of its own.
    assert "Two questions, answered together" in inside
    legends = re.findall(r'<fieldset class="pair-part".*?<legend>(.*?)</legend>', inside, re.S)
    assert [re.sub(r"<[^>]+>|\s+", " ", legend).split() for legend in legends] == [
        ["1a.", *AI_TOOL["text"].split()],
        ["1b.", *COPIED["text"].split()],
    ]
    # Yes first, as a yes/no question lists them; each group a radio group of its own name.
    assert re.findall(rf'name="question-{pair_id}-(\d)" value="(\d)"', inside) == [
        ("0", "1"),
        ("0", "0"),
        ("1", "1"),
        ("1", "0"),
    ]
    assert "About your year" in page


def test_reports_of_cells_are_accepted_and_counted_and_a_report_outside_is_refused(
    app, client, make_survey
):
    slug, (pair_id, year_id) = make_survey(DEFINITION)
    body = {"submission_id": str(uuid.uuid4()), "answers": {str(pair_id): 4, str(year_id): 5}}
    refused = client.post(
        f"/api/v1/surveys/{slug}/responses", data=json.dumps(body), content_type="application/json"
    )
    assert refused.status_code == 400
    body["answers"][str(pair_id)] = 3
    accepted = client.post(
        f"/api/v1/surveys/{slug}/responses", data=json.dumps(body), content_type="application/json"
    )
    assert accepted.status_code == 201, accepted.get_json()
    submit(app, slug, [(0, 0), (3, 2), (3, 5)])
    with app.app_context():
        from sqlalchemy import func, select

        from survey_app.extensions import db
        from survey_app.storage.database import count_arrivals
        from survey_app.storage.models import Tally

        count_arrivals()
        counts = dict(
            db.session.execute(
                select(Tally.value, func.sum(Tally.noisy_count))
                .where(Tally.question_id == pair_id)
                .group_by(Tally.value)
            ).all()
        )
    assert counts == {0: 1, 1: 0, 2: 0, 3: 3}


def test_the_results_give_the_table_each_questions_shares_and_the_association(
    app, client, make_survey, close, analyst, sign_in_as
):
    slug, (pair_id, year_id) = make_survey(DEFINITION)
    # 40 reports: cells 0..3 of the yes/no pair 10, 4, 6 and 20 times; the year pair's
    # cells 6 or 7 times each.
    pair_reports = [0] * 10 + [1] * 4 + [2] * 6 + [3] * 20
    year_reports = [cell % 6 for cell in range(40)]
    submit(app, slug, list(zip(pair_reports, year_reports, strict=True)))
    close(slug)
    sign_in_as(client, analyst)
    results = client.get(f"/api/v1/surveys/{slug}/results").get_json()
    pair, year = results["questions"]
    assert pair["type"] == "paired" and pair["shape"] == [2, 2]
    assert [(c["row_value"], c["column_value"], c["noisy_count"]) for c in pair["cells"]] == [
        (0, 0, 10),
        (0, 1, 4),
        (1, 0, 6),
        (1, 1, 20),
    ]
    # The cells are the options of a 4-option question at p = 0.25 (P = 1/2, Q = 1/6).
    for cell, option in zip(pair["cells"], pair["options"], strict=True):
        assert cell["estimate"] == option["estimate"]
        assert cell["exact_ci_low"] <= cell["headline"] <= cell["exact_ci_high"]
        assert cell["simultaneous_ci_low"] <= cell["exact_ci_low"]
    assert [round(cell["estimate"], 9) for cell in pair["cells"]] == [0.25, -0.2, -0.05, 1.0]
    # Each question's own shares: Q1 (the rows) reported yes 26 times of 40, Q2 yes 24 times.
    first, second = pair["margins"]
    assert [m["label"] for m in first] == ["No", "Yes"] and first[0]["consistent"] is True
    assert pair["consistent"] is True and pair["margins_live_carried"] is False
    assert [m["noisy_count"] for m in first] == [14, 26]
    assert [m["noisy_count"] for m in second] == [16, 24]
    assert all(m["exact_ci_low"] <= m["headline"] <= m["exact_ci_high"] for m in first + second)
    association = pair["association"]
    assert 0 < association["p_value"] <= 1 and association["p_value_guaranteed"] is False
    assert "Approximate" in association["method"]
    # Shown, the table is [[25%, 0], [0, 100%]]: of those who said yes to Q1 all said yes
    # to Q2, of the others none: a difference of 1, inside its guaranteed range.
    low, high = association["difference_ci_low"], association["difference_ci_high"]
    assert association["difference"] == pytest.approx(1.0)
    assert -1 <= low <= association["difference"] <= high <= 1
    assert association["difference_guaranteed"] is True
    # A 3 x 2 table has no single difference: its p-value alone.
    assert year["shape"] == [3, 2] and len(year["cells"]) == 6
    assert year["association"]["difference"] is None
    assert year["association"]["p_value"] is not None


@pytest.mark.parametrize(
    ("language", "kinds_asked", "sentence"),
    [
        (
            "en",
            ["yes_no", "paired"],
            "Each respondent’s browser flips a yes/no answer 25% of the time and swaps a pair of "
            "answers for another pair at random before sending it, all at the same strength",
        ),
        (
            "de",
            ["paired"],
            "Der Browser jeder Person tauscht vor dem Senden jedes Antwortpaar zufällig gegen ein "
            "anderes Paar, wobei ein Paar als eine Frage zählt (so viel Schutz wie eine Umkehrung "
            "einer Ja/Nein-Antwort in 25 % der Fälle)",
        ),
        (
            "fr",
            ["choice", "paired"],
            "Le navigateur de chaque répondant remplace au hasard une réponse à choix multiple par "
            "une autre option avant de l’envoyer (autant de protection qu’une inversion d’une "
            "réponse oui/non 25 % du temps). Deux questions posées ensemble sont remplacées au "
            "hasard, comme une seule réponse, par une autre paire, avec la même force, et "
            "comptent pour une question",
        ),
    ],
)
def test_the_privacy_words_say_what_a_pair_gets_in_every_language(
    app, language, kinds_asked, sentence
):
    from types import SimpleNamespace

    from survey_app.surveys.words import privacy_how

    questions = [SimpleNamespace(kind=kind) for kind in kinds_asked]
    with app.test_request_context(headers={"Accept-Language": language}):
        assert privacy_how(questions, "25").replace("\u202f", " ").replace("\xa0", " ") == sentence


def test_its_page_script_draws_each_cell_within_the_report_range_under_node(tmp_path):
    from tests.unit.node_scripts import js_module, run_node_script

    check = f"""
import {{ drawTable, randomizedAnswers, tableFits }} from "{js_module("answer-table.js")}";
const questions = Array.from({{ length: 400 }}, (_, i) => ({{ id: String(i), type: "paired",
  optionCount: 6, columns: 2 }}));
const table = drawTable(questions, 0.25);
const answers = Object.fromEntries(questions.map((q) => [q.id, 5]));
const wrong = {{ ...table, 0: table[0].slice(1) }};
console.log(JSON.stringify({{ fits: tableFits(table, questions),
  wrongFits: tableFits(wrong, questions),
  reports: Object.values(randomizedAnswers(questions, answers, table)) }}));
"""
    result = run_node_script(tmp_path, check)
    assert result["fits"] is True and result["wrongFits"] is False
    reports = result["reports"]
    assert all(0 <= report <= 5 for report in reports)
    # 6 cells at p = 0.25 (e^epsilon = 3) keep the true cell with P = 3 / (3 + 5) = 0.375:
    # 400 reports keep about 150 (sd 9.7). The draws are the browser's (crypto, unseeded), so
    # the band is 5 sd either way (a false failure one in a million), while a script that
    # never or always keeps, or randomizes over the wrong number of cells, fails surely.
    kept = reports.count(5)
    assert 150 - 5 * 9.7 <= kept <= 150 + 5 * 9.7, kept
    assert len(set(reports)) == 6


def test_a_copy_keeps_the_pair_and_pairs_with_other_questions_are_not_pooled(app, make_survey):
    from survey_app.results.tables import PoolingError, check_poolable, survey_results
    from survey_app.surveys.copies import duplicate_survey

    headed = {"text": "About homework", "type": "paired", "questions": [AI_TOOL, COPIED]}
    other = {**headed, "questions": [AI_TOOL, {**COPIED, "text": "Did you copy an essay?"}]}
    definition = {"title": "T", "flip_probability": 0.25, "questions": [headed]}
    slug, _ = make_survey(definition)
    other_slug, _ = make_survey({**definition, "questions": [other]})
    twin_slug, _ = make_survey(definition)
    with app.app_context():
        survey = find_survey(slug)
        copy = duplicate_survey(survey)
        assert copy.questions[0].parts == survey.questions[0].parts
        assert copy.questions[0].parts[1]["text"] == COPIED["text"]
        # The same heading and answers, another second question: not the same pair.
        with pytest.raises(PoolingError):
            check_poolable([survey, find_survey(other_slug)])
        pooled = survey_results([survey, find_survey(twin_slug)])
        assert pooled.questions[0].told.shape == (2, 2)


def test_the_readme_s_paired_example_is_a_definition_that_parses():
    import tomllib
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", readme, flags=re.S)
    (paired,) = [block for block in blocks if 'type = "paired"' in block]
    questions = tomllib.loads(paired)["questions"]
    (question,) = parse_definition(
        {"title": "T", "flip_probability": 0.25, "questions": questions}
    ).questions
    assert question.kind == "paired"
    assert [part.kind for part in question.parts] == ["yes_no", "choice"]


def test_a_survey_of_pairs_alone_is_planned_without_words_for_yes_no_questions(app, make_survey):
    from survey_app.planning.shares import make_plan

    slug, _ = make_survey({**DEFINITION, "questions": DEFINITION["questions"][:1]})
    with app.app_context():
        plan = make_plan(find_survey(slug), 0.1, 0.95)
        # A 2x2 pair is planned by its 4 cells; it has no yes/no question of its own.
        assert plan.needed_yes_no == plan.needed_worst
    mixed, _ = make_survey({**DEFINITION, "questions": [*DEFINITION["questions"][:1], AI_TOOL]})
    with app.app_context():
        plan = make_plan(find_survey(mixed), 0.1, 0.95)
        assert plan.needed_yes_no < plan.needed_worst
