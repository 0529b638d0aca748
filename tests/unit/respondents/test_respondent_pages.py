"""The respondent's page, the public survey definition, the headers, and what is never stored."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import uuid
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import numpy as np
import pytest
import sqlalchemy as sa
from sqlalchemy import inspect

from survey_app import privacy
from survey_app.extensions import db
from survey_app.results.rounding import TOLERANCE as EPSILON_DISPLAY_TOLERANCE
from survey_app.storage.models import new_slug
from survey_app.words import format_epsilon, format_upper_bound

NASTY_TAG = "<script>alert(1)</script>"
ATTRIBUTE_BREAKER = '" onmouseover="x'

HOSTILE_DEFINITION = {
    "title": f"Title {NASTY_TAG} {ATTRIBUTE_BREAKER}",
    "intro": f"Intro {NASTY_TAG} {ATTRIBUTE_BREAKER}\n\nSecond paragraph & more",
    "flip_probability": 0.25,
    "questions": [
        {"text": f"Question {NASTY_TAG} {ATTRIBUTE_BREAKER}", "type": "yes_no"},
        {
            "text": "Pick one",
            "type": "choice",
            "options": [f"Option {NASTY_TAG}", f"Option {ATTRIBUTE_BREAKER}", "Plain option"],
        },
    ],
}

VOID_ELEMENTS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"}


class Page(HTMLParser):
    """The elements of a page, with the open elements around each, and its visible text."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None], tuple[str, ...]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.texts: list[tuple[tuple[str, ...], str]] = []
        self._open: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), tuple(self._open)))
        if tag == "script":
            self.scripts.append((dict(attrs), ""))
        if tag not in VOID_ELEMENTS:
            self._open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), tuple(self._open)))

    def handle_endtag(self, tag):
        if tag in self._open:
            while self._open.pop() != tag:
                pass

    def handle_data(self, data):
        if self._open and self._open[-1] == "script":
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)
        self.texts.append((tuple(self._open), data))

    def find(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [
            attributes
            for name, attributes, _ in self.elements
            if name == tag and all(attributes.get(k) == v for k, v in attrs.items())
        ]

    def by_id(self, element_id: str) -> tuple[str, dict[str, str | None], tuple[str, ...]]:
        matches = [e for e in self.elements if e[1].get("id") == element_id]
        assert len(matches) == 1, f"expected one element with id {element_id!r}"
        return matches[0]

    def text(self, inside: str | None = None) -> str:
        """The visible text (inside elements named ``inside``), whitespace collapsed."""
        parts = [
            data
            for open_tags, data in self.texts
            if "script" not in open_tags and (inside is None or inside in open_tags)
        ]
        return " ".join("".join(parts).replace("\xa0", " ").split())


def get_page(client, slug: str) -> tuple[object, Page]:
    response = client.get(f"/s/{slug}")
    return response, Page(response.get_data(as_text=True))


# --------------------------------------------------------------------------- the survey page


def test_open_survey_page_shows_title_intro_questions_and_options(client, make_survey):
    definition = {
        "title": "Academic integrity",
        "intro": "First paragraph.\n\nSecond paragraph.",
        "flip_probability": 0.25,
        "questions": [
            {"text": "Have you ever copied homework?", "type": "yes_no"},
            {"text": "How often?", "type": "choice", "options": ["Never", "Once", "Often"]},
        ],
    }
    slug, _ = make_survey(definition)
    response, page = get_page(client, slug)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert page.text("h1") == "Academic integrity"
    assert page.text("title") == "Academic integrity"
    intro = [a for a in page.find("p") if a.get("class") == "intro"]
    assert len(intro) == 2
    assert "First paragraph. Second paragraph." in page.text()
    legends = page.text("legend")
    assert "Have you ever copied homework?" in legends
    assert "How often?" in legends
    labels = page.text("label")
    for label in ["Yes", "No", "Never", "Once", "Often"]:
        assert re.search(rf"\b{label}\b", labels)


def test_text_from_the_analyst_is_escaped(client, make_survey):
    slug, _ = make_survey(HOSTILE_DEFINITION)
    response, page = get_page(client, slug)
    html = response.get_data(as_text=True)

    assert response.status_code == 200
    assert NASTY_TAG not in html
    assert ATTRIBUTE_BREAKER not in html
    assert 'onmouseover="' not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 5  # title x2, intro, q, option
    # Shown as text, exactly as written.
    assert page.text("h1") == HOSTILE_DEFINITION["title"]
    assert page.text("title") == HOSTILE_DEFINITION["title"]
    assert f"Intro {NASTY_TAG} {ATTRIBUTE_BREAKER}" in page.text("p")
    assert "Second paragraph & more" in page.text("p")
    assert f"Question {NASTY_TAG} {ATTRIBUTE_BREAKER}" in page.text("legend")
    assert f"Option {NASTY_TAG}" in page.text("label")
    assert f"Option {ATTRIBUTE_BREAKER}" in page.text("label")
    # No attribute was broken out of, no script smuggled in.
    for _, attributes, _ in page.elements:
        assert not any(name.startswith("on") for name in attributes)
    assert all(attrs.get("src") for attrs, _ in page.scripts)


@pytest.mark.parametrize(
    ("flip_probability", "question_count", "expected", "absent"),
    [
        (0.25, 2, ["25%", "1 time in 4", "3 times surer", "ε = 1.10", "ε = 2.20"], []),
        # 3 ln 9 = 6.5917: rounded up, never to the nearer 6.59
        (0.1, 3, ["10%", "1 time in 10", "9 times surer", "ε = 2.20", "ε = 6.60"], ["6.59"]),
        (
            0.3,
            1,
            # 0.7 / 0.3 = 2.333...: an upper bound, so rounded up, never to the nearer 2.33
            ["30%", "2.34 times surer", "ε = 0.85", "whole survey of 1 question."],
            ["1 time in", "2.33 times"],
        ),
        # ln(0.79 / 0.21) = 1.32493...: 1.33, not 1.32; twice that, 2.64986...: 2.65
        (0.21, 2, ["ε = 1.33 a question", "ε = 2.65 for the whole survey"], ["1.32", "2.64"]),
    ],
    ids=["p=0.25", "p=0.1", "p=0.3", "p=0.21"],
)
def test_privacy_account_is_computed_from_p(
    client, make_survey, flip_probability, question_count, expected, absent
):
    definition = {
        "title": "Privacy account",
        "flip_probability": flip_probability,
        "questions": [{"text": f"Q{n}", "type": "yes_no"} for n in range(question_count)],
    }
    slug, _ = make_survey(definition)
    response, page = get_page(client, slug)
    assert response.status_code == 200
    text = page.text()
    for phrase in expected:
        assert phrase in text
    for phrase in absent:
        assert phrase not in text
    # The same figures as survey_app.privacy gives (not a number copied into the template).
    epsilon = privacy.epsilon_from_flip_probability(flip_probability)
    total = privacy.total_epsilon([epsilon] * question_count)
    assert f"ε = {format_epsilon(epsilon)}" in text
    assert f"ε = {format_epsilon(total)}" in text
    assert f"{format_upper_bound(privacy.odds_ratio(flip_probability))} times surer" in text


@pytest.mark.parametrize(
    ("bound", "shown"),
    [
        (3.0, "3"),
        (7 / 3, "2.34"),
        (19.0, "19"),
        (1.5, "1.5"),
        (4.0000000000001, "4"),
        (99.01, "99.1"),
    ],
)
def test_bounds_are_shown_rounded_up(bound, shown):
    assert format_upper_bound(bound) == shown


def test_p_one_quarter_pins_the_textbook_values():
    assert format_epsilon(privacy.epsilon_from_flip_probability(0.25)) == "1.10"
    assert privacy.epsilon_from_flip_probability(0.25) == pytest.approx(math.log(3))


@pytest.mark.parametrize(
    ("epsilon", "shown"),
    [
        (1.3249, "1.33"),  # to nearest it would be 1.32: less privacy loss than there is
        (1.3201, "1.33"),
        (1.32, "1.32"),
        (1.1, "1.10"),  # 1.1 * 100 is 110.00000000000001 in floating point: still 1.10
        (0.1 + 0.2, "0.30"),  # 0.30000000000000004
        (math.fsum([math.log(3)] * 10), "10.99"),
        (math.log(3), "1.10"),
        (1.1 + 5e-10, "1.10"),  # within the stated tolerance (1e-9) of 1.10
        (1.1 + 2e-9, "1.11"),  # beyond it: rounded up
        (0.000004, "0.01"),  # p = 0.499999 still costs something
        (13.815510557964274, "13.82"),  # p = 0.000001
    ],
)
def test_epsilons_are_shown_rounded_up(epsilon, shown):
    assert format_epsilon(epsilon) == shown
    assert float(shown) >= epsilon - EPSILON_DISPLAY_TOLERANCE


def test_an_epsilon_is_never_shown_below_itself():
    rng = np.random.default_rng(20_241_011)
    for epsilon in rng.uniform(0.000004, 14, 2000):
        shown = float(format_epsilon(epsilon))
        assert epsilon - EPSILON_DISPLAY_TOLERANCE <= shown < epsilon + 0.01, epsilon


def loaded_scripts(page: Page) -> list[tuple[str, str | None]]:
    """(URL, integrity) of every script the page loads: script tags and module preloads."""
    scripts = [(attrs["src"], attrs.get("integrity")) for attrs, _ in page.scripts]
    preloads = [
        (attrs["href"], attrs.get("integrity"))
        for tag, attrs, _ in page.elements
        if tag == "link" and attrs.get("rel") in ("modulepreload", "preload")
    ]
    return scripts + preloads


def sri_sha384(data: bytes) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode("ascii")


def test_every_script_the_page_loads_carries_its_integrity(client, survey):
    slug, _ = survey
    _, page = get_page(client, slug)
    loaded = loaded_scripts(page)
    assert sorted(urlsplit(url).path for url, _ in loaded) == [
        "/static/js/answer-table.js",
        "/static/js/kinds/choice.js",
        "/static/js/kinds/index.js",
        "/static/js/kinds/numeric.js",
        "/static/js/kinds/options.js",
        "/static/js/kinds/paired.js",
        "/static/js/kinds/yes-no.js",
        "/static/js/page-words.js",
        "/static/js/randomized-response.js",
        "/static/js/survey-replies.js",
        "/static/js/survey.js",
        "/static/js/typed-numbers.js",
    ]
    for url, integrity in loaded:
        served = client.get(url)
        assert served.status_code == 200, url
        # The hash of the file exactly as served.
        assert integrity == sri_sha384(served.data), url
        version = parse_qs(urlsplit(url).query).get("v")
        if version:  # a changed file gets a new URL
            assert version == [hashlib.sha256(served.data).hexdigest()[:12]]
        served.close()


def test_the_modules_survey_js_imports_are_the_ones_preloaded_with_integrity(client, survey):
    """A module's static imports carry no integrity of their own: an import reuses the
    preload's fetch only when it asks for the very same URL. Every module survey.js imports, at
    any depth, is preloaded so; randomized-response.js imports nothing."""
    slug, _ = survey
    _, page = get_page(client, slug)
    ((attributes, _),) = page.scripts
    survey_url = attributes["src"]
    assert urlsplit(survey_url).path == "/static/js/survey.js"
    preloaded = {
        attrs["href"]: attrs.get("integrity")
        for tag, attrs, _ in page.elements
        if tag == "link" and attrs.get("rel") == "modulepreload"
    }
    pending, imported = [survey_url], set()
    while pending:
        importer = pending.pop()
        source = client.get(importer).get_data(as_text=True)
        specifiers = re.findall(r'^import\s.*?from\s+"([^"]+)";', source, flags=re.M | re.S)
        # Relative paths, resolved against the importing module (kinds/ import "../x.js").
        assert all(re.fullmatch(r"\.\.?/[\w/-]+\.js", specifier) for specifier in specifiers)
        for specifier in specifiers:
            resolved = urljoin(importer, specifier)
            assert resolved in preloaded, (resolved, preloaded)
            assert preloaded[resolved].startswith("sha384-")
            if resolved not in imported:
                imported.add(resolved)
                pending.append(resolved)
    assert imported == set(preloaded)
    assert urljoin(survey_url, "./randomized-response.js") in imported
    mechanism = client.get("/static/js/randomized-response.js").get_data(as_text=True)
    assert not re.search(r"^\s*import\b", mechanism, flags=re.MULTILINE)


def test_page_publishes_the_sha256_of_every_script(app, client, survey):
    slug, _ = survey
    response, page = get_page(client, slug)
    hashes = [
        data.strip() for open_tags, data in page.texts if open_tags and open_tags[-1] == "code"
    ]
    for url, _ in loaded_scripts(page):
        path = urlsplit(url).path
        file = Path(app.static_folder) / path.removeprefix("/static/")
        expected = hashlib.sha256(file.read_bytes()).hexdigest()
        assert expected in hashes, path
        served = client.get(path)
        assert hashlib.sha256(served.data).hexdigest() == expected
        served.close()
    assert len(hashes) == len(loaded_scripts(page)) == 12  # survey.js and its 11 modules
    assert "Check the scripts" in page.text("h3")


def test_page_explains_that_nothing_can_be_sent_until_its_script_runs(client, survey):
    slug, _ = survey
    _, page = get_page(client, slug)
    # JavaScript off: a <noscript> notice, at once.
    _, _, open_tags = page.by_id("javascript-required")
    assert "noscript" in open_tags
    # JavaScript on but the script did not start (not loaded, or failed its integrity check):
    # a notice outside <noscript> that CSS shows only after a few seconds, and that survey.js
    # removes when it starts.
    _, attributes, open_tags = page.by_id("script-not-started")
    assert "noscript" not in open_tags and "hidden" not in attributes
    assert "script-not-started" in attributes.get("class", "")
    text = page.text("p")
    assert "needs JavaScript" in text
    assert "The page’s script has not started, so nothing can be sent from this page" in text
    stylesheet = client.get("/static/css/app.css").get_data(as_text=True)
    assert re.search(
        r"\.script-not-started, \.sending-needs-script "
        r"\{ animation: appear-late 0s linear \d+s both; \}",
        stylesheet,
    )
    # Both notices come first, where the eye lands: before the intro and the privacy section.
    html = client.get(f"/s/{slug}").get_data(as_text=True)
    for notice in ("javascript-required", "script-not-started"):
        assert html.index(f'id="{notice}"') < html.index('class="intro"'), notice
        assert html.index(f'id="{notice}"') < html.index('id="privacy-heading"'), notice


def test_the_disabled_send_button_says_why_beside_it(client, survey):
    """The button is disabled until its script starts; the reason sits right after it, tied by
    aria-describedby, shown at once without JavaScript (noscript.css) and after the script's
    few seconds with it, like the notice."""
    slug, _ = survey
    html = client.get(f"/s/{slug}").get_data(as_text=True)
    page = Page(html)
    _, button, _ = page.by_id("submit-survey")
    assert "disabled" in button and button["aria-describedby"] == "submit-survey-reason"
    _, reason, open_tags = page.by_id("submit-survey-reason")
    assert "noscript" not in open_tags and "hidden" not in reason
    assert "sending-needs-script" in reason["class"]
    between = html[html.index('id="submit-survey"') : html.index('id="submit-survey-reason"')]
    assert between.count("<") == 2  # the button's end tag, and the reason's start tag: beside it
    assert (
        "This button works once the page’s script runs: it randomizes your answers on this "
        "device before anything is sent." in page.text("p")
    )
    noscript = client.get("/static/css/noscript.css").get_data(as_text=True)
    assert ".sending-needs-script { animation: none; }" in noscript


def test_a_preview_s_send_button_says_why_too(client, sign_in_as, analyst, make_survey):
    slug, _ = make_survey(status="draft")
    sign_in_as(client, analyst)
    preview = client.get(f"/analyst/surveys/{slug}/preview")
    assert preview.status_code == 200
    page = Page(preview.get_data(as_text=True))
    _, button, _ = page.by_id("submit-survey")
    assert "disabled" in button and button["aria-describedby"] == "submit-survey-reason"
    _, reason, _ = page.by_id("submit-survey-reason")
    assert "sending-needs-script" not in reason.get("class", "")
    assert "This is a preview: nothing can be sent from it." in page.text("p")


# --------------------------------------------------------------------------- true-answer controls


def test_true_answer_controls_are_not_in_any_form(client, survey):
    slug, _ = survey
    _, page = get_page(client, slug)
    assert page.find("form") == []
    assert page.find("input")  # the controls are there, just not in a form
    for tag, _, open_tags in page.elements:
        if tag in {"input", "button", "select", "textarea"}:
            assert "form" not in open_tags


def test_radios_carry_question_ids_and_values(client, survey):
    slug, (yes_no_id, choice_id) = survey
    _, page = get_page(client, slug)
    radios = page.find("input", type="radio")
    assert radios
    by_question: dict[str, list[str]] = {}
    names: dict[str, set[str | None]] = {}
    for radio in radios:
        assert radio.get("data-question-id"), radio
        assert radio.get("value") is not None, radio
        by_question.setdefault(radio["data-question-id"], []).append(radio["value"])
        names.setdefault(radio["data-question-id"], set()).add(radio.get("name"))
    assert sorted(by_question[str(yes_no_id)]) == ["0", "1"]
    assert by_question[str(choice_id)] == ["0", "1", "2"]
    assert set(by_question) == {str(yes_no_id), str(choice_id)}
    # One named group per question: a group of radios, not loose ones.
    for group in names.values():
        assert len(group) == 1 and None not in group
    assert len({next(iter(group)) for group in names.values()}) == len(names)


def test_choice_with_twelve_options_numbers_them_0_to_11(client, make_survey):
    labels = [f"Option {n}" for n in range(12)]
    slug, (question_id,) = make_survey(
        {
            "title": "Many options",
            "flip_probability": 0.2,
            "questions": [{"text": "Which?", "type": "choice", "options": labels}],
        }
    )
    _, page = get_page(client, slug)
    values = [r["value"] for r in page.find("input", type="radio")]
    assert values == [str(n) for n in range(12)]
    assert all(r["data-question-id"] == str(question_id) for r in page.find("input"))


def test_submit_button_is_a_plain_button_and_thank_you_is_hidden(client, survey):
    slug, _ = survey
    _, page = get_page(client, slug)
    tag, attributes, _ = page.by_id("submit-survey")
    assert tag == "button"
    assert attributes.get("type") == "button"
    _, thanks, _ = page.by_id("thank-you")
    assert "hidden" in thanks


def test_page_has_no_inline_script(client, survey):
    slug, _ = survey
    response, page = get_page(client, slug)
    assert page.scripts, "the page loads its script"
    for attributes, content in page.scripts:
        src = attributes.get("src")
        assert src and src.startswith("/static/") and not src.startswith("//")
        assert content.strip() == ""
    html = response.get_data(as_text=True)
    assert "javascript:" not in html.lower()
    for _, attributes, _ in page.elements:
        assert not any(name.startswith("on") for name in attributes)


# --------------------------------------------------------------------------- headers


def csp_directives(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


def assert_security_headers(response) -> None:
    csp = response.headers.get("Content-Security-Policy")
    assert csp, "no Content-Security-Policy"
    directives = csp_directives(csp)
    assert directives.get("script-src") == ["'self'"]
    assert directives.get("connect-src") == ["'self'"]
    assert directives.get("form-action") == ["'self'"]
    assert directives.get("frame-ancestors") == ["'none'"]
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
    assert response.headers.get("X-Content-Type-Options") == "nosniff"
    assert response.headers.get("Referrer-Policy") == "no-referrer"


def submission_body(question_ids: list[int]) -> str:
    return json.dumps(
        {"submission_id": str(uuid.uuid4()), "answers": {str(q): 0 for q in question_ids}}
    )


@pytest.mark.parametrize(
    ("method", "target", "expected_status"),
    [
        ("get", "page", 200),
        ("get", "closed-page", 410),
        ("get", "draft-page", 404),
        ("get", "unknown-page", 404),
        ("get", "definition", 200),
        ("get", "unknown-definition", 404),
        ("post", "submit", 201),
        ("post", "submit-bad", 400),
        ("post", "submit-closed", 409),
        ("post", "submit-unknown", 404),
    ],
)
def test_security_headers_everywhere(client, make_survey, method, target, expected_status):
    open_slug, open_ids = make_survey()
    closed_slug, closed_ids = make_survey(status="closed")
    draft_slug, _ = make_survey(status="draft")
    paths = {
        "page": f"/s/{open_slug}",
        "closed-page": f"/s/{closed_slug}",
        "draft-page": f"/s/{draft_slug}",
        "unknown-page": "/s/no-such-survey",
        "definition": f"/api/v1/surveys/{open_slug}",
        "unknown-definition": "/api/v1/surveys/no-such-survey",
        "submit": f"/api/v1/surveys/{open_slug}/responses",
        "submit-bad": f"/api/v1/surveys/{open_slug}/responses",
        "submit-closed": f"/api/v1/surveys/{closed_slug}/responses",
        "submit-unknown": "/api/v1/surveys/no-such-survey/responses",
    }
    if method == "get":
        response = client.get(paths[target])
    else:
        body = (
            "{"
            if target == "submit-bad"
            else submission_body(closed_ids if target == "submit-closed" else open_ids)
        )
        response = client.post(paths[target], data=body, content_type="application/json")
    assert response.status_code == expected_status
    assert_security_headers(response)


# --------------------------------------------------------------------------- status of a survey


def test_closed_survey_page_is_gone(client, make_survey):
    slug, _ = make_survey(HOSTILE_DEFINITION, status="closed")
    response, page = get_page(client, slug)
    assert response.status_code == 410
    assert response.mimetype == "text/html"
    assert "closed" in page.text().lower()
    assert "no longer takes answers" in page.text()
    assert page.text("h1") == HOSTILE_DEFINITION["title"]
    assert NASTY_TAG not in response.get_data(as_text=True)
    assert page.find("input") == []
    assert page.find("button") == []
    assert page.scripts == []


@pytest.mark.parametrize("target", ["draft", "unknown"])
def test_draft_and_unknown_survey_pages_are_not_found(client, make_survey, target):
    slug, _ = make_survey({**HOSTILE_DEFINITION, "title": "Secret draft title"}, status="draft")
    if target == "unknown":
        slug = new_slug()
    response, page = get_page(client, slug)
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert "Secret draft title" not in response.get_data(as_text=True)
    assert page.find("input") == []
    assert "nothing here" in page.text().lower()


# --------------------------------------------------------------------------- public definition


def test_public_definition_of_an_open_survey(client, make_survey):
    slug, (yes_no_id, choice_id) = make_survey()
    response = client.get(f"/api/v1/surveys/{slug}")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    definition = response.get_json()
    epsilon = privacy.epsilon_from_flip_probability(0.25)

    assert definition["survey"] == slug
    assert definition["status"] == "open"
    assert definition["flip_probability"] == 0.25
    assert definition["epsilon_per_question"] == pytest.approx(epsilon)
    assert definition["epsilon_per_question"] == pytest.approx(math.log(3))
    assert definition["epsilon_total"] == pytest.approx(privacy.total_epsilon([epsilon] * 2))
    assert definition["epsilon_total"] == pytest.approx(2 * math.log(3))
    yes_no, choice = definition["questions"]
    assert yes_no["id"] == yes_no_id
    assert yes_no["type"] == "yes_no"
    assert yes_no["text"] == "Have you ever copied homework?"
    assert yes_no["options"] == [{"value": 0, "label": "No"}, {"value": 1, "label": "Yes"}]
    assert yes_no["epsilon"] == pytest.approx(epsilon)
    assert choice["id"] == choice_id
    assert choice["type"] == "choice"
    assert choice["options"] == [
        {"value": 0, "label": "Never"},
        {"value": 1, "label": "Once"},
        {"value": 2, "label": "Often"},
    ]
    assert choice["epsilon"] == pytest.approx(epsilon)


def test_public_definition_of_a_closed_survey_says_closed(client, make_survey):
    slug, _ = make_survey(status="closed")
    response = client.get(f"/api/v1/surveys/{slug}")
    assert response.status_code == 200
    assert response.get_json()["status"] == "closed"


def test_public_definition_keeps_text_as_data(client, make_survey):
    slug, _ = make_survey(HOSTILE_DEFINITION)
    definition = client.get(f"/api/v1/surveys/{slug}").get_json()
    assert definition["title"] == HOSTILE_DEFINITION["title"]
    assert definition["questions"][1]["options"][0]["label"] == f"Option {NASTY_TAG}"


@pytest.mark.parametrize("target", ["draft", "unknown"])
def test_public_definition_of_draft_or_unknown_is_not_found(client, make_survey, target):
    slug, _ = make_survey({**HOSTILE_DEFINITION, "title": "Secret draft title"}, status="draft")
    if target == "unknown":
        slug = new_slug()
    response = client.get(f"/api/v1/surveys/{slug}")
    assert response.status_code == 404
    assert response.mimetype == "application/json"
    assert response.get_json()["error"]
    assert b"Secret draft title" not in response.data


# --------------------------------------------------------------------------- slugs


SLUG = re.compile(r"^[A-Za-z0-9_-]+$")


def decoded_bits(slug: str) -> int:
    return 8 * len(base64.urlsafe_b64decode(slug + "=" * (-len(slug) % 4)))


def test_survey_slugs_are_url_safe_and_unguessable(make_survey):
    slugs = [make_survey(status="draft")[0] for _ in range(5)]
    assert len(set(slugs)) == len(slugs)
    for slug in slugs:
        assert SLUG.match(slug), slug
        assert len(slug) >= 22
        assert decoded_bits(slug) >= 128


def test_new_slugs_all_differ_and_carry_128_bits():
    slugs = [new_slug() for _ in range(5000)]
    assert len(set(slugs)) == len(slugs)
    assert all(SLUG.match(slug) and decoded_bits(slug) >= 128 for slug in slugs)
    # Random, not a counter: the characters at each position vary.
    assert all(len({slug[i] for slug in slugs}) > 30 for i in range(22))


# --------------------------------------------------------------------------- what is stored

REIDENTIFYING = re.compile(r"(^|_)(ip|addr|address|remote|host|agent|ua|created|updated)(_|$)")


@pytest.mark.parametrize("table", ["submissions", "tallies"])
def test_no_reidentifying_columns(app, table):
    with app.app_context():
        columns = inspect(db.engine).get_columns(table)
    names = [column["name"] for column in columns]
    assert names
    for name in names:
        lowered = name.lower()
        assert not REIDENTIFYING.search(lowered), name
        for fragment in ("time", "agent", "address", "created_at", "ip_"):
            assert fragment not in lowered, name


def test_submissions_keep_a_day_and_a_random_key_only(app):
    with app.app_context():
        inspector = inspect(db.engine)
        columns = {column["name"]: column for column in inspector.get_columns("submissions")}
        primary_key = inspector.get_pk_constraint("submissions")["constrained_columns"]
    assert set(columns) == {"submission_id", "survey_id", "submitted_on", "answers"}
    submitted_on = columns["submitted_on"]["type"]
    assert isinstance(submitted_on, sa.Date)
    assert not isinstance(submitted_on, sa.DateTime)
    # No sequential id next to a response: the key is the browser's random UUID.
    assert primary_key == ["submission_id"]
    assert not isinstance(columns["submission_id"]["type"], sa.Integer)


def test_client_address_and_agent_are_not_stored(app, client, survey):
    slug, question_ids = survey
    address, agent = "203.0.113.77", "ReidentifyingBrowser/9.9"
    response = client.post(
        f"/api/v1/surveys/{slug}/responses",
        data=submission_body(question_ids),
        content_type="application/json",
        headers={"User-Agent": agent, "X-Forwarded-For": address},
        environ_base={"REMOTE_ADDR": address},
    )
    assert response.status_code == 201
    with app.app_context():
        dump = []
        for table in db.metadata.sorted_tables:
            for row in db.session.execute(sa.select(table)).all():
                dump.extend(str(value) for value in row)
        stored = "\n".join(dump)
    assert response.get_json()["submission_id"] in stored  # the dump does see submissions
    assert address not in stored
    assert "ReidentifyingBrowser" not in stored
    with app.app_context():
        submission_row = db.session.execute(sa.select(db.metadata.tables["submissions"])).one()
    # No time of day next to a response, in any form.
    assert not any(re.search(r"\d{1,2}:\d{2}", str(value)) for value in submission_row)
