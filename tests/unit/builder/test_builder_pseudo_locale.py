"""The builder and the survey list in the pseudo-language of
tests/unit/respondents/test_pseudo_locale.py show no English: a new survey, each kind of
question, every refusal beside its field, the question asked of a much wider range, the undo,
the 50-question limit, a draft's edits, the survey list in each of its states, and the flashes
the builder leaves for the next page.

The survey's own texts are the professor's, typed in Greek here, so that nothing the app says
can hide among them.
"""

from __future__ import annotations

import html
import json

import pytest

from survey_app.extensions import db
from survey_app.surveys.services import MAX_QUESTIONS, find_survey
from survey_app.web.languages import LANGUAGE_NAMES
from tests.analyst_helpers import builder_form, csrf_token, submit
from tests.unit.builder.test_builder_undo_and_asks import NUMERIC_ERRORS
from tests.unit.respondents.test_pseudo_locale import (
    ANSWERED,
    GREEK,
    SPEAKING,
    english_left,
    pseudo,
    pseudo_app,
)

__all__ = ["pseudo_app"]  # the fixture, used by name

#: What a builder page quotes back that is not the app's words: the professor's address, the
#: code of an invisible character typed, and the languages' names in the students' language
#: select (each in itself).
QUOTED = ("prof@example.edu", "U+200B", *LANGUAGE_NAMES.values())

#: A question of each kind, its texts in Greek, as the builder's form posts it.
GREEK_QUESTIONS = [
    {"text": "Ερώτηση ναι ή όχι;", "type": "yes_no"},
    {"text": "Πόσο συχνά;", "type": "choice", "options": "Ποτέ\nΜία φορά\nΣυχνά"},
    {"text": "Πόσες ώρες;", "type": "numeric", "min": "0", "max": "40", "unit": "ώρες"},
    {
        "text": "Μαζί",
        "type": "paired",
        "part1_text": "Αντέγραψες;",
        "part2_text": "Έτος;",
        "part2_type": "choice",
        "part2_options": "Πρώτο\nΔεύτερο",
    },
]
#: A pair of GREEK_QUESTIONS, each of its refusals made by a change of its fields.
GREEK_PAIR = GREEK_QUESTIONS[3]


def greek_form(token: str, questions: list[dict], **fields) -> dict:
    """The builder's form with ``questions`` (each a dict of its fields, the rest empty), the
    survey titled in Greek."""
    return builder_form(token, questions, **{"title": GREEK["title"], **fields})


def left(page: str, *typed: str) -> list[str]:
    """The English a builder page shows, but what was typed."""
    aside = (*QUOTED, *typed)
    return english_left(page, typed=tuple(sorted(aside, key=len, reverse=True)))


@pytest.fixture
def speaking(pseudo_app, client, analyst, sign_in_as):
    """A signed-in professor's client and a CSRF token, every request in the pseudo-language."""
    sign_in_as(client, analyst)
    page = client.get("/analyst/surveys/new", headers=SPEAKING)
    return client, csrf_token(page.text)


def post(client, fields: dict, url: str = "/analyst/surveys/new"):
    return client.post(url, data=fields, headers=SPEAKING)


def test_a_new_survey_and_each_kind_added_speak_the_language(speaking):
    client, token = speaking
    new = client.get("/analyst/surveys/new", headers=SPEAKING)
    assert new.status_code == 200
    assert '<html lang="eo" dir="ltr">' in new.text
    assert left(new.text) == []
    assert pseudo("Add a number question") in new.text
    for kind in ("yes_no", "choice", "numeric", "paired"):
        added = post(client, greek_form(token, GREEK_QUESTIONS, action=f"add_{kind}"))
        assert added.status_code == 200
        assert left(added.text) == [], kind
    removed = post(client, greek_form(token, GREEK_QUESTIONS, action="remove_1"))
    assert removed.status_code == 200 and 'id="undo-remove"' in removed.text
    assert left(removed.text) == []
    # The suggestion's button, once a margin is asked for that a lower p reaches.
    suggested = post(client, greek_form(token, GREEK_QUESTIONS, action="plan", margin="20"))
    assert left(suggested.text) == []


