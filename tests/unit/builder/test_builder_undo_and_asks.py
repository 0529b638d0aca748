"""The builder a professor meets first: removing a question and undoing it, every error it can
say (in words, beside its field), number bounds that start empty, asking before saving a range
a hundred times wider than before, and the 50-question stop. All without JavaScript: the page's
buttons post the form and the server answers with the page again.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from markupsafe import escape

from survey_app import kinds
from survey_app.surveys.services import MAX_QUESTIONS, find_survey
from tests.analyst_helpers import builder_form, survey_count, token_of
from tests.unit.builder.test_builder_pages import assert_error_beside_its_field


def form_of(signed_in, questions: list[dict], **fields) -> dict:
    """The builder's form with ``questions`` (each a dict of its fields, the rest empty)."""
    return builder_form(token_of(signed_in), questions, **fields)


def page_fields(page: str) -> list[dict]:
    """The questions as the page shows them: each field's value (the select's chosen one)."""
    items = re.findall(r'<li class="panel question-editor">(.*?)</li>', page, re.S)
    shown = []
    for item in items:
        fields = {}
        for name in ("text", "min", "max", "unit"):
            value = re.search(rf'name="question_{name}"[^>]*value="([^"]*)"', item)
            fields[name] = html.unescape(value.group(1))
        options = re.search(r'name="question_options"[^>]*>(.*?)</textarea>', item, re.S)
        fields["options"] = html.unescape(options.group(1))
        selects = re.findall(r'<option value="(\w*)" selected>', item)
        fields["type"], fields["mechanism"] = selects[0], selects[1]
        shown.append(fields)
    return shown


def autofocused_id(page: str) -> str:
    """The id of the one element the page gives focus to."""
    tags = re.findall(r"<[a-z]+ [^>]*\bautofocus\b[^>]*>", page)
    assert len(tags) == 1, tags
    return re.search(r'id="([^"]+)"', tags[0]).group(1)


FILLED = [
    {"text": "Ever copied homework?", "type": "yes_no"},
    {
        "text": "Hours of sleep?",
        "type": "numeric",
        "min": "0",
        "max": "12,5",
        "unit": "hours",
        "mechanism": "laplace",
    },
    {"text": "Which lab?", "type": "choice", "options": "Chemistry\nPhysics\nBiology"},
]


# --------------------------------------------------------------------------- remove, undo


@pytest.mark.parametrize("index", [0, 1, 2])
def test_removing_a_question_can_be_undone_exactly_at_its_place(app, signed_in, index):
    before = page_fields(
        signed_in.post("/analyst/surveys/new", data=form_of(signed_in, FILLED, action="plan")).text
    )
    removed = signed_in.post(
        "/analyst/surveys/new", data=form_of(signed_in, FILLED, action=f"remove_{index}")
    )
    assert removed.status_code == 200
    page = removed.text
    assert len(page_fields(page)) == 2
    assert f'<span id="undo-words">Question {index + 1} removed.</span>' in page
    assert re.search(r'<div class="notice builder-undo" role="status"', page)
    # Focus lands on the undo button, which the notice describes.
    assert autofocused_id(page) == "undo-remove"
    assert re.search(r'id="undo-remove"\s+aria-describedby="undo-words"', page)
    carried = html.unescape(re.search(r'name="removed_question" value="([^"]*)"', page).group(1))
    assert json.loads(carried)["index"] == index

    # The next page keeps the fields as shown (what the browser posts back), and the carried one.
    kept = [q for number, q in enumerate(FILLED) if number != index]
    undone = signed_in.post(
        "/analyst/surveys/new",
        data={**form_of(signed_in, kept, action="undo_remove"), "removed_question": carried},
    )
    assert undone.status_code == 200
    assert page_fields(undone.text) == before
    assert autofocused_id(undone.text) == f"question-text-{index}"
    assert 'id="undo-remove"' not in undone.text  # carried until the next button only
    assert survey_count(app) == 0


