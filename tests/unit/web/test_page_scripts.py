"""The page scripts (static/js/): a thin entry per page, wiring the page to small ES modules
whose logic runs here under Node; one live-update mechanism for the dashboard and the projector;
the error codes the submission API sends listed once (survey_app.web.errors) and each handled by
the respondent page (survey-replies.js)."""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

import pytest

from survey_app.web import errors
from survey_app.web.ratelimits import DEVICE_LIMITED
from tests.unit.node_scripts import STATIC_JS, js_module, run_node_script

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = ROOT / "templates"
PACKAGE = ROOT / "survey_app"

#: Each page's entry, and the page that loads it.
ENTRIES = {
    "survey.js": "respondents/survey.html",
    "builder.js": "builder/builder.html",
    "dashboard.js": "dashboard/dashboard.html",
    "code-slips.js": "classroom/code_slips.html",
    "projector.js": "classroom/present.html",
    "lesson.js": "lesson/lesson.html",
}
#: An entry wires its page: its logic is in modules (this many lines is ample for wiring).
MAX_ENTRY_LINES = 250
IMPORT = re.compile(r'^(?:import|export)\b[^;]*?\bfrom\s*"(\.\.?/[\w./-]+\.js)";', re.M | re.S)


def imports_of(name: str) -> list[str]:
    """The modules ``name`` (a path under static/js/) imports, as paths under static/js/."""
    source = (STATIC_JS / name).read_text(encoding="utf-8")
    folder = posixpath.dirname(name)
    return [posixpath.normpath(posixpath.join(folder, path)) for path in IMPORT.findall(source)]


# --------------------------------------------------------------------------- the entries


def test_each_page_loads_its_own_entry_and_only_that():
    loaded = {}
    for path in TEMPLATES.rglob("*.html"):
        for entry in re.findall(r"module_script\(['\"]js/([\w.-]+\.js)['\"]\)", path.read_text()):
            loaded.setdefault(entry, []).append(str(path.relative_to(TEMPLATES)))
    assert loaded == {entry: [page] for entry, page in ENTRIES.items()}
    assert "script_url(" not in "".join(p.read_text() for p in TEMPLATES.rglob("*.html"))


def test_entries_are_thin_and_every_other_module_is_imported_and_free_of_the_page():
    modules = {path.relative_to(STATIC_JS).as_posix() for path in STATIC_JS.rglob("*.js")}
    assert set(ENTRIES) <= modules
    imported = set()
    pending = list(ENTRIES)
    while pending:
        for name in imports_of(pending.pop()):
            if name not in imported:
                imported.add(name)
                pending.append(name)
    assert imported | set(ENTRIES) == modules  # no module is left unused
    assert not imported & set(ENTRIES)  # an entry starts its page: nothing imports it
    for entry in ENTRIES:
        source = (STATIC_JS / entry).read_text(encoding="utf-8")
        assert len(source.splitlines()) <= MAX_ENTRY_LINES, entry
        assert not re.search(r"^export\b", source, re.M), entry
    for name in imported:
        source = (STATIC_JS / name).read_text(encoding="utf-8")
        code = "\n".join(
            line for line in source.splitlines() if not line.lstrip().startswith(("//", "*"))
        )
        # Logic only: the page (document, window) is passed in, so Node can run it.
        assert not re.search(r"(?<![\w.])(document|window|localStorage)\s*\.", code), name


def test_every_module_an_entry_imports_loads_under_node(tmp_path):
    names = sorted({name for entry in ENTRIES for name in imports_of(entry)})
    lines = [f'import * as m{index} from "{js_module(name)}";' for index, name in enumerate(names)]
    exported = ", ".join(f"Object.keys(m{index})" for index in range(len(names)))
    lines.append(f"console.log(JSON.stringify([{exported}]));")
    loaded = run_node_script(tmp_path, "\n".join(lines))
    assert all(loaded)  # each module exports something


def test_a_page_preloads_every_module_its_entry_imports(signed_in):
    page = signed_in.get("/analyst/surveys/new").text
    for name in ("typed-numbers.js", "warner.js"):
        assert re.search(
            rf'<link rel="modulepreload" href="/static/js/{re.escape(name)}" '
            r'integrity="sha384-[A-Za-z0-9+/=]+">',
            page,
        ), name
    assert re.search(r'<script type="module" src="/static/js/builder\.js\?v=[0-9a-f]{12}"', page)


