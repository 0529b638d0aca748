"""Planning in the builder and on the dashboard: what a class of a given size will learn.

Every figure is compared with what :mod:`survey_app.privacy` computes for it, formatted as the
pages format it; every word a professor reads is checked for what it must say. Bad input gets
a plain message, never a 500.
"""

from __future__ import annotations

import html
import re

import pytest

from survey_app import privacy
from survey_app.extensions import db
from survey_app.planning import shares as planning
from survey_app.storage.models import Survey
from survey_app.words import format_count, format_points, percent
from tests.analyst_helpers import (
    builder_fields,
    figures,
    survey_count,
    table_rows,
    token_of,
)

YES_NO = ("Have you ever copied homework?", "yes_no", "")
HOW_OFTEN = ("How often?", "choice", "Never\nOnce\nOften")
WHICH_YEAR = ("Which year are you in?", "choice", "1\n2\n3\n4\n5")


@pytest.fixture
def signed_in(client, analyst, sign_in_as):
    sign_in_as(client, analyst)
    return client


def readout(client, *, questions=(YES_NO, HOW_OFTEN), p="0.25", class_size="40", margin=""):
    """The builder's live readout for these fields, as the page posts them."""
    fields = builder_fields(flip_probability=p, questions=list(questions))
    fields.update(class_size=class_size, margin=margin, csrf_token=token_of(client))
    del fields["action"]
    response = client.post("/analyst/privacy-readout", data=fields)
    assert response.status_code == 200, response.text
    return response.get_json()


def builder_page(client, action: str, **changes) -> str:
    """The builder re-rendered after pressing ``action`` (no survey is saved)."""
    fields = builder_fields(questions=[YES_NO, HOW_OFTEN], action=action)
    fields.update(class_size="40", margin="", csrf_token=token_of(client))
    fields.update(changes)
    response = client.post("/analyst/surveys/new", data=fields)
    assert response.status_code == 200, response.text
    return response.text


def paragraph(page: str, element_id: str) -> str:
    match = re.search(rf'<p id="{element_id}"[^>]*>(.*?)</p>', page, re.S)
    assert match, element_id
    text = re.sub(r"<[^>]+>", " ", match.group(1))
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


# --------------------------------------------------------------------------- the readout


@pytest.mark.parametrize("flip_probability", [0.1, 0.25, 0.4])
@pytest.mark.parametrize("class_size", [40, 150])
def test_readout_margins_are_privacys(signed_in, flip_probability, class_size):
    reply = readout(
        signed_in,
        questions=(YES_NO, HOW_OFTEN, WHICH_YEAR),
        p=str(flip_probability),
        class_size=str(class_size),
    )
    plan = reply["planning"]
    assert plan["ok"] is True
    assert plan["class_size"] == reply["class_size"] == class_size
    assert [q["options"] for q in plan["questions"]] == [2, 3, 5]
    cheb = []
    for question in plan["questions"]:
        mechanism = privacy.RandomizedResponse(flip_probability, question["options"])
        assert question["half_width"] == mechanism.planned_half_width(class_size, 0.95)
        assert question["chebyshev_half_width"] == mechanism.chebyshev_half_width(class_size)
        cheb.append(f"±{format_points(question['chebyshev_half_width'])}")
    # A margin of 40 points or more is said to say next to nothing; the first margin is said
    # in full ("percentage points"), the others short.
    yes_no, often, year = (
        format_points(q["half_width"])
        + (" percentage points" if index == 0 else " points")
        + (", which says next to nothing" if q["half_width"] >= 0.4 else "")
        for index, q in enumerate(plan["questions"])
    )
    assert plan["text"] == (
        f"With {class_size} students, a yes/no question will be known within about "
        f"±{yes_no}; “How often?” (3 options) within ±{often}; "
        f"“Which year are you in?” (5 options) within ±{year}. "
        "Chebyshev’s bound with the exact variance would say "
        f"{cheb[0]}, {cheb[1]} and {cheb[2]} points."
    )


