"""The words pages say: one rule for plurals (0, 1 and 2 of each noun and unit), a share's
margin in percentage points on every page that gives one, a number question's plain headline
with the technical words in a disclosure, and what a draft, open or closed survey's dashboard
says about joining."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from survey_app.extensions import db
from survey_app.kinds import yes_no
from survey_app.results.panel import have_answered
from survey_app.results.releases import MIN_ANSWERS_FOR_SHARES
from survey_app.results.words import release_words
from survey_app.storage import models
from survey_app.surveys.services import find_survey
from survey_app.words import (
    counted,
    format_points,
    percent_high,
    plural,
    points,
    singular_unit,
    survey_status_words,
    with_unit,
)
from tests.analyst_helpers import ROWS, flat, submit
from tests.numeric_helpers import HOURS, submit_numbers

# --------------------------------------------------------------------------- the rule


@pytest.mark.parametrize(
    ("count", "noun", "nouns", "said"),
    [
        (0, "question", None, "0 questions"),
        (1, "question", None, "1 question"),
        (2, "question", None, "2 questions"),
        (0, "person", "people", "0 people"),
        (1, "person", "people", "1 person"),
        (2, "person", "people", "2 people"),
        (1200, "respondent", None, "1,200 respondents"),
        ("1", "hour", None, "1 hour"),
        ("1.5", "hour", None, "1.5 hours"),
        ("1,000", "answer", None, "1,000 answers"),
    ],
)
def test_a_count_and_its_noun(count, noun, nouns, said):
    assert counted(count, noun, nouns) == said


@pytest.mark.parametrize(
    ("figure", "said"),
    [("0", "0 hours"), ("1", "1 hour"), ("2", "2 hours"), ("-1", "-1 hour"), ("6.5", "6.5 hours")],
)
def test_a_figure_and_its_unit(figure, said):
    assert with_unit(figure, "hours") == said
    assert with_unit(figure, "") == figure


@pytest.mark.parametrize(
    ("unit", "one"),
    [
        ("hours", "hour"),
        ("hours of sleep", "hour of sleep"),
        ("cups of coffee", "cup of coffee"),
        ("inches", "inch"),
        ("glasses of water", "glass of water"),
        ("calories", "calorie"),
        ("classes", "class"),
        ("headaches", "headache"),
        ("sizes", "size"),
        ("people", "person"),
        ("km", "km"),
        ("°C", "°C"),
        ("euros", "euro"),
    ],
)
def test_a_unit_typed_in_the_plural_is_made_singular_for_one(unit, one):
    assert singular_unit(unit) == one


@pytest.mark.parametrize(
    ("margin", "short", "long"),
    [
        (0.0, "±0 points", "±0 percentage points"),
        (0.01, "±1 point", "±1 percentage point"),
        (0.02, "±2 points", "±2 percentage points"),
        (0.2781, "±28 points", "±28 percentage points"),
    ],
)
def test_a_share_margin_is_in_percentage_points(margin, short, long):
    assert points(margin) == short
    assert points(margin, long=True) == long
    assert f"±{format_points(margin)} " in long


@pytest.mark.parametrize(
    ("count", "said"),
    [(0, "people have answered"), (1, "person has answered"), (2, "people have answered")],
)
def test_who_has_answered(count, said):
    assert have_answered(count) == said
    assert plural(count, "code") == ("code" if count == 1 else "codes")


def open_results(held: int, answered: int) -> SimpleNamespace:
    """Results of an open survey holding ``held`` of the ``answered`` answers."""
    survey = SimpleNamespace(is_open=True)
    return SimpleNamespace(
        held=False,
        surveys=[survey],
        respondents=held,
        answered=answered,
        shows_results=held >= MIN_ANSWERS_FOR_SHARES,
    )


@pytest.mark.parametrize(
    ("batch", "held", "answered", "brief", "said"),
    [
        (1, 0, 0, True, "Results appear once 10 people have answered."),
        (25, 0, 0, True, "Results appear once 25 people have answered."),
        (1, 0, 0, False, "The first results appear once 10 people have answered, then change "),
        (5, 0, 0, False, "The first results appear once 10 people have answered, then change "),
        (1, 10, 10, True, "Results include everyone; they update with each answer."),
        (5, 0, 9, False, "The first results appear once 10 people have answered"),
        (5, 7, 9, True, "Results appear once 12 people have answered."),
        (5, 10, 11, True, "Results include 10 of 11 people; they update every 5 answers."),
        (2, 10, 11, False, "The results below include 10 of the 11 people who have answered;"),
    ],
)
def test_release_words_count_their_nouns(batch, held, answered, brief, said):
    assert release_words(open_results(held, answered), batch, brief).startswith(said)


def test_release_words_say_every_new_answer_or_every_batch():
    assert release_words(open_results(0, 3), 1).endswith("then change with every new answer.")
    assert release_words(open_results(0, 3), 5).endswith(
        "then change with every 5 new answers, so that nobody’s answers can be picked out by "
        "watching them arrive."
    )


@pytest.mark.parametrize("count", [1, 2])
def test_the_builder_readout_counts_its_students_and_questions_left_out(count):
    from survey_app.planning import shares as planning

    group = planning.PlannedQuestions(2, True, ("Ever?",))
    text = planning.shares_text([(group, 0.3, 0.6)], count, count)
    noun = "student" if count == 1 else "students"
    assert text.startswith(f"With {count} {noun}, a yes/no question will be known within")
    question = "question" if count == 1 else "questions"
    assert f"({count} multiple-choice {question} without 2 to 12 options yet left out.)" in text
    assert "Chebyshev’s bound with the exact variance would say ±60 points." in text


# --------------------------------------------------------------------------- on the pages


def test_the_results_panel_says_a_wide_share_margin_in_percentage_points(
    app, signed_in, make_survey
):
    # 12 answers of one yes/no question at p = 1/4: the ranges are far wider than a fifth.
    slug, _ = make_survey({**HOURS, "questions": [{"text": "Ever?", "type": "yes_no"}]})
    submit(app, slug, [(1,)] * 6 + [(0,)] * 6)
    for path in (f"/analyst/surveys/{slug}", f"/analyst/surveys/{slug}/results-panel"):
        page = flat(signed_in.get(path).text)
        caution = re.search(r'<p class="caution">(These ranges are too wide[^<]*)</p>', page)
        assert caution, path
        assert re.search(r"\(up to ±\d+ percentage points\)", caution.group(1))
        assert "%" not in caution.group(1)
        assert re.search(r"Chebyshev range: ±[\d.]+ percentage points? around", page)
        # How the ranges were worked out waits in a disclosure beneath the figures.
        details = re.search(r'<details class="how-worked-out"[^>]*>(.*?)</details>', page)
        assert "How these ranges were worked out" in details.group(1)
        assert "Chebyshev’s inequality" in details.group(1)
        assert "Chebyshev’s inequality" not in page.replace(details.group(0), "")


def test_the_dashboard_planner_says_percentage_points_first(signed_in, survey):
    page = flat(signed_in.get(f"/analyst/surveys/{survey[0]}?margin=1").text)
    assert "Margin wanted, ± percentage points" in page
    needed = re.search(r'<p id="plan-needed">(.*?)</p>', page).group(1)
    assert "within <strong>±1 percentage point</strong>" in needed


def test_the_builder_readout_says_percentage_points(signed_in):
    from tests.unit.planning.test_planning import readout

    text = readout(signed_in)["planning"]["text"]
    first = re.search(r"within about (±\d+ \S+ \S+)", text).group(1)
    assert first.endswith("percentage points;") or first.endswith("percentage points")
    assert "%" not in text.split("students,")[1]


def test_a_number_questions_headline_is_plain_and_its_workings_are_beneath(
    client, hours, sign_in_as, analyst, close
):
    slug, (number_id, yes_no_id) = hours
    submit_numbers(client, slug, number_id, yes_no_id, [10.0] * 60)
    close(slug)
    sign_in_as(client, analyst)
    page = flat(client.get(f"/analyst/surveys/{slug}").text)
    part = page[page.index(f'id="question-{number_id}"') :]
    part = part[: part.index("</section>")]
    headline = re.search(r'<ul class="plain-words"> <li>(.*?)</li>', part).group(1)
    assert re.fullmatch(
        r"On average about <strong>[\d.]+ hours</strong>, somewhere between <strong>[\d.]+"
        r"</strong> and <strong>[\d.]+ hours</strong>: guaranteed at least 95% of the time\.",
        headline,
    )
    details = re.search(r'<details class="how-worked-out"[^>]*>(.*?)</details>', part).group(1)
    assert "<summary>How this range was worked out</summary>" in details
    before = part[: part.index('<details class="how-worked-out"')]
    for technical in ("Bernstein", "Chebyshev", "maximum-likelihood", "Wang et al."):
        assert technical in details, technical
        assert technical not in before, technical


def test_one_hour_is_said_in_the_singular(client, make_survey, sign_in_as, analyst):
    # A scale of 0 to 1 hours: its top is "1 hour" in the words and the chart.
    definition = {
        **HOURS,
        "questions": [{**HOURS["questions"][0], "min": 0, "max": 1}, HOURS["questions"][1]],
    }
    slug, (number_id, yes_no_id) = make_survey(definition)
    submit_numbers(client, slug, number_id, yes_no_id, [0.5] * 40)
    sign_in_as(client, analyst)
    page = flat(client.get(f"/analyst/surveys/{slug}").text)
    assert "above 1 hour were counted as 0 or 1" in page
    assert "<td>1 hour</td>" in page and "<td>0.5 hours</td>" in page
    assert not re.search(r"(?<![\d.])1 hours", page)
    # The results CSV names each bar the same way.
    rows = client.get(f"/api/v1/surveys/{slug}/results.csv").text
    assert ",share of 1 hour," in rows and ",share of 0.5 hours," in rows
    assert not re.search(r"(?<![\d.])1 hours", rows)


def test_the_lesson_says_its_half_widths_in_percentage_points(
    client, make_survey, close, analyst, sign_in_as, app
):
    slug, _ = make_survey()
    submit(app, slug, ROWS)
    close(slug)
    sign_in_as(client, analyst)
    sure = flat(client.get(f"/analyst/surveys/{slug}/lesson?step=4").text)
    bound = re.search(r'within h = ±<strong id="lesson-notes-bound">([^<]*)</strong>', sure)
    assert re.fullmatch(r"[\d.]+ percentage points?", bound.group(1))
    assert re.search(r'±<span id="lesson-chebyshev">[\d.]+ points?</span>', sure)
    trade_off = flat(client.get(f"/analyst/surveys/{slug}/lesson?step=7").text)
    assert "Exact range, ± percentage points" in trade_off
    words = re.findall(r'data-words="([^"]*)"', trade_off)
    assert words and all(
        re.search(r"about ±[\d.]+ percentage points? \(exact\), ±[\d.]+ points? by", said)
        for said in words
    )
    cells = re.findall(r'<td class="num">(±[^<]*)</td>', trade_off)
    assert cells and not any("%" in cell for cell in cells)


# --------------------------------------------------------------------------- the status panel


def status_panel(page: str) -> str:
    start = page.index('<section class="panel" aria-labelledby="share-heading">')
    return page[start : page.index("</section>", start)]


@pytest.fixture
def public_url(app):
    """A public address, so an open survey's dashboard has a QR code to show."""
    app.config["PUBLIC_URL"] = "https://surveys.example.edu"


