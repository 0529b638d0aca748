"""Stylesheets and scripts travel compressed to a browser that accepts it; pages do not.

A lecture hall's Wi-Fi is shared by everyone in it: the scripts and stylesheets are most of
what a phone downloads to answer, and a phone's first visit to the respondent page stays within
60 KB. Pages stay uncompressed (they carry CSRF tokens beside text that others choose, which
compression over HTTPS can leak: BREACH).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
from pathlib import Path

import brotli
import pytest

from benchmarks.common import BENCH_DEFINITION, PAGE_TRANSFER_LIMIT_BYTES
from benchmarks.harness import Fetched, header_size
from benchmarks.measuring import first_visit

ASSETS = ["js/survey.js", "js/randomized-response.js", "css/app.css"]


def static_bytes(app, name: str) -> bytes:
    return (Path(app.static_folder) / name).read_bytes()


@pytest.mark.parametrize("name", ASSETS)
@pytest.mark.parametrize(
    ("accepted", "encoding", "decode"),
    [("gzip", "gzip", gzip.decompress), ("gzip, deflate, br", "br", brotli.decompress)],
)
def test_assets_are_compressed_for_browsers_that_accept_it(
    app, client, name, accepted, encoding, decode
):
    response = client.get(f"/static/{name}", headers={"Accept-Encoding": accepted})
    assert response.status_code == 200
    assert response.headers["Content-Encoding"] == encoding
    assert "Accept-Encoding" in response.headers["Vary"]
    original = static_bytes(app, name)
    assert decode(response.get_data()) == original
    assert len(response.get_data()) < len(original) / 2  # text compresses well


def test_a_client_that_accepts_no_encoding_gets_the_file_as_it_is(app, client):
    response = client.get("/static/js/survey.js", headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in response.headers
    assert response.get_data() == static_bytes(app, "js/survey.js")


def test_a_compressed_script_matches_its_integrity_hash_and_revalidates(app, client, survey):
    """Subresource Integrity hashes the decoded bytes; a repeat visit gets 304, not the file."""
    page = client.get(f"/s/{survey[0]}").get_data(as_text=True)
    src, integrity = re.search(
        r'<script type="module" src="([^"]+)"\s+integrity="sha384-([^"]+)"', page
    ).groups()
    response = client.get(src, headers={"Accept-Encoding": "gzip"})
    decoded = gzip.decompress(response.get_data())
    assert base64.b64encode(hashlib.sha384(decoded).digest()).decode() == integrity
    again = client.get(
        src, headers={"Accept-Encoding": "gzip", "If-None-Match": response.headers["ETag"]}
    )
    assert again.status_code == 304


def test_pages_and_documents_are_not_compressed(client, survey, analyst, sign_in_as):
    """Not even for a browser that accepts it: the analyst's pages carry a CSRF token beside
    text an attacker can choose (a survey's title), what BREACH reads a byte at a time."""
    accept = {"Accept-Encoding": "gzip, deflate, br"}
    sign_in_as(client, analyst)
    for path in (f"/s/{survey[0]}", "/", f"/analyst/surveys/{survey[0]}", "/analyst/"):
        response = client.get(path, headers=accept)
        assert response.status_code == 200, path
        assert "Content-Encoding" not in response.headers, path
        if path.startswith("/analyst/"):
            assert 'name="csrf_token"' in response.get_data(as_text=True), path
    api = client.get(f"/api/v1/surveys/{survey[0]}", headers=accept)
    assert api.status_code == 200 and api.is_json
    assert "Content-Encoding" not in api.headers


def test_a_phones_first_visit_to_the_respondent_page_stays_within_60_kb(client, make_survey):
    """Counted as the benchmark counts it (benchmarks.measuring.first_visit, on its survey):
    the page and everything it loads, each URL once, asked for as a browser asks; bodies as sent
    and response headers (those gunicorn adds, about 70 bytes a response, aside)."""
    slug, _ = make_survey(BENCH_DEFINITION)

    def get(path: str, headers: dict[str, str]) -> Fetched:
        response = client.get(path, headers=headers)
        reason = response.status.partition(" ")[2]
        head = header_size(response.status_code, reason, response.headers.items())
        return Fetched(response.status_code, response.headers, response.get_data(), head)

    page = first_visit(get, f"http://localhost/s/{slug}")
    assert page.errors == [] and page.external == []
    paths = {resource.url.split("?", 1)[0] for resource in page.resources}
    assert {"/static/css/app.css", "/static/js/survey.js", "/static/js/answer-table.js"} <= paths
    assert page.transfer_bytes <= PAGE_TRANSFER_LIMIT_BYTES, [
        (resource.url, resource.transfer_bytes) for resource in page.resources
    ]


def test_a_range_of_a_script_is_sent_as_stored(app, client):
    """A resumed download asks for a part: its offsets count the file as stored."""
    response = client.get(
        "/static/js/survey.js", headers={"Accept-Encoding": "gzip, br", "Range": "bytes=1000-2999"}
    )
    assert response.status_code == 206
    assert "Content-Encoding" not in response.headers
    assert response.get_data() == static_bytes(app, "js/survey.js")[1000:3000]
