"""The hottest path's server connection on PostgreSQL: one a worker thread keeps, in autocommit.

A submission is one statement (survey_app.respondents.submissions). Run through the pool and
the driver's query layer, the statement's own round trip was the smaller part of its cost: the
pool's checkout and checkin, switching autocommit on and back off, and the driver adapting the
parameters and waiting in Python cost more CPU than PostgreSQL spent on it. Here each worker
thread keeps one server connection in autocommit for these statements, prepares each once, and
runs it through libpq itself (psycopg's ``pq`` layer), its parameters sent as text.

Behind a pooler that lends server connections a transaction at a time
(``SURVEY_APP_DATABASE_POOL_MODE=transaction``) nothing is prepared: each statement is sent
whole, as the pool's connections do (``prepare_threshold`` None).

A statement run here must be safe to run twice: when the connection is found lost, it is run
once more on a new one, since whether the first run committed cannot be known (the recording
statement is: a submission id is stored once). A worker that forks never uses its parent's
connection (nor closes it: that would end the parent's session). A thread that ends leaves its
connection open until the engine is disposed (gunicorn's sync workers have one thread; a new
thread given an ended one's id takes its connection over).
"""

from __future__ import annotations

import os
import re
import threading
import weakref
from dataclasses import dataclass, field

from flask import current_app
from sqlalchemy import event
from sqlalchemy.engine import Engine

from survey_app.extensions import db
from survey_app.storage.database import note_disconnect

_NAMED_PARAMETER = re.compile(r"%\((\w+)\)s")


def _prepared_statement_outdated(sqlstate: bytes | None) -> bool:
    """Whether a prepared statement's error may be its own: gone (26000), or prepared for
    tables whose columns have changed since, a migration say ("cached plan must not change
    result type", 0A000; a column's or parameter's type that no longer fits, class 42)."""
    return sqlstate is not None and (sqlstate in (b"26000", b"0A000") or sqlstate[:2] == b"42")


@dataclass(frozen=True)
class KeptStatement:
    """A statement for the kept connection: ``sql`` with ``$1``..``$n`` for ``parameters``."""

    name: str
    sql: str
    parameters: tuple[str, ...]

    @classmethod
    def from_named(cls, name: str, sql: str) -> KeptStatement:
        """From SQL with ``%(name)s`` parameters (the driver's style): each name becomes the
        ``$n`` of its first appearance, and the same ``$n`` wherever it appears again."""
        order: list[str] = []

        def numbered(match: re.Match) -> str:
            if match.group(1) not in order:
                order.append(match.group(1))
            return f"${order.index(match.group(1)) + 1}"

        return cls(name, _NAMED_PARAMETER.sub(numbered, sql), tuple(order))

    def values(self, row: dict[str, object]) -> list[object]:
        """The statement's parameters from ``row``, in order."""
        return [row[name] for name in self.parameters]


@dataclass
class _KeptConnection:
    driver: object  # a psycopg connection in autocommit
    prepares: bool
    pid: int = field(default_factory=os.getpid)
    prepared: set[str] = field(default_factory=set)

    def run(self, statement: KeptStatement, values: list[object]) -> int:
        from psycopg import errors, pq

        pgconn = self.driver.pgconn
        encoding = self.driver.info.encoding
        parameters = [None if value is None else str(value).encode(encoding) for value in values]
        if not self.prepares:
            result = pgconn.exec_params(statement.sql.encode(encoding), parameters)
        else:
            result = self._run_prepared(statement, parameters, encoding)
            if _prepared_statement_outdated(result.error_field(pq.DiagnosticField.SQLSTATE)):
                # The statement ran nothing: it is prepared again, once, for the tables as
                # they are now (an error that persists is the statement's own, and raised).
                self.prepared.clear()
                pgconn.exec_(b"DEALLOCATE ALL")
                result = self._run_prepared(statement, parameters, encoding)
        if result.status not in (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK):
            raise errors.error_from_result(result, encoding=encoding)
        return result.command_tuples or 0

    def _run_prepared(
        self, statement: KeptStatement, parameters: list[bytes | None], encoding: str
    ):
        from psycopg import errors, pq

        pgconn = self.driver.pgconn
        name = statement.name.encode()
        if statement.name not in self.prepared:
            prepared = pgconn.prepare(name, statement.sql.encode(encoding))
            if prepared.status != pq.ExecStatus.COMMAND_OK:
                raise errors.error_from_result(prepared, encoding=encoding)
            self.prepared.add(statement.name)
        return pgconn.exec_prepared(name, parameters)

    @property
    def lost(self) -> bool:
        from psycopg import pq

        return self.driver.pgconn.status == pq.ConnStatus.BAD

    def close(self) -> None:
        if self.pid == os.getpid():
            self.driver.close()