def test_an_open_survey_says_how_to_join(signed_in, make_survey, public_url):
    slug, _ = make_survey()
    panel = flat(status_panel(signed_in.get(f"/analyst/surveys/{slug}").text))
    assert "This survey is <strong>open</strong>." in panel
    for joining in ('id="join-instructions"', 'id="join-code"', 'id="join-qr"'):
        assert joining in panel
    assert 'id="reopen-how"' not in panel


def test_a_draft_says_it_is_not_open_yet(signed_in, make_survey, public_url):
    slug, _ = make_survey(status="draft")
    panel = flat(status_panel(signed_in.get(f"/analyst/surveys/{slug}").text))
    assert "it is not open yet" in panel and 'data-state="draft"' in panel
    for joining in ("Students go to", 'id="join-code"', 'id="join-qr"', 'id="reopen-how"'):
        assert joining not in panel


def test_a_closed_survey_says_since_when_and_how_to_reopen(
    app, signed_in, make_survey, close, public_url
):
    slug, _ = make_survey()
    close(slug)  # within the join code's grace: the code still resolves, yet is not offered
    with app.app_context():
        survey = find_survey(slug)
        survey.closed_at = dt.datetime(2026, 11, 25, 14, 37, 12)
        db.session.commit()
        code = survey.join_code
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    panel = flat(status_panel(page))
    assert "This survey has been <strong>closed</strong> since 25 November 2026:" in panel
    assert "14:37" not in panel  # the day alone
    reopen = re.search(r'<p id="reopen-how">(.*?)</p>', panel).group(1)
    assert "press Reopen below" in reopen and "keeps every answer already in" in reopen
    assert 'id="open-survey">Reopen</button>' in panel
    for joining in ("Students go to", "type the code", 'id="join-code"', 'id="join-qr"', code):
        assert joining not in page
    assert 'id="respondent-link"' in panel  # the link stays, for after reopening
    # The projector panel says what the projector shows now: no way to join, the survey closed.
    shows = re.search(r'<p id="projector-shows">(.*?)</p>', flat(page)).group(1)
    assert "that the survey is closed" in shows and "how to join" not in shows


