"""Every professor page of a translated area (web.languages.TRANSLATED_AREAS) rendered in the
pseudo-language of tests/unit/respondents/test_pseudo_locale.py shows no English: each area's
pages, with what they say back (errors, refusals, what was saved), are listed here when the area
joins the translated ones; a test checks that every translated area has its pages here.
"""

from __future__ import annotations

import pytest

from survey_app.web import languages
from tests.analyst_helpers import ANALYST_PASSWORD, csrf_token
from tests.unit.respondents.test_pseudo_locale import SPEAKING, english_left, pseudo_app

#: What a page quotes back that is not the app's words: the professor's address, the names of
#: commands, a language code typed.
QUOTED = ("prof@example.edu", "survey-app list-tokens", "survey-app revoke-token", "'tlh'")
#: The languages' names in the account page's select, each in itself (not English).
LANGUAGE_NAMES = (("option", "language-name"),)
#: The professor areas whose pages this file renders.
COVERED = {"sign_in"}

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
