"""What a downloaded file is called: the survey's title and the day, then what the file holds.

``academic-integrity-2026-11-25-results.csv`` sorts by survey and day in a downloads folder and
says what it is, where the random slug (``results-sKZ3ou3K16MfWuFJa7pP2tbf.csv``) said nothing.
Safe characters only: ASCII letters and digits joined by hyphens, accents folded ("Café" is
"cafe"), at most 60 characters of title, so every system and every header can carry the name.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

TITLE_CHARACTERS = 60


def download_name(title: str, holds: str, extension: str, day: dt.date | None = None) -> str:
    """``<title>-<YYYY-MM-DD>-<holds>.<extension>``; "survey" stands in for a title with no
    letter or digit left (say, one written in a non-Latin script)."""
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    words = re.sub(r"[^A-Za-z0-9]+", "-", folded).strip("-").lower()
    words = words[:TITLE_CHARACTERS].strip("-") or "survey"
    return f"{words}-{(day or dt.date.today()).isoformat()}-{holds}.{extension}"


def attachment(title: str, holds: str, extension: str, day: dt.date | None = None) -> str:
    """The Content-Disposition header of such a download."""
    return f'attachment; filename="{download_name(title, holds, extension, day)}"'
