"""The projector's pages (survey_app.classroom.projector_pages, and what projector.py makes of
them):
every question once and in order, no column taller than its layout, a question too tall for a
column alone and wide, the words that say where the room is, the layout that puts how to join
first while no results show, and the ?page=N links that turn pages without JavaScript."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from survey_app.classroom.projector_pages import (
    CARD_GAP,
    CHART_WIDTH,
    FIT_STEPS,
    LINE_HEIGHT,
    LONGEST_TEXT_SIZE,
    RESULTS,
    SMALLEST_WORDS,
    STAR,
    STAR_TEXT_LINES,
    QuestionShape,
    chosen_page,
    fit_class,
    fit_size,
    fitted,
    is_wide,
    page_words,
    pages,
    question_height,
    text_class,
    wide_height,
)
from tests.unit.results.test_results_api import submit


def yes_no(number: int, text: int = 30) -> QuestionShape:
    return QuestionShape(number, text, worded_labels=(3,), chart_rows=2)


def choice(number: int, options: int, text: int = 30) -> QuestionShape:
    return QuestionShape(number, text, worded_labels=(8,) * options, chart_rows=options)


MIXED = [
    yes_no(1),
    choice(2, 3),
    QuestionShape(3, 40, average_unit=5),
    yes_no(4, 1000),
    choice(5, 9),
    choice(6, 12, 200),
    QuestionShape(7, 20, note=True),
    yes_no(8),
]


@pytest.mark.parametrize("layout", [STAR, RESULTS])
def test_every_question_once_in_order_and_no_column_too_tall(layout):
    shapes = [MIXED[index % len(MIXED)] for index in range(50)]
    numbered = [fitted(replace(shape, number=n + 1)) for n, shape in enumerate(shapes)]
    by_number = {shape.number: shape for shape in numbered}
    made = pages(numbered, layout)
    assert [n for page in made for n in page.questions] == list(range(1, 51))
    assert [page.number for page in made] == list(range(1, len(made) + 1))
    for page in made:
        assert 1 <= len(page.columns) <= layout.columns
        if page.wide:
            assert page.columns == ((page.questions[0],),)
            assert wide_height(by_number[page.questions[0]], layout) <= layout.height
            continue
        for column in page.columns:
            heights = [question_height(by_number[n], layout) for n in column]
            assert len(column) == 1 or sum(heights) + CARD_GAP * (len(column) - 1) <= layout.height


def test_a_question_too_tall_for_a_column_has_the_page_to_itself():
    assert not is_wide(yes_no(1), RESULTS)
    assert is_wide(yes_no(1, 1000), RESULTS)
    assert is_wide(choice(1, 8), RESULTS)
    assert not is_wide(yes_no(1, 1000), STAR), "the star lists texts in one column"
    made = pages([yes_no(1), choice(2, 8), yes_no(3)], RESULTS)
    assert [(page.questions, page.wide) for page in made] == [
        ((1,), False),
        ((2,), True),
        ((3,), False),
    ]


@pytest.mark.parametrize("options", [3, 4])
def test_a_three_question_survey_shows_on_one_page(options):
    """A yes/no question, a choice of up to four short answers (“Bus”, “Walk”) and a number
    question, with results (the projector's chart in the room's type): one page at 1280x720."""
    second = QuestionShape(2, 30, worded_labels=(4,) * options, chart_rows=options)
    shapes = [yes_no(1), second, QuestionShape(3, 30, average_unit=5)]
    assert [page.questions for page in pages([fitted(s) for s in shapes], RESULTS)] == [(1, 2, 3)]


def test_a_chart_too_tall_even_for_a_page_is_left_out_and_its_words_stay():
    assert fitted(choice(1, 3)) == choice(1, 3)
    assert fitted(choice(1, 8)).chart_rows == 8
    assert fitted(choice(1, 12)).chart_rows == 0
    assert fitted(choice(1, 12)).worded_labels == (8,) * 12
    # The projector's chart has no Chebyshev line, so shorter rows (panel.ROOM_CHART).
    assert fitted(choice(1, 5, 1000)).chart_rows == 5
    assert fitted(choice(1, 6, 1000)).chart_rows == 0
    for options in range(2, 13):
        assert wide_height(fitted(choice(1, options, 200)), RESULTS) <= RESULTS.height
    # The longest text a question may have (surveys.MAX_QUESTION_LENGTH) with up to 7 answers.
    for options in range(2, 8):
        assert wide_height(fitted(choice(1, options, 1000)), RESULTS) <= RESULTS.height


def test_a_question_too_tall_for_its_page_is_set_smaller_never_below_the_smallest_words():
    # Up to 12 answers of short labels with the longest text: set smaller, and then it fits.
    for options in range(2, 13):
        shape = fitted(choice(1, options, 1000))
        assert wide_height(shape, RESULTS) <= RESULTS.height, options
        assert shape.fit in FIT_STEPS
        assert shape.fit == 1.0 or shape.chart_rows == 0, "smaller words, no chart"
    assert fitted(choice(1, 12, 1000)).fit < 1.0
    assert fitted(choice(1, 3)).fit == 1.0
    # The longest text with 12 answers of the longest labels cannot fit at all: the smallest.
    worst = fitted(QuestionShape(1, 1000, worded_labels=(200,) * 12, chart_rows=12))
    assert worst.fit == FIT_STEPS[-1] and worst.chart_rows == 0
    assert wide_height(worst, RESULTS) > RESULTS.height  # projector-fit.js: it scrolls
    # Every size a fit gives is at least the smallest words, and never larger than usual.
    for size in (0.8, 0.9, 1.0, 1.1):
        for fit in FIT_STEPS:
            assert SMALLEST_WORDS <= fit_size(size, fit) <= size
    assert fit_size(1.1, FIT_STEPS[-1]) == SMALLEST_WORDS


def test_short_questions_share_a_page_two_columns_of_two():
    made = pages([yes_no(n) for n in range(1, 8)], RESULTS)
    assert [page.columns for page in made] == [((1, 2), (3, 4)), ((5, 6), (7,))]
    assert [page.words for page in made] == ["Questions 1–4 of 7", "Questions 5–7 of 7"]


@pytest.mark.parametrize(
    ("first", "last", "total", "words"),
    [
        (3, 4, 7, "Questions 3–4 of 7"),
        (5, 5, 7, "Question 5 of 7"),
        (1, 50, 50, "Questions 1–50 of 50"),
    ],
)
def test_page_words(first, last, total, words):
    assert page_words(first, last, total) == words


@pytest.mark.parametrize(
    ("asked", "count", "page"),
    [
        (None, 3, 1),
        ("2", 3, 2),
        ("9", 3, 3),
        ("0", 3, 1),
        ("-4", 3, 1),
        ("two", 3, 1),
        ("1", 0, 1),
        # Not whole numbers as the app's links write them (typed_numbers.whole_number): the
        # first page, where int() would read "+2" and "1_0" and give up on 5000 digits.
        ("²", 3, 1),
        ("9" * 5000, 3, 1),
        ("+2", 3, 1),
        ("1_0", 3, 1),
        ("", 3, 1),
    ],
)
def test_the_page_a_link_asks_for_stays_among_the_pages(asked, count, page):
    assert chosen_page(asked, count) == page


def test_longer_texts_are_set_smaller():
    assert [text_class(n) for n in (10, 89, 90, 249, 250, 1000)] == [
        "",
        "",
        "present-text-long",
        "present-text-long",
        "present-text-longer",
        "present-text-longer",
    ]


def test_the_stylesheet_sets_what_the_pages_are_counted_in():
    """projector_pages counts in the sizes app.css gives the projector: one may not change
    without the other."""
    css = (Path(__file__).resolve().parents[3] / "static" / "css" / "app.css").read_text()
    assert "font-size: max(1rem, min(1.6667vw, 2.963vh))" in css  # 60 by 33.75 em
    assert f".present-question svg.chart {{ width: {CHART_WIDTH:g}em;" in css
    longer = f"calc({LONGEST_TEXT_SIZE:g}em * var(--fit, 1))"
    assert f"h2.present-text-longer {{ font-size: max({SMALLEST_WORDS:g}em, {longer}); }}" in css
    assert f"-webkit-line-clamp: {STAR_TEXT_LINES};" in css
    for fit in FIT_STEPS[1:]:
        assert f".{fit_class(fit)} {{ --fit: {fit:g}; }}" in css
    assert fit_class(1.0) == ""
    assert (
        f".projector {{ font-size: max(1rem, min(1.6667vw, 2.963vh)); line-height: {LINE_HEIGHT:g};"
        in css
    )


# --------------------------------------------------------------------------- the view


def many_questions(count: int) -> dict:
    kinds = [
        {"text": "Have you ever copied homework?", "type": "yes_no"},
        {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]},
    ]
    return {
        "title": "Many questions",
        "flip_probability": 0.25,
        "questions": [
            dict(kinds[n % 2], text=f"{kinds[n % 2]['text']} ({n + 1})") for n in range(count)
        ],
    }


def test_the_state_pages_every_question_and_the_layout_follows_the_answers(
    app, client, analyst, sign_in_as, make_survey
):
    slug, _ = make_survey(many_questions(12))
    sign_in_as(client, analyst)
    state = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    assert state["layout"] == "star"
    assert state["summary_words"] == "Results appear once 10 people have answered."
    assert [n for page in state["pages"] for column in page["columns"] for n in column] == list(
        range(1, 13)
    )
    assert state["pages"][0]["href"].startswith(f"/analyst/surveys/{slug}/present?page=1")
    submit(app, slug, [(1, 0) * 6] * 12)
    state = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    assert state["layout"] == "results" and state["summary_words"] is None
    assert len(state["pages"]) > 1
    assert state["pages"][-1]["words"].endswith("of 12")


def test_without_javascript_the_links_turn_the_pages(app, client, analyst, sign_in_as, make_survey):
    slug, _ = make_survey(many_questions(12))
    sign_in_as(client, analyst)
    submit(app, slug, [(1, 0) * 6] * 12)
    count = len(client.get(f"/analyst/surveys/{slug}/present/state").get_json()["pages"])
    page = client.get(f"/analyst/surveys/{slug}/present?page=2").get_data(as_text=True)
    shown = re.findall(r'id="present-page-(\d+)"[^>]*?data-page="\d+"[^>]*?(hidden)?>', page)
    assert [number for number, hidden in shown if not hidden] == ["2"]
    assert len(shown) == count
    assert re.search(r'id="present-next"', page)
    next_link = re.search(r'<a href="([^"]+)" id="present-next"', page).group(1)
    previous = re.search(r'<a href="([^"]+)" id="present-previous"', page).group(1)
    assert "page=3" in next_link if count > 2 else "page=1" in next_link
    assert "page=1" in previous
    words = re.search(r'id="present-page-words" role="status">([^<]+)<', page).group(1)
    assert words.startswith("Questions ") and words.endswith(" of 12")


def test_a_paired_questions_table_fits_a_column_and_the_largest_a_page():
    """A 2x2 pair: a line of headings and two lines a row (a share, its range), under its key
    and over its sentence (“Rows: … Columns: …” and the difference's, about 430 characters with
    two question texts of 40): one column. The largest, 3x4 (three rows: its columns run across),
    with the longest text and the approximate test's sentence: one page, set smaller if need be,
    never below the smallest words."""
    pair = QuestionShape(1, 60, table_rows=2, caution_length=430)
    assert not is_wide(pair, RESULTS)
    assert fitted(pair) == pair
    for text in (30, 200, 1000):
        largest = fitted(QuestionShape(1, text, table_rows=3, caution_length=330))
        assert wide_height(largest, RESULTS) <= RESULTS.height, text
        assert largest.fit >= min(FIT_STEPS)
    # Each row takes two lines: a table of three rows is taller than one of two.
    assert question_height(replace(pair, table_rows=3), RESULTS) == pytest.approx(
        question_height(pair, RESULTS) + 2 * LINE_HEIGHT
    )
