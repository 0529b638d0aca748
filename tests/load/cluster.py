"""What stands around the app servers in a deployment of several: PgBouncer (and, in time, the
balancer and Redis), started on loopback from the configuration files operators get (deploy/).

``PgBouncer.start(server_url)`` runs Debian's pgbouncer in the foreground on
deploy/pgbouncer.ini as it is, followed by the test's own lines, which set only what a site sets
(where PostgreSQL is, the port to listen on, the users' file, the log) and how many server
connections it lends in turn.
PgBouncer refuses to run as root: as root it runs as the ``postgres`` user, as the test's
PostgreSQL server does. Every wait is bounded; ``stop`` kills it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from benchmarks.harness import HOST, START_TIMEOUT, STOP_TIMEOUT, free_port

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"


def _as_service_user(argv: list[str]) -> list[str]:
    """Run ``argv`` as ``postgres`` when this is root (PgBouncer refuses root)."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def _wait_listening(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args} exited ({process.returncode}): {log.read_text()}")
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{process.args} did not listen on {port}: {log.read_text()}")


def _spawn(argv: list[str], log: Path | None = None, env: dict | None = None):
    """``argv`` started in a process group of its own (stopped whole), its output in ``log``."""
    with open(log or os.devnull, "ab") as output:
        return subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            process_group=0,
        )


def _listening(part, port: int, log: Path):
    """``part`` once its process listens on ``port``; stopped if it does not (bounded)."""
    try:
        _wait_listening(port, part.process, log)
    except BaseException:
        part.stop()
        raise
    return part


@dataclass
class PgBouncer:
    """A PgBouncer in transaction pooling before the PostgreSQL server of a database URL."""

    directory: Path
    port: int
    process: subprocess.Popen

    @classmethod
    def start(cls, server_url: str, pool_size: int = 2) -> PgBouncer:
        """PgBouncer before ``server_url``'s server, ``pool_size`` server connections a
        database; any database of that server is reached through it by its name."""
        server = make_url(server_url)
        # Its own folder outside the test's (pytest's are the owner's alone), readable by the
        # service user.
        directory = Path(tempfile.mkdtemp(prefix="survey-app-pgbouncer-"))
        directory.chmod(0o755)
        (directory / "userlist.txt").write_text(f'"{server.username}" ""\n')
        port = free_port()
        log = directory / "pgbouncer.log"
        # The operators' file as it is, then this site's settings: they fall in its
        # [pgbouncer] section, its last (PgBouncer 1.18 keeps only the last [pgbouncer] section
        # of a file, so they cannot come in one of their own), then where PostgreSQL is.
        site = (
            f"listen_addr = {HOST}\n"
            f"listen_port = {port}\n"
            "unix_socket_dir =\n"
            "auth_type = trust\n"
            f"auth_file = {directory / 'userlist.txt'}\n"
            f"logfile = {log}\n"
            f"pidfile = {directory / 'pgbouncer.pid'}\n"
            f"default_pool_size = {pool_size}\n"
            # Its server connections made at once and lent in turn: each transaction may land
            # on another one, so what the app must not keep on one is certain to be missed.
            f"min_pool_size = {pool_size}\n"
            "server_round_robin = 1\n"
            "[databases]\n"
            f"* = host={server.host} port={server.port}\n"
        )
        deploy = (DEPLOY / "pgbouncer.ini").read_text()
        (directory / "pgbouncer.ini").write_text(deploy.rstrip("\n") + "\n" + site)
        if os.geteuid() == 0:
            shutil.chown(directory, "postgres")
            for path in directory.iterdir():
                shutil.chown(path, "postgres")
        # PgBouncer writes its own log file (logfile above).
        process = _spawn(_as_service_user([PGBOUNCER, str(directory / "pgbouncer.ini")]))
        return _listening(cls(directory, port, process), port, log)

    def url(self, database_url: str) -> str:
        """``database_url`` (a database of the server behind) reached through PgBouncer."""
        url = make_url(database_url).set(host=HOST, port=self.port)
        return url.render_as_string(hide_password=False)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=STOP_TIMEOUT)
        shutil.rmtree(self.directory, ignore_errors=True)


HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