def test_the_undo_is_forgotten_at_the_next_button(signed_in):
    page = signed_in.post(
        "/analyst/surveys/new", data=form_of(signed_in, FILLED, action="remove_0")
    ).text
    carried = html.unescape(re.search(r'name="removed_question" value="([^"]*)"', page).group(1))
    added = signed_in.post(
        "/analyst/surveys/new",
        data={**form_of(signed_in, FILLED[1:], action="add_yes_no"), "removed_question": carried},
    ).text
    assert 'name="removed_question"' not in added
    assert len(page_fields(added)) == 3


@pytest.mark.parametrize(
    "carried",
    [
        "not json",
        '{"index": "0", "question": {"text": "x"}}',
        '{"index": 0, "question": {"text": "x", "evil": "y"}}',
        '{"index": 0, "question": []}',
        '{"index": true, "question": {"text": "x"}}',
        "[" * 5000,
    ],
    ids=[
        "not json",
        "index text",
        "unknown field",
        "not an object",
        "index true",
        "deep",
    ],
)
def test_an_unreadable_undo_restores_nothing(signed_in, carried):
    page = signed_in.post(
        "/analyst/surveys/new",
        data={**form_of(signed_in, FILLED, action="undo_remove"), "removed_question": carried},
    )
    assert page.status_code == 200
    assert len(page_fields(page.text)) == 3


@pytest.mark.parametrize("before", ["5", "[1]", '"0 to 10"', "[0, 10, 20]", "null"])
def test_an_undo_with_an_odd_range_before_restores_the_question_without_it(signed_in, before):
    question = '{"text": "x", "type": "numeric", "min": 0, "max": 1012, "unit": ""}'
    carried = f'{{"index": 0, "question": {question}, "before": {before}}}'
    page = signed_in.post(
        "/analyst/surveys/new",
        data={**form_of(signed_in, FILLED, action="undo_remove"), "removed_question": carried},
    ).text
    assert page_fields(page)[0]["max"] == "1012"
    assert re.search(r'name="question_max_before" value="(10|1012)?"', page)


# --------------------------------------------------------------------------- errors in words

NUMBER = {"text": "Hours of sleep?", "type": "numeric", "min": "0", "max": "12"}

NUMERIC_ERRORS = {
    "max below min": (
        {"min": "12", "max": "0"},
        "question-max-0",
        "Question 1’s largest answer must be above its smallest (12)",
    ),
    "max equal to min": (
        {"min": "5", "max": "5"},
        "question-max-0",
        "Question 1’s largest answer must be above its smallest (5)",
    ),
    "min empty": (
        {"min": ""},
        "question-min-0",
        "Question 1’s smallest answer is empty: type it in",
    ),
    "max not a number": (
        {"max": "abc"},
        "question-max-0",
        "Question 1’s largest answer must be a number, like 10 or 2.5",
    ),
    "max unclear": (
        {"max": "1,000"},
        "question-max-0",
        "Question 1’s largest answer is not clear: write 1000 without a thousands separator, "
        "or 1.5 with one decimal point or comma",
    ),
    "min too large": (
        {"min": "-2000000000000"},
        "question-min-0",
        "Question 1’s smallest answer must be between -1,000,000,000,000 and 1,000,000,000,000",
    ),
    "range too small": (
        {"min": "0", "max": "0.0000001"},
        "question-max-0",
        "Question 1’s largest answer must be at least 1e-06 above its smallest",
    ),
    "too many decimals": (
        {"max": "1.1234567"},
        "question-max-0",
        "Question 1’s largest answer can have at most 6 decimals",
    ),
    "unit too long": (
        {"unit": "u" * 41},
        "question-unit-0",
        "Question 1’s unit can be at most 40 characters long",
    ),
    "unit hidden character": (
        {"unit": "hou\u200brs"},
        "question-unit-0",
        "Question 1’s unit contains an invisible or control character (U+200B, character 4): "
        "type it again without it",
    ),
    "unknown mechanism": (
        {"mechanism": "gaussian"},
        "question-mechanism-0",
        "Question 1’s randomization is not one the builder offers: choose one from its list",
    ),
}


