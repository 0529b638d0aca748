"""After a run of mixed traffic, the server's output names no client and no answer.

gunicorn runs without an access log, so the only address in its output is the one it listens
on ("Listening at: http://127.0.0.1:<port>"). Requests carry a distinctive User-Agent and an
X-Forwarded-For (not trusted here): neither may show up in the output or in the database.
Refused submissions echo what was wrong to the client; the log must not.
"""

from __future__ import annotations

import json
import random
import re
import socket
from collections import Counter

from loadkit import (
    ANALYST_PASSWORD,
    CLIENT_HEADERS,
    HOST,
    REQUEST_TIMEOUT,
    address_lines,
    login_form,
    new_id,
    run_parallel,
    sign_in,
)
from sqlalchemy import MetaData, create_engine, select

VALID = 200
UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.I)
ENCODED_ANSWERS = re.compile(r"\b\d+,\s*\d+,\s*\d+\b")
#: Values sent in refused submissions, which their error replies repeat.
ODD_VALUE = 987654321
ODD_QUESTION = "424242"
ODD_ID = "not-a-uuid-5f3e9a"


#: Broken HTTP, answered by gunicorn itself (400, 431 ...) before the app sees it.
MALFORMED_HTTP = [
    b"GARBAGE\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n",
    b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    b"POST /api/v1/surveys/x/responses HTTP/1.1\r\nHost: x\r\n"
    b"Transfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n",
]


def raw_exchange(port: int, data: bytes) -> bytes:
    """Send raw bytes on a new connection; what comes back before the server closes it."""
    with socket.create_connection((HOST, port), timeout=REQUEST_TIMEOUT) as connection:
        connection.sendall(data)
        connection.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := connection.recv(65536):
            reply += chunk
    return reply


def database_text(url: str) -> str:
    """Every value of every table, as text, to search for what must not be stored."""
    engine = create_engine(url)
    try:
        metadata = MetaData()
        metadata.reflect(engine)
        with engine.connect() as connection:
            return "\n".join(
                repr(row)
                for table in metadata.sorted_tables
                for row in connection.execute(select(table))
            )
    finally:
        engine.dispose()


def test_server_output_names_no_client_address_and_no_answer(deployment, start_server):
    server = start_server(
        deployment,
        workers=4,
        SURVEY_APP_RATELIMIT_ENABLED="true",
        SURVEY_APP_LOGIN_RATE_LIMIT="3 per minute",
    )
    survey = deployment.survey
    rng = random.Random(5)
    sent = {new_id(): survey.random_values(rng) for _ in range(VALID)}
    conflicting = list(sent)[:20]

    def bad(body: object, content_type: str = "application/json"):
        return lambda: server.request(
            "POST", survey.url, json.dumps(body), {"Content-Type": content_type}
        )[0]

    answers = survey.answers((0,) * len(survey.question_ids))
    refused = [
        bad({"submission_id": new_id(), "answers": answers | {ODD_QUESTION: 1}}),
        bad({"submission_id": new_id(), "answers": {**answers, next(iter(answers)): ODD_VALUE}}),
        bad({"submission_id": ODD_ID, "answers": answers}),
        bad({"submission_id": new_id(), "answers": answers, "true_answer": ODD_VALUE}),
        bad({"submission_id": new_id(), "answers": answers}, "text/plain"),
        lambda: server.request("POST", survey.url, "{not json", {})[0],
        lambda: server.request("POST", survey.url.replace(survey.slug, "no-such-survey"), "{}")[0],
    ] * 5
    results = run_parallel(
        [lambda s=s, v=v: server.submit(survey, s, v)[0] for s, v in sent.items()]
        + refused
        + [lambda: server.request("GET", f"/s/{survey.slug}")[0]] * 10
        + [lambda: server.request("GET", f"/api/v1/surveys/{survey.slug}")[0]] * 10,
        threads=16,
    )
    assert results[:VALID] == [201] * VALID
    assert all(400 <= status < 500 for status in results[VALID : VALID + len(refused)])
    # Retries (200) and conflicts (409).
    again = run_parallel(
        [lambda s=s, v=v: server.submit(survey, s, v)[0] for s, v in sent.items()]
        + [
            lambda s=s: server.submit(survey, s, (1 - sent[s][0], *sent[s][1:]))[0]
            for s in conflicting
        ],
        threads=16,
    )
    assert again == [200] * VALID + [409] * len(conflicting)
    # A good sign-in, then bad ones: with 3 a minute per worker (in-memory limits), 13 of them
    # over 4 workers must meet the limit somewhere.
    assert sign_in(server, login_form(server), ANALYST_PASSWORD) == 302
    sign_ins = Counter(sign_in(server, login_form(server), "not the password") for _ in range(13))
    assert set(sign_ins) == {401, 429}, sign_ins
    # Requests that are not HTTP at all, or broken HTTP: gunicorn refuses them itself.
    for raw in MALFORMED_HTTP:
        assert raw_exchange(server.port, raw).startswith(b"HTTP/1.1 4"), raw
    log = server.stop()

    assert f"Listening at: http://{HOST}:{server.port}" in log  # the output was captured
    assert log.count("Booting worker") >= 4
    assert address_lines(log) == []
    assert not UUID.search(log), UUID.search(log)
    assert not ENCODED_ANSWERS.search(log), ENCODED_ANSWERS.search(log)
    for secret in ("answers", "submission_id", str(ODD_VALUE), ODD_QUESTION, ODD_ID):
        assert secret not in log
    assert ANALYST_PASSWORD not in log and "not the password" not in log
    assert "Traceback" not in log and "[ERROR]" not in log

    # Nor does the database keep anything of the client.
    stored = database_text(deployment.database_url)
    assert all(sid in stored for sid in sent)  # the search does see the rows
    for marker in (HOST, CLIENT_HEADERS["X-Forwarded-For"], "marker-ua", "load-test-agent"):
        assert marker not in stored


def test_a_failing_database_leaves_no_submission_in_the_log(deployment, start_server):
    """An unexpected database error (here: a column renamed under the running server) is a
    500 for the client and a logged traceback; the traceback must not carry the statement's
    parameters, which are the submission's id and answers."""
    server = start_server(deployment, workers=2)
    survey = deployment.survey
    assert server.submit(survey, new_id(), (1, 2, 3))[0] == 201
    with deployment.engine() as engine, engine.begin() as connection:
        connection.exec_driver_sql("ALTER TABLE submissions RENAME COLUMN answers TO moved")
    sent = {new_id(): (1, 2, 3) for _ in range(4)}
    replies = [server.submit(survey, sid, values) for sid, values in sent.items()]
    log = server.stop()

    for status, body in replies:
        assert status == 500 and isinstance(body.get("error"), str), (status, body)
    assert "unhandled error" in log  # the failure was logged...
    for submission_id in sent:
        assert submission_id not in log  # ...without the submission
    assert not UUID.search(log), UUID.search(log)
    assert "1,2,3" not in log
    assert address_lines(log) == []
