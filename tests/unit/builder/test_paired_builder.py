"""A paired question in the builder: added by its own button, its two questions typed (text, type
and a choice's options), a draft of pairs opened and saved again with nothing lost, every refusal
of a pair in words beside its field (English and German), its undo, and what the planner says it
needs. All without JavaScript: the page's buttons post the form.
"""

from __future__ import annotations

import html
import json
import math
import re
from html.parser import HTMLParser

import pytest
from markupsafe import escape

from survey_app import privacy
from survey_app.builder.form import definition_of
from survey_app.surveys.services import find_survey, parse_definition
from tests.analyst_helpers import builder_form, survey_count, token_of
from tests.unit.builder.test_builder_pages import assert_error_beside_its_field

AI_TOOL = {"text": "Did you use an AI tool for the essay?", "type": "yes_no"}
COPIED = {"text": "Did you copy any homework?", "type": "yes_no"}
YEAR = {"text": "Your year of study?", "type": "choice", "options": ["First", "Second", "Third"]}

#: A draft asking every kind of pair among other questions: one named by its questions' texts,
#: one with its own heading and a multiple-choice question.
DEFINITION = {
    "title": "Homework habits",
    "intro": "Two questions asked together.",
    "flip_probability": 0.2,
    "questions": [
        {"text": "Did you sleep enough?", "type": "yes_no"},
        {"type": "paired", "questions": [AI_TOOL, COPIED]},
        {"text": "About your year", "type": "paired", "questions": [YEAR, COPIED]},
        {"text": "Which lab?", "type": "choice", "options": ["Chemistry", "Physics"]},
    ],
}


class Form(HTMLParser):
    """The builder's form as a browser without JavaScript posts it: every named input (checked
    boxes only), textarea and select (its chosen option, else its first), hidden ones too."""

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.fields: list[tuple[str, str]] = []
        self._textarea: str | None = None
        self._select: list | None = None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        name = attrs.get("name")
        if tag == "input" and name and attrs.get("type") not in ("submit", "button"):
            if attrs.get("type") != "checkbox" or "checked" in attrs:
                self.fields.append((name, attrs.get("value") or ""))
        elif tag == "textarea" and name:
            self._textarea = name
            self.fields.append((name, ""))
        elif tag == "select" and name:
            self._select = [name, None, None]
        elif tag == "option" and self._select is not None:
            value = attrs.get("value") or ""
            self._select[1] = value if self._select[1] is None else self._select[1]
            if "selected" in attrs:
                self._select[2] = value

    def handle_data(self, data):
        if self._textarea is not None:
            name, typed = self.fields.pop()
            # A browser drops the one line break right after <textarea>.
            dropped = data[1:] if not typed and data[:1] == "\n" else data
            self.fields.append((name, typed + dropped))

    def handle_endtag(self, tag):
        if tag == "textarea":
            self._textarea = None
        elif tag == "select" and self._select is not None:
            name, first, chosen = self._select
            self.fields.append((name, chosen if chosen is not None else first or ""))
            self._select = None

    def posted(self, action: str = "save") -> dict[str, list[str]]:
        form: dict[str, list[str]] = {}
        for name, value in self.fields:
            form.setdefault(name, []).append(value)
        return form | {"action": [action]}


def builder_page_form(page: str, action: str = "save") -> dict:
    """What the builder page's form posts when its button ``action`` is pressed."""
    form = re.search(r'<form method="post" id="survey-builder".*?</form>', page, re.S)
    return Form(form.group(0)).posted(action)


def saved_definition(app, slug: str) -> dict:
    with app.test_request_context():
        return definition_of(find_survey(slug))


# --------------------------------------------------------------------------- the round trip


