"""The code slips' refusals speak the professor's language: a number of codes refused (not a
whole number, out of range, more than the survey holds) and what the survey's status refuses,
each said in German and in French with the figures that language's way; the command line keeps
its English."""

from __future__ import annotations

import html
import re

import pytest

from survey_app.classroom import codes
from tests.analyst_helpers import csrf_token
from tests.unit.respondents.test_pseudo_locale import GREEK

GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}
FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9"}


def sent(client, slug: str, path: str, headers: dict, **fields):
    """A form of the dashboard sent in the language of ``headers``, followed where it leads;
    its page with runs of ASCII white space made one space (a no-break space is a number's)."""
    token = csrf_token(client.get(f"/analyst/surveys/{slug}", headers=headers).text)
    response = client.post(
        f"/analyst/surveys/{slug}/{path}",
        data={"csrf_token": token, **fields},
        headers=headers,
        follow_redirects=True,
    )
    return response.status_code, re.sub(r"[ \t\r\n]+", " ", html.unescape(response.text))


@pytest.mark.parametrize(
    ("headers", "typed", "said"),
    [
        (GERMAN, "abc", "Die Anzahl der Codes muss eine ganze Zahl sein, nicht „abc“."),
        (GERMAN, "99999", "Die Anzahl der Codes muss zwischen 1 und 2.000 liegen, nicht 99.999."),
        (GERMAN, "0", "Die Anzahl der Codes muss zwischen 1 und 2.000 liegen, nicht 0."),
        (FRENCH, "abc", "Le nombre de codes doit être un nombre entier, pas «\u00a0abc\u00a0»."),
        (
            FRENCH,
            "99999",
            "Le nombre de codes doit être compris entre 1 et 2\u202f000, pas 99\u202f999.",
        ),
    ],
    ids=["de not whole", "de too many", "de none", "fr not whole", "fr too many"],
)
def test_a_refused_number_of_codes_is_said_in_the_professor_s_language(
    app, client, analyst, sign_in_as, make_survey, headers, typed, said
):
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK, status="draft")
    sent(client, slug, "codes/required", headers, required="1")  # the field is shown
    status, page = sent(client, slug, "codes", headers, count=typed, batch=typed)
    assert status == 400
    assert said in page
    # The English message's words ("... must be a whole number, got 'abc'"), with their spaces
    # and comma: a random token or slug on the page (one held "got") has none.
    assert "must be" not in page and ", got " not in page


@pytest.mark.parametrize(
    ("headers", "said"),
    [
        (GERMAN, "Eine Umfrage fasst höchstens 5 Codes; diese hat 3."),
        (FRENCH, "Un sondage contient au plus 5 codes\u00a0; celui-ci en a 3."),
    ],
    ids=["de", "fr"],
)
def test_more_codes_than_a_survey_holds_is_said_in_the_professor_s_language(
    app, client, analyst, sign_in_as, make_survey, monkeypatch, headers, said
):
    # Five to a survey here, not 20,000: the refusal says the figures the check used.
    monkeypatch.setattr(codes, "MAX_CODES_PER_SURVEY", 5)
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK, status="draft")
    status, slips = sent(client, slug, "codes", headers, count="3", batch="first")
    assert status == 200 and slips.count('class="slip"') == 3
    status, page = sent(client, slug, "codes", headers, count="3", batch="second")
    assert status == 400
    assert said in page
    assert "holds at most" not in page


def test_what_the_survey_s_status_refuses_is_said_in_the_professor_s_language(
    app, client, analyst, sign_in_as, make_survey, runner
):
    """An open survey can neither take codes it opened without nor drop them; the command line
    says the same refusal in English."""
    sign_in_as(client, analyst)
    slug, _ = make_survey(GREEK)
    _, page = sent(client, slug, "codes/required", GERMAN, required="1")
    assert (
        "Codes lassen sich nur verlangen oder abschaffen, solange die Umfrage ein Entwurf ist"
        in (page)
    )
    _, page = sent(client, slug, "codes", FRENCH, count="3", batch="first")
    assert (
        "Ce sondage a été ouvert sans codes à usage unique, il ne peut donc pas en prendre "
        "maintenant."
    ) in page
    assert "opened without" not in page
    result = runner.invoke(args=["issue-codes", slug, "3"])
    assert result.exit_code == 2
    assert "This survey opened without one-time codes, so it cannot take them now." in (
        result.stderr
    )