@pytest.mark.parametrize(
    ("changes", "field_id", "words"), NUMERIC_ERRORS.values(), ids=NUMERIC_ERRORS.keys()
)
def test_every_error_of_a_number_question_in_words(app, signed_in, changes, field_id, words):
    question = {**NUMBER, **changes}
    response = signed_in.post("/analyst/surveys/new", data=form_of(signed_in, [question]))
    assert response.status_code == 400
    assert survey_count(app) == 0
    assert_error_beside_its_field(response.text, field_id, words)
    for name in ("min", "max", "unit"):
        typed = str(escape(question.get(name, "")))
        assert f'name="question_{name}"' in response.text
        assert f'value="{typed}"' in response.text or name != "unit" and typed in ("0", "12")


OTHER_ERRORS = {
    "intro too long": (
        {"intro": "i" * 5001},
        [NUMBER],
        "intro",
        "The introduction can be at most 5000 characters long",
    ),
    "title hidden character": (
        {"title": "Study\u200b habits"},
        [NUMBER],
        "title",
        "The title contains an invisible or control character (U+200B, character 6): type it "
        "again without it",
    ),
    "p too close to 0": (
        {"flip_probability": "0.0000001"},
        [NUMBER],
        "flip_probability",
        "The flip probability must be a number from 0.01 to 0.49",
    ),
    # Above the builder's 0.49, below the 0.4975 a number question allows in a definition.
    "p too high with a number": (
        {"flip_probability": "0.498"},
        [NUMBER],
        "flip_probability",
        "The flip probability must be a number from 0.01 to 0.49",
    ),
    "no questions": ({}, [], "add-yes-no", "The survey needs a question: add one below"),
}


@pytest.mark.parametrize(
    ("fields", "questions", "field_id", "words"), OTHER_ERRORS.values(), ids=OTHER_ERRORS.keys()
)
def test_every_other_error_in_words(app, signed_in, fields, questions, field_id, words):
    response = signed_in.post("/analyst/surveys/new", data=form_of(signed_in, questions, **fields))
    assert response.status_code == 400
    assert survey_count(app) == 0
    page = response.text
    if field_id == "add-yes-no":  # no field to mark: the words sit above the add buttons
        assert f'<a href="#add-yes-no">{escape(words)}</a>' in page
        assert f'<p class="field-error" id="add-yes-no-error">{escape(words)}</p>' in page
        assert autofocused_id(page) == "add-yes-no"
    else:
        assert_error_beside_its_field(page, field_id, words)


def test_several_errors_are_all_listed_and_focus_goes_to_the_first(signed_in):
    questions = [
        {"text": "", "type": "yes_no"},
        {"text": "Which?", "type": "choice", "options": "Only"},
        {**NUMBER, "text": "", "min": "12", "max": "0"},  # two errors in one question
    ]
    page = signed_in.post(
        "/analyst/surveys/new",
        data=form_of(signed_in, questions, title="", flip_probability="abc"),
    ).text
    links = re.findall(r'<li><a href="#([^"]+)">', page)
    assert links == [
        "title",
        "flip_probability",
        "question-text-0",
        "question-options-1",
        "question-text-2",
        "question-max-2",
    ]
    assert page.count('aria-invalid="true"') == 6
    assert autofocused_id(page) == "title"
    assert "Not saved yet: 6 things to change" in page


# --------------------------------------------------------------------------- empty bounds