def test_readout_reads_like_the_issue_at_40_students(signed_in):
    plan = readout(signed_in)["planning"]
    # p = 0.25, 40 students: the exact margins are about a third of Chebyshev's.
    assert plan["text"] == (
        "With 40 students, a yes/no question will be known within about ±27 percentage points; "
        "“How often?” (3 options) within ±32 points. "
        "Chebyshev’s bound with the exact variance would say ±62 and ±87 points."
    )


def test_readout_groups_questions_and_leaves_out_unfinished_choices(signed_in):
    questions = [
        YES_NO,
        ("Second yes/no", "yes_no", ""),
        HOW_OFTEN,
        ("Where?", "choice", "Home\nLibrary\nCafé"),
        ("", "choice", "A\nB\nC"),
        ("Not ready", "choice", "Only one"),
        ("Too many", "choice", "\n".join(str(i) for i in range(13))),
    ]
    plan = readout(signed_in, questions=questions)["planning"]
    assert [q["label"] for q in plan["questions"]] == [
        "a yes/no question",
        "“How often?”, “Where?” and question 5 (3 options)",
    ]
    assert "(2 multiple-choice questions without 2 to 12 options yet left out.)" in plan["text"]


def test_readout_names_long_questions_briefly(signed_in):
    long_text = "How many hours did you spend on the homework of this week, roughly?"
    plan = readout(signed_in, questions=[(long_text, "choice", "0\n1-2\n3+")])["planning"]
    label = plan["questions"][0]["label"]
    assert label.startswith("“How many hours did you spend on the")
    assert "…”" in label
    assert len(label) < len(long_text)


def test_readout_without_plannable_questions_says_what_is_missing(signed_in):
    reply = readout(signed_in, questions=[("Pick", "choice", "")])
    assert reply["planning"]["ok"] is False
    assert "options" in reply["planning"]["error"]


def test_readout_by_get_takes_the_class_size_and_margin(signed_in):
    reply = signed_in.get(
        "/analyst/privacy-readout",
        query_string={"flip_probability": "0.3", "questions": "2", "class_size": "100"},
    ).get_json()
    mechanism = privacy.RandomizedResponse(0.3)
    assert reply["question_count"] == 2
    assert reply["planning"]["questions"][0]["half_width"] == mechanism.planned_half_width(100)
    assert reply["suggestion"] is None


def test_readout_post_needs_the_forms_token(signed_in):
    fields = builder_fields()
    fields.update(class_size="40", margin="")
    assert signed_in.post("/analyst/privacy-readout", data=fields).status_code == 400


@pytest.mark.parametrize(
    "class_size",
    ["0", "1", "-5", "abc", "4.5", "1e3", "2001", "1000000000", "9" * 5000, "²", " "],
    ids=[
        "zero",
        "one",
        "negative",
        "letters",
        "fraction",
        "exponent",
        "too many",
        "10^9",
        "5000 digits",
        "superscript",
        "blank",
    ],
)
def test_readout_refuses_bad_class_sizes_plainly(signed_in, class_size):
    reply = readout(signed_in, class_size=class_size, margin="20")
    if not class_size.strip():  # nothing typed: the default
        assert reply["class_size"] == planning.DEFAULT_CLASS_SIZE
        assert reply["planning"]["ok"] is True
        return
    assert reply["ok"] is True  # p itself is fine
    assert reply["class_size"] is None
    assert reply["planning"] == {"ok": False, "error": reply["class_size_error"]}
    assert reply["class_size_error"].startswith("The class size must be")
    assert reply["suggestion"] is None


@pytest.mark.parametrize("margin", ["abc", "0", "0.4", "51", "-3", "nan", "inf"])
def test_readout_refuses_bad_margins_plainly(signed_in, margin):
    suggestion = readout(signed_in, margin=margin)["suggestion"]
    assert suggestion["ok"] is False
    assert suggestion["error"].startswith("The margin must")


# --------------------------------------------------------------------------- suggestion