#: Each engine's kept connections, by thread.
_kept: weakref.WeakKeyDictionary[Engine, dict[int, _KeptConnection]] = weakref.WeakKeyDictionary()
_kept_lock = threading.Lock()
#: Connections a forked child found from its parent: kept referenced, so that they are never
#: closed (nor collected and closed) in the child.
_parents_connections: list[_KeptConnection] = []


def run_on_kept_connection(statement: KeptStatement, row: dict[str, object]) -> int:
    """Run ``statement`` with its parameters from ``row`` on this thread's kept connection, in
    autocommit; return the number of rows it changed.

    Errors are the driver's (a duplicate key raises its IntegrityError). A connection found lost
    is replaced and the statement run once more; a second loss is raised.
    """
    engine = db.engine
    values = statement.values(row)
    for attempt in range(2):
        kept = _kept_connection(engine)
        try:
            return kept.run(statement, values)
        except Exception:
            if not kept.lost:
                raise
            note_disconnect()  # the pool's idle connections are checked before their next use
            _forget(engine, kept)
            if attempt:
                raise
    raise AssertionError("unreachable")


def _kept_connection(engine: Engine) -> _KeptConnection:
    threads = _kept.get(engine)
    if threads is None:
        with _kept_lock:
            threads = _kept.get(engine)
            if threads is None:
                threads = _kept[engine] = {}
                if not event.contains(engine, "engine_disposed", close_kept_connections):
                    event.listen(engine, "engine_disposed", close_kept_connections)
    kept = threads.get(threading.get_ident())
    if kept is not None and kept.pid == os.getpid():
        return kept
    if kept is not None:
        _parents_connections.append(kept)
    kept = threads[threading.get_ident()] = _open(engine)
    return kept


def _open(engine: Engine) -> _KeptConnection:
    """A new server connection made as the pool makes its own (the same URL and connect
    arguments), in autocommit."""
    connect_args = current_app.config.get("SQLALCHEMY_ENGINE_OPTIONS", {}).get("connect_args", {})
    cargs, cparams = engine.dialect.create_connect_args(engine.url)
    cparams = {**cparams, **connect_args, "autocommit": True}
    driver = engine.dialect.connect(*cargs, **cparams)
    return _KeptConnection(driver, prepares=cparams.get("prepare_threshold", 5) is not None)


def _forget(engine: Engine, kept: _KeptConnection) -> None:
    threads = _kept.get(engine, {})
    if threads.get(threading.get_ident()) is kept:
        del threads[threading.get_ident()]
    try:
        kept.close()
    except Exception:  # lost already: nothing to end
        pass


def close_kept_connections(engine: Engine) -> None:
    """Forget the engine's kept connections (of this process), when its pool is disposed: this
    thread's, and those of threads that have ended, are closed; another running thread may be
    in the middle of a statement on its own (libpq has no lock of psycopg's to wait on), so
    that one is left to close when its thread lets go of it (psycopg ends a connection that is
    collected)."""
    running = {thread.ident for thread in threading.enumerate()} - {threading.get_ident()}
    for ident, kept in _kept.pop(engine, {}).items():
        if ident in running:
            continue
        try:
            kept.close()
        except Exception:
            pass
