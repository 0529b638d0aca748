"""The tool inside a course's page, in a real browser: a course page on another site (the
platform's, served on 127.0.0.2, a different site from the tool's 127.0.0.1) frames the tool's
login; the platform's authorization page posts the launch back inside the frame, which lands on
the survey page, and a learner answers there, third-party cookies blocked. Over HTTPS (a
certificate made here, its errors ignored by this browser alone) the login's state cookie
(SameSite=None; Secure; Partitioned) crosses to the launch; over plain HTTP no cookie does, and
the learner's launch is accepted bound to its login alone. A linked instructor adds a survey to
the course inside the frame (deep linking: the choice needs no session cookie, which never
reaches a cross-site frame), and the platform verifies the signed answer. A survey page not
reached from a launch refuses to be framed."""

from __future__ import annotations

import datetime as dt
import html
import ipaddress
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from sqlalchemy import select

from survey_app.accounts.services import find_analyst
from survey_app.extensions import db
from survey_app.lti import launches
from survey_app.lti.instructor_links import link_instructor, sub_digest
from survey_app.lti.platforms import add_platform
from survey_app.storage.lti_models import LtiPlatform
from tests.browser.respondent_helpers import (
    YES,
    answer,
    stored_submissions,
    submit_and_wait,
    wait,
)
from tests.lti_platform import CLAIM, CLIENT_ID, DEPLOYMENT_ID, INSTRUCTOR, Platform

pytestmark = pytest.mark.browser

COURSE_HOST = "127.0.0.2"
LOGIN_HINT = "opaque-login-hint-7"
#: The instructor's login hint (the course's "add content" link) and platform user id.
INSTRUCTOR_HINT = "opaque-login-hint-9"
INSTRUCTOR_SUB = "canvas-teacher-3d1"
CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"


def self_signed(directory) -> ssl.SSLContext:
    """A server context with a certificate for 127.0.0.1 made now (for this test alone)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "tool.crt", directory / "tool.key"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return context


@pytest.fixture(params=["https"])
def tool(request, app, tmp_path) -> Iterator[str]:
    """The app served over HTTPS (or, when a test asks, plain HTTP) on 127.0.0.1; its base URL."""
    from werkzeug.serving import make_server

    secure = request.param == "https"
    context = self_signed(tmp_path) if secure else None
    server = make_server("127.0.0.1", 0, app, threaded=True, ssl_context=context)
    thread = threading.Thread(target=server.serve_forever, name="tool", daemon=True)
    thread.start()
    try:
        yield f"{request.param}://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class Course:
    """The platform's pages on 127.0.0.2: a course page framing the tool, and the
    authorization endpoint that checks the tool's login redirect and posts the launch back."""

    def __init__(self, platform: Platform, tool: str, slug: str) -> None:
        course = self
        self.platform, self.tool, self.slug = platform, tool, slug

        class Pages(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                body = course.page(self.path)
                if body is None:
                    self.send_error(404)
                    return
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):  # quiet
                pass

        self.server = ThreadingHTTPServer((COURSE_HOST, 0), Pages)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://{COURSE_HOST}:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def page(self, path: str) -> str | None:
        if path in ("/course", "/course-add"):
            # The learners' link to the survey, or the instructor's "add content" (deep linking).
            hint = LOGIN_HINT if path == "/course" else INSTRUCTOR_HINT
            login = (
                self.tool
                + "/lti/login?"
                + urlencode(
                    {
                        "iss": self.platform.issuer,
                        "login_hint": hint,
                        "target_link_uri": self.tool + "/lti/launch",
                        "client_id": CLIENT_ID,
                        "lti_deployment_id": DEPLOYMENT_ID,
                    }
                )
            )
            return (
                "<!doctype html><title>Ethics 101</title><h1>Ethics 101</h1>"
                f'<iframe id="launched" width="800" height="900" src="{html.escape(login)}">'
                "</iframe>"
            )
        if path == "/course-unlaunched":
            survey = html.escape(f"{self.tool}/s/{self.slug}")
            return f'<!doctype html><title>x</title><iframe id="plain" src="{survey}"></iframe>'
        if path.startswith("/auth?"):
            (hint,) = parse_qs(urlsplit(path).query)["login_hint"]
            query = self.platform.authorize(self.base + path, self.tool + "/lti/launch", hint)
            if hint == INSTRUCTOR_HINT:
                token = self.platform.deep_linking_request(
                    query["nonce"], [INSTRUCTOR], claims={"sub": INSTRUCTOR_SUB}
                )
            else:
                token = self.platform.id_token(
                    query["nonce"], claims={CLAIM + "custom": {"survey": self.slug}}
                )
            fields = {"id_token": token, "state": query["state"]}
            inputs = "".join(
                f'<input type="hidden" name="{name}" value="{html.escape(value)}">'
                for name, value in fields.items()
            )
            action = html.escape(query["redirect_uri"])
            return (
                f'<!doctype html><form method="post" action="{action}">{inputs}</form>'
                "<script>document.forms[0].submit()</script>"
            )
        return None


