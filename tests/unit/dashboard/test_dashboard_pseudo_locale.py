"""The dashboard and its live results panel in the pseudo-language of
tests/unit/respondents/test_pseudo_locale.py: no English in any state a survey passes through (a
draft, open with no, one and many answers, released in batches, closed, reopened and closed
again before a batch), for each kind of question and numeric mechanism, pooled, planned, with
one-time codes, with ranges too wide yet, each confidence offered, and what it says back."""

from __future__ import annotations

import datetime as dt

import pytest
from babel.lists import format_list
from sqlalchemy import update

from survey_app.classroom.codes import issue_codes
from survey_app.extensions import db
from survey_app.storage.models import OneTimeCode
from survey_app.surveys.services import close_survey, find_survey, open_survey
from tests.analyst_helpers import ROWS, csrf_token, submit
from tests.unit.respondents.test_pseudo_locale import (
    ANSWERED,
    GREEK,
    PSEUDO,
    SPEAKING,
    english_left,
    pseudo_app,
)
from tests.unit.web.test_professor_pseudo_locale import QUOTED, typed_on_the_projector

__all__ = ["pseudo_app"]  # the fixture, used by name


def either_words() -> tuple[str, ...]:
    """The words the pseudo-language's locale lists alternatives with (" aŭ ", its "or"):
    CLDR's, rightly in that language."""
    joined = format_list(["\x00", "\x01"], style="or", locale=PSEUDO)
    return (joined.split("\x00")[1].split("\x01")[0],)


def leaks(page: str, app, *slugs: str, quoted: tuple[str, ...] = ()) -> list[str]:
    """The English left on a page of the surveys ``slugs``: not their addresses, join codes,
    slugs, what was typed and is ``quoted`` back, nor the locale's own words, nor the languages'
    names, each in itself (the labelled exports' links)."""
    typed = [*QUOTED, *either_words(), *slugs, *quoted]
    with app.app_context():
        for slug in slugs:
            typed += typed_on_the_projector(slug)
    return english_left(page, skipped=(("a", "language-name"),), typed=tuple(typed))


def greek(mechanism: str | None = None, kinds: tuple[str, ...] = ()) -> dict:
    """GREEK, its numeric question randomized by ``mechanism`` (None: the app's choice), only
    the questions of ``kinds`` when named."""
    number = {**GREEK["questions"][2], **({"mechanism": mechanism} if mechanism else {})}
    questions = [*GREEK["questions"][:2], number]
    return {**GREEK, "questions": [q for q in questions if not kinds or q["type"] in kinds]}


def dashboard(client, slug: str, **query) -> tuple[str, str]:
    """The dashboard of ``slug`` and its results panel, in the pseudo-language."""
    page = client.get(f"/analyst/surveys/{slug}", query_string=query, headers=SPEAKING)
    panel = client.get(
        f"/analyst/surveys/{slug}/results-panel", query_string=query, headers=SPEAKING
    )
    assert [page.status_code, panel.status_code] == [200, 200]
    assert '<html lang="eo"' in page.text
    return page.text, panel.text


def close_now(app, slug: str) -> None:
    with app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()


@pytest.mark.parametrize(
    ("status", "answers", "mechanism"),
    [
        ("draft", 0, None),
        ("open", 0, None),
        ("open", 1, None),
        ("open", 12, "laplace"),
        ("open", 12, "hybrid"),
        ("closed", 0, None),
        ("closed", 12, "one_bit"),
        ("closed", 12, None),
    ],
)
def test_the_dashboard_speaks_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey, status, answers, mechanism
):
    sign_in_as(client, analyst)
    slug, _ = make_survey(greek(mechanism), status="open" if answers else status)
    if answers:
        submit(pseudo_app, slug, ANSWERED[:answers])
    if answers and status == "closed":
        close_now(pseudo_app, slug)
    for shown in dashboard(client, slug):
        assert leaks(shown, pseudo_app, slug) == []


@pytest.mark.parametrize(
    "query",
    [
        {"confidence": "0.9"},
        {"confidence": "0.99", "ranges": "together"},
        {"confidence": "0.5"},  # refused: said why
        {"margin": "abc"},  # refused: said why
        {"margin": "99"},  # refused: said why
        {"margin": "45"},  # a margin that says next to nothing
    ],
)
def test_each_choice_and_refusal_is_said_in_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey, query
):
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK)
    submit(pseudo_app, slug, ANSWERED)
    close_now(pseudo_app, slug)
    for shown in dashboard(client, slug, **query):
        assert leaks(shown, pseudo_app, slug, quoted=tuple(query.values())) == []