def test_a_new_number_question_starts_with_empty_bounds_and_placeholders(signed_in):
    page = signed_in.post(
        "/analyst/surveys/new", data=form_of(signed_in, FILLED[:1], action="add_numeric")
    ).text
    assert re.search(
        r'id="question-min-1" name="question_min" inputmode="decimal" value="" placeholder="0"',
        page,
    )
    assert re.search(
        r'id="question-max-1" name="question_max" inputmode="decimal" value="" placeholder="10"',
        page,
    )
    assert autofocused_id(page) == "question-text-1"


def test_typing_12_saves_12(app, signed_in):
    saved = signed_in.post(
        "/analyst/surveys/new", data=form_of(signed_in, [{**NUMBER, "min": "0", "max": "12"}])
    )
    assert saved.status_code == 302
    with app.app_context():
        question = find_survey(saved.headers["Location"].rsplit("/", 1)[-1]).questions[0]
        assert (question.minimum, question.maximum) == (0.0, 12.0)


# --------------------------------------------------------------------------- wide ranges


def wide_form(signed_in, action: str, maximum: str = "1012") -> dict:
    """A number question shown as 0 to 10, now typed as 0 to ``maximum``."""
    return {
        **form_of(signed_in, [{**NUMBER, "min": "0", "max": maximum}], action=action),
        "question_min_before": ["0"],
        "question_max_before": ["10"],
    }


def test_a_range_a_hundred_times_wider_is_asked_about_first(app, signed_in):
    asked = signed_in.post("/analyst/surveys/new", data=wide_form(signed_in, "save"))
    assert asked.status_code == 200
    assert survey_count(app) == 0
    page = html.unescape(asked.text)
    assert (
        "Question 1’s range is now 0 to 1012, a hundred times wider than 0 to 10 before. "
        "Save it anyway?"
    ) in page
    assert autofocused_id(asked.text) == "wide-range-ask"
    assert 'value="1012"' in page  # what was typed stays
    # The way back keeps the typing and puts focus on the largest answer.
    back = signed_in.post("/analyst/surveys/new", data=wide_form(signed_in, "review_wide"))
    assert back.status_code == 200 and survey_count(app) == 0
    assert autofocused_id(back.text) == "question-max-0"
    assert 'value="1012"' in back.text
    # The range before is still the one carried: saving again asks again.
    assert re.search(r'name="question_max_before" value="10"', back.text)
    # The confirm button saves.
    saved = signed_in.post("/analyst/surveys/new", data=wide_form(signed_in, "save_wide"))
    assert saved.status_code == 302
    with app.app_context():
        question = find_survey(saved.headers["Location"].rsplit("/", 1)[-1]).questions[0]
        assert question.maximum == 1012.0


@pytest.mark.parametrize(("maximum", "asks"), [("999", False), ("1000", True), ("12", False)])
def test_only_a_hundredfold_range_is_asked_about(app, signed_in, maximum, asks):
    response = signed_in.post("/analyst/surveys/new", data=wide_form(signed_in, "save", maximum))
    assert (response.status_code == 200) is asks
    assert (survey_count(app) == 0) is asks


def test_the_range_before_is_the_saved_drafts_and_survives_other_buttons(signed_in, make_survey):
    definition = {
        "title": "T",
        "flip_probability": 0.25,
        "questions": [{"text": "Hours?", "type": "numeric", "min": 0, "max": 10}],
    }
    slug, _ = make_survey(definition, status="draft")
    page = signed_in.get(f"/analyst/surveys/{slug}/edit").text
    assert re.search(r'name="question_min_before" value="0"', page)
    assert re.search(r'name="question_max_before" value="10"', page)
    # A typo then another button: the page carries 0 to 10 on, not 0 to 1012.
    added = signed_in.post(
        f"/analyst/surveys/{slug}/edit", data=wide_form(signed_in, "add_yes_no")
    ).text
    assert re.search(r'name="question_max_before" value="10"', added)
    # A range changed a little becomes the range before.
    changed = signed_in.post(
        f"/analyst/surveys/{slug}/edit", data=wide_form(signed_in, "add_yes_no", "24")
    ).text
    assert re.search(r'name="question_max_before" value="24"', changed)


