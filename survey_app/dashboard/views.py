"""The analyst's dashboard pages: a survey's dashboard and its results panel, which the open
dashboard fetches to refresh itself. What they show is worked out in
survey_app.dashboard.rendering."""

from __future__ import annotations

from flask import make_response, render_template
from flask_login import current_user, login_required

from survey_app.accounts.access import owned_survey_or_404
from survey_app.dashboard.rendering import render_dashboard, shown_results
from survey_app.web.analyst_area import analyst_blueprint
from survey_app.web.live_updates import unless_unchanged

bp = analyst_blueprint("dashboard", __name__)


@bp.get("/surveys/<slug>")
@login_required
def dashboard(slug: str):
    """Respondents so far, estimates with exact and Chebyshev ranges, pooling, planning, exports."""
    return render_dashboard(owned_survey_or_404(current_user, slug))


@bp.get("/surveys/<slug>/results-panel")
@login_required
def results_panel(slug: str):
    """The dashboard's results alone, which the open dashboard fetches to refresh itself: an
    empty 304 while they are what the page shows (survey_app.web.live_updates)."""
    survey = owned_survey_or_404(current_user, slug)
    panel = render_template("dashboard/_results.html", survey=survey, **shown_results(survey))
    return unless_unchanged(make_response(panel))