def test_pooled_results_and_the_pool_picker_speak_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey
):
    sign_in_as(client, analyst)
    first, _ = make_survey(GREEK)
    second, _ = make_survey(GREEK)
    other, _ = make_survey({**GREEK, "flip_probability": 0.3})  # cannot be pooled
    submit(pseudo_app, first, ANSWERED)
    submit(pseudo_app, second, ANSWERED)
    pooled = dashboard(client, first, pool=second)
    refused = dashboard(client, first, pool=other)
    alone = dashboard(client, other)  # "none of your 2 other surveys can be combined"
    assert 'id="pooled-summary"' in pooled[0] and 'id="pool-error"' in refused[0]
    for shown in (*pooled, *refused, *alone):
        assert leaks(shown, pseudo_app, first, second, other) == []


@pytest.mark.parametrize("codes", ["none issued", "some", "all used"])
def test_one_time_codes_speak_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey, codes
):
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK, status="draft")
    with pseudo_app.app_context():
        survey = find_survey(slug)
        survey.requires_codes = True
        if codes != "none issued":
            issue_codes(survey, 3)
        if codes == "all used":
            db.session.execute(
                update(OneTimeCode)
                .where(OneTimeCode.survey_id == survey.id)
                .values(used_on=dt.date.today())
            )
        open_survey(survey)
        db.session.commit()
    page, panel = dashboard(client, slug)
    assert 'id="codes-summary"' in page
    assert ('id="codes-missing"' in page) == (codes != "some")
    for shown in (page, panel):
        assert leaks(shown, pseudo_app, slug) == []


@pytest.mark.parametrize("kinds", [("numeric",), ("choice",), ("yes_no",)])
def test_a_survey_of_one_kind_and_its_plan_speak_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey, kinds
):
    """A survey of numbers alone is planned by its averages; one of shares by its shares."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(greek(kinds=kinds))
    submit(pseudo_app, slug, [row[:1] for row in ROWS])
    for shown in dashboard(client, slug):
        assert leaks(shown, pseudo_app, slug) == []


#: GREEK with two questions asked together: a 2x2 pair (its words give the difference) and a 3x2
#: one (the approximate test), answered in every cell.
PAIRED = {
    **GREEK,
    "questions": [
        *GREEK["questions"],
        {
            "type": "paired",
            "questions": [
                {"text": "Ερώτηση α;", "type": "yes_no"},
                {"text": "Ερώτηση β;", "type": "yes_no"},
            ],
        },
        {
            "text": "Ζεύγος;",
            "type": "paired",
            "questions": [
                {"text": "Έτος;", "type": "choice", "options": ["Α", "Β", "Γ"]},
                {"text": "Ερώτηση β;", "type": "yes_no"},
            ],
        },
    ],
}


@pytest.mark.parametrize("status", ["open", "closed"])
def test_paired_questions_speak_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey, status
):
    """Their tables, each question's shares, the association and how they were worked out, on
    the dashboard, the projector and the students' page."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(PAIRED)
    submit(pseudo_app, slug, [(*row, i % 4, i % 6) for i, row in enumerate(ANSWERED)])
    if status == "closed":
        close_now(pseudo_app, slug)
    page, panel = dashboard(client, slug)
    assert page.count('class="data crosstab"') == 2
    shown = [page, panel, client.get(f"/analyst/surveys/{slug}/present", headers=SPEAKING).text]
    if status == "closed":
        shown.append(client.get(f"/s/{slug}", headers=SPEAKING).text)
        assert "crosstab" in shown[2] and "Ερώτηση β;" in shown[3]
    for each in shown:
        assert leaks(each, pseudo_app, slug) == []


