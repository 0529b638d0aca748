"""The builder's pages: a new survey, a draft's edits, opening and closing, the preview, the
live privacy readout, and the note on options a spreadsheet reads as dates.
"""

from __future__ import annotations

import html
import math
import re
from urllib.parse import urlsplit

import pytest
from markupsafe import escape

from survey_app import privacy
from survey_app.storage.models import SurveyStatus
from survey_app.words import format_epsilon
from tests.analyst_helpers import (
    ANALYST_EMAIL,
    builder_fields,
    csrf_token,
    slug_from,
    state_of,
    submit,
    survey_count,
    token_of,
)
from tests.conftest import SAMPLE_DEFINITION

# --------------------------------------------------------------------------- the builder

#: What the builder says of a flip probability it cannot use.
P_WORDS = "The flip probability must be a number from 0.01 to 0.49"


def assert_error_beside_its_field(page: str, field_id: str, words: str) -> None:
    """The error is said in words in the summary (a link to the field) and beside the field,
    which is marked invalid, described by its error, and has focus; no JSON path, no repr."""
    summary = re.search(
        r'<div class="notice error" role="alert" id="builder-error"[^>]*>(.*?)</div>', page, re.S
    )
    assert summary, "no summary of the errors"
    escaped = str(escape(words))  # as Jinja escapes it
    assert f'<a href="#{field_id}">{escaped}</a>' in summary.group(1)
    assert f'<p class="field-error" id="{field_id}-error">{escaped}</p>' in page
    tag = re.search(rf'<(?:input|textarea|select) id="{field_id}"[^>]*>', page)
    assert tag, f"no field {field_id}"
    assert 'aria-invalid="true"' in tag.group(0)
    described = re.search(r'aria-describedby="([^"]*)"', tag.group(0))
    assert described and f"{field_id}-error" in described.group(1).split()
    assert " autofocus" in tag.group(0)
    assert page.count(" autofocus") == 1
    assert not re.search(r"questions\[\d|got &#39;|got [\d-]|\.options:|flip_probability:", page)


def test_builder_page_offers_the_fields(signed_in):
    page = signed_in.get("/analyst/surveys/new")
    assert page.status_code == 200
    for name in ("title", "intro", "flip_probability", "question_text", "question_type"):
        assert f'name="{name}"' in page.text
    for button in ('value="add_yes_no"', 'value="add_choice"', 'value="save"', 'value="remove_0"'):
        assert button in page.text
    assert 'id="privacy-readout"' in page.text


def test_create_survey_with_both_question_types(app, signed_in):
    fields = builder_fields(
        title="  Study habits  ",
        flip_probability="0.2",
        questions=[
            ("Have you ever copied homework?", "yes_no", ""),
            ("How often?", "choice", " Never \n\nOnce\r\n  \nOften\n"),
        ],
    )
    fields["csrf_token"] = token_of(signed_in)
    slug = slug_from(signed_in.post("/analyst/surveys/new", data=fields))

    state = state_of(app, slug)
    assert state["title"] == "Study habits"
    assert state["intro"] == "Answer honestly."
    assert state["flip_probability"] == 0.2
    assert state["status"] == SurveyStatus.DRAFT
    assert state["owner"] == ANALYST_EMAIL
    assert state["questions"] == [
        ("Have you ever copied homework?", "yes_no", None),
        ("How often?", "choice", ["Never", "Once", "Often"]),
    ]
    assert state["tallies"] == []  # a draft has no tallies until it opens
    dashboard = signed_in.get(f"/analyst/surveys/{slug}")
    assert "Draft saved" in dashboard.text


@pytest.mark.parametrize(
    ("action", "expected_types"),
    [
        ("add_yes_no", ["yes_no", "choice", "yes_no"]),
        ("add_choice", ["yes_no", "choice", "choice"]),
        ("remove_0", ["choice"]),
        ("remove_1", ["yes_no"]),
        ("remove_7", ["yes_no", "choice"]),
    ],
)
def test_add_and_remove_buttons_rerender_and_save_nothing(app, signed_in, action, expected_types):
    fields = builder_fields(title="Kept title", action=action)
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post("/analyst/surveys/new", data=fields)
    assert response.status_code == 200
    assert survey_count(app) == 0
    page = response.text
    selected = re.findall(r'<option value="(\w+)" selected>', page)
    assert selected == expected_types
    assert page.count('name="question_text"') == len(expected_types)
    assert 'value="Kept title"' in page
    assert ">Answer honestly.</textarea>" in page
    assert 'value="Have you ever copied homework?"' in page or action == "remove_0"
    assert ("Never\nOnce\nOften</textarea>" in page) is (action != "remove_1")


