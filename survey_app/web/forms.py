"""The form of the analyst's buttons that change something. No blueprint owns this module: the
builder's, the dashboard's, the management and the account pages all render it.

Every POST is checked for its CSRF token once, for the whole app, by Flask-WTF's CSRFProtect
(survey_app.extensions, bound in create_app): a missing or wrong token is refused with a 400
before any view runs, so no view checks it again.
"""

from __future__ import annotations

from flask_wtf import FlaskForm


class ActionForm(FlaskForm):
    """A button that changes something: no fields, only the CSRF token its page carries
    (``form.hidden_tag()``)."""
