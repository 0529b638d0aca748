"""The app as its users run it: a database with its environment, and gunicorn in a subprocess.

Shared by the benchmark and the load tests (tests/load/loadkit.py), so that both drive exactly
the same deployment: the real command line (``survey-app init-db``, ``serve`` ...) run from this
source tree, on a free loopback port, its output in a log file.

- :class:`Deployment`: a database URL, a folder, a secret key, and the environment every
  command and server of it runs with (rate limits off unless a test turns them on).
- :class:`Server`: ``survey-app serve`` (or any gunicorn command) in its own process group,
  with bounded waits for it to answer and for its workers to boot, requests on new
  connections, and a stop that escalates to SIGKILL after a bound.

Every wait and every request here is bounded; nothing here asserts on speed.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

#: The loopback address every server binds and every client calls.
HOST = "127.0.0.1"
#: The source tree under test (its survey_app and benchmarks packages).
SOURCE_ROOT = Path(__file__).resolve().parents[1]
#: How the harness starts the real command line, as a user would (``survey-app ...``).
CLI = [sys.executable, "-c", "from survey_app.cli import main; main()"]

#: Bounds (seconds). They stop a hung run; none of them is a claim about speed.
CLI_TIMEOUT = 300
START_TIMEOUT = 120
STOP_TIMEOUT = 30
REQUEST_TIMEOUT = 60


class HarnessError(RuntimeError):
    """A command or a server did not do what it must; the message says what, with its log."""


_ports_given: set[int] = set()


def free_port() -> int:
    """A free loopback port, never one already given out (servers are made before they bind)."""
    while True:
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            port = probe.getsockname()[1]
        if port not in _ports_given:
            _ports_given.add(port)
            return port


def child_pids(parent: int) -> set[int]:
    """Live processes whose parent is ``parent``, read from /proc (gunicorn's workers)."""
    children = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            content = stat.read_text()
        except OSError:
            continue  # gone meanwhile
        # The command name is in parentheses and may hold spaces: split after it.
        fields = content.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and int(fields[1]) == parent and fields[0] != "Z":
            children.add(int(stat.parent.name))
    return children


def peak_rss_mib(pid: int) -> float:
    """The process's peak resident set size (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise HarnessError(f"no VmHWM in /proc/{pid}/status")


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the duration of a block."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


# --------------------------------------------------------------------------- a deployment


@dataclass
class Deployment:
    """One database with the app's schema, and the environment its commands and servers share.

    Each deployment has its own secret key and instance folder. Variables of the caller's
    environment that configure the app (``SURVEY_APP_*``, ``FLASK_*``) are not inherited.
    """

    database_url: str
    directory: Path
    secret_key: str = field(default_factory=lambda: secrets.token_urlsafe(48))

    @property
    def instance_path(self) -> Path:
        return self.directory / "instance"

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("SURVEY_APP_", "FLASK_"))
        }
        # The commands and servers import this source tree, not whatever copy is installed.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SOURCE_ROOT), env.get("PYTHONPATH")]))
        return env | {
            "SURVEY_APP_DATABASE_URL": self.database_url,
            "SURVEY_APP_SECRET_KEY": self.secret_key,
            "SURVEY_APP_INSTANCE_PATH": str(self.instance_path),
            "SURVEY_APP_RATELIMIT_ENABLED": "false",
            "PYTHONUNBUFFERED": "1",
        }

    def cli(self, *arguments: str, stdin: str | None = None) -> str:
        """Run a ``survey-app`` command against this database; its standard output."""
        self.directory.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [*CLI, *arguments],
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT,
            cwd=self.directory,
        )
        if done.returncode != 0:
            raise HarnessError(
                f"survey-app {' '.join(arguments)} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-2000:]}"
            )
        return done.stdout

    def create_app(self):
        """The app in this process (fixtures, seeding, profiles), on this database."""
        from survey_app import create_app

        self.instance_path.mkdir(parents=True, exist_ok=True)
        with environment({"SURVEY_APP_INSTANCE_PATH": str(self.instance_path)}):
            return create_app(
                {
                    "SECRET_KEY": self.secret_key,
                    "SQLALCHEMY_DATABASE_URI": self.database_url,
                    "RATELIMIT_ENABLED": False,
                }
            )


# --------------------------------------------------------------------------- a server


@dataclass
class Fetched:
    status: int
    headers: http.client.HTTPMessage
    body: bytes
    #: The size of the status line and headers as sent (for page weights).
    header_bytes: int

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "")


def header_size(status: int, reason: str, headers: Iterable[tuple[str, str]]) -> int:
    """Bytes of an HTTP/1.1 response's status line and headers, with the blank line after."""
    size = len(f"HTTP/1.1 {status} {reason}\r\n") + 2
    return size + sum(len(name) + len(value) + 4 for name, value in headers)  # ": ", CRLF


def fetch(
    port: int,
    method: str,
    path: str,
    body: bytes | str | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = REQUEST_TIMEOUT,
    source: str | None = None,
) -> Fetched:
    """One request on a new connection (gunicorn's sync workers close every connection).

    ``source``: another loopback address (127.0.0.2 ...) to send from, as another client.
    """
    connection = http.client.HTTPConnection(
        HOST, port, timeout=timeout, source_address=(source, 0) if source else None
    )
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        content = response.read()
        head = header_size(response.status, response.reason, response.getheaders())
        return Fetched(response.status, response.msg, content, head)
    finally:
        connection.close()


class Server:
    """A gunicorn server in a subprocess of its own process group, logging to a file."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        env: dict[str, str],
        workers: int,
        log_path: Path,
        port: int | None = None,
    ):
        self.name = name
        self.argv = argv
        self.env = env
        self.workers = workers
        self.log_path = log_path
        self.port = port if port is not None else free_port()
        self.process: subprocess.Popen | None = None

    @classmethod
    def survey_app(cls, deployment: Deployment, workers: int, label: str = "", **env: str):
        """``survey-app serve`` for ``deployment``; ``env`` overrides its environment."""
        port = free_port()
        argv = [*CLI, "serve", "--host", HOST, "--port", str(port), "--workers", str(workers)]
        log_path = deployment.directory / f"server-{label + '-' if label else ''}{port}.log"
        name = f"survey-app serve{f' ({label})' if label else ''}"
        return cls(name, argv, deployment.env | env, workers, log_path, port)

    @property
    def pid(self) -> int:
        return self.process.pid

    def start(self) -> Server:
        """Start the server and return at once (see :meth:`wait_ready`)."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log_file:
            self.process = subprocess.Popen(
                self.argv,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                cwd=self.log_path.parent,
                # A process group of its own, to stop the workers with the master; but the
                # caller's session, so that the scheduler shares the CPU between the clients'
                # threads and the workers as it always has in the benchmark (a new session
                # would be a scheduling group of its own, and change the figures).
                process_group=0,
            )
        return self

    def assert_running(self) -> None:
        if self.process is None or self.process.poll() is not None:
            code = None if self.process is None else self.process.returncode
            raise HarnessError(f"{self.name} is not running (exit {code}); log:\n{self.log_tail()}")

    def wait_answering(self, path: str = "/", expected: int | None = None) -> None:
        """Wait (bounded) until ``GET path`` answers (with ``expected``, when given)."""
        deadline = time.monotonic() + START_TIMEOUT
        last: object = None
        while time.monotonic() < deadline:
            self.assert_running()
            try:
                status = fetch(self.port, "GET", path, timeout=5).status
                if expected is None or status == expected:
                    return
                last = status
            except OSError as error:
                last = error
            time.sleep(0.1)
        raise HarnessError(f"{self.name} did not answer ({last!r}); log:\n{self.log_tail()}")

    def worker_pids(self) -> set[int]:
        return child_pids(self.process.pid) if self.process else set()

    def wait_for_workers(self, count: int | None = None, exclude: frozenset[int] = frozenset()):
        """Wait (bounded) until ``count`` live workers exist, none of them in ``exclude``."""
        count = count or self.workers
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            self.assert_running()
            pids = self.worker_pids()
            if len(pids) == count and not pids & exclude:
                return pids
            time.sleep(0.05)
        raise HarnessError(f"{self.name} did not reach {count} workers; log:\n{self.log_tail()}")

    def wait_ready(self, path: str = "/", expected: int | None = None) -> None:
        """Wait until it answers and every worker has booted (each builds its own app)."""
        self.wait_answering(path, expected)
        self.wait_for_workers()

    def request(
        self,
        method: str,
        path: str,
        body: bytes | str | None = None,
        headers: dict[str, str] | None = None,
        source: str | None = None,
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        """One request on a new connection: ``(status, headers, body)``."""
        fetched = fetch(self.port, method, path, body, headers, source=source)
        return fetched.status, fetched.headers, fetched.body

    def interrupt(self, stop_signal: int = signal.SIGTERM) -> None:
        """Ask the server to stop (SIGTERM: graceful; SIGINT: quick) and return at once."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(stop_signal)

    def wait_stopped(self) -> None:
        """Wait (bounded) for the stop; then SIGKILL the whole process group."""
        if self.process is None:
            return
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)  # the master and its workers
            self.process.wait(timeout=STOP_TIMEOUT)

    def stop(self, stop_signal: int = signal.SIGTERM) -> str:
        """Stop the server (bounded); return its whole log."""
        self.interrupt(stop_signal)
        self.wait_stopped()
        return self.log()

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, characters: int = 3000) -> str:
        return self.log()[-characters:] or "(no log)"

    def last_exception(self) -> str:
        """The last exception line in the server's log (``module.Error: message``), if any."""
        found = re.findall(r"^[\w.]*(?:Error|Exception)\b.*$", self.log_tail(200_000), re.M)
        return found[-1][:400] if found else ""