@pytest.mark.parametrize(
    "action", ["remove_²", "remove_" + "9" * 5000, "remove_-1", "remove_", "remove_١", "remove_+1"]
)
def test_odd_remove_buttons_remove_nothing(app, signed_in, action):
    fields = builder_fields(title="", action=action)  # an empty title: nothing can be saved
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post("/analyst/surveys/new", data=fields)
    assert response.status_code in (200, 400)
    assert response.text.count('name="question_text"') == 2
    assert survey_count(app) == 0


def test_removing_the_last_question_then_saving_is_refused(app, signed_in):
    fields = builder_fields(questions=[("Only one", "yes_no", "")], action="remove_0")
    fields["csrf_token"] = token_of(signed_in)
    page = signed_in.post("/analyst/surveys/new", data=fields).text
    assert 'name="question_text"' not in page
    fields = {k: v for k, v in fields.items() if not k.startswith("question_")}
    fields["action"] = "save"
    response = signed_in.post("/analyst/surveys/new", data=fields)
    assert response.status_code == 400
    assert "questions" in response.text
    assert survey_count(app) == 0


BAD_BUILDER_INPUTS = {
    "empty title": ({"title": "   "}, "title", "The title is empty: type it in"),
    "long title": (
        {"title": "T" * 201},
        "title",
        "The title can be at most 200 characters long",
    ),
    "p = 0.5": ({"flip_probability": "0.5"}, "flip_probability", P_WORDS),
    "p = 0": ({"flip_probability": "0"}, "flip_probability", P_WORDS),
    "p negative": ({"flip_probability": "-0.1"}, "flip_probability", P_WORDS),
    "p above 1": ({"flip_probability": "1.5"}, "flip_probability", P_WORDS),
    "p not a number": ({"flip_probability": "a lot"}, "flip_probability", P_WORDS),
    "p abc": ({"flip_probability": "abc"}, "flip_probability", P_WORDS),
    "p empty": ({"flip_probability": ""}, "flip_probability", P_WORDS),
    "p nan": ({"flip_probability": "nan"}, "flip_probability", P_WORDS),
    "p inf": ({"flip_probability": "inf"}, "flip_probability", P_WORDS),
    "empty question": (
        {"questions": [("", "yes_no", ""), ("How often?", "choice", "A\nB")]},
        "question-text-0",
        "Question 1 is empty: type the question",
    ),
    "one option": (
        {"questions": [("Q", "yes_no", ""), ("How often?", "choice", "Only\n\n")]},
        "question-options-1",
        "Question 2 needs at least 2 options",
    ),
    "no options": (
        {"questions": [("Q", "yes_no", ""), ("How often?", "choice", "")]},
        "question-options-1",
        "Question 2 needs at least 2 options",
    ),
    "13 options": (
        {"questions": [("Q", "choice", "\n".join(f"Option {i}" for i in range(13)))]},
        "question-options-0",
        "Question 1 can have at most 12 options, not 13",
    ),
    "repeated options": (
        {"questions": [("Q", "choice", "Same\nSame")]},
        "question-options-0",
        "Question 1 has the same option twice: its options must all differ",
    ),
    "long option": (
        {"questions": [("Q", "choice", "A\n" + "B" * 201)]},
        "question-options-0",
        "Option 2 of question 1 can be at most 200 characters long",
    ),
    "unknown type": (
        {"questions": [("Q", "free_text", "")]},
        "question-type-0",
        "Question 1’s type is not one the builder offers: choose one from its list",
    ),
}