#: Refusals beside the fields other than a number question's (which NUMERIC_ERRORS makes).
REFUSALS = {
    "empty title": ({"title": "   "}, GREEK_QUESTIONS),
    "long title": ({"title": "Τ" * 201}, GREEK_QUESTIONS),
    "long intro": ({"intro": "ι" * 5001}, GREEK_QUESTIONS),
    "hidden character": ({"title": "Τίτλος\u200b"}, GREEK_QUESTIONS),
    "p with a comma out of range": ({"flip_probability": "0,6"}, GREEK_QUESTIONS),
    "p unclear": ({"flip_probability": "1,000"}, GREEK_QUESTIONS),
    "no questions": ({}, []),
    "empty question": ({}, [{"text": "", "type": "yes_no"}]),
    "one option": ({}, [{"text": "Πόσο;", "type": "choice", "options": "Ένα"}]),
    "13 options": (
        {},
        [{"text": "Πόσο;", "type": "choice", "options": "\n".join("Α" * n for n in range(1, 14))}],
    ),
    "same option twice": ({}, [{"text": "Πόσο;", "type": "choice", "options": "Α\nΑ"}]),
    "long option": ({}, [{"text": "Πόσο;", "type": "choice", "options": "Α\n" + "Β" * 201}]),
    "unknown type": ({}, [{"text": "Πόσο;", "type": "free_text"}]),
    "class size unclear": ({"class_size": "1,0"}, GREEK_QUESTIONS),
    "a pair's question empty": ({}, [{**GREEK_PAIR, "part1_text": ""}]),
    "a pair's question of another kind": ({}, [{**GREEK_PAIR, "part1_type": "numeric"}]),
    "a pair's question with one option": ({}, [{**GREEK_PAIR, "part2_options": "Ένα"}]),
    "a pair's question with an option twice": ({}, [{**GREEK_PAIR, "part2_options": "Α\nΑ"}]),
    "a pair's option too long": ({}, [{**GREEK_PAIR, "part2_options": "Α\n" + "Β" * 201}]),
    "a pair of too many pairs of answers": (
        {},
        [{**GREEK_PAIR, "part2_options": "\n".join("Α" * n for n in range(1, 8))}],
    ),
    "several at once": (
        {"title": ""},
        [{"text": "", "type": "yes_no"}, {**GREEK_QUESTIONS[2], "min": "12", "max": "0"}],
    ),
}


@pytest.mark.parametrize(("fields", "questions"), REFUSALS.values(), ids=REFUSALS.keys())
def test_every_refusal_speaks_the_language(speaking, fields, questions):
    client, token = speaking
    refused = post(client, greek_form(token, questions, **fields))
    assert refused.status_code == 400
    assert 'class="field-error"' in refused.text
    assert left(refused.text, *fields.values()) == []


@pytest.mark.parametrize(
    "questions",
    [GREEK_QUESTIONS, [GREEK_PAIR], [{**GREEK_PAIR, "part2_options": ""}]],
    ids=["a pair among others", "a pair alone", "a pair not ready"],
)
def test_what_the_planner_says_of_a_pair_speaks_the_language(speaking, questions):
    client, token = speaking
    planned = post(client, greek_form(token, questions, action="plan", class_size="300"))
    assert planned.status_code == 200 and 'id="readout-planning"' in planned.text
    assert left(planned.text) == []
    readout = post(client, greek_form(token, questions), "/analyst/privacy-readout").get_json()
    said = readout["planning"].get("text") or readout["planning"]["error"]
    assert left(f"<p>{html.escape(said)}</p>") == []


