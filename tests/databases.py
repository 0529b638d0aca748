"""The database a test pass runs on, and how a test gets it empty with the models' schema.

``.ci/run`` runs the suite on SQLite (a file per test in its tmp_path), and the tests that reach
the database with ``SURVEY_APP_TEST_DATABASE_URL`` naming a database on a PostgreSQL server it
started: its unit tests on one base database, its browser and load tests (while the unit tests
run in the background) on another. Parallel
workers (pytest-xdist) each get a database of their own on that server, named after the worker
(``survey_app_test_gw0``, ...), created when missing: workers never share tables.

Making the schema takes a quarter of a second on PostgreSQL, so it is made once a worker: before
each test the tables are emptied (and their id sequences restarted), unless the schema is not the
one made (a test dropped, renamed or added a table, a trigger or a function, or ran the
migrations), in which case it is made anew.
"""

from __future__ import annotations

import os

from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

#: The database named by .ci/run for the PostgreSQL pass (None on SQLite).
BASE_DATABASE_URL = os.environ.get("SURVEY_APP_TEST_DATABASE_URL")
#: The pytest-xdist worker running this process ("gw0", ...), None without workers.
WORKER = os.environ.get("PYTEST_XDIST_WORKER")


def worker_database_url(base_url: str | None, worker: str | None) -> str | None:
    """The database of ``worker`` on the server of ``base_url``: the base one without workers."""
    if not base_url or not worker:
        return base_url
    url = make_url(base_url)
    return url.set(database=f"{url.database}_{worker}").render_as_string(hide_password=False)


#: The database this process's tests run on in the PostgreSQL pass; None in the SQLite pass.
TEST_DATABASE_URL = worker_database_url(BASE_DATABASE_URL, WORKER)


def _on_server(*statements: str, parameters: dict | None = None):
    """Run ``statements`` outside a transaction on the pass's server; the last one's first row."""
    engine = create_engine(BASE_DATABASE_URL, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            for statement in statements:
                result = connection.exec_driver_sql(statement, parameters or {})
            return result.first() if result.returns_rows else None
    finally:
        engine.dispose()


def create_worker_database() -> None:
    """Create this worker's database when it does not exist yet (on the base one's server)."""
    if TEST_DATABASE_URL == BASE_DATABASE_URL:
        return
    name = make_url(TEST_DATABASE_URL).database
    exists = "SELECT 1 FROM pg_database WHERE datname = %(name)s"
    if _on_server(exists, parameters={"name": name}) is None:
        _on_server(f'CREATE DATABASE "{name}"')


def new_database(suffix: str, template: str | None = None) -> str:
    """A database of this worker's named with ``suffix``, made anew (as a copy of the database
    of the URL ``template``, if given), on the pass's PostgreSQL server; its URL."""
    url = make_url(TEST_DATABASE_URL)
    name = f"{url.database}_{suffix}"
    copy = f' TEMPLATE "{make_url(template).database}"' if template else ""
    _on_server(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}"{copy}')
    return url.set(database=name).render_as_string(hide_password=False)


# --------------------------------------------------------------------------- an empty schema

#: Everything a test could change in the schema of PostgreSQL's public namespace: relations
#: (tables, sequences, indexes, views), columns with their types and defaults, constraints,
#: triggers, routines and types; one digest of it all, so that one query tells.
SCHEMA_DIGEST = """
SELECT md5(coalesce(string_agg(item, E'\\n' ORDER BY item), '')) FROM (
  SELECT 'relation ' || relname || ' ' || relkind::text FROM pg_class
   WHERE relnamespace = 'public'::regnamespace
  UNION ALL
  SELECT 'column ' || attrelid::regclass || '.' || attname || ' '
         || format_type(atttypid, atttypmod) || ' ' || attnotnull::text || ' '
         || coalesce(pg_get_expr(adbin, adrelid), '')
   FROM pg_attribute
   JOIN pg_class ON pg_class.oid = attrelid
   LEFT JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum
   WHERE relnamespace = 'public'::regnamespace AND attnum > 0 AND NOT attisdropped
  UNION ALL
  SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' '
         || pg_get_constraintdef(oid)
   FROM pg_constraint WHERE connamespace = 'public'::regnamespace
  UNION ALL
  SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
  UNION ALL
  SELECT 'trigger ' || tgrelid::regclass || ' ' || tgname
   FROM pg_trigger JOIN pg_class ON pg_class.oid = tgrelid
   WHERE relnamespace = 'public'::regnamespace AND NOT tgisinternal
  UNION ALL
  SELECT 'routine ' || oid::regprocedure FROM pg_proc
   WHERE pronamespace = 'public'::regnamespace
  UNION ALL
  SELECT 'type ' || typname FROM pg_type WHERE typnamespace = 'public'::regnamespace
) AS schema (item)
"""

#: Every id sequence of the public namespace starts again at 1.
RESTART_SEQUENCES = """
SELECT setval(oid, 1, false) FROM pg_class
 WHERE relkind = 'S' AND relnamespace = 'public'::regnamespace
"""

#: The digest of the schema the models make, once this process has made it.
_made_schema: dict[str, str] = {}


def empty_postgresql_database(db) -> None:
    """The models' tables, empty, with ids from 1, in the app's PostgreSQL database.

    Within an app context. Emptied when its schema is the one made here before; else made anew.
    """
    url = db.engine.url.render_as_string(hide_password=False)
    with db.engine.begin() as connection:
        digest = connection.exec_driver_sql(SCHEMA_DIGEST).scalar_one()
        if _made_schema.get(url) == digest:
            # DELETE, dependants first, not TRUNCATE: a test's few rows go in a tenth of the
            # time (TRUNCATE makes each table's files anew).
            for table in reversed(db.metadata.sorted_tables):
                connection.exec_driver_sql(f'DELETE FROM "{table.name}"')
            connection.exec_driver_sql(RESTART_SEQUENCES)
            return
        # Everything in the namespace goes: the models' tables, the migrations' version stamp,
        # and whatever a test added (a table, a trigger and its function).
        connection.exec_driver_sql("DROP SCHEMA public CASCADE")
        connection.exec_driver_sql("CREATE SCHEMA public")
    db.create_all()
    with db.engine.begin() as connection:
        _made_schema[url] = connection.exec_driver_sql(SCHEMA_DIGEST).scalar_one()
