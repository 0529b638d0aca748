"""A paired question's results (survey_app/results/joint_words.py): the dashboard's
cross-tabulation (rows the first question's answers, columns the second's, each cell its share,
exact range and share of the row, each question's own shares closing it), the association in
one sentence (a 2x2 table's difference with its guaranteed range, a larger table's approximate
test), in English and German, the students' results page and the projector."""

from __future__ import annotations

import html
import math
import re

import pytest
from markupsafe import Markup

from survey_app import privacy
from survey_app.kinds.base import PartQuestion
from survey_app.results.joint_words import (
    association_words,
    difference_words,
    p_value_words,
    signed_points,
)
from survey_app.results.rounding import down, nearest, up
from tests.analyst_helpers import submit
from tests.unit.kinds.test_paired import DEFINITION

#: 40 reports: the yes/no pair's cells 0..3 (No/No, No/Yes, Yes/No, Yes/Yes) 10, 4, 6 and 20
#: times; the 3x2 pair's six cells 6 or 7 times each (as test_paired's results test). At
#: p = 0.25 over 4 cells (P = 1/2, Q = 1/6) the first table shows [[25%, 0%], [0%, 100%]].
PAIR_REPORTS = [0] * 10 + [1] * 4 + [2] * 6 + [3] * 20
YEAR_REPORTS = [cell % 6 for cell in range(40)]
GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}
PARTS_3X2 = (
    PartQuestion("Your year of study?", ("First", "Second", "Third"), (0, 1, 2)),
    PartQuestion("Did you copy any homework?", ("No", "Yes"), (1,)),
)


@pytest.fixture
def closed_pairs(app, client, make_survey, close, analyst, sign_in_as):
    definition = {**DEFINITION, "show_results_after_close": True}
    slug, ids = make_survey(definition)
    submit(app, slug, list(zip(PAIR_REPORTS, YEAR_REPORTS, strict=True)))
    close(slug)
    sign_in_as(client, analyst)
    return slug, ids


def flat(text: str) -> str:
    """A page's text with its runs of ASCII white space as one space (a no-break space is part
    of a number's writing), entities read."""
    return re.sub(r"[ \t\r\n]+", " ", html.unescape(text))


def section(page: str, question_id: int) -> str:
    found = re.search(
        rf'<section class="result panel" id="question-{question_id}".*?</section>', page, re.S
    )
    assert found is not None
    return flat(found.group(0))


def crosstab_cells(part: str) -> list[list[str]]:
    """The cross-tabulation's rows, each its header and cells as text, tags dropped."""
    table = re.search(r'<table class="data crosstab".*?</table>', part, re.S).group(0)
    rows = re.findall(r"<tr.*?</tr>", table, re.S)
    return [
        [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<t[hd][^>]*>.*?</t[hd]>", row)
        ]
        for row in rows
    ]