def test_suggestion_is_privacys_and_can_be_applied(signed_in):
    suggestion = readout(signed_in, margin="20")["suggestion"]
    expected = privacy.suggest_flip_probability(0.20, 40, [2, 3], 0.95)
    assert expected is not None and 0.05 <= expected < 0.25
    assert suggestion["flip_probability"] == expected
    assert suggestion["apply"] is True
    assert suggestion["text"] == (
        f"For ±20 percentage points with 40 students, use a flip probability of {expected:g}: "
        "the most "
        "privacy that still reaches that margin for every question."
    )
    # The class reaches the margin at that p, and not at the next hundredth up.
    margins = [privacy.RandomizedResponse(expected, k).planned_half_width(40) for k in (2, 3)]
    assert max(margins) <= 0.20
    margins = [
        privacy.RandomizedResponse(expected + 0.01, k).planned_half_width(40) for k in (2, 3)
    ]
    assert max(margins) > 0.20


def test_suggestion_already_taken_says_so_and_offers_nothing(signed_in):
    expected = privacy.suggest_flip_probability(0.20, 40, [2, 3], 0.95)
    suggestion = readout(signed_in, p=f"{expected:g}", margin="20")["suggestion"]
    assert suggestion["apply"] is False
    assert "already the most private" in suggestion["text"]


def test_a_margin_out_of_reach_names_the_floor_and_the_students_needed(signed_in):
    suggestion = readout(signed_in, margin="5")["suggestion"]
    assert suggestion["flip_probability"] is None
    assert suggestion["apply"] is False
    floor = privacy.MIN_SUGGESTED_FLIP_PROBABILITY
    needed = max(privacy.RandomizedResponse(floor, k).respondents_for(0.05) for k in (2, 3))
    assert suggestion["respondents_at_floor"] == needed > 40
    text = suggestion["text"]
    assert "Even at a flip probability of 0.05, the least privacy this app will suggest" in text
    assert "40 students are too few to know every question within ±5 percentage points" in text
    assert f"that takes about {needed:,} students" in text


def test_a_wide_margin_gets_the_most_private_suggestion(signed_in):
    suggestion = readout(signed_in, margin="50")["suggestion"]
    assert suggestion["flip_probability"] == privacy.MAX_SUGGESTED_FLIP_PROBABILITY == 0.45
    assert "the most privacy this app suggests: use 0.45" in suggestion["text"]


@pytest.mark.parametrize(
    ("p", "warned"), [("0.3", False), ("0.45", False), ("0.46", True), ("0.49", True)]
)
def test_a_flip_probability_above_045_is_warned_about(signed_in, p, warned):
    reply = readout(signed_in, p=p)
    assert (reply["warning"] is not None) == warned
    if warned:
        assert "the class will learn next to nothing" in reply["warning"]


def test_an_impossible_flip_probability_still_gets_a_suggestion(signed_in):
    reply = readout(signed_in, p="0.7", margin="20")
    assert reply["ok"] is False
    assert reply["error"] == "The flip probability must be a number from 0.01 to 0.49"
    assert reply["planning"] is None
    assert reply["suggestion"]["flip_probability"] == privacy.suggest_flip_probability(
        0.20, 40, [2, 3]
    )
    assert reply["suggestion"]["apply"] is True


# --------------------------------------------------------------------------- the builder page


def test_builder_page_shows_the_readout_without_javascript(signed_in):
    page = signed_in.get("/analyst/surveys/new").text
    assert re.search(r'id="privacy-readout"[^>]*aria-live="polite"', page)
    assert 'name="class_size"' in page and 'value="40"' in page
    assert 'name="margin"' in page
    reply = readout(signed_in, questions=[("", "yes_no", "")])
    assert paragraph(page, "readout-planning") == reply["planning"]["text"]
    assert 'value="plan"' in page  # the button that shows the figures again


def test_builder_rerender_keeps_class_size_and_margin_and_shows_the_same_words(app, signed_in):
    page = builder_page(signed_in, "plan", class_size="150", margin="10")
    assert survey_count(app) == 0
    assert 'id="class_size" name="class_size"' in page
    assert re.search(r'id="class_size"[^>]*value="150"', page)
    assert re.search(r'id="margin"[^>]*value="10"', page)
    reply = readout(signed_in, class_size="150", margin="10")
    assert paragraph(page, "readout-planning") == reply["planning"]["text"]
    suggested = reply["suggestion"]["flip_probability"]
    assert (
        paragraph(page, "readout-suggestion") == f"{reply['suggestion']['text']} Use {suggested:g}"
    )
    assert f'data-flip-probability="{suggested:g}"' in page


