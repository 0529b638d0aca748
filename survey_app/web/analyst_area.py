"""What every blueprint under /analyst shares: its prefix, no caching, and the planning warm-up.

No blueprint owns this module, so the sign-in, builder and dashboard pages each make their own
blueprint here without importing one another.
"""

from __future__ import annotations

from flask import Blueprint, current_app

from survey_app.planning import shares as planning
from survey_app.web.security import never_cached

URL_PREFIX = "/analyst"


def _plan_ahead() -> None:
    # A professor signs in and looks around before opening a dashboard: time enough to work
    # out the default trade-off tables (seconds of exact figures) once for this process.
    # Tests leave it out: they time and check the figures themselves.
    if not current_app.testing:
        planning.warm_up_in_background()


def analyst_blueprint(name: str, import_name: str) -> Blueprint:
    """A blueprint of analyst pages: under /analyst, never cached, planning warmed up."""
    blueprint = Blueprint(name, import_name, url_prefix=URL_PREFIX)
    blueprint.after_request(never_cached)
    blueprint.before_request(_plan_ahead)
    return blueprint