def test_the_dashboard_shows_a_two_by_two_pair_as_a_cross_tab_with_its_difference(
    client, closed_pairs
):
    slug, (pair_id, _) = closed_pairs
    part = section(client.get(f"/analyst/surveys/{slug}").text, pair_id)
    assert (
        "<caption>Question 1: the answers to “Did you use an AI tool for the essay?” (rows)" in part
    )
    assert '<th scope="colgroup" colspan="2">Did you copy any homework?</th>' in part
    rows = crosstab_cells(part)
    assert rows[1] == ["Did you use an AI tool for the essay?", "No", "Yes", "Any answer"]
    # Each cell: the share shown, its exact range, its share of the row; then the row's own
    # share (the first question's margin).
    assert rows[2][:3] == ["No", "25% 0% – 67.5% 100% of the row", "0% 0% – 17.5% 0% of the row"]
    assert rows[3][:3] == [
        "Yes",
        "0% 0% – 32.5% 0% of the row",
        "100% 55% – 100% 100% of the row",
    ]
    assert rows[4][0] == "Any answer" and len(rows[4]) == 4
    assert sum(len(row) for row in rows[2:]) == 12  # 3 rows: a header, 2 cells, a margin
    # Each question's own share of "Yes", a sentence each, naming the question.
    assert "On “Did you use an AI tool for the essay?”: About <strong>" in part
    assert "On “Did you copy any homework?”: About <strong>" in part
    # The difference and its guaranteed range, from the API's figures rounded (outward).
    association = client.get(f"/api/v1/surveys/{slug}/results").get_json()["questions"][0][
        "association"
    ]
    low = math.floor(round(association["difference_ci_low"] * 100, 9))
    assert association["difference"] == pytest.approx(1.0)
    assert (
        "Among those who would answer “Yes” to “Did you use an AI tool for the essay?”, about "
        "<strong>100%</strong> would answer “Yes” to “Did you copy any homework?”, against about "
        "<strong>0%</strong> of those who would answer “No”: a difference of <strong>+100 "
        f"points</strong>, between −{-low} points and +100 points, guaranteed at least 95% of the "
        "time."
    ) in part
    # Then the approximate test, which is what the builder plans a pair for.
    assert (
        "guaranteed at least 95% of the time. Answers this far from unrelated would come about"
    ) in part
    assert "(an approximate test)." in part
    assert "The difference’s range is guaranteed too" in part
    # Its cells' shares are the table's: no sentence says what they add up to.
    assert "The shares add up to" not in part
    # The chart of shares of rows: a group a row, a bar for each answer to the second
    # question as long as its share of the row (282 units for all of it), named for those who
    # hear it.
    chart = re.search(r'<svg class="chart joint-chart".*?</svg>', part).group(0)
    assert 'role="img"' in chart and "<title id=" in chart
    assert "among those who gave each answer to “Did you use an AI tool for the essay?”" in chart
    assert re.findall(r'<rect class="exact"[^>]* width="([\d.]+)"', chart) == [
        "282.00",
        "0.00",
        "0.00",
        "282.00",
    ]
    assert re.findall(r'<text class="label group"[^>]*>(\w+)</text>', chart) == ["No", "Yes"]


def test_a_three_by_two_pair_says_its_approximate_test_and_never_that_they_are_unrelated(
    client, closed_pairs
):
    slug, (_, year_id) = closed_pairs
    part = section(client.get(f"/analyst/surveys/{slug}").text, year_id)
    rows = crosstab_cells(part)
    assert [row[0] for row in rows[2:]] == ["First", "Second", "Third", "Any answer"]
    assert all(len(row) == 4 for row in rows[2:])
    p_value = client.get(f"/api/v1/surveys/{slug}/results").get_json()["questions"][1][
        "association"
    ]["p_value"]
    assert p_value >= 0.05  # cells reported evenly: nothing to see
    assert "which does not show that they are unrelated (an approximate test)." in part
    assert "a difference of" not in part
    assert "The test of unrelated answers is approximate" in part
    # Every answer of a choice question has its own share in words.
    assert part.count("On “Your year of study?”: About") == 3


def test_the_pairs_read_in_german(client, closed_pairs):
    slug, (pair_id, year_id) = closed_pairs
    page = client.get(f"/analyst/surveys/{slug}", headers=GERMAN).text
    pair, year = section(page, pair_id), section(page, year_id)
    assert "Jede Antwort" in pair and "100\u00a0% der Zeile" in pair
    assert (
        "Von denen, die auf „Did you use an AI tool for the essay?“ „Ja“ antworten würden" in pair
    )
    assert "ein Unterschied von <strong>+100 Punkten</strong>" in pair
    assert "garantiert in mindestens 95\u00a0% der Fälle." in pair
    assert "(ein Näherungstest)" in year
    for english in ("of the row", "Any answer", "Among those", "approximate test"):
        assert english not in pair + year


def test_the_students_page_gives_each_questions_shares_and_the_association(client, closed_pairs):
    slug, _ = closed_pairs
    page = flat(client.get(f"/s/{slug}").text)
    assert "On “Did you copy any homework?”: About <strong>" in page
    assert "a difference of <strong>+100 points</strong>" in page
    assert "(an approximate test)." in page
    assert "The shares add up to" not in page


def test_the_projector_shows_the_compact_table_and_the_sentence_on_one_page(client, closed_pairs):
    slug, _ = closed_pairs
    page = flat(client.get(f"/analyst/surveys/{slug}/present").text)
    assert page.count('<table class="present-crosstab">') == 2
    assert "Rows: “Your year of study?”. Columns: “Did you copy any homework?”." in page
    assert '<th scope="row">Third</th>' in page
    # The room gets the approximate test; the difference and its one-look range stay on the
    # dashboard.
    assert "a difference of" not in page
    assert page.count("Answers this far from unrelated would come") == 2
    state = client.get(f"/analyst/surveys/{slug}/present/state").get_json()
    assert [page["columns"] for page in state["pages"]] == [[[1], [2]]]