def test_the_projector_says_the_same_once_closed(app, signed_in, make_survey, close, public_url):
    slug, _ = make_survey()
    state = signed_in.get(f"/analyst/surveys/{slug}/present/state").get_json()
    assert 'id="present-code"' in state["join_html"] and "present-closed" not in state["join_html"]
    close(slug)
    with app.app_context():
        find_survey(slug).closed_at = dt.datetime(2026, 11, 25, 9, 5)
        db.session.commit()
    state = signed_in.get(f"/analyst/surveys/{slug}/present/state").get_json()
    closed = flat(state["join_html"])
    assert "This survey has been closed since 25 November 2026: it takes no more answers." in closed
    assert "reopen it from its dashboard; reopening keeps every answer already in" in closed
    assert 'id="present-code"' not in closed and "<svg" not in closed
    assert state["status_words"].startswith("Closed since 25 November 2026:")


def test_a_survey_closed_before_closing_days_were_kept_says_closed_alone(app):
    with app.app_context():
        survey = models.Survey(status=models.SurveyStatus.CLOSED, closed_at=None)
        said = survey_status_words(survey)["said"]
    assert "This survey is <strong>closed</strong>: it takes no more answers" in said


# --------------------------------------------------------------------------- one owner each


def test_the_presenters_never_ask_whether_a_question_is_numeric():
    """What a browser needs (browser_fields) and what the API adds (told_fields) and which view
    a question gets are answered by the mechanism or what its counts tell, never by asking."""
    package = Path(models.__file__).resolve().parents[1]
    for module in (
        "respondents/definition.py",
        "results/documents.py",
        "results/words.py",
        "results/panel.py",
        "surveys/words.py",
        "words.py",
    ):
        source = (package / module).read_text(encoding="utf-8")
        assert "is_numeric" not in source, module
        assert not re.search(r"\bif [\w.]*\bnumeric\b(?! *=)", source), module


def test_the_respondent_page_takes_yes_and_no_from_their_kind(client, make_survey, monkeypatch):
    slug, (yes_no_id, _) = make_survey()
    monkeypatch.setattr(yes_no, "YES_NO_LABELS", ("Non", "Oui"))
    page = flat(client.get(f"/s/{slug}").text)
    radios = re.findall(
        rf'name="question-{yes_no_id}" value="(\d)" data-question-id="{yes_no_id}" '
        r'autocomplete="off"> (\w+)',
        page,
    )
    assert radios == [("1", "Oui"), ("0", "Non")]


def test_percent_high_still_words_shares_themselves():
    # A share stays "%": only margins and half-widths of shares are in percentage points.
    assert percent_high(0.4865) == "48.7%"