# --------------------------------------------------------------------------- 50 questions


def test_at_50_questions_the_add_buttons_stop_and_say_why(app, signed_in):
    questions = [{"text": f"Q{number}", "type": "yes_no"} for number in range(MAX_QUESTIONS)]
    page = signed_in.post(
        "/analyst/surveys/new", data=form_of(signed_in, questions[:-1], action="add_yes_no")
    ).text
    assert len(page_fields(page)) == MAX_QUESTIONS
    for button in ("add-yes-no", "add-choice", "add-numeric"):
        tag = re.search(rf'<button [^>]*id="{button}"[^>]*>', page).group(0)
        assert " disabled" in tag and 'aria-describedby="question-limit"' in tag
    assert (
        '<p class="muted small" id="question-limit">A survey holds at most 50 questions.</p>'
        in page
    )
    # A page that still offers the button (or a hand-made post) is refused in the same words.
    for action in ("add_yes_no", "add_choice", "add_numeric"):
        refused = signed_in.post(
            "/analyst/surveys/new", data=form_of(signed_in, questions, action=action)
        ).text
        assert len(page_fields(refused)) == MAX_QUESTIONS
        assert 'role="status" id="builder-notice"' in refused
        assert "A survey holds at most 50 questions." in refused
        assert autofocused_id(refused) == "builder-notice"
    # 49 questions: the buttons work.
    fewer = signed_in.post(
        "/analyst/surveys/new", data=form_of(signed_in, questions[:-2], action="add_yes_no")
    ).text
    assert 'id="question-limit"' not in fewer
    assert survey_count(app) == 0


def test_an_undo_past_50_questions_says_why(signed_in):
    questions = [{"text": f"Q{number}", "type": "yes_no"} for number in range(MAX_QUESTIONS)]
    carried = json.dumps({"index": 0, "question": {"text": "One more", "type": "yes_no"}})
    page = signed_in.post(
        "/analyst/surveys/new",
        data={**form_of(signed_in, questions, action="undo_remove"), "removed_question": carried},
    ).text
    assert len(page_fields(page)) == MAX_QUESTIONS
    assert "One more" not in page
    assert "A survey holds at most 50 questions." in page
    assert autofocused_id(page) == "builder-notice"


#: Rules only a definition file can break: the builder's form always sends text, one of its
#: types, and no field a question's type does not have.
FILE_ONLY_RULES = {
    "not_object",
    "unknown_field",
    "other_kind_field",
    "no_options",
    "options_list",
    "not_text",
    "missing",
}


def test_every_rule_the_builder_can_break_has_words():
    """Every rule named in the definition's checks (the second argument of each ``refused``
    call) is worded by the builder's presenter, not by its fallback, except the file-only ones."""
    import ast
    from pathlib import Path

    from survey_app.builder.errors import sentence

    package = Path(__file__).resolve().parents[3] / "survey_app"
    keys = set()
    checks = ["surveys/services.py", "surveys/definition_checks.py", "kinds/base.py"]
    for path in [*checks, *(f"kinds/{kind.name}.py" for kind in kinds.KINDS.values())]:
        for node in ast.walk(ast.parse((package / path).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "refused":
                if isinstance(node.args[1], ast.Constant):
                    keys.add(node.args[1].value)
            # key = "empty" if ... else "not_number": a rule chosen before its call
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "key":
                keys |= {node.value.body.value, node.value.orelse.value}
    assert {"option_count", "max_not_above_min", "not_probability", "empty"} <= keys
    fallback = sentence("no such rule", "Question 1", 1, {})
    unworded = {
        key
        for key in keys - FILE_ONLY_RULES
        if isinstance(key, str) and sentence(key, "Question 1", 1, {}) == fallback
    }
    assert unworded == set()