@pytest.mark.parametrize("class_size", ["0", "abc", "1000000000"])
def test_builder_rerender_with_a_bad_class_size_says_why(app, signed_in, class_size):
    page = builder_page(signed_in, "plan", class_size=class_size)
    assert paragraph(page, "readout-planning").startswith("The class size must be")
    assert re.search(rf'id="class_size"[^>]*value="{class_size}"', page)


def saved_class_size(app, title: str) -> int:
    with app.app_context():
        survey = db.session.execute(db.select(Survey).filter_by(title=title)).scalar_one()
        return survey.expected_respondents


@pytest.mark.parametrize("typed", ["1,000", "1 000", " 1000 "])
def test_a_class_size_with_its_thousands_grouped_is_planned_and_saved_as_typed(
    app, signed_in, typed
):
    # The pages write counts so ("between 2 and 2,000 students"): the figures and the saving
    # read them by one rule (planning.parse_class_size), as a thousand.
    reply = readout(signed_in, class_size=typed)
    assert reply["class_size"] == 1000 and reply["planning"]["ok"] is True
    fields = builder_fields(title="Lecture hall")
    fields.update(class_size=typed, margin="", csrf_token=token_of(signed_in))
    assert signed_in.post("/analyst/surveys/new", data=fields).status_code == 302
    assert saved_class_size(app, "Lecture hall") == 1000


@pytest.mark.parametrize(
    "typed",
    ["abc", "1", "2001", "1.000", "2,5", "²", "9" * 5000],
    ids=["letters", "one", "too many", "point", "decimal comma", "superscript", "5000 digits"],
)
def test_saving_with_a_class_size_the_figures_refuse_says_why_beside_it(app, signed_in, typed):
    fields = builder_fields()
    fields.update(class_size=typed, margin="", csrf_token=token_of(signed_in))
    response = signed_in.post("/analyst/surveys/new", data=fields)
    assert response.status_code == 400
    assert survey_count(app) == 0
    words = readout(signed_in, class_size=typed)["class_size_error"]
    assert words.startswith("The class size must be")
    page = html.unescape(response.text)
    assert f'<p class="field-error" id="class_size-error">{words}</p>' in page
    field = re.search(r'<input id="class_size"[^>]*>', page).group(0)
    assert f'value="{typed}"' in field and 'aria-invalid="true"' in field and "autofocus" in field


def test_saving_with_a_bad_margin_still_saves(app, signed_in):
    fields = builder_fields(title="Advice")
    fields.update(class_size="120", margin="zzz", csrf_token=token_of(signed_in))
    response = signed_in.post("/analyst/surveys/new", data=fields)
    assert response.status_code == 302  # the margin is advice, not part of the survey
    assert saved_class_size(app, "Advice") == 120


def test_applying_the_suggestion_without_javascript_sets_p(app, signed_in):
    page = builder_page(signed_in, "apply_suggestion", margin="20")
    expected = privacy.suggest_flip_probability(0.20, 40, [2, 3], 0.95)
    assert re.search(rf'id="flip_probability"[^>]*value="{expected}"', page, re.S)
    assert "already the most private" in paragraph(page, "readout-suggestion")
    assert survey_count(app) == 0


def test_applying_an_unreachable_suggestion_keeps_p(signed_in):
    page = builder_page(signed_in, "apply_suggestion", margin="5")
    assert re.search(r'id="flip_probability"[^>]*value="0.25"', page, re.S)
    assert "the least privacy this app will suggest" in paragraph(page, "readout-suggestion")


# --------------------------------------------------------------------------- the dashboard


def test_the_surveys_own_flip_probability_gets_a_row(app, signed_in, make_survey):
    definition = {
        "title": "Suggested p",
        "flip_probability": 0.13,
        "questions": [{"text": "Q", "type": "yes_no"}],
    }
    slug, _ = make_survey(definition)
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    table = page[
        page.index(
            '<caption class="visually-hidden">How privacy, class size and precision trade off'
        ) :
    ]
    rows = table_rows(table)
    assert [row[0] for row in rows] == [
        percent(p) + (" (this survey)" if p == 0.13 else "")
        for p in sorted([*planning.TRADE_OFF_FLIP_PROBABILITIES, 0.13])
    ]
    mechanism = privacy.RandomizedResponse(0.13)
    current = rows[[row[0] for row in rows].index("13% (this survey)")]
    assert current[2:-2] == tuple(
        f"±{format_points(mechanism.planned_half_width(size))}" for size in planning.TRADE_OFF_SIZES
    )
    assert "No one has answered yet." == figures(page, "plan-now")


