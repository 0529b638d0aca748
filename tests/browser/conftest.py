"""Fixtures for tests that drive a real headless Chromium through Selenium.

- ``static_server``: the repository's static/ directory over http on 127.0.0.1 (an ephemeral
  port), with .js served as text/javascript, plus small in-memory pages a test can add.
- ``chromium``: one shared headless Chromium for the session (JavaScript on).
- ``make_chromium``: a factory for a Chromium of the test's own, as fresh as a new profile
  (a new window in a browser context of its own, from a pool kept for the session), with other
  options if asked (``javascript_enabled=False``; ``performance_log=True`` to read request
  bodies from the DevTools "performance" log: a new Chromium, quit when the test ends).

Chromium and chromedriver are Debian's. Selenium is given both paths, because its own driver
download cannot work here. If either is missing the fixtures fail: browser tests never skip.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.timeouts import Timeouts

from tests.browser.devtools import browser_devtools

CHROMIUM_BINARY = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
STATIC_DIR = Path(__file__).resolve().parents[2] / "static"

CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# --------------------------------------------------------------------------- http server


@dataclass
class StaticServer:
    """A running http server for static/; ``pages`` maps extra paths to HTML served as is."""

    base_url: str
    pages: dict[str, str] = field(default_factory=dict)

    def url(self, path: str) -> str:
        """Absolute URL of a path on this server, e.g. ``url("/js/randomized-response.js")``."""
        return self.base_url + path

    def add_page(self, path: str, html: str) -> str:
        """Serve ``html`` at ``path`` (which must start with "/") and return its URL."""
        self.pages[path] = html
        return self.url(path)


class _StaticHandler(SimpleHTTPRequestHandler):
    # ES modules are refused unless served with a JavaScript MIME type; the platform's
    # mimetypes table may say application/javascript or nothing, so pin it.
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".css": "text/css",
        ".html": "text/html",
    }

    def __init__(self, *args, pages: dict[str, str], **kwargs) -> None:
        self.pages = pages
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:
        html = self.pages.get(self.path.split("?", 1)[0])
        if html is None:
            super().do_GET()
            return
        body = html.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def end_headers(self) -> None:
        # Every test sees the files as they are on disk now.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Keep the test output quiet."""


@pytest.fixture(scope="session")
def static_server() -> Iterator[StaticServer]:
    """The repository's static/ directory served at http://127.0.0.1:<ephemeral port>/."""
    pages: dict[str, str] = {}
    handler = functools.partial(_StaticHandler, directory=str(STATIC_DIR), pages=pages)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="static-server", daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield StaticServer(base_url=f"http://{host}:{port}", pages=pages)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# --------------------------------------------------------------------------- chromium


def start_chromium(
    user_data_dir: Path, *, javascript_enabled: bool = True, performance_log: bool = False
) -> webdriver.Chrome:
    """Start headless Chromium with a fresh profile in ``user_data_dir``.

    Fails the test (never skips) when Chromium or chromedriver is missing or will not start.
    """
    missing = [path for path in (CHROMIUM_BINARY, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if missing:
        pytest.fail(
            f"browser tests need Chromium and chromedriver; missing: {', '.join(missing)} "
            "(Debian: apt-get install chromium chromium-driver)",
            pytrace=False,
        )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM_BINARY
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={user_data_dir}")
    if not javascript_enabled:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2}
        )
    if performance_log:
        # Lets a test read DevTools Network events, e.g. a request's postData, with
        # driver.get_log("performance").
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    try:
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    except Exception as error:  # any start-up failure is a failed test, never a skip
        pytest.fail(f"headless Chromium did not start: {error}", pytrace=False)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(60)
    return driver


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    """One headless Chromium shared by the session; tests navigate it to a fresh page."""
    driver = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield driver
    finally:
        driver.quit()


