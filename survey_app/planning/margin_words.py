"""What a margin on the dashboard's trade-off table is, in the page's language: one whole
sentence of the catalog with the figures planning uses (planning.shares.margin_meaning)."""

from __future__ import annotations

from flask_babel import gettext

from survey_app import privacy
from survey_app.words import either_of, percent, points


def margin_meaning_words(confidence: float, next_to_nothing: float) -> str:
    """The true shares a margin is planned at, the ``confidence``, and the width past which it
    says next to nothing (``next_to_nothing``, a share)."""
    return gettext(
        "A margin is how far the range the results give reaches on either side of the "
        "estimate, on average (at a true share of %(shares)s, whichever is widest); the range "
        "holds the true share at least %(confidence)s of the time. Chebyshev’s bound with the "
        "exact variance gives the same guarantee with far wider ranges. A margin of "
        "%(margin)s or more says next to nothing. Fewer flips (a lower flip probability) "
        "sharpen the results but protect each student less.",
        shares=either_of([percent(share) for share in privacy.PLANNING_SHARES]),
        confidence=percent(confidence),
        margin=points(next_to_nothing, long=True),
    )