# --------------------------------------------------------------------------- the answer table

TABLE_CHECKS = """
import * as table from "%s";
const stored = new Map();
const storage = {
  getItem: (key) => (stored.has(key) ? stored.get(key) : null),
  setItem: (key, value) => stored.set(key, String(value)),
  removeItem: (key) => stored.delete(key),
};
const refusing = { getItem() { throw new Error("no"); }, setItem() { throw new Error("no"); },
                   removeItem() { throw new Error("no"); } };
const questions = [
  { id: "1", type: "yes_no", optionCount: 2 },
  { id: "2", type: "choice", optionCount: 4 },
];
const drawn = table.drawTable(questions, 0.25);
const fresh = table.stateToAnswerFrom(storage, "s", null, questions, 0.25);
const kept = table.loadState(storage, "s");
const again = table.stateToAnswerFrom(storage, "s", kept, questions, 0.25);
const ids = Array.from({ length: 200 }, () => table.randomUuid());
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
console.log(JSON.stringify({
  drawnFits: table.tableFits(drawn, questions),
  misfits: [
    table.tableFits(null, questions),
    table.tableFits({ 1: drawn["1"] }, questions),
    table.tableFits({ ...drawn, 2: [0, 1, 2] }, questions),
    table.tableFits({ ...drawn, 2: [0, 1, 2, 4] }, questions),
    table.tableFits({ ...drawn, 1: [0, 0.5] }, questions),
  ],
  freshSaved: JSON.stringify(kept) === JSON.stringify(fresh),
  keptAgain: again === kept,
  replaced: table.stateToAnswerFrom(
    storage, "s", { submissionId: 7, table: drawn }, questions, 0.25).submissionId !== 7,
  sent: table.randomizedAnswers(questions, { 1: 1, 2: 3 }, { 1: [1, 0], 2: [3, 2, 1, 0] }),
  forgotten: table.forgetTable(storage, "s"),
  left: stored.get("survey-app:s"),
  damaged: (stored.set("survey-app:d", "{oops"), table.loadState(storage, "d")),
  refused: [table.loadState(refusing, "s"), table.forgetTable(refusing, "s")],
  ids: [new Set(ids).size, ids.every((id) => UUID4.test(id))],
}));
"""


def test_the_answer_table_is_drawn_kept_checked_and_forgotten(tmp_path):
    result = run_node_script(tmp_path, TABLE_CHECKS % js_module("answer-table.js"))
    assert result["drawnFits"] is True
    assert result["misfits"] == [False] * 5
    assert result["freshSaved"] and result["keptAgain"] and result["replaced"]
    assert result["sent"] == {"1": 0, "2": 0}
    assert result["forgotten"] == {"submitted": True}
    assert json.loads(result["left"]) == {"submitted": True}  # the table itself is gone
    assert result["damaged"] is None
    assert result["refused"] == [None, {"submitted": True}]
    assert result["ids"] == [200, True]


DEVICE_CHECKS = """
import { deviceId } from "%s";
const stored = new Map();
const storage = {
  getItem: (key) => (stored.has(key) ? stored.get(key) : null),
  setItem: (key, value) => stored.set(key, String(value)),
};
const refusing = { getItem() { throw new Error("no"); }, setItem() { throw new Error("no"); } };
const first = deviceId(storage, "survey-a");
const again = deviceId(storage, "survey-a");  // a later page load of this browser
const kept = stored.get("survey-app:device:survey-a");
const otherSurvey = deviceId(storage, "survey-b");
stored.set("survey-app:device:survey-a", "not an id");
const replaced = deviceId(storage, "survey-a");
const withoutStorage = [
  deviceId(refusing, "survey-a"), deviceId(refusing, "survey-a"), deviceId(null, "survey-a"),
];
let words = 0;
const real = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
globalThis.crypto.getRandomValues = (array) => { words += array.length; return real(array); };
const counted = deviceId({ getItem: () => null, setItem() {} }, "survey-a");
console.log(JSON.stringify({
  first, again, kept, otherSurvey, replaced, withoutStorage, words, counted,
}));
"""


