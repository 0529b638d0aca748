"""Every professor page of a translated area (web.languages.TRANSLATED_AREAS) rendered in the
pseudo-language of tests/unit/respondents/test_pseudo_locale.py shows no English: each area's
pages, with what they say back (errors, refusals, what was saved), are listed here when the area
joins the translated ones; a test checks that every translated area has its pages here.
"""

from __future__ import annotations

import pytest
from babel.dates import format_date

from survey_app.extensions import db
from survey_app.surveys.services import close_survey, find_survey
from survey_app.web import languages
from tests.analyst_helpers import ANALYST_PASSWORD, csrf_token, submit
from tests.unit.respondents.test_pseudo_locale import (
    ANSWERED,
    GREEK,
    PSEUDO,
    SPEAKING,
    english_left,
    pseudo_app,
)

#: What a page quotes back that is not the app's words: the professor's address, the names of
#: commands, a language code typed.
QUOTED = ("prof@example.edu", "survey-app list-tokens", "survey-app revoke-token", "'tlh'")
#: The languages' names in the account page's select, each in itself (not English).
LANGUAGE_NAMES = (("option", "language-name"),)
#: The professor areas whose pages this file renders.
COVERED = {"sign_in", "projector", "builder", "lesson", "dashboard", "manage", "codes", "lti"}

__all__ = ["pseudo_app"]  # the fixture, used by name


def leaks(page) -> list[str]:
    return english_left(page.text, skipped=LANGUAGE_NAMES, typed=QUOTED)


def test_every_translated_professor_area_has_its_pages_here():
    professors = languages.TRANSLATED_AREAS - {"respondent", languages.ERROR_PAGES}
    assert professors <= COVERED


def test_the_sign_in_pages_speak_the_language(pseudo_app, analyst):
    client = pseudo_app.test_client()
    asked = client.get("/analyst/", headers=SPEAKING, follow_redirects=True)  # "please sign in"
    empty = client.post(
        "/analyst/login", data={"csrf_token": csrf_token(asked.text)}, headers=SPEAKING
    )
    wrong = client.post(
        "/analyst/login",
        data={
            "email": "prof@example.edu",
            "password": "not the password",
            "csrf_token": csrf_token(asked.text),
        },
        headers=SPEAKING,
    )
    assert [asked.status_code, empty.status_code, wrong.status_code] == [200, 401, 401]
    assert "⟦Þĺéàšé šîĝñ îñ ţö šéé ţĥàţ þàĝé.⟧" in asked.text
    for name, page in {"asked to sign in": asked, "empty": empty, "wrong": wrong}.items():
        assert leaks(page) == [], name


@pytest.mark.parametrize(
    "new_password", ["short", "aaaaaaaaaaaaaaaa", "password1234", "prof12345678!"]
)
def test_the_account_pages_speak_the_language(
    pseudo_app, client, analyst, sign_in_as, new_password
):
    sign_in_as(client, analyst)
    page = client.get("/analyst/account", headers=SPEAKING)
    assert page.status_code == 200
    assert leaks(page) == []
    token = csrf_token(page.text)
    refused = client.post(
        "/analyst/account",
        data={
            "current_password": "wrong",
            "new_password": new_password,
            "repeat_password": "differs",
            "csrf_token": token,
        },
        headers=SPEAKING,
    )
    assert refused.status_code == 400
    assert refused.text.count('class="error"') == 3
    language = client.post(
        "/analyst/account/language", data={"language": "tlh", "csrf_token": token}, headers=SPEAKING
    )
    assert language.status_code == 400
    saved = client.post(
        "/analyst/account/language",
        data={"language": "", "csrf_token": token},
        headers=SPEAKING,
        follow_redirects=True,
    )
    changed = client.post(
        "/analyst/account",
        data={
            "current_password": ANALYST_PASSWORD,
            "new_password": "a new long passphrase",
            "repeat_password": "a new long passphrase",
            "csrf_token": token,
        },
        headers=SPEAKING,
        follow_redirects=True,
    )
    everywhere = client.post(
        "/analyst/account/sign-out-everywhere",
        data={"csrf_token": csrf_token(changed.text)},
        headers=SPEAKING,
        follow_redirects=True,
    )
    pages = {"refused": refused, "language": language, "saved": saved, "changed": changed}
    pages["signed out everywhere"] = everywhere
    assert [each.status_code for each in pages.values()] == [400, 400, 200, 200, 200]
    for name, each in pages.items():
        assert leaks(each) == [], name
    assert "⟦Ĺàñĝûàĝé šàṽéđ.⟧" in saved.text


def typed_on_the_projector(slug: str) -> tuple[str, ...]:
    """What the projector of the survey ``slug`` shows that is not words: the address, its
    join code (alone, and letter by letter as a screen reader spells it) and the day it closed
    (in the pseudo-language's own CLDR month)."""
    survey = find_survey(slug)
    typed = ["http://localhost/"]
    if survey.join_code:
        typed += [" ".join(survey.join_code), survey.join_code]
    if survey.closed_at:
        typed.append(format_date(survey.closed_at, "MMMM", locale=PSEUDO))
    return tuple(typed)