@pytest.mark.parametrize(
    ("changes", "field_id"),
    [(changes, field_id) for changes, field_id, _ in NUMERIC_ERRORS.values()],
    ids=NUMERIC_ERRORS.keys(),
)
def test_every_refusal_of_a_number_question_speaks_the_language(speaking, changes, field_id):
    client, token = speaking
    refused = post(client, greek_form(token, [{**GREEK_QUESTIONS[2], **changes}]))
    assert refused.status_code == 400
    assert f'id="{field_id}-error"' in refused.text
    assert left(refused.text) == []


@pytest.mark.parametrize("maximum", ["1012", "10012", "100000012"])
def test_a_much_wider_range_is_asked_about_in_the_language(speaking, maximum):
    client, token = speaking
    fields = {
        **greek_form(token, [{**GREEK_QUESTIONS[2], "max": maximum}]),
        "question_min_before": ["0"],
        "question_max_before": ["10"],
    }
    asked = post(client, fields)
    assert asked.status_code == 200 and 'id="wide-range-ask"' in asked.text
    assert left(asked.text) == []


def test_the_50_question_limit_speaks_the_language(speaking):
    client, token = speaking
    questions = [{"text": f"Ερώτηση {n}", "type": "yes_no"} for n in range(MAX_QUESTIONS)]
    full = post(client, greek_form(token, questions, action="add_choice"))
    carried = json.dumps({"index": 0, "question": {"text": "Άλλη", "type": "yes_no"}})
    undo = greek_form(token, questions, action="undo_remove")
    undone = post(client, {**undo, "removed_question": carried})
    for page in (full, undone):
        assert 'id="builder-notice"' in page.text and 'id="question-limit"' in page.text
        assert left(page.text) == []


def test_a_drafts_edits_and_a_survey_already_open_speak_the_language(speaking, make_survey):
    client, token = speaking
    draft, _ = make_survey(GREEK, status="draft")
    edit = client.get(f"/analyst/surveys/{draft}/edit", headers=SPEAKING)
    assert edit.status_code == 200
    assert left(edit.text) == []
    refused = post(client, greek_form(token, [], action="save"), f"/analyst/surveys/{draft}/edit")
    assert refused.status_code == 400 and left(refused.text) == []
    # Questions are locked once a survey has opened: the dashboard says why, in the language.
    opened, _ = make_survey(GREEK, status="open")
    locked = client.get(f"/analyst/surveys/{opened}/edit", headers=SPEAKING, follow_redirects=True)
    assert pseudo(
        "A survey that has opened can no longer change: answers must all come from the same "
        "questions and the same randomization."
    ) in html.unescape(locked.text)


def test_what_saving_says_on_the_next_page_is_in_the_language(speaking):
    client, token = speaking
    choice = {"text": "Πόσες;", "type": "choice", "options": "1-2\n3-4"}
    saved = client.post(
        "/analyst/surveys/new",
        data=greek_form(token, [choice]),
        headers=SPEAKING,
        follow_redirects=True,
    )
    page = html.unescape(saved.text)
    assert pseudo("Draft saved. Preview it, then open it to respondents when it is ready.") in page
    excel = pseudo(
        "Excel shows options such as %(options)s as dates when it opens the exported files (the "
        "number beside each answer stays right). Writing “1 to 2” avoids it."
    )
    assert excel % {"options": f"{pseudo('“1-2”')}, {pseudo('“3-4”')}"} in page


@pytest.mark.parametrize("state", ["none", "each status", "all archived"])
def test_the_survey_list_speaks_the_language(speaking, pseudo_app, make_survey, state):
    client, _ = speaking
    if state != "none":
        slugs = [make_survey(GREEK, status=status)[0] for status in ("draft", "open", "closed")]
        submit(pseudo_app, slugs[1], ANSWERED)
        archived = slugs if state == "all archived" else slugs[:1]
        with pseudo_app.app_context():
            for slug in archived:
                find_survey(slug).archived = True
            db.session.commit()
    listed = client.get("/analyst/", headers=SPEAKING)
    assert listed.status_code == 200
    assert left(listed.text) == []
    if state == "each status":
        assert pseudo("open") in listed.text and 'id="archived-link"' in listed.text
