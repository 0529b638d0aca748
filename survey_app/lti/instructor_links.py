"""An instructor's platform account linked to the analyst account they sign in as from it.

The first launch of an instructor from a platform asks them to sign in once (or to make an
account); from then on their launches sign them in, when the launch is bound to the browser
(its state cookie matched). The platform's user id (``sub``) is kept only as a digest keyed by
the app's secret key, so that the table cannot be joined with the platform's user list by
anyone without the key; learners' launches are never linked. A new secret key unlinks every
instructor (their next launch asks them to sign in once again).
"""

from __future__ import annotations

import hashlib
import hmac

from sqlalchemy import delete

from survey_app.extensions import db
from survey_app.storage.lti_models import LtiInstructorLink
from survey_app.storage.models import Analyst

_PURPOSE = b"survey-app lti instructor\x00"


def sub_digest(secret_key: str, issuer: str, sub: str) -> str:
    """The keyed digest (HMAC-SHA256 under the secret key) an instructor's ``sub`` is kept as:
    LTI's ``sub`` is unique within its issuer, so the issuer is part of what is hashed."""
    message = _PURPOSE + issuer.encode("utf-8") + b"\x00" + sub.encode("utf-8")
    return hmac.new(secret_key.encode("utf-8"), message, hashlib.sha256).hexdigest()


def linked_analyst(platform_id: int, digest: str) -> Analyst | None:
    """The analyst account the platform's instructor is linked to, or None."""
    link = db.session.get(LtiInstructorLink, (platform_id, digest))
    return None if link is None else db.session.get(Analyst, link.analyst_id)


def link_instructor(platform_id: int, digest: str, analyst: Analyst) -> bool:
    """Link the platform's instructor to ``analyst``, unless they are linked already: a link is
    never re-pointed (a link page's ticket, issued while they were unlinked, must not move an
    existing link; the operator unlinks). Whether it linked; the caller commits."""
    if db.session.get(LtiInstructorLink, (platform_id, digest)) is not None:
        return False
    db.session.add(
        LtiInstructorLink(platform_id=platform_id, sub_digest=digest, analyst_id=analyst.id)
    )
    db.session.flush()
    return True


def is_linked(platform_id: int, digest: str) -> bool:
    """Whether the platform's instructor is linked to an account (whichever)."""
    return db.session.get(LtiInstructorLink, (platform_id, digest)) is not None


def unlink_instructors(platform_id: int, analyst: Analyst | None = None) -> int:
    """Undo the links of a platform's instructors (to ``analyst`` alone, if given); how many
    there were. The caller commits."""
    statement = delete(LtiInstructorLink).where(LtiInstructorLink.platform_id == platform_id)
    if analyst is not None:
        statement = statement.where(LtiInstructorLink.analyst_id == analyst.id)
    return db.session.execute(statement).rowcount