def test_a_draft_of_pairs_opens_in_the_builder_and_saves_again_with_nothing_lost(
    app, signed_in, make_survey
):
    slug, _ = make_survey(DEFINITION, status="draft")
    before = saved_definition(app, slug)
    page = signed_in.get(f"/analyst/surveys/{slug}/edit")
    assert page.status_code == 200
    shown = html.unescape(page.text)
    # Each pair's questions in their fields; a pair named by its questions has no heading.
    assert 'id="question-text-1" name="question_text" value=""' in shown
    assert 'id="question-text-2" name="question_text" value="About your year"' in shown
    assert f'id="question-part1-text-1" name="question_part1_text" value="{AI_TOOL["text"]}"' in (
        shown
    )
    assert ">First\nSecond\nThird</textarea>" in shown
    saved = signed_in.post(f"/analyst/surveys/{slug}/edit", data=builder_page_form(page.text))
    assert saved.status_code == 302, saved.text
    after = saved_definition(app, slug)
    assert after == before
    assert parse_definition(after) == parse_definition(DEFINITION)


def test_a_pair_added_by_its_button_and_typed_is_saved_with_its_two_questions(app, signed_in):
    new = signed_in.get("/analyst/surveys/new").text
    assert ">Ask two questions together to see how they relate</button>" in new
    added = signed_in.post(
        "/analyst/surveys/new",
        data=builder_form(token_of(signed_in), [AI_TOOL], action="add_paired"),
    )
    assert added.status_code == 200
    page = added.text
    # The new pair's fields are shown, focus on its heading, which it does not require.
    assert re.search(r'<input id="question-text-1" [^>]*autofocus', page)
    assert not re.search(r'<input id="question-text-1" [^>]*required', page)
    assert re.search(r'<input id="question-text-0" [^>]*required', page)
    assert '<div class="pair-fields stack" data-kind="paired" >' in page
    typed = {
        "type": "paired",
        "part1_text": YEAR["text"],
        "part1_type": "choice",
        "part1_options": "First\r\n\r\nSecond\r\nThird\r\n",
        "part2_text": COPIED["text"],
        "part2_type": "yes_no",
        "part2_options": "typed before it was a yes/no question",
    }
    saved = signed_in.post(
        "/analyst/surveys/new", data=builder_form(token_of(signed_in), [AI_TOOL, typed])
    )
    assert saved.status_code == 302, saved.text
    slug = saved.headers["Location"].rstrip("/").split("/")[-1]
    assert saved_definition(app, slug)["questions"][1] == {
        "text": "",
        "type": "paired",
        "questions": [YEAR, COPIED],
    }


# --------------------------------------------------------------------------- refusals

PAIR = {"type": "paired", "part1_text": AI_TOOL["text"], "part2_text": COPIED["text"]}
MANY = "\n".join(f"Option {n}" for n in range(1, 8))

#: A pair's refusals: its fields changed, the field said beside, and the words.
PAIR_ERRORS = {
    "first question empty": (
        {"part1_text": " "},
        "question-part1-text-0",
        "Question 1’s first question is empty: type it in",
    ),
    "second question too long": (
        {"part2_text": "x" * 1001},
        "question-part2-text-0",
        "Question 1’s second question can be at most 1000 characters long",
    ),
    "a question of a kind a pair cannot ask": (
        {"part2_type": "numeric"},
        "question-part2-type-0",
        "Question 1’s second question can only be yes/no or multiple choice: choose one of them",
    ),
    "one option": (
        {"part1_type": "choice", "part1_options": "Only one"},
        "question-part1-options-0",
        "Question 1’s first question needs at least 2 options",
    ),
    "the same option twice": (
        {"part2_type": "choice", "part2_options": "A\nA"},
        "question-part2-options-0",
        "Question 1’s second question has the same option twice: its options must all differ",
    ),
    "an option too long": (
        {"part2_type": "choice", "part2_options": "A\n" + "B" * 201},
        "question-part2-options-0",
        "Option 2 of question 1’s second question can be at most 200 characters long",
    ),
    "too many pairs of answers": (
        {"part2_type": "choice", "part2_options": MANY},
        "question-part2-options-0",
        "Question 1’s two questions make 14 pairs of answers: at most 12 can be asked "
        "together, so give one of them fewer options",
    ),
}