@pytest.mark.parametrize(
    ("status", "answered"),
    [("draft", False), ("open", False), ("open", True), ("closed", False), ("closed", True)],
)
def test_the_projector_speaks_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey, status, answered
):
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK, status="open" if answered else status)
    if answered:
        submit(pseudo_app, slug, ANSWERED)
    with pseudo_app.app_context():
        if answered and status == "closed":
            close_survey(find_survey(slug))
            db.session.commit()
        typed = typed_on_the_projector(slug)
    page = client.get(f"/analyst/surveys/{slug}/present", headers=SPEAKING)
    state = client.get(f"/analyst/surveys/{slug}/present/state", headers=SPEAKING)
    assert [page.status_code, state.status_code] == [200, 200]
    quoted = (*QUOTED, *typed)
    assert english_left(page.text, typed=quoted) == [], english_left(page.text, typed=quoted)
    said = state.get_json()
    shown = [said["join_html"], *(question["html"] for question in said["questions"])]
    words = [said[key] for key in ("status_words", "respondents_words", "summary_words")]
    words += [each["words"] for each in said["pages"]]
    texts = "".join(f"<p>{text}</p>" for text in [*shown, *filter(None, words)])
    assert english_left(texts, typed=quoted) == []
    assert "⟦" in said["respondents_words"] and "⟦" in said["pages"][0]["words"]


def _registered_platform():
    """A learning platform registered as an operator does (within an app context)."""
    from survey_app.lti.platforms import add_platform

    platform = add_platform(
        "https://lms.example.edu",
        "tool-1",
        ["deployment-1"],
        {
            "auth_url": "https://lms.example.edu/auth",
            "token_url": "https://lms.example.edu/token",
            "jwks_url": "https://lms.example.edu/jwks",
        },
    )
    db.session.commit()
    return platform


def test_the_page_that_adds_a_survey_to_a_course_speaks_the_language(
    pseudo_app, client, analyst, sign_in_as, make_survey
):
    """LTI deep linking: the instructor's choice of a survey, and the page that sends it back."""
    from survey_app.lti import deep_linking
    from survey_app.lti.launches import DEEP_LINKING_REQUEST, Launch

    slug, _ = make_survey()
    with pseudo_app.app_context():
        platform = _registered_platform()
        launch = Launch(
            platform.id,
            "deployment-1",
            DEEP_LINKING_REQUEST,
            True,
            None,
            "https://lms.example.edu/return",
            None,
        )
        ticket = deep_linking.ticket(pseudo_app.secret_key, launch, "this-browser")
        title = find_survey(slug).title  # the professor's words, quoted back
    sign_in_as(client, analyst)
    client.set_cookie("survey_app_lti_chooser", "this-browser", path="/lti/deep-link")
    chooser = client.get(f"/lti/deep-link/{ticket}", headers=SPEAKING)
    assert chooser.status_code == 200
    assert english_left(chooser.text, skipped=LANGUAGE_NAMES, typed=(title, *QUOTED)) == []
    returned = client.post(
        f"/lti/deep-link/{ticket}",
        data={"csrf_token": csrf_token(chooser.text), "survey": slug},
        headers=SPEAKING,
    )
    assert returned.status_code == 200
    assert english_left(returned.text, skipped=LANGUAGE_NAMES, typed=(title, *QUOTED)) == []


def test_the_data_privacy_page_speaks_the_language(pseudo_app, client):
    """What the tool keeps of who launched it (a data privacy launch lands there)."""
    page = client.get("/lti/data-privacy", headers=SPEAKING)
    assert page.status_code == 200
    assert leaks(page) == []


def test_the_page_that_opens_the_dashboard_in_a_new_tab_speaks_the_language(pseudo_app, client):
    """Where an instructor's launch lands in the course's frame."""
    page = client.get("/lti/dashboard/some-survey", headers=SPEAKING)
    assert page.status_code == 200
    assert leaks(page) == []


def post_link_form(client, ticket: str, action: str, fields: dict[str, str]):
    """The link page's form, one of its two ways (``action``), in the pseudo-locale."""
    return client.post(f"/lti/link/{ticket}", data={**fields, "action": action}, headers=SPEAKING)


def test_the_page_that_links_an_instructors_course_account_speaks_the_language(
    pseudo_app, client, analyst, make_survey
):
    """LTI: an instructor's first launch links their course account to an account of the app."""
    from survey_app.lti import instructors

    with pseudo_app.test_request_context():
        platform = _registered_platform()
        ticket = instructors.ticket(platform.id, "0" * 64, "/analyst/", None, "this-browser")
    client.set_cookie(instructors.LINKER_COOKIE, "this-browser", path="/lti/link")
    page = client.get(f"/lti/link/{ticket}", headers=SPEAKING)
    assert page.status_code == 200
    wrong = post_link_form(
        client,
        ticket,
        "sign-in",
        {"existing-email": "prof@example.edu", "existing-password": "not the password"},
    )
    weak = post_link_form(
        client,
        ticket,
        "create",
        {
            "new-email": "prof@example.edu",
            "new-password": "password1234",
            "new-repeat_password": "other",
        },
    )
    assert [wrong.status_code, weak.status_code] == [400, 400]
    for shown in (page, wrong, weak):
        assert leaks(shown) == [], leaks(shown)
    assert "⟦" in weak.text