@pytest.mark.parametrize(
    ("changes", "field_id", "words"), BAD_BUILDER_INPUTS.values(), ids=BAD_BUILDER_INPUTS.keys()
)
def test_invalid_builder_input_rerenders_with_400_and_keeps_what_was_typed(
    app, signed_in, changes, field_id, words
):
    fields = builder_fields(**changes)
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post("/analyst/surveys/new", data=fields)

    assert response.status_code == 400
    assert survey_count(app) == 0
    page = response.text
    assert_error_beside_its_field(page, field_id, words)
    # What was typed is still there, to be corrected rather than typed again.
    assert f'value="{html.escape(fields["title"], quote=True)}"' in page
    assert f'value="{html.escape(shown_number(fields["flip_probability"]), quote=True)}"' in page
    for text in fields["question_text"]:
        assert f'name="question_text" value="{html.escape(text, quote=True)}"' in page
    for options in fields["question_options"]:
        if options.strip():
            lines = [line.strip() for line in options.splitlines() if line.strip()]
            assert html.escape("\n".join(lines), quote=True) in page


def shown_number(typed: str) -> str:
    """The builder shows a typed number as Python reads it ("0" -> "0.0"), other text as is."""
    try:
        return str(float(typed))
    except ValueError:
        return typed


def test_edit_a_draft(app, signed_in, make_survey):
    slug, _ = make_survey(status="draft")
    page = signed_in.get(f"/analyst/surveys/{slug}/edit")
    assert page.status_code == 200
    assert f'value="{SAMPLE_DEFINITION["title"]}"' in page.text
    assert 'value="Have you ever copied homework?"' in page.text
    assert "Never\nOnce\nOften</textarea>" in page.text
    assert 'value="0.25"' in page.text

    fields = builder_fields(
        title="Renamed",
        intro="",
        flip_probability="0.3",
        questions=[("Which lab?", "choice", "Chemistry\nPhysics"), ("Goggles on?", "yes_no", "")],
    )
    fields["csrf_token"] = csrf_token(page.text)
    response = signed_in.post(f"/analyst/surveys/{slug}/edit", data=fields)
    assert slug_from(response) == slug
    state = state_of(app, slug)
    assert state["title"] == "Renamed"
    assert state["intro"] == ""
    assert state["flip_probability"] == 0.3
    assert state["status"] == SurveyStatus.DRAFT
    assert state["questions"] == [
        ("Which lab?", "choice", ["Chemistry", "Physics"]),
        ("Goggles on?", "yes_no", None),
    ]


def test_invalid_edit_changes_nothing(app, signed_in, make_survey):
    slug, _ = make_survey(status="draft")
    before = state_of(app, slug)
    fields = builder_fields(title="Renamed", flip_probability="0.6")
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post(f"/analyst/surveys/{slug}/edit", data=fields)
    assert response.status_code == 400
    assert 'value="Renamed"' in response.text
    assert state_of(app, slug) == before


@pytest.mark.parametrize("status", ["open", "closed"])
def test_editing_a_survey_that_has_opened_is_refused(app, signed_in, make_survey, status):
    slug, _ = make_survey(status=status)
    if status == "open":
        submit(app, slug, [(1, 0)])
    before = state_of(app, slug)

    page = signed_in.get(f"/analyst/surveys/{slug}/edit")
    assert page.status_code == 302
    assert urlsplit(page.headers["Location"]).path == f"/analyst/surveys/{slug}"

    fields = builder_fields(title="Sneaky change", flip_probability="0.45")
    fields["csrf_token"] = token_of(signed_in)
    response = signed_in.post(f"/analyst/surveys/{slug}/edit", data=fields)
    assert response.status_code == 302
    assert state_of(app, slug) == before
    dashboard = signed_in.get(f"/analyst/surveys/{slug}").text
    assert "can no longer change" in dashboard
    assert 'id="edit-survey"' not in dashboard


# --------------------------------------------------------------------------- open, close


def press(client, slug: str, action: str, **fields):
    page = client.get(f"/analyst/surveys/{slug}")
    return client.post(
        f"/analyst/surveys/{slug}/{action}",
        data={"csrf_token": csrf_token(page.text), **fields},
    )


