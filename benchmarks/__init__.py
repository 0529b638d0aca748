"""The benchmark: results latency, export speed and memory, submission throughput, and the
respondent page's weight, on SQLite and on PostgreSQL, against the real server.

Run it from the source tree as ``python -m benchmarks``; ``--help`` lists the options. It writes
a table with the machine's details to ``docs/benchmarks.md``. It is not part of the installed
app: no module of ``survey_app`` imports it.

The parts: ``common`` (targets, the benchmark survey), ``harness`` (a deployment and its
gunicorn servers, shared with tests/load), ``seeding``, ``measuring``, ``profiles``,
``postgresql`` (a throwaway server), ``report`` (verdicts and the Markdown page) and ``run``
(the command line).

What it does, for each database:

1. creates the schema with ``survey-app init-db`` (the migrations), an analyst, an API token and
   two open 10-question surveys: one to seed, one to take the live submissions;
2. seeds randomized submissions in bulk (SQLite: ``executemany`` in one transaction; PostgreSQL:
   ``COPY``), cumulatively up to each size, and adds their counts to the tallies in the same
   transaction (respondents are counted from the tallies), so the maintained counts stay exact;
3. at each size, times ``GET /api/v1/surveys/<slug>/results`` on ``survey-app serve``;
4. at the largest size, streams ``responses.csv`` from a one-worker server and reads the worker's
   peak resident memory (``VmHWM``);
5. posts valid submissions from many client threads for a fixed time, to the app and to a bare
   Flask endpoint served by gunicorn the same way, and reports the ratio;
6. fetches the respondent page and everything it loads, and checks that nothing is external;
7. checks that the tallies and ``respondents`` equal the counts of the rows actually stored;
8. profiles (cProfile, in-process test client) the paths whose targets were missed.

PostgreSQL is a throwaway cluster started here (``initdb``/``pg_ctl`` as the postgres user on
127.0.0.1), or a throwaway database created on the server of ``--postgresql-url``.
"""