def test_a_growing_survey_is_planned_at_two_significant_digits():
    sizes = [planning.planning_size(n) for n in (7, 99, 100, 123, 4567, 1_000_001)]
    assert sizes == [7, 99, 100, 120, 4500, 1_000_000]


def test_warm_up_works_out_the_default_tables(monkeypatch):
    margin, confidence = planning.DEFAULT_MARGIN, 0.95
    expected = [
        privacy.RandomizedResponse(p).planned_half_width(size, confidence)
        for p in planning.TRADE_OFF_FLIP_PROBABILITIES
        for size in planning.TRADE_OFF_SIZES
    ]
    planning.forget_figures()
    planning.warm_up([confidence])

    def worked_out_again(*args, **kwargs):
        raise AssertionError("a figure of the default table was worked out again")

    for name in ("planned_half_width", "respondents_for", "respondents_for_chebyshev"):
        monkeypatch.setattr(privacy.RandomizedResponse, name, worked_out_again)
    rows = [
        planning.trade_off_row(p, margin, confidence, False)
        for p in planning.TRADE_OFF_FLIP_PROBABILITIES
    ]
    assert [margin for row in rows for margin in row.margins] == expected


def test_forgotten_figures_are_worked_out_again(monkeypatch, request):
    # What the test above starts from: warm_up's figures, forgotten, are asked of privacy again.
    request.addfinalizer(planning.forget_figures)  # the figure made up below is not kept
    planning.warm_up([0.95])
    planning.forget_figures()
    monkeypatch.setattr(
        privacy.RandomizedResponse, "planned_half_width", lambda self, n, confidence: -1.0
    )
    assert planning.planned_margin(0.25, 2, 40, 0.95) == -1.0


def test_warm_up_starts_once_per_process(monkeypatch):
    started = []
    monkeypatch.setattr(planning, "_warm_up_started", type(planning._warm_up_started)())
    monkeypatch.setattr(planning, "warm_up", lambda: started.append(1))
    threads = [planning.warm_up_in_background() for _ in range(3)]
    assert threads[0] is not None and threads[1:] == [None, None]
    threads[0].join(timeout=10)
    assert started == [1]


def test_tests_start_no_warm_up(signed_in, monkeypatch):
    monkeypatch.setattr(planning, "warm_up_in_background", lambda: pytest.fail("warmed up"))
    assert signed_in.get("/analyst/").status_code == 200


# --------------------------------------------------------------------------- formatting


@pytest.mark.parametrize(
    ("margin", "shown"),
    [
        (0.2781, "28"),
        (0.10, "10"),
        (0.0999999999999, "10"),
        (0.0541, "5.5"),
        (0.05, "5"),
        (0.0012, "0.2"),
        (2.0, "200"),
    ],
)
def test_points_are_rounded_up(margin, shown):
    assert format_points(margin) == shown


def test_the_planners_ceiling_reads_as_over():
    from survey_app.privacy.mechanisms import MAX_PLANNED_RESPONDENTS

    assert format_count(1234) == "1,234"
    assert format_count(MAX_PLANNED_RESPONDENTS) == f"over {MAX_PLANNED_RESPONDENTS:,}"


def test_the_trade_off_table_scrolls_in_a_region_the_keyboard_reaches(signed_in, survey):
    """Wider than a phone, the table scrolls inside a focusable, named region (not the page)."""
    page = signed_in.get(f"/analyst/surveys/{survey[0]}").text
    region = re.search(
        r'<div class="table-scroll" role="region" tabindex="0" aria-label="([^"]+)">\s*'
        r'<table class="data">\s*<caption class="visually-hidden">'
        r"How privacy, class size and precision trade off",
        page,
    )
    assert region, "the trade-off table is not inside a keyboard-reachable region"
    assert 'class="data scroll-x"' not in page
