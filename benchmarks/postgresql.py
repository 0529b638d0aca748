"""A throwaway PostgreSQL: a cluster started here, or a database on a given server."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from benchmarks.common import BenchError
from benchmarks.harness import free_port

# ----------------------------------------------------------------------------------- PostgreSQL


class PostgresCluster:
    """A throwaway PostgreSQL cluster on 127.0.0.1 in a temporary directory, as .ci/run starts."""

    def __init__(self, bin_dir: Path):
        self.bin_dir = bin_dir
        self.directory: Path | None = None
        self.port = 0
        self.started = False

    def _run(self, *command: str) -> None:
        argv = [str(self.bin_dir / command[0]), *command[1:]]
        if os.geteuid() == 0:
            # PostgreSQL refuses to run as root.
            argv = ["runuser", "-u", "postgres", "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise BenchError(f"{' '.join(command[:2])} failed: {done.stderr.strip()[-1500:]}")

    def __enter__(self) -> str:
        if not (self.bin_dir / "initdb").exists():
            raise BenchError(
                f"no PostgreSQL at {self.bin_dir} (install postgresql-15, or pass "
                "--postgresql-bin, --postgresql-url or --skip-postgresql)"
            )
        self.directory = Path(tempfile.mkdtemp(prefix="survey-app-bench-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres")
        data = self.directory / "data"
        self._run("initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8")
        self.port = free_port()
        settings = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} "
            f"-c unix_socket_directories={self.directory} -c max_connections=200"
        )
        log_file = str(self.directory / "log")
        self._run("pg_ctl", "-D", str(data), "-l", log_file, "-w", "-o", settings, "start")
        self.started = True
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def __exit__(self, *_exc) -> None:
        if self.started:
            with contextlib.suppress(BenchError, subprocess.TimeoutExpired):
                self._run("pg_ctl", "-D", str(self.directory / "data"), "-m", "fast", "stop")
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)


def _psycopg_connect(url):
    import psycopg

    return psycopg.connect(
        host=url.host,
        port=url.port,
        user=url.username,
        password=url.password,
        dbname=url.database,
        autocommit=True,
        **dict(url.query),
    )


@contextlib.contextmanager
def throwaway_database(server_url: str) -> Iterator[str]:
    """A new, empty database on the server of ``server_url``, dropped afterwards."""
    from sqlalchemy.engine import make_url

    url = make_url(server_url)
    if not url.drivername.startswith("postgresql"):
        raise BenchError(f"--postgresql-url must be a postgresql URL, got {url.drivername!r}")
    name = f"survey_app_bench_{secrets.token_hex(4)}"
    try:
        with _psycopg_connect(url) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
    except Exception as error:
        raise BenchError(f"cannot create a database on {url.host}:{url.port}: {error}") from None
    try:
        yield url.set(drivername="postgresql+psycopg", database=name).render_as_string(
            hide_password=False
        )
    finally:
        with _psycopg_connect(url) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
