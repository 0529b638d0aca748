"""What the respondent's device keeps and runs, in a real headless Chromium: browser storage
holds no true answer (before or after sending), and only scripts whose hash was published run.

Each test serves the app live on loopback (``live_app``: a fresh SQLite database); request
bodies come from Chromium's DevTools performance log. SECURITY.md rows: see
tests/browser/respondent_helpers.py.
"""

from __future__ import annotations

import json
import re
import shutil
import urllib.error
import urllib.parse
import urllib.request

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.browser.conftest import STATIC_DIR
from tests.browser.respondent_helpers import (
    YES,
    NetworkLog,
    answer,
    open_page,
    responses_path,
    saved_state,
    sent_values,
    stored_submissions,
    submit_and_wait,
    survey_url,
    wait,
)

pytestmark = pytest.mark.browser


def everything_the_page_stored(driver) -> dict:
    """localStorage and sessionStorage (key -> value), cookies, IndexedDB and Cache Storage
    names, as the page's origin sees them."""
    return driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const entries = (store) => Object.fromEntries(Object.keys(store).map((k) => [k, store[k]]));
        Promise.all([indexedDB.databases(), caches.keys()]).then(([databases, cacheNames]) => done({
          local: entries(localStorage),
          session: entries(sessionStorage),
          cookie: document.cookie,
          databases: databases.map((d) => d.name),
          caches: cacheNames,
        }));
        """
    )


def test_browser_storage_keeps_no_true_answer(driver, live_app, survey):
    slug, (yes_no, choice) = survey
    open_page(driver, live_app, slug)
    before = saved_state(driver, slug)
    # Until the send succeeds the table is kept: it covers every possible true answer, drawn
    # before any was chosen, so it cannot depend on (or reveal) the answers clicked since.
    assert set(before) == {"submissionId", "table", "submitted"}
    assert before["submitted"] is False
    assert set(before["table"]) == {str(yes_no), str(choice)}
    assert [len(before["table"][str(qid)]) for qid in (yes_no, choice)] == [2, 3]
    answer(driver, {yes_no: YES, choice: 2})
    assert saved_state(driver, slug) == before

    submit_and_wait(driver)

    stored = everything_the_page_stored(driver)
    # Besides "answered", only the device id the page names to the rate limit: random, and
    # nowhere on the server (tests/browser/test_respondent_answering_browser.py).
    device = stored["local"].pop(f"survey-app:device:{slug}")
    assert re.fullmatch(r"[0-9a-f]{32}", device)
    assert stored["local"] == {f"survey-app:{slug}": '{"submitted":true}'}
    assert stored["session"] == {} and stored["cookie"] == ""
    assert stored["databases"] == [] and stored["caches"] == []
    assert driver.get_cookies() == []
    # Nor are the true answers left in the page's controls.
    assert driver.execute_script("return document.querySelectorAll('input:checked').length;") == 0


@pytest.mark.parametrize("server_had", ["nothing", "the same answers", "other answers"])
def test_after_sending_the_device_keeps_nothing_that_decodes_the_answer(
    driver, live_app, survey, server_had
):
    """SECURITY.md "device": whoever holds the device and the export must not learn the true
    answer. The export holds the submission id and the values sent; the table held, for every
    answer not given, the value that would have been sent. Kept beside the id, the unsent
    entries say which answer was true whenever they differ from the sent one (at p = 1/4 a
    yes/no answer exactly, with probability (1 - p)^2 + p^2 = 0.625)."""
    slug, (yes_no, choice) = survey
    true_answers = {yes_no: YES, choice: 2}
    open_page(driver, live_app, slug)
    state = saved_state(driver, slug)
    sent = sent_values(state, true_answers)
    # The server may already hold this submission id: the same answers (the browser's first
    # send arrived but its reply was lost: 200) or other ones (409 "already used").
    if server_had != "nothing":
        answers = (
            sent
            if server_had == "the same answers"
            else {
                str(yes_no): 1 - sent[str(yes_no)],
                str(choice): sent[str(choice)],
            }
        )
        assert post_submission(live_app, slug, state["submissionId"], answers) == 201

    answer(driver, true_answers)
    submit_and_wait(driver, "already-answered" if server_had == "other answers" else "thank-you")

    stored = everything_the_page_stored(driver)
    kept = json.loads(stored["local"][f"survey-app:{slug}"])
    # Nothing per question is kept, so no randomized value of an answer not given is on the
    # device, and nothing (no id) joins the device to its row of the export.
    assert kept == {"submitted": True}, kept
    everything = json.dumps(stored)
    assert state["submissionId"] not in everything
    assert "table" not in everything
    # Reloading says "already answered" from that alone, and sends nothing.
    open_page(driver, live_app, slug)
    assert driver.find_element(By.ID, "already-answered").is_displayed()
    assert saved_state(driver, slug) == {"submitted": True}
    assert len(stored_submissions(live_app, slug)) == 1


def test_a_page_that_kept_a_table_after_sending_forgets_it(driver, live_app, survey):
    """A browser that answered before this fix still holds the whole table: the next visit
    drops it."""
    slug, _ = survey
    open_page(driver, live_app, slug)
    old = {**saved_state(driver, slug), "submitted": True}
    driver.execute_script(
        "localStorage.setItem(arguments[0], arguments[1]);", f"survey-app:{slug}", json.dumps(old)
    )
    open_page(driver, live_app, slug)
    assert driver.find_element(By.ID, "already-answered").is_displayed()
    assert saved_state(driver, slug) == {"submitted": True}


def post_submission(live_app, slug: str, submission_id: str, answers: dict[str, int]) -> int:
    """POST a submission to the live app as any API client could; the HTTP status."""
    request = urllib.request.Request(
        live_app.url(responses_path(slug)),
        data=json.dumps({"submission_id": submission_id, "answers": answers}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


# Records, from before the page's own scripts, every script or preload that fails to load (a
# failed integrity check included): element error events do not bubble, but they are seen on
# the way down.
RECORD_LOAD_ERRORS = """
window.__loadErrors = [];
document.addEventListener("error", (event) => {
  const element = event.target;
  if (element instanceof HTMLScriptElement || element instanceof HTMLLinkElement) {
    window.__loadErrors.push(element.src || element.href);
  }
}, true);
"""


# A mechanism that keeps every answer as it is: what a tampered copy might do.
HONEST_FLIP = "return randomWord() < flip ? 1 - bit : bit;"


@pytest.mark.parametrize("altered", ["js/randomized-response.js", "js/survey.js"])
def test_a_script_changed_after_its_hash_was_published_is_refused(
    make_chromium, live_app, survey, tmp_path, altered
):
    """Every script the page loads carries Subresource Integrity, the module survey.js imports
    included (through its modulepreload): a copy that differs from the one the page's hashes were
    computed from does not run, and the page says that nothing can be sent."""
    slug, (yes_no, choice) = survey
    static = tmp_path / "static"
    shutil.copytree(STATIC_DIR, static)
    live_app.app.static_folder = str(static)
    # The page is rendered (and the scripts hashed) once, with the files intact ...
    with live_app.app.test_client() as client:
        assert client.get(f"/s/{slug}").status_code == 200
    # ... and then a file changes under the running server.
    script = static / altered
    source = script.read_text(encoding="utf-8")
    if altered == "js/randomized-response.js":
        assert HONEST_FLIP in source
        script.write_text(source.replace(HONEST_FLIP, "return bit;"), encoding="utf-8")
    else:
        script.write_text(source + "\n// changed\n", encoding="utf-8")

    driver = make_chromium(performance_log=True)
    network = NetworkLog(driver)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_LOAD_ERRORS})
    driver.get(survey_url(live_app, slug))
    # survey.js fails: its own integrity, or that of the module it imports.
    wait(driver).until(
        lambda d: any(
            "/static/js/survey.js" in url for url in d.execute_script("return window.__loadErrors;")
        )
    )
    errors = driver.execute_script("return window.__loadErrors;")
    if altered == "js/randomized-response.js":
        assert any(url.endswith("/static/js/randomized-response.js") for url in errors), errors

    # The notice appears once the script has had its few seconds to start.
    notice = driver.find_element(By.ID, "script-not-started")
    wait(driver).until(lambda _: notice.is_displayed())
    assert "nothing can be sent" in notice.text
    button = driver.find_element(By.ID, "submit-survey")
    assert not button.is_enabled()
    answer(driver, {yes_no: YES, choice: 1})
    ActionChains(driver).move_to_element(button).click().perform()
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    driver.get(live_app.url("/static/css/app.css"))  # anything in flight has arrived by now

    assert stored_submissions(live_app, slug) == []
    posts = [r for r in network.requests() if r["method"] != "GET"]
    assert posts == []
    # The altered file was fetched once, for the preload or the script tag, and refused; no
    # fetch without an integrity check (the import's own, say) replaced it.
    fetched = [
        r["url"]
        for r in network.requests()
        if urllib.parse.urlsplit(r["url"]).path == f"/static/{altered}"
    ]
    assert len(fetched) == 1, fetched


def test_the_scripts_that_load_hide_the_notice(driver, live_app, survey):
    slug, _ = survey
    open_page(driver, live_app, slug)
    assert driver.find_elements(By.ID, "script-not-started") == []  # removed by survey.js
    assert driver.find_elements(By.ID, "javascript-required") == []  # in <noscript>: inert
    assert driver.find_element(By.ID, "submit-survey").is_enabled()
