"""The Chromium pool behind ``make_chromium`` (tests/browser/conftest.py): a Chromium given to a
test again shows nothing an earlier test left in it, as a Chromium of a new profile would not."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

LEAVE_TRACES = """
document.cookie = "left=behind; max-age=3600";
localStorage.setItem("left", "behind");
sessionStorage.setItem("left", "behind");
"""

TRACES = """
return {
  cookie: document.cookie,
  local: localStorage.getItem("left"),
  session: sessionStorage.getItem("left"),
  dark: matchMedia("(prefers-color-scheme: dark)").matches,
  history: history.length,
};
"""


# make_chromium puts the test in the browser tests' worker group (tests/conftest.py): one at a time.
@pytest.mark.usefixtures("make_chromium")
def test_a_chromium_given_again_has_nothing_of_the_test_before(chromium_pool, static_server):
    page = static_server.add_page("/pool.html", "<!doctype html><title>Pool</title><p>Pool</p>")
    first = chromium_pool.take(javascript_enabled=True)
    size = first.get_window_size()
    first.get(page)
    first.execute_script(LEAVE_TRACES)
    first.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
    )
    first.set_window_size(360, 640)
    first.set_script_timeout(1)
    first.get(page + "?again")  # a second page in its history
    assert first.execute_script(TRACES) == {
        "cookie": "left=behind",
        "local": "behind",
        "session": "behind",
        "dark": True,
        "history": 3,
    }
    chromium_pool.give_back(first, javascript_enabled=True)

    again = chromium_pool.take(javascript_enabled=True)
    assert again is first  # the same Chromium, given again
    assert again.get_window_size() == size
    assert again.timeouts.script == 60
    again.get(page)
    assert again.execute_script(TRACES) == {
        "cookie": "",
        "local": None,
        "session": None,
        "dark": False,
        "history": 2,
    }
    assert len(again.window_handles) == 1
    chromium_pool.give_back(again, javascript_enabled=True)