@pytest.mark.parametrize(
    ("changes", "field_id", "words"), PAIR_ERRORS.values(), ids=PAIR_ERRORS.keys()
)
def test_every_refusal_of_a_pair_in_words_beside_its_field(
    app, signed_in, changes, field_id, words
):
    form = builder_form(token_of(signed_in), [{**PAIR, **changes}])
    response = signed_in.post("/analyst/surveys/new", data=form)
    assert response.status_code == 400
    assert survey_count(app) == 0
    assert_error_beside_its_field(response.text, field_id, words)
    # Nothing typed is lost: the pair's fields come back as typed.
    for name, value in changes.items():
        if name.endswith("text") and value.strip():
            assert f'value="{escape(value)}"' in response.text


def test_both_questions_left_empty_are_both_said(signed_in):
    form = builder_form(token_of(signed_in), [{"type": "paired"}])
    page = signed_in.post("/analyst/surveys/new", data=form).text
    assert 'id="question-part1-text-0-error"' in page
    assert 'id="question-part2-text-0-error"' in page
    assert "Question 1’s second question is empty: type it in" in html.unescape(page)


def test_a_pair_without_two_questions_is_refused_in_words(app):
    from survey_app.builder.errors import builder_errors

    with app.test_request_context():
        definition = {**DEFINITION, "questions": [{"type": "paired", "questions": [AI_TOOL]}]}
        (error,) = builder_errors(definition)
    assert error.field_id == "question-part1-text-0"
    assert error.words == "Question 1 asks two questions together: type both of them"


GERMAN_WORDS = {
    "first question empty": "Die erste Frage von Frage 1 ist leer: Füllen Sie das Feld aus",
    "too many pairs of answers": (
        "Die zwei Fragen von Frage 1 ergeben 14 Antwortpaare: Höchstens 12 können zusammen "
        "gestellt werden, geben Sie also einer von beiden weniger Optionen"
    ),
    "one option": "Die erste Frage von Frage 1 braucht mindestens 2 Optionen",
}


@pytest.mark.parametrize(("case", "words"), GERMAN_WORDS.items(), ids=GERMAN_WORDS.keys())
def test_the_refusals_of_a_pair_read_right_in_german(signed_in, case, words):
    changes, field_id, _ = PAIR_ERRORS[case]
    form = builder_form(token_of(signed_in), [{**PAIR, **changes}])
    response = signed_in.post("/analyst/surveys/new", data=form, headers={"Accept-Language": "de"})
    assert response.status_code == 400
    assert_error_beside_its_field(response.text, field_id, words)


# --------------------------------------------------------------------------- the undo


def test_removing_a_pair_can_be_undone_with_its_two_questions(signed_in):
    pair = {**PAIR, "text": "Essays", "part2_type": "choice", "part2_options": "A\nB\nC"}
    form = builder_form(token_of(signed_in), [AI_TOOL, pair], action="remove_1")
    removed = signed_in.post("/analyst/surveys/new", data=form)
    carried = re.search(r'name="removed_question" value="([^"]*)"', removed.text).group(1)
    question = json.loads(html.unescape(carried))["question"]
    second = {"text": COPIED["text"], "type": "choice", "options": list("ABC")}
    assert question["questions"][1] == second
    undone = signed_in.post(
        "/analyst/surveys/new",
        data={**builder_page_form(removed.text, "undo_remove")},
    )
    assert undone.status_code == 200
    again = builder_page_form(undone.text)
    assert again["question_text"] == [AI_TOOL["text"], "Essays"]
    assert again["question_type"] == ["yes_no", "paired"]
    assert again["question_part1_text"][1] == AI_TOOL["text"]
    assert again["question_part2_type"][1] == "choice"
    assert again["question_part2_options"][1] == "A\nB\nC"


# --------------------------------------------------------------------------- planning


