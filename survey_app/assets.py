"""Facts about the static files that pages publish."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from flask import current_app

MECHANISM_SCRIPT = "js/randomized-response.js"


@cache
def _sha256_of(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def mechanism_sha256() -> str:
    """SHA-256 of the randomizing script as served, so anyone can check the one they ran."""
    return _sha256_of(str(Path(current_app.static_folder) / MECHANISM_SCRIPT))