@pytest.fixture
def course(app, tool, make_survey, tmp_path) -> Iterator[tuple[Course, list[int]]]:
    slug, questions = make_survey()
    platform = Platform()
    running = Course(platform, tool, slug)
    platform.auth_url = running.base + "/auth"
    # Its deep linking return fetches the tool's key set, trusting the test's certificate.
    platform.tool_base = tool
    if tool.startswith("https:"):
        platform.tool_tls = ssl.create_default_context(cafile=str(tmp_path / "tool.crt"))
    with app.app_context():
        add_platform(platform.issuer, CLIENT_ID, [DEPLOYMENT_ID], platform.urls)
        db.session.commit()
    try:
        yield running, questions
    finally:
        running.stop()
        platform.stop()


@pytest.fixture
def trusting_driver(chromium):
    """The session's Chromium, ignoring the test certificate's errors until the test ends."""
    chromium.get("about:blank")
    chromium.execute_cdp_cmd("Network.clearBrowserCookies", {})
    chromium.execute_cdp_cmd("Security.setIgnoreCertificateErrors", {"ignore": True})
    yield chromium
    chromium.switch_to.default_content()
    chromium.get("about:blank")
    chromium.execute_cdp_cmd("Security.setIgnoreCertificateErrors", {"ignore": False})
    chromium.execute_cdp_cmd(
        "Network.setCookieControls", {"enableThirdPartyCookieRestriction": False}
    )


@pytest.mark.parametrize(
    ("tool", "bound_to_browser"), [("https", True), ("http", False)], indirect=["tool"]
)
def test_a_course_page_on_another_site_frames_the_launch_and_a_learner_answers(
    trusting_driver, course, monkeypatch, app, bound_to_browser
):
    """Third-party cookies blocked, as Chrome's setting does. Over HTTPS the state cookie is
    Partitioned, so the frame that set it (under the course's site) carries it to the launch;
    over plain HTTP it is a Lax cookie, which no cross-site frame's post carries, as a browser
    that drops every third-party cookie (Safari) would: the learner's launch is accepted
    without it, bound to its login alone."""
    driver = trusting_driver
    driver.execute_cdp_cmd("Network.setCookieControls", {"enableThirdPartyCookieRestriction": True})
    running, (yes_no, choice) = course
    bound = []
    verify = launches.verify_launch

    def recording(form, cookie_state):
        accepted = verify(form, cookie_state)
        bound.append(accepted.bound_to_browser)
        return accepted

    monkeypatch.setattr(launches, "verify_launch", recording)
    driver.get(running.base + "/course")
    frame = driver.find_element(By.ID, "launched")
    driver.switch_to.frame(frame)
    wait(driver, 30).until(
        lambda d: d.execute_script(
            "const b = document.getElementById('submit-survey'); return b && !b.disabled;"
        )
    )
    assert driver.execute_script("return location.pathname + location.search") == (
        f"/s/{running.slug}?launched=1"
    )
    assert bound == [bound_to_browser]
    answer(driver, {yes_no: YES, choice: 2})
    submit_and_wait(driver)
    assert len(stored_submissions(SimpleNamespace(app=app), running.slug)) == 1


def test_a_survey_page_not_reached_from_a_launch_refuses_the_course_frame(trusting_driver, course):
    driver = trusting_driver
    running, _ = course
    driver.get(running.base + "/course-unlaunched")
    wait(driver).until(EC.presence_of_element_located((By.ID, "plain")))
    driver.switch_to.frame(driver.find_element(By.ID, "plain"))
    # Chromium shows its error page in place of a page that refuses the frame.
    wait(driver).until(lambda d: d.execute_script("return document.readyState") == "complete")
    assert driver.execute_script("return location.href").startswith("chrome-error://")
    assert driver.find_elements(By.ID, "submit-survey") == []


def test_a_linked_instructor_adds_a_survey_inside_the_course_frame(
    trusting_driver, course, app, analyst
):
    """Over HTTPS, third-party cookies blocked: the launch is bound to the browser by its
    Partitioned state cookie and signs the linked instructor in; the session cookie it sets
    (SameSite=Lax) never comes back to the cross-site frame, so the choice acts for the account
    its ticket names and takes its post with no CSRF token; its signed answer goes back to the
    platform from inside the frame, and the platform verifies it with the tool's key set."""
    driver = trusting_driver
    driver.execute_cdp_cmd("Network.setCookieControls", {"enableThirdPartyCookieRestriction": True})
    running, _ = course
    with app.app_context():
        issuer = running.platform.issuer
        platform_id = db.session.execute(select(LtiPlatform.id)).scalar_one()
        digest = sub_digest(app.secret_key, issuer, INSTRUCTOR_SUB)
        link_instructor(platform_id, digest, find_analyst(analyst))
        db.session.commit()
    driver.get(running.base + "/course-add")
    driver.switch_to.frame(driver.find_element(By.ID, "launched"))
    wait(driver, 30).until(EC.presence_of_element_located((By.ID, "choose-survey")))
    chosen = driver.find_element(By.CSS_SELECTOR, "#choose-survey input[name=survey]:checked")
    assert chosen.get_attribute("value") == running.slug
    driver.find_element(By.CSS_SELECTOR, "#choose-survey button[type=submit]").click()
    wait(driver).until(EC.presence_of_element_located((By.ID, "return-to-course")))
    driver.find_element(By.CSS_SELECTOR, "#return-to-course button").click()
    wait(driver).until(EC.presence_of_element_located((By.ID, "added")))
    (claims,) = running.platform.deep_links  # verified against the tool's key set
    (item,) = claims[CONTENT_ITEMS]
    assert item["custom"] == {"survey": running.slug}
