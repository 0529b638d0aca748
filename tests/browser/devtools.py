"""Many DevTools protocol commands to the page a Selenium driver shows, in one round trip; and
commands to its browser (new windows in browser contexts of their own).

Selenium's ``execute_cdp_cmd`` is one http request to chromedriver per command, which waits for
the answer before the next is sent: forcing a state on each of a page's controls is then one
round trip per control. Chromium also accepts DevTools clients of its own on the page (the
"debuggerAddress" chromedriver reports): this opens one, sends every command of a batch at once,
and reads the answers back. Chromium runs a client's commands in the order they were sent.
What a client forces on the page (CSS.forcePseudoState) lasts until it lifts it or disconnects.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

import websocket


class DevToolsError(Exception):
    """A command the page refused, with DevTools' words (e.g. "Could not find node")."""


class DevToolsClient:
    """A DevTools client of a page or of the browser; ``run`` sends a batch of commands at once."""

    def __init__(self, connection: websocket.WebSocket) -> None:
        self.connection = connection
        self.next_id = 0

    def run(self, commands: list[tuple[str, dict]]) -> list[dict]:
        """Send every (method, params) at once; their results in order, or DevToolsError for
        the first command refused (after every answer has been read)."""
        first = self.next_id
        for offset, (method, params) in enumerate(commands):
            message = {"id": first + offset, "method": method, "params": params}
            self.connection.send(json.dumps(message))
        self.next_id += len(commands)
        answers: dict[int, dict] = {}
        while len(answers) < len(commands):
            message = json.loads(self.connection.recv())
            if message.get("id", -1) >= first:  # events (no id) are not asked for: skipped
                answers[message["id"]] = message
        ordered = [answers[first + offset] for offset in range(len(commands))]
        for (method, _), answer in zip(commands, ordered, strict=True):
            if "error" in answer:
                raise DevToolsError(f"{method}: {answer['error'].get('message')}")
        return [answer["result"] for answer in ordered]

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (as Runtime.evaluate returns it)."""
        return value_of(self.run([evaluation(expression)])[0])


def evaluation(expression: str, *, await_promise: bool = False) -> tuple[str, dict]:
    """A Runtime.evaluate command whose result comes back as a JSON value (with
    ``await_promise``, the value the expression's promise settles to)."""
    params = {"expression": expression, "returnByValue": True, "awaitPromise": await_promise}
    return ("Runtime.evaluate", params)


def value_of(result: dict):
    """The value of a Runtime.evaluate result; DevToolsError when the script threw."""
    if "exceptionDetails" in result:
        details = result["exceptionDetails"]
        raise DevToolsError(details.get("exception", {}).get("description") or details["text"])
    return result["result"].get("value")


def page_devtools(driver) -> AbstractContextManager[DevToolsClient]:
    """A DevTools client of the page ``driver`` shows, closed when the block ends."""
    address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
    return _client(f"ws://{address}/devtools/page/{driver.current_window_handle}")


def browser_devtools(driver) -> AbstractContextManager[DevToolsClient]:
    """A DevTools client of ``driver``'s browser (the Target domain), closed when the block
    ends. Browser contexts it makes outlive it."""
    address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
    with urllib.request.urlopen(f"http://{address}/json/version", timeout=60) as answer:
        return _client(json.load(answer)["webSocketDebuggerUrl"])


@contextmanager
def _client(url: str) -> Iterator[DevToolsClient]:
    connection = websocket.create_connection(url, timeout=60, suppress_origin=True)
    try:
        yield DevToolsClient(connection)
    finally:
        connection.close()
