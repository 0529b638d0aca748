"""Facts about the static files that pages load and publish: their hashes, and the modules
each page script imports.

Every script tag carries Subresource Integrity (``integrity="sha384-..."``), so a browser runs a
script only if it is byte for byte the file this server hashed; the respondent page also
publishes each script's SHA-256, which anyone can compare with the published source
(``sha256sum``). A page loads its script with the Jinja global :func:`module_script`, which
also preloads, with their integrity, the modules it imports (a module's own imports carry no
integrity: they reuse a preload of the very same URL):

    {% block head %}{{ module_script("js/builder.js") }}{% endblock %}
"""

from __future__ import annotations

import base64
import hashlib
import posixpath
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from flask import Flask, current_app, request, url_for
from flask_babel import lazy_gettext
from flask_compress import Compress
from markupsafe import Markup, escape

from survey_app import kinds

#: Characters of the SHA-256 (hex) in a script's ``?v=`` query.
VERSION_LENGTH = 12


@dataclass(frozen=True)
class FileHashes:
    """A file's SHA-256 (hex, as ``sha256sum`` prints it) and SHA-384 (base64, as SRI wants)."""

    sha256: str
    sha384: str


@cache
def _hashes_of(path: str) -> FileHashes:
    # Hashed once per process, from the bytes the static route serves: the pages keep the hash of
    # the file as this server first served it, so a file changed underneath a running server
    # (or on its way to the browser) is refused rather than trusted.
    data = Path(path).read_bytes()
    return FileHashes(
        sha256=hashlib.sha256(data).hexdigest(),
        sha384=base64.b64encode(hashlib.sha384(data).digest()).decode("ascii"),
    )


def static_hashes(filename: str) -> FileHashes:
    """The hashes of ``filename`` (e.g. ``"js/survey.js"``) in the app's static folder."""
    return _hashes_of(str(Path(current_app.static_folder) / filename))


def script_integrity(filename: str) -> str:
    """The ``integrity`` attribute value of a static script: ``sha384-<base64>``."""
    return f"sha384-{static_hashes(filename).sha384}"


def script_sha256(filename: str) -> str:
    """A static script's SHA-256 in hex, for people to compare with the published source."""
    return static_hashes(filename).sha256


def script_url(filename: str, *, versioned: bool = True) -> str:
    """The URL of a static script, by default with ``?v=`` and the start of its SHA-256.

    A changed file gets a new URL, so a copy cached under the old one never meets the new
    integrity value. A module imported by another (``import "./randomized-response.js"``) is
    fetched at its plain URL, so its preload tag must use ``versioned=False`` to be the fetch the
    import reuses.
    """
    if not versioned:
        return url_for("static", filename=filename)
    return url_for("static", filename=filename, v=script_sha256(filename)[:VERSION_LENGTH])


#: A static import or re-export of a module by its relative path: ``import {...} from "./x.js";``,
#: ``"./kinds/x.js"`` or ``"../x.js"``.
_STATIC_IMPORT = re.compile(
    r"""^(?:import|export)\b[^;"']*?\bfrom\s*["'](\.\.?/[\w./-]+\.js)["'];?"""
    r"""|^import\s*["'](\.\.?/[\w./-]+\.js)["'];?""",
    re.MULTILINE,
)


@cache
def _imports_in(path: str) -> tuple[str, ...]:
    source = Path(path).read_text(encoding="utf-8")
    return tuple(match.group(1) or match.group(2) for match in _STATIC_IMPORT.finditer(source))


def module_files(entry: str) -> list[str]:
    """A page script (``"js/survey.js"``) and every module it imports, at any depth, each once:
    the scripts a browser runs for it."""
    files = [entry]
    for filename in files:  # grows as imports are found
        folder = posixpath.dirname(filename)
        for specifier in _imports_in(str(Path(current_app.static_folder) / filename)):
            imported = posixpath.normpath(posixpath.join(folder, specifier))
            if imported not in files:
                files.append(imported)
    return files


def module_script(entry: str) -> Markup:
    """The tags that load a page script: a modulepreload with integrity for every module it
    imports (at the plain URL the import asks for), then the script, versioned."""
    tags = [
        f'<link rel="modulepreload" href="{escape(script_url(filename, versioned=False))}" '
        f'integrity="{script_integrity(filename)}">'
        for filename in module_files(entry)[1:]
    ]
    tags.append(
        f'<script type="module" src="{escape(script_url(entry))}" '
        f'integrity="{script_integrity(entry)}"></script>'
    )
    return Markup("\n  ".join(tags))


#: What each script of the respondent page does, as the page lists them for anyone to check
#: against the published source (every module survey.js imports has a line).
RESPONDENT_SCRIPT_ROLES = {
    "js/survey.js": lazy_gettext("reads your answers and sends them scrambled"),
    "js/answer-table.js": lazy_gettext(
        "scrambles each possible answer once, and keeps that until it is sent"
    ),
    "js/randomized-response.js": lazy_gettext("does the scrambling"),
    "js/survey-replies.js": lazy_gettext("words what the server replied"),
    "js/typed-numbers.js": lazy_gettext("reads a number you type"),
    "js/page-words.js": lazy_gettext("gives the scripts this page’s words, in its language"),
    "js/kinds/index.js": lazy_gettext("knows each kind of question’s script"),
    "js/kinds/options.js": lazy_gettext("reads an option picked"),
}


def respondent_scripts() -> list[tuple[str, str]]:
    """(file, what it does) for every script the respondent page runs."""
    roles = RESPONDENT_SCRIPT_ROLES | {
        kind.script: kind.script_role for kind in kinds.KINDS.values()
    }
    return [(name, roles[name]) for name in module_files("js/survey.js")]


#: What is sent compressed to a browser that accepts it: the stylesheets and scripts, most of
#: what a phone downloads to answer (55 of the respondent page's 69 KB; 18 KB once compressed).
#: Pages are not: they carry CSRF tokens beside text that others choose (titles, answers'
#: labels), which compression over HTTPS can leak a byte at a time (BREACH).
COMPRESSED_TYPES = ["text/css", "text/javascript", "application/javascript"]


def register(app: Flask) -> None:
    """Make the script helpers Jinja globals; compress stylesheets and scripts in transit.

    Flask-Compress (a maintained extension: negotiation, Vary, ETags of each encoding) does
    the compressing, with Brotli or gzip, whichever the browser accepts; a proxy in front may
    do it instead. Subresource Integrity hashes the decoded bytes, so it holds either way.
    """
    app.add_template_global(script_url)
    app.add_template_global(script_integrity)
    app.add_template_global(script_sha256)
    app.add_template_global(module_script)
    app.add_template_global(respondent_scripts)
    app.config.setdefault("COMPRESS_MIMETYPES", COMPRESSED_TYPES)
    # Static files are sent as streams: compressed as they stream (no Content-Length), and
    # a repeat visit's If-None-Match still answers 304.
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])
    app.config.setdefault("COMPRESS_ALGORITHM_STREAMING", ["br", "gzip"])
    app.config.setdefault("COMPRESS_STREAMS", True)
    app.config["COMPRESS_REGISTER"] = False
    compress = Compress(app)

    @app.after_request
    def _compress_whole_files(response):
        # A part of a file (206, asked with Range) keeps its bytes: its offsets count the
        # file as stored, so compressing the part would break a resumed download.
        if response.status_code != 200 or "Range" in request.headers:
            return response
        return compress.after_request(response)