def readout_of(signed_in, questions: list[dict], **fields) -> dict:
    form = builder_form(token_of(signed_in), questions, **fields)
    return signed_in.post("/analyst/privacy-readout", data=form).get_json()


def test_the_readout_says_what_a_pair_needs_from_the_mechanisms_own_numbers(signed_in):
    # epsilon 2 (p = 1 / (1 + e^2)): 231 students, as privacy.respondents_for_association says;
    # a class of 100 sees the relation 0.45 of the time: "about 5 times in 10".
    p = f"{1 / (1 + math.e**2):.10f}"
    readout = readout_of(signed_in, [{**PAIR, "text": "Essays"}], flip_probability=p)
    planning = readout["planning"]
    assert planning["ok"]
    assert planning["text"] == (
        "“Essays”, two questions asked together: to see a moderate relation between their "
        "answers (phi = 0.3) 8 times in 10 takes about 231 students. A class of 40 would see "
        "it about 2 times in 10. These figures are approximate, for options chosen equally "
        "often; a relation is seen when the test of no relation gives a p-value of at most 5%."
    )
    (figures,) = planning["pairs"]
    assert figures["shape"] == [2, 2] and figures["respondents"] == 231
    assert figures["power"] == pytest.approx(
        privacy.association_power(float(p), (2, 2), 40), rel=1e-12
    )
    large = readout_of(signed_in, [PAIR], flip_probability=p, class_size="300")
    assert "Question 1, two questions asked together" in large["planning"]["text"]
    assert "A class of 300 would see it about 9 times in 10." in large["planning"]["text"]


def test_a_pair_is_planned_beside_the_other_questions_and_left_out_until_ready(signed_in):
    year = {**PAIR, "part1_type": "choice", "part1_options": "First\nSecond\nThird"}
    readout = readout_of(signed_in, [AI_TOOL, year], class_size="100")
    text = readout["planning"]["text"]
    # The yes/no question's margin first, then the 3 x 2 pair's figure at p = 0.25.
    assert text.startswith("With 100 students, a yes/no question will be known within")
    needed = privacy.respondents_for_association(0.25, (3, 2))
    assert "to see a moderate relation between their answers (phi = 0.3) 8 times in 10 " in text
    assert f"takes about {needed:,} students." in text
    not_ready = {**PAIR, "part2_type": "choice", "part2_options": "Only one"}
    alone = readout_of(signed_in, [not_ready])["planning"]
    assert alone == {
        "ok": False,
        "error": "(1 pair of questions left out until each of its multiple-choice questions "
        "has its options, 12 pairs of answers at most.)",
    }


def test_the_builder_page_says_it_without_javascript(signed_in):
    form = builder_form(token_of(signed_in), [{**PAIR, "text": "Essays"}], action="plan")
    page = html.unescape(signed_in.post("/analyst/surveys/new", data=form).text)
    assert re.search(r'<p id="readout-planning" >“Essays”, two questions asked together', page)


@pytest.mark.parametrize(
    "questions",
    [[1, {"text": 5, "type": ["yes_no"], "options": "A"}], "two", [], [{}, {}, {}]],
    ids=["odd parts", "not a list", "none", "three"],
)
def test_an_odd_pair_carried_for_the_undo_comes_back_as_fields_to_fix(signed_in, questions):
    carried = {"index": 0, "question": {"text": "", "type": "paired", "questions": questions}}
    form = builder_form(token_of(signed_in), [AI_TOOL], action="undo_remove")
    undone = signed_in.post(
        "/analyst/surveys/new", data={**form, "removed_question": json.dumps(carried)}
    )
    assert undone.status_code == 200
    again = builder_page_form(undone.text)
    assert again["question_type"] == ["paired", "yes_no"]
    assert again["question_part1_text"][0] == ""
    # Saving it says what to type, beside the pair's fields.
    refused = signed_in.post("/analyst/surveys/new", data=builder_page_form(undone.text))
    assert refused.status_code == 400
    assert 'id="question-part1-text-0-error"' in refused.text