def test_open_then_close_then_reopen(app, signed_in, make_survey):
    slug, question_ids = make_survey(status="draft")
    dashboard = signed_in.get(f"/analyst/surveys/{slug}").text
    assert 'id="open-survey"' in dashboard and 'id="close-survey"' not in dashboard
    assert 'id="respondent-link"' not in dashboard
    assert app.test_client().get(f"/s/{slug}").status_code == 404

    assert press(signed_in, slug, "open").status_code == 302
    state = state_of(app, slug)
    assert state["status"] == SurveyStatus.OPEN
    # Opening freezes the mechanism: a zero tally for every value of every question.
    assert state["tallies"] == [(question_ids[0], v, 0) for v in range(2)] + [
        (question_ids[1], v, 0) for v in range(3)
    ]
    dashboard = signed_in.get(f"/analyst/surveys/{slug}").text
    assert f'id="respondent-link" value="http://localhost/s/{slug}" readonly' in dashboard
    assert 'id="copy-link"' in dashboard
    assert 'id="close-survey"' in dashboard and 'id="open-survey"' not in dashboard
    assert app.test_client().get(f"/s/{slug}").status_code == 200

    # Closing asks first (tests/unit/surveys/test_manage_surveys.py has the rest of that page).
    asked = press(signed_in, slug, "close")
    assert asked.status_code == 303 and asked.headers["Location"].endswith(f"/{slug}/close")
    assert state_of(app, slug)["status"] == SurveyStatus.OPEN
    assert press(signed_in, slug, "close", confirmed="yes").status_code == 302
    assert state_of(app, slug)["status"] == SurveyStatus.CLOSED
    assert app.test_client().get(f"/s/{slug}").status_code == 410
    dashboard = signed_in.get(f"/analyst/surveys/{slug}").text
    assert "Reopen" in dashboard and 'id="respondent-link"' in dashboard

    assert press(signed_in, slug, "open").status_code == 302
    assert state_of(app, slug)["status"] == SurveyStatus.OPEN


def test_closing_a_draft_is_refused_with_a_message(app, signed_in, make_survey):
    slug, _ = make_survey(status="draft")
    page = signed_in.get(f"/analyst/surveys/{slug}")
    response = signed_in.post(
        f"/analyst/surveys/{slug}/close",
        data={"csrf_token": csrf_token(page.text), "confirmed": "yes"},
    )
    assert response.status_code == 302
    assert state_of(app, slug)["status"] == SurveyStatus.DRAFT
    assert "cannot close" in signed_in.get(f"/analyst/surveys/{slug}").text


def test_status_buttons_only_take_post(app, signed_in, survey):
    before = state_of(app, survey[0])
    assert signed_in.get(f"/analyst/surveys/{survey[0]}/open").status_code == 405
    # Closing's address shows its confirmation page; only that page's POST closes.
    assert 'id="confirm-close"' in signed_in.get(f"/analyst/surveys/{survey[0]}/close").text
    assert state_of(app, survey[0]) == before


# --------------------------------------------------------------------------- preview


@pytest.mark.parametrize("status", ["draft", "open", "closed"])
def test_preview_shows_the_respondent_page_and_can_send_nothing(signed_in, make_survey, status):
    slug, question_ids = make_survey(status=status)
    response = signed_in.get(f"/analyst/surveys/{slug}/preview")
    assert response.status_code == 200
    page = response.text
    assert 'id="preview-notice"' in page
    assert f"<h1>{SAMPLE_DEFINITION['title']}</h1>" in page
    assert "Have you ever copied homework?" in page
    for label in ("Never", "Once", "Often"):
        assert label in page
    for question_id in question_ids:
        assert f'data-question-id="{question_id}"' in page
    # Nothing can be sent from a preview: no script runs, no form exists.
    assert "<script" not in page
    assert "<form" not in page
    assert "ε&nbsp;=&nbsp;1.10" in page


# --------------------------------------------------------------------------- readout


@pytest.mark.parametrize("flip_probability", [0.01, 0.1, 0.3, 0.49])
@pytest.mark.parametrize("questions", [1, 7])
def test_readout_figures(signed_in, flip_probability, questions):
    response = signed_in.get(
        f"/analyst/privacy-readout?flip_probability={flip_probability}&questions={questions}"
    )
    assert response.status_code == 200
    readout = response.get_json()
    epsilon = privacy.epsilon_from_flip_probability(flip_probability)
    assert readout["ok"] is True
    assert readout["flip_probability"] == flip_probability
    assert readout["epsilon"] == epsilon
    assert readout["epsilon_total"] == pytest.approx(questions * epsilon, rel=1e-12)
    assert readout["question_count"] == questions
    assert readout["odds"] == pytest.approx((1 - flip_probability) / flip_probability)
    # With a 50/50 prior, an observer seeing "yes" is at most 1 - p sure.
    assert float(readout["deniability_percent"]) == pytest.approx(100 * (1 - flip_probability))
    assert float(readout["flip_percent"]) == pytest.approx(100 * flip_probability)
    summary = readout["summary"]
    assert f"ε = {format_epsilon(epsilon)} a question" in summary
    assert f"{format_epsilon(readout['epsilon_total'])} for {questions} question" in summary


