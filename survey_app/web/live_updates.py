"""How the analyst's open pages keep themselves current: static/js/live-updates.js asks every
few seconds with the ETag of what the page shows (If-None-Match); an unchanged answer is an
empty 304. The projector's state computes its ETag from what it shows before any estimate
(survey_app.classroom.projector); the dashboard's results panel is the rendered fragment's hash. How
often each asks is the server's (survey_app.dashboard.rendering.REFRESH_SECONDS,
projector.POLL_SECONDS),
told to the script in a data attribute."""

from __future__ import annotations

from flask import Response, request


def unless_unchanged(response: Response) -> Response:
    """``response`` with an ETag of its body; an empty 304 if the page already shows it."""
    response.add_etag()
    return response.make_conditional(request)