def test_results_held_back_after_a_reopening_speak_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey
):
    """Reopened and closed again before a batch of new answers: the last release is shown,
    and the page says why; the projector's visibility and the class's results turned."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK)
    submit(pseudo_app, slug, ANSWERED)
    close_now(pseudo_app, slug)
    with pseudo_app.app_context():
        survey = find_survey(slug)
        open_survey(survey)
        survey.hide_results_until_closed = True
        survey.show_results_after_close = False
        survey.archived = False
        db.session.commit()
    submit(pseudo_app, slug, ANSWERED[:1])
    close_now(pseudo_app, slug)
    page, panel = dashboard(client, slug)
    assert 'id="release-note"' in page
    for shown in (page, panel):
        assert leaks(shown, pseudo_app, slug) == []


# --------------------------------------------------------------------------- the manage pages


def posted(client, path: str, **fields):
    """A form of the manage pages sent in the pseudo-language, its token from the dashboard,
    followed to where it leads."""
    slug = path.split("/")[3]
    token = csrf_token(client.get(f"/analyst/surveys/{slug}", headers=SPEAKING).text)
    return client.post(
        path, data={"csrf_token": token, **fields}, headers=SPEAKING, follow_redirects=True
    )


@pytest.mark.parametrize("answered", [False, True])
def test_the_manage_pages_speak_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey, answered
):
    """Confirming a close and a delete (with answers and codes, or none), the archived list
    (empty, then with a survey), and what opening, closing, archiving and putting back say."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK, status="draft")
    empty = client.get("/analyst/archived", headers=SPEAKING)
    with pseudo_app.app_context():
        find_survey(slug).requires_codes = not answered  # opened without codes: said so
        db.session.commit()
    pages = {"empty archive": empty, "opened": posted(client, f"/analyst/surveys/{slug}/open")}
    if answered:
        submit(pseudo_app, slug, ANSWERED)
    else:  # deleting says that its codes go too
        with pseudo_app.app_context():
            issue_codes(find_survey(slug), 2)
            db.session.commit()
    pages["confirm close"] = client.get(f"/analyst/surveys/{slug}/close", headers=SPEAKING)
    pages["confirm delete (open)"] = client.get(f"/analyst/surveys/{slug}/delete", headers=SPEAKING)
    pages["closed"] = posted(client, f"/analyst/surveys/{slug}/close", confirmed="yes")
    pages["closed again"] = client.get(
        f"/analyst/surveys/{slug}/close", headers=SPEAKING, follow_redirects=True
    )
    pages["refused setting"] = posted(client, f"/analyst/surveys/{slug}/class-results")
    pages["class results"] = posted(client, f"/analyst/surveys/{slug}/class-results", show="0")
    pages["archived"] = posted(client, f"/analyst/surveys/{slug}/archive")
    pages["archive list"] = client.get("/analyst/archived", headers=SPEAKING)
    pages["confirm delete"] = client.get(f"/analyst/surveys/{slug}/delete", headers=SPEAKING)
    pages["put back"] = posted(client, f"/analyst/surveys/{slug}/unarchive")
    assert pages["refused setting"].status_code == 400
    for name, page in pages.items():
        assert page.status_code in (200, 400), name
        assert leaks(page.text, pseudo_app, slug) == [], name


# --------------------------------------------------------------------------- the code slips


def test_the_code_slips_and_their_refusals_speak_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey
):
    """Requiring codes and dropping them, a page of slips, a count refused three ways, the
    same form sent twice, and a survey opened without codes asked for some."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK, status="draft")
    without, _ = make_survey(GREEK)
    codes = f"/analyst/surveys/{slug}/codes"
    pages = {
        "required": posted(client, f"{codes}/required", required="1"),
        "dropped": posted(client, f"{codes}/required", required="0"),
        "refused (opened)": posted(
            client, f"/analyst/surveys/{without}/codes/required", required="1"
        ),
        "slips": posted(client, codes, count="3", batch="first", format="slips"),
        "sent again": posted(client, codes, count="3", batch="first", format="slips"),
    }
    for typed in ("abc", "0", "99999"):
        pages[f"refused {typed}"] = posted(client, codes, count=typed, batch=typed)
        assert pages[f"refused {typed}"].status_code == 400
    assert 'class="slip"' in pages["slips"].text
    for name, page in pages.items():
        assert leaks(page.text, pseudo_app, slug, without, quoted=("abc",)) == [], name


@pytest.mark.parametrize("answered", [[(0,)] * 10, [(1,)] * 10, [(1,)] * 100])
def test_lopsided_answers_are_said_in_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey, answered
):
    """An estimate outside 0–100% (close to an end, or anywhere in a range), and answers the
    randomization cannot explain (no range: the notice, the table and the chart say so)."""
    sign_in_as(client, analyst)
    slug, _ = make_survey({**GREEK, "questions": GREEK["questions"][:1]})
    submit(pseudo_app, slug, answered)
    close_now(pseudo_app, slug)
    for shown in dashboard(client, slug, ranges="together"):
        assert leaks(shown, pseudo_app, slug) == []