@pytest.mark.parametrize(
    ("p_value", "english", "german"),
    [
        (0.004, "less than once in 100 times", "seltener als einmal in 100 Fällen"),
        (0.012, "about 1 time in 100", "etwa 1 Mal in 100 Fällen"),
        (0.03, "about 3 times in 100", "etwa 3 Mal in 100 Fällen"),
        (0.4, "about 40 times in 100", "etwa 40 Mal in 100 Fällen"),
        (1.0, "about 99 times in 100", "etwa 99 Mal in 100 Fällen"),
    ],
)
def test_the_p_value_in_words_says_how_rare_and_that_it_is_approximate(
    app, p_value, english, german
):
    with app.test_request_context():
        said = str(p_value_words(p_value))
    assert english in said and said.endswith("(an approximate test).")
    if p_value < 0.05:
        assert "sign that they go together" in said and "no clear sign" not in said
    else:
        assert (
            "no clear sign that they go together, which does not show that they are unrelated"
            in said
        )
    with app.test_request_context(headers=GERMAN):
        said = str(p_value_words(p_value))
    assert german in said and said.endswith("(ein Näherungstest).")
    with app.test_request_context():
        assert p_value_words(None) is None


def test_a_difference_is_signed_in_whole_points_rounded_as_asked(app):
    with app.test_request_context():
        assert signed_points(0.4, nearest) == "+40 points"
        assert signed_points(-0.051, down) == "−6 points"
        assert signed_points(-0.051, up) == "−5 points"
        assert signed_points(0.0, nearest) == "0 points"
        assert signed_points(0.01, nearest) == "+1 point"
    with app.test_request_context(headers=GERMAN):
        assert signed_points(0.4, nearest) == "+40 Punkten"


def test_a_table_with_an_empty_row_says_there_is_no_difference_in_words(app):
    # At p = 0.25 over 4 cells, reports only in the "Yes" row leave the "No" row's shown
    # cells at 0: nobody to compare.
    told = privacy.JointRandomizedResponse(0.25, (2, 2)).tell([0, 0, 20, 20])
    assert told.row_shares[0] is None and told.association.difference is None
    parts = (
        PartQuestion("Used an AI tool?", ("No", "Yes"), (1,)),
        PartQuestion("Copied homework?", ("No", "Yes"), (1,)),
    )
    with app.test_request_context():
        said = difference_words(told, parts, (["No", "Yes"], ["No", "Yes"]), 0.95)
    assert isinstance(said, Markup)
    assert said == (
        "The table shows no one answering “No” to “Used an AI tool?”, so the two groups can’t "
        "be compared yet: there is no difference to give."
    )


def test_while_open_the_table_says_its_ranges_are_for_one_look(
    app, client, make_survey, analyst, sign_in_as, closed_pairs
):
    """While open the page leads with live ranges; the table's exact ranges and the
    difference's are not live, and it says so (once closed it need not)."""
    slug, _ = make_survey(DEFINITION)
    submit(app, slug, list(zip(PAIR_REPORTS, YEAR_REPORTS, strict=True)))
    open_page = flat(client.get(f"/analyst/surveys/{slug}").text)
    assert open_page.count('class="data crosstab"') == 2
    assert open_page.count("hold for one look, not for reading again and again") == 2
    closed_page = flat(client.get(f"/analyst/surveys/{closed_pairs[0]}").text)
    assert "hold for one look" not in closed_page


def test_counts_no_randomization_would_give_say_nothing_of_the_association(
    app, client, make_survey, close, analyst, sign_in_as
):
    # Every report in one cell: at p = 0.25 over 4 cells randomized answers almost never do.
    slug, (pair_id, _) = make_survey(DEFINITION)
    submit(app, slug, [(3, 0)] * 40)
    close(slug)
    sign_in_as(client, analyst)
    part = section(client.get(f"/analyst/surveys/{slug}").text, pair_id)
    assert "These answers are not consistent with the randomization" in part
    cells = [cell for row in crosstab_cells(part)[2:4] for cell in row[1:3]]
    assert any(cell == "not consistent" for cell in cells), cells
    assert "a difference of" not in part and "Answers this far" not in part