def test_the_device_id_is_drawn_once_a_survey_kept_and_drawn_per_page_without_storage(tmp_path):
    result = run_node_script(tmp_path, DEVICE_CHECKS % js_module("answer-table.js"))
    ids = [
        result["first"],
        result["otherSurvey"],
        result["replaced"],
        *result["withoutStorage"],
        result["counted"],
    ]
    assert all(re.fullmatch(r"[0-9a-f]{32}", device) for device in ids), ids
    # Kept: the same id on every page load of this browser.
    assert result["again"] == result["first"] == result["kept"]
    # Another survey's is another (nothing sent is the same from survey to survey); a damaged
    # one is drawn again; without storage, one each page load.
    assert len(set(ids)) == len(ids)
    # 128 bits, from crypto.getRandomValues.
    assert result["words"] == 16


# --------------------------------------------------------------------------- server replies


def submission_codes_sent() -> set[str]:
    """The codes survey_app.respondents.submissions gives (as SubmissionRejected(..., status,
    "code"))."""
    source = (PACKAGE / "respondents" / "submissions.py").read_text(encoding="utf-8")
    return set(re.findall(r'\b[1-5]\d\d,\s*"([a-z_]+)",?\s*\)', source)) | {"invalid"}


def test_every_code_the_api_sends_is_listed_once_in_errors():
    sent = set()
    for path in PACKAGE.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        sent |= set(re.findall(r'\b[1-5]\d\d,\s*"([a-z_]+)",?\s*\)', source))
        sent |= set(re.findall(r'\bcode="([a-z_]+)"', source))
    assert {"survey_not_closed", "results_held", "signed_out", "code_used"} <= sent
    assert sent <= errors.API_CODES
    assert submission_codes_sent() <= errors.SUBMISSION_CODES
    # Errors any request may meet on the submission's route, by their status.
    for status in (400, 404, 405, 413, 429, 500):
        assert errors.CODES[status] in errors.SUBMISSION_CODES


def reply_codes(tmp_path) -> dict[str, str]:
    return run_node_script(
        tmp_path,
        f'import {{ REPLY_CODES }} from "{js_module("survey-replies.js")}";\n'
        "console.log(JSON.stringify(REPLY_CODES));",
    )


def test_the_respondent_page_handles_every_code_the_submission_may_get(tmp_path):
    """Each code the submission may get is handled, or deliberately left to the generic words;
    and the page handles no code the server never sends."""
    handled = reply_codes(tmp_path)
    assert set(handled) == errors.SUBMISSION_CODES
    assert set(handled.values()) == {"answered", "code", "closed", "busy", "generic"}


REPLIES = [
    (201, {}, True, {"sent": True}),
    (200, {}, False, {"sent": True}),
    (409, {"code": "already_used"}, False, {"answered": True}),
    (403, {"code": "code_invalid"}, True, {"codeError": "That code is not right for this survey."}),
    (409, {"code": "code_used"}, True, {"codeError": "That code was already used"}),
    (403, {"code": "code_required", "error": "send it"}, False, {"message": "(send it)"}),
    (409, {"code": "survey_not_open"}, False, {"message": "not taking answers right now"}),
    (429, {"code": "rate_limited"}, False, {"message": "Many people are answering"}),
    # One device over its own limit: the same advice, in the page's words.
    (429, {"code": "rate_limited", "error": DEVICE_LIMITED}, False, {"message": "send again"}),
    (429, {}, False, {"message": "Many people are answering"}),  # a proxy's own page
    (502, {}, False, {"message": "(error 502). Please send again."}),
    (400, {"code": "invalid", "error": "bad"}, False, {"message": "recorded (bad)."}),
]


@pytest.mark.parametrize(("status", "reply", "has_code_field", "expected"), REPLIES)
def test_what_a_reply_means_for_the_page(tmp_path, status, reply, has_code_field, expected):
    outcome = run_node_script(
        tmp_path,
        f'import {{ replyOutcome }} from "{js_module("survey-replies.js")}";\n'
        f"console.log(JSON.stringify(replyOutcome({status}, {json.dumps(reply)}, "
        f"{json.dumps(has_code_field)})));",
    )
    assert set(outcome) == set(expected)
    for key, words in expected.items():
        assert words is True and outcome[key] is True or words in outcome[key]