class ChromiumPool:
    """Chromiums kept for the session, by whether JavaScript runs; a test is given one showing
    a new window in a browser context of its own (as an incognito window is): no cookies,
    storage, cache, or DevTools settings of an earlier test's window, as in a new profile,
    without starting a Chromium (seconds on a busy machine)."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self.tmp_path_factory = tmp_path_factory
        self.idle: dict[bool, list[webdriver.Chrome]] = {True: [], False: []}
        self.started: list[webdriver.Chrome] = []
        self.window_size: dict[str, int] = {}

    def take(self, javascript_enabled: bool) -> webdriver.Chrome:
        idle = self.idle[javascript_enabled]
        if idle:
            driver = idle.pop()
        else:
            profile = self.tmp_path_factory.mktemp("chromium-profile")
            driver = start_chromium(profile, javascript_enabled=javascript_enabled)
            self.started.append(driver)
            self.window_size = self.window_size or driver.get_window_size()
        open_private_window(driver, self.window_size)
        driver.timeouts = Timeouts(implicit_wait=0, page_load=30, script=60)  # start_chromium's
        return driver

    def give_back(self, driver: webdriver.Chrome, javascript_enabled: bool) -> None:
        try:
            driver.get("about:blank")  # the test's page stops: its timers, its requests
        except WebDriverException:  # a window the test broke: that Chromium is not kept
            self.started.remove(driver)
            driver.quit()
            return
        self.idle[javascript_enabled].append(driver)

    def quit_all(self) -> None:
        for driver in self.started:
            driver.quit()


def open_private_window(driver: webdriver.Chrome, size: dict[str, int]) -> None:
    """Show ``driver`` a new window of ``size`` in a new browser context; close its other
    windows, and the browser contexts they were in."""
    with browser_devtools(driver) as browser:
        (made,) = browser.run([("Target.createBrowserContext", {})])
        context = made["browserContextId"]
        (window,) = browser.run(
            [
                (
                    "Target.createTarget",
                    {
                        "url": "about:blank",
                        "browserContextId": context,
                        "newWindow": True,
                        **size,
                    },
                )
            ]
        )
        driver.switch_to.window(window["targetId"])
        targets, contexts = browser.run(
            [("Target.getTargets", {}), ("Target.getBrowserContexts", {})]
        )
        default = contexts["defaultBrowserContextId"]
        browser.run(
            [
                *(
                    ("Target.closeTarget", {"targetId": target["targetId"]})
                    for target in targets["targetInfos"]
                    if target["type"] == "page" and target.get("browserContextId") == default
                ),
                *(
                    ("Target.disposeBrowserContext", {"browserContextId": other})
                    for other in contexts["browserContextIds"]
                    if other != context
                ),
            ]
        )


@pytest.fixture(scope="session")
def chromium_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromiumPool]:
    pool = ChromiumPool(tmp_path_factory)
    try:
        yield pool
    finally:
        pool.quit_all()


@pytest.fixture
def make_chromium(
    tmp_path_factory: pytest.TempPathFactory, chromium_pool: ChromiumPool
) -> Iterator[Callable[..., webdriver.Chrome]]:
    """Factory for a Chromium of its own: ``make_chromium(javascript_enabled=True,
    performance_log=False)``. Without the performance log it comes from the session's pool
    (ChromiumPool: a new window in a browser context of its own) and goes back to it when the
    test ends; with it, it is a new Chromium, quit when the test ends (its log is the
    session's)."""
    pooled: list[tuple[webdriver.Chrome, bool]] = []
    started: list[webdriver.Chrome] = []

    def make(*, javascript_enabled: bool = True, performance_log: bool = False) -> webdriver.Chrome:
        if not performance_log:
            driver = chromium_pool.take(javascript_enabled)
            pooled.append((driver, javascript_enabled))
            return driver
        driver = start_chromium(
            tmp_path_factory.mktemp("chromium-profile"),
            javascript_enabled=javascript_enabled,
            performance_log=performance_log,
        )
        started.append(driver)
        return driver

    try:
        yield make
    finally:
        for driver in started:
            driver.quit()
        for driver, javascript_enabled in pooled:
            chromium_pool.give_back(driver, javascript_enabled)


# --------------------------------------------------------------------------- seeded words


def seeded_words(seed: int) -> str:
    """JavaScript that replaces the page's ``crypto.getRandomValues`` with a seeded generator.

    The statistical checks of the browser's mechanism run on these words so that they are
    repeatable: the page's real generator cannot be seeded. The generator is mulberry32, a
    32-bit generator whose words are uniform enough for checks at this scale (hundreds of
    thousands of draws against 5-SD bounds). That the mechanism draws from
    ``crypto.getRandomValues``, and only from it, is checked apart, with stubbed words.
    """
    return f"""
(() => {{
  let state = {seed & 0xFFFFFFFF} >>> 0;
  crypto.getRandomValues = (array) => {{
    for (let i = 0; i < array.length; i++) {{
      state = (state + 0x6D2B79F5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      array[i] = (t ^ (t >>> 14)) >>> 0;
    }}
    return array;
  }};
}})();
"""


# --------------------------------------------------------------------------- the app, live


@dataclass
class LiveApp:
    """The app (on the test's fresh database) served over http on 127.0.0.1."""

    app: object
    base_url: str

    def url(self, path: str) -> str:
        return self.base_url + path


@pytest.fixture
def live_app(app) -> Iterator[LiveApp]:
    """Serve the ``app`` fixture (fresh database, rate limits off) on an ephemeral port."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-app", daemon=True)
    thread.start()
    try:
        yield LiveApp(app=app, base_url=f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def driver(chromium, live_app):
    """The session's Chromium with nothing kept for this test's origin (no cookies, no storage),
    as a fresh profile would be; the window size it had is restored afterwards."""
    chromium.get("about:blank")
    chromium.execute_cdp_cmd("Network.clearBrowserCookies", {})
    chromium.execute_cdp_cmd(
        "Storage.clearDataForOrigin", {"origin": live_app.base_url, "storageTypes": "all"}
    )
    size = chromium.get_window_size()
    yield chromium
    chromium.get("about:blank")
    chromium.set_window_size(size["width"], size["height"])


@pytest.fixture
def before_page_scripts(driver):
    """``add(source)``: run ``source`` in every page ``driver`` opens, before the page's own
    scripts; removed when the test ends, so the shared Chromium is left as it was."""
    identifiers: list[str] = []

    def add(source: str) -> None:
        added = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})
        identifiers.append(added["identifier"])

    yield add
    for identifier in identifiers:
        driver.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": identifier}
        )