def test_while_open_the_projector_gives_each_cell_its_live_range(
    app, client, make_survey, analyst, sign_in_as
):
    """The projector redraws as answers arrive: its pair's cells are in the live ranges, valid
    however often it redraws, never the one-look exact ones the dashboard's table gives."""
    from survey_app.words import percent_high, percent_low

    slug, (pair_id, _) = make_survey(DEFINITION)
    submit(app, slug, list(zip(PAIR_REPORTS, YEAR_REPORTS, strict=True)))
    sign_in_as(client, analyst)
    results = client.get(f"/api/v1/surveys/{slug}/results").get_json()
    cell = results["questions"][0]["cells"][0]
    assert cell["live_ci_high"] - cell["live_ci_low"] > cell["exact_ci_high"] - cell["exact_ci_low"]
    page = flat(client.get(f"/analyst/surveys/{slug}/present").text)
    table = re.search(r'<table class="present-crosstab">.*?</table>', page).group(0)
    with app.test_request_context():
        live = f"{percent_low(cell['live_ci_low'])}–{percent_high(cell['live_ci_high'])}"
        exact = f"{percent_low(cell['exact_ci_low'])}–{percent_high(cell['exact_ci_high'])}"
    assert live in table and exact not in table
    assert "a difference of" not in page
    # Its caption, read to those who hear the table, names the ranges it shows.
    caption = re.search(r"<caption[^>]*>(.*?)</caption>", table).group(1)
    assert "with its live 95% range, which holds however often the screen redraws" in caption
    assert "exact" not in caption and "share of the row" not in caption


def test_once_closed_the_projector_s_caption_names_its_exact_ranges(client, closed_pairs):
    slug, _ = closed_pairs
    page = flat(client.get(f"/analyst/surveys/{slug}/present").text)
    captions = re.findall(r'<table class="present-crosstab">\s*<caption[^>]*>(.*?)</caption>', page)
    assert len(captions) == 2
    for caption in captions:
        assert caption.endswith("with its exact 95% range") and "live" not in caption


def test_a_table_where_no_one_gives_some_answer_says_nothing_of_going_together(
    app, client, make_survey, close, analyst, sign_in_as
):
    """Twelve reports all "No / No": consistent enough to be shown, but no one is shown answering
    "Yes" to either question, so how the answers go together cannot be read; the test's small
    p-value says only that such reports fit no truth well. Neither the dashboard nor the
    projector claims a sign that they go together (and with answers in every row and column,
    the test's sentence is there, as the other tests show)."""
    told = privacy.JointRandomizedResponse(0.25, (2, 2)).tell([12, 0, 0, 0])
    assert told.consistent_with_randomization and told.association.p_value < 0.01
    slug, (pair_id, _) = make_survey(DEFINITION)
    submit(app, slug, [(0, cell % 6) for cell in range(12)])
    sign_in_as(client, analyst)
    part = section(client.get(f"/analyst/surveys/{slug}").text, pair_id)
    assert "no difference to give" in part
    assert "Answers this far from unrelated" not in part and "go together" not in part
    projector = flat(client.get(f"/analyst/surveys/{slug}/present").text)
    assert projector.count('<table class="present-crosstab">') == 2
    assert projector.count("Answers this far from unrelated") == 1  # the 3x2 pair's alone


def test_a_larger_table_with_one_empty_row_still_says_how_the_others_go_together(app):
    """Three years of study, the third with no one in it: the first two still compare, and the
    test is said; with everyone in one cell of a 2x2 table it is not."""
    from survey_app.results.joint_words import one_answer_only

    related = privacy.JointRandomizedResponse(0.25, (3, 2)).tell([60, 4, 4, 60, 0, 0])
    assert related.row_shares[2] is None and related.row_shares[0] is not None
    assert related.association.p_value < 0.01
    assert not one_answer_only(related)
    with app.test_request_context():
        said = association_words(related, PARTS_3X2, (["1", "2", "3"], ["No", "Yes"]), 0.95)
    assert said is not None and "Answers this far from unrelated" in said
    piled = privacy.JointRandomizedResponse(0.25, (2, 2)).tell([12, 0, 0, 0])
    assert one_answer_only(piled)