def test_a_submission_without_a_reply_in_time_is_given_up_so_the_student_can_send_again(
    tmp_path,
):
    """A stalled connection (no reply at all, or a body cut off) rejects after the wait, as a
    failed one does (the page then says to send again); a reply in time gives its status and
    JSON, and a reply whose body is not JSON its status alone. What is sent: the body, the
    device, no cookies."""
    said = run_node_script(
        tmp_path,
        f'import {{ SEND_TIMEOUT_MS, sendSubmission }} from "{js_module("survey-replies.js")}";\n'
        "const sent = [];\n"
        "const stalled = (url, options) => new Promise((_, reject) => {\n"
        "  sent.push(options);\n"
        '  const aborted = () => reject(new DOMException("", "AbortError"));\n'
        '  options.signal.addEventListener("abort", aborted);\n'
        "});\n"
        "const answering = (json) => async (url, options) => {\n"
        "  sent.push(options);\n"
        "  return { status: 201, json };\n"
        "};\n"
        "const outcomes = [];\n"
        "const cutOff = (url, options) => {\n"
        "  sent.push(options);\n"
        "  const json = () => new Promise((_, reject) => options.signal.addEventListener(\n"
        '    "abort", () => reject(new DOMException("", "AbortError"))));\n'
        "  return Promise.resolve({ status: 409, json });\n"
        "};\n"
        'for (const fetch of [stalled, answering(async () => ({ status: "recorded" })),\n'
        "                     answering(async () => { throw new SyntaxError(); }), cutOff]) {\n"
        "  globalThis.fetch = fetch;\n"
        "  const started = Date.now();\n"
        "  try {\n"
        '    const reply = await sendSubmission("/r", { submission_id: "s" }, "d1", 200);\n'
        "    outcomes.push({ reply });\n"
        "  } catch (error) {\n"
        "    outcomes.push({ rejected: error.name, waited: Date.now() - started >= 190 });\n"
        "  }\n"
        "}\n"
        "const { method, headers, body, credentials } = sent[0];\n"
        "console.log(JSON.stringify({ outcomes, first: { method, headers, body, credentials },\n"
        "  timeout: SEND_TIMEOUT_MS }));",
    )
    assert said["outcomes"] == [
        {"rejected": "AbortError", "waited": True},
        {"reply": {"status": 201, "reply": {"status": "recorded"}}},
        {"reply": {"status": 201, "reply": {}}},
        # A reply whose body was cut off at the timeout says nothing sure (a 409 may be "this
        # code was used" or "closed"): given up as a reply that never came.
        {"rejected": "AbortError", "waited": True},
    ]
    assert said["first"] == {
        "method": "POST",
        "headers": {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Survey-Device": "d1",
        },
        "body": '{"submission_id":"s"}',
        "credentials": "omit",
    }
    assert said["timeout"] == 15000


def test_the_page_says_which_answers_are_missing_and_what_is_wrong_with_each(tmp_path):
    not_clear = "Write 1500 without a separator, or 1.5 with one decimal point or comma."
    no_number = "Type 7, the number alone (not “about 7”)."
    said = run_node_script(
        tmp_path,
        f'import {{ missingAnswersMessage as m }} from "{js_module("survey-replies.js")}";\n'
        f"const notClear = {json.dumps(not_clear)}, noNumber = {json.dumps(no_number)};\n"
        "console.log(JSON.stringify(["
        "m([{ number: 2, message: notClear }], [], false), m([], [1, 3], true),"
        "m([{ number: 1, message: noNumber }, { number: 4, message: notClear }], [2], false)]));",
    )
    assert said == [
        "Please check question 2: write 1500 without a separator, or 1.5 with one decimal point "
        "or comma.",
        "Please answer every question before sending (a number, like 12 or 2.5). "
        "Not answered yet: 1, 3.",
        # A number typed among words is no blank: the line says what is wrong with it.
        "Please check question 1: type 7, the number alone (not “about 7”). "
        "Please check question 4: write 1500 without a separator, or 1.5 with one decimal point "
        "or comma. Please answer every question before sending. Not answered yet: 2.",
    ]