def test_readout_rounds_epsilon_up(signed_in):
    # ln(0.79 / 0.21) = 1.32493...: never shown as the smaller 1.32
    readout = signed_in.get("/analyst/privacy-readout?flip_probability=0.21&questions=1").json
    assert readout["epsilon"] == pytest.approx(1.3249, abs=1e-4)
    assert "ε = 1.33 a question; 1.33 for 1 question" in readout["summary"]


def test_readout_at_a_quarter_is_ln3(signed_in):
    readout = signed_in.get("/analyst/privacy-readout?flip_probability=0.25&questions=2").json
    assert readout["epsilon"] == pytest.approx(math.log(3), rel=1e-12)
    assert readout["epsilon_total"] == pytest.approx(2 * math.log(3), rel=1e-12)
    assert readout["flip_percent"] == "25"
    assert readout["deniability_percent"] == "75"


@pytest.mark.parametrize(
    "value",
    ["", "abc", "0", "0.5", "0.7", "1", "-0.1", "nan", "inf", "-inf", "0x1", "1e400"]
    # Within a definition's limits, beyond the builder's: said the same way.
    + ["0.005", "0.495", "0,495"],
)
def test_readout_refuses_impossible_flip_probabilities(signed_in, value):
    response = signed_in.get("/analyst/privacy-readout", query_string={"flip_probability": value})
    assert response.status_code == 200
    readout = response.get_json()
    assert readout["ok"] is False
    assert readout["error"] == P_WORDS
    assert "epsilon" not in readout


@pytest.mark.parametrize(
    ("questions", "counted"),
    # Whole numbers as the app's links write them (typed_numbers.whole_number): ASCII digits.
    [("abc", 1), ("0", 1), ("-3", 1), ("999", 50), ("²", 1), ("9" * 5000, 1), ("٣", 1)],
    ids=["letters", "zero", "negative", "many", "superscript", "5000 digits", "arabic-indic"],
)
def test_readout_question_count_is_kept_in_range(signed_in, questions, counted):
    readout = signed_in.get(
        "/analyst/privacy-readout",
        query_string={"flip_probability": "0.25", "questions": questions},
    ).json
    assert readout["question_count"] == counted


def test_builder_readout_counts_the_survey_questions(signed_in, make_survey):
    slug, _ = make_survey(status="draft")  # two questions
    page = signed_in.get(f"/analyst/surveys/{slug}/edit").text
    total = 2 * math.log(3)
    assert f"{total:.2f} for 2 questions" in page


def test_saving_options_a_spreadsheet_reads_as_dates_says_so(signed_in):
    """Excel turns "1-2" into 2 January when it opens an export: the professor hears of it when
    saving, while the options can still change; plain labels get no such note."""
    fields = builder_fields(
        questions=[("Hours of sleep?", "choice", "1-2\n3-5\n6 or more"), ("Ever?", "yes_no", "")]
    )
    saved = signed_in.post(
        "/analyst/surveys/new", data={**fields, "csrf_token": token_of(signed_in)}
    )
    assert saved.status_code == 302
    dashboard = html.unescape(signed_in.get(saved.headers["Location"]).text)
    assert "Excel shows options such as “1-2”, “3-5” as dates" in dashboard
    plain = signed_in.post(
        "/analyst/surveys/new", data={**builder_fields(), "csrf_token": token_of(signed_in)}
    )
    assert "as dates" not in signed_in.get(plain.headers["Location"]).text


@pytest.mark.parametrize(
    ("label", "date_like"),
    [
        ("1-2", True),
        ("3/4", True),
        ("2024-05-01", True),
        (" 10 - 20 ", True),
        ("1 to 2", False),
        ("1-2 hours", False),
        ("12", False),
        ("A-B", False),
    ],
)
def test_date_like_labels(label, date_like):
    from survey_app.results.exports import date_like_labels

    assert date_like_labels([label]) == ([label] if date_like else [])