@dataclass
class HAProxy:
    """HAProxy on deploy/haproxy.cfg as it is, balancing round robin across app servers."""

    port: int
    process: subprocess.Popen
    log: Path

    @classmethod
    def start(cls, servers: list[int], directory: Path) -> HAProxy:
        """HAProxy on a free loopback port before the app servers on ``servers`` (ports)."""
        port = free_port()
        env = {
            "PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/bin"),
            "SURVEY_APP_LISTEN": f"{HOST}:{port}",
        } | {
            f"SURVEY_APP_SERVER_{index}": f"{HOST}:{server}"
            for index, server in enumerate(servers, start=1)
        }
        log = directory / "haproxy.log"
        process = _spawn([HAPROXY, "-db", "-f", str(DEPLOY / "haproxy.cfg")], log, env)
        return _listening(cls(port, process, log), port, log)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=STOP_TIMEOUT)


PG_BIN = Path("/usr/lib/postgresql/15/bin")


@dataclass
class PostgreSQL:
    """A PostgreSQL server of the test's own on loopback (one it may restart: the pass's server
    serves other tests meanwhile), with one database, ``classroom`` (not deploy/pgbouncer.ini's
    example name, which PgBouncer would send to that file's example host)."""

    directory: Path
    port: int

    @classmethod
    def start(cls) -> PostgreSQL:
        directory = Path(tempfile.mkdtemp(prefix="survey-app-postgresql-"))
        if os.geteuid() == 0:
            shutil.chown(directory, "postgres")
        server = cls(directory, free_port())
        _run(
            _as_service_user(
                [str(PG_BIN / "initdb"), "-D", str(server.data), "-A", "trust", "-U", "postgres"]
            )
        )
        server._ctl("start")
        _run(
            [
                str(PG_BIN / "createdb"),
                "-h",
                HOST,
                "-p",
                str(server.port),
                "-U",
                "postgres",
                "classroom",
            ]
        )
        return server

    @property
    def data(self) -> Path:
        return self.directory / "data"

    def url(self) -> str:
        return f"postgresql+psycopg://postgres@{HOST}:{self.port}/classroom"

    def _ctl(self, action: str, *options: str) -> None:
        settings = (
            f"-c listen_addresses={HOST} -c port={self.port} "
            f"-c unix_socket_directories={self.directory} -c fsync=off"
        )
        _run(
            _as_service_user(
                [
                    str(PG_BIN / "pg_ctl"),
                    action,
                    "-D",
                    str(self.data),
                    "-w",
                    "-l",
                    str(self.directory / "log"),
                    "-o",
                    settings,
                    *options,
                ]
            )
        )

    def restart(self) -> None:
        """A fast restart (as an operator's upgrade or failover makes): connections are cut."""
        self._ctl("restart", "-m", "fast")

    def stop(self) -> None:
        try:
            self._ctl("stop", "-m", "immediate")
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)


def _run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=START_TIMEOUT)
    if done.returncode != 0:
        raise RuntimeError(f"{argv} failed ({done.returncode}): {done.stderr or done.stdout}")


REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"


@dataclass
class RedisServer:
    """Debian's redis-server on loopback, no persistence; it can be stopped and started again
    on its port (an outage of the rate limits' storage)."""

    directory: Path
    port: int
    process: subprocess.Popen | None = None

    @classmethod
    def start(cls, directory: Path) -> RedisServer:
        server = cls(directory, free_port())
        server.resume()
        return server

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def client(self):
        import redis

        return redis.Redis(host=HOST, port=self.port, socket_timeout=10)

    def resume(self) -> None:
        """Start it (again) on its port, and wait until it answers."""
        import redis

        log = self.directory / "redis.log"
        with open(log, "ab") as output:
            self.process = subprocess.Popen(
                [
                    REDIS,
                    "--port",
                    str(self.port),
                    "--bind",
                    HOST,
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ],
                cwd=self.directory,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        client = self.client()
        deadline = time.monotonic() + START_TIMEOUT
        try:
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"redis-server exited: {log.read_text()}")
                try:
                    if client.ping():
                        return
                except redis.ConnectionError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not answer")
                time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=STOP_TIMEOUT)