def test_a_page_in_german_keeps_the_notes_capital_and_gives_no_english_reason(tmp_path, app):
    """German starts a whole sentence after a colon with its capital letter; and the server's
    reason, English for every program, is not put into a German sentence: the status is."""
    from survey_app.web.page_words import page_words

    with app.test_request_context(headers={"Accept-Language": "de"}):
        german = page_words()
    said = run_node_script(
        tmp_path,
        "import { missingAnswersMessage, replyOutcome } from "
        f'"{js_module("survey-replies.js")}";\n'
        'globalThis.document = { documentElement: { lang: "de" }, getElementById: () => null };\n'
        "console.log(JSON.stringify([missingAnswersMessage("
        '[{ number: 2, message: "Geben Sie 7 ein." }], [], false),'
        ' replyOutcome(400, { code: "invalid", error: "bad" }, false).message]));',
        words=german,
    )
    status = german["error_status"].replace("%(status)s", "400")
    assert said == [
        german["check_question"]
        .replace("%(number)s", "2")
        .replace("%(message)s", "Geben Sie 7 ein."),
        german["not_recorded"].replace("%(reason)s", status),
    ]
    assert "Bitte" in said[0] and "bad" not in said[1]


# --------------------------------------------------------------------------- live updates

LIVE_CHECKS = """
import { keepCurrent } from "%s";
const asked = [];
const shown = [];
const waits = [];
let hidden = false;
let visible = null;
let signedOut = 0;
const replies = [];
const surroundings = {
  fetch: async (url, options) => {
    asked.push({ url, headers: options.headers, cache: options.cache });
    const next = replies.shift();
    if (next instanceof Error) throw next;
    return { status: next.status, ok: next.status >= 200 && next.status < 300,
             headers: { get: (name) => (name === "ETag" ? next.etag ?? null : null) },
             text: async () => next.body };
  },
  wait: (milliseconds, then) => waits.push(milliseconds),
  hidden: () => hidden,
  whenVisible: (then) => { visible = then; },
};
const live = keepCurrent({
  url: "/panel", seconds: 3, accept: "text/html", surroundings,
  show: async (response) => shown.push(await response.text()),
  signedOut: () => { signedOut += 1; },
});
replies.push({ status: 200, etag: '"a"', body: "first" });
await live.poll();
replies.push({ status: 304 });
await live.poll();
replies.push(new Error("offline"));
await live.poll();
replies.push({ status: 200, etag: '"b"', body: "second" });
await live.poll();
replies.push({ status: 500 });
await live.poll();
replies.push({ status: 401 });
await live.poll();
hidden = true;
await live.poll();
const askedWhileHidden = asked.length;
hidden = false;
replies.push({ status: 304 });
await visible();
console.log(JSON.stringify({ asked, shown, waits, signedOut, askedWhileHidden }));
"""


def test_one_live_update_mechanism_asks_with_the_etag_shown_and_hands_on_changes(tmp_path):
    result = run_node_script(tmp_path, LIVE_CHECKS % js_module("live-updates.js"))
    sent = [ask["headers"].get("If-None-Match") for ask in result["asked"]]
    # Nothing shown yet, then the ETag of the last answer shown (a 304, a failure, a 500 or a
    # 401 leave it as it was).
    assert sent == [None, '"a"', '"a"', '"a"', '"b"', '"b"', '"b"']
    assert all(ask["url"] == "/panel" and ask["cache"] == "no-store" for ask in result["asked"])
    assert all(ask["headers"]["Accept"] == "text/html" for ask in result["asked"])
    assert result["shown"] == ["first", "second"]
    assert result["signedOut"] == 1
    assert result["askedWhileHidden"] == 6  # a hidden page asks nothing
    assert result["waits"] == [3000]  # the first tick; each next waits for the one before


def test_the_dashboard_panel_answers_304_while_unchanged(signed_in, make_survey):
    slug, _ = make_survey(status="open")
    first = signed_in.get(f"/analyst/surveys/{slug}/results-panel")
    assert first.status_code == 200 and first.headers["ETag"]
    again = signed_in.get(
        f"/analyst/surveys/{slug}/results-panel", headers={"If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304 and again.get_data() == b""
    other = signed_in.get(
        f"/analyst/surveys/{slug}/results-panel?confidence=0.99",
        headers={"If-None-Match": first.headers["ETag"]},
    )
    assert other.status_code == 200  # what it shows changed: a new ETag
    assert other.headers["ETag"] != first.headers["ETag"]
    page = signed_in.get(f"/analyst/surveys/{slug}").text
    seconds = re.search(r'data-refresh-seconds="(\d+)"', page).group(1)
    assert f"updates itself every {seconds} seconds" in page
