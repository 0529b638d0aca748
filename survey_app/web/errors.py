"""Error pages for people and JSON errors for API clients."""

from __future__ import annotations

from flask import Flask, Response, jsonify, render_template, request
from flask_babel import gettext, lazy_gettext
from werkzeug.exceptions import HTTPException, SecurityError

from survey_app.web.languages import enter_error_page
from survey_app.web.parsing import QueryError

# The join form and join links: limited per address, one count for both.
from survey_app.web.ratelimits import JOIN_ENDPOINTS

#: Plain words for the error pages people see.
MESSAGES = {
    400: lazy_gettext("The request could not be understood."),
    401: lazy_gettext("Please sign in first."),
    403: lazy_gettext("You are not allowed to do that."),
    404: lazy_gettext("There is nothing here. Check the link you were given."),
    405: lazy_gettext("That is not something this address can do."),
    409: lazy_gettext("That conflicts with the current state of the survey."),
    410: lazy_gettext("This survey has closed and no longer takes answers."),
    413: lazy_gettext("What was sent is too large."),
    429: lazy_gettext("Too many attempts. Please wait a minute and try again."),
    500: lazy_gettext(
        "Something went wrong on our side. Nothing you sent was lost; please try again."
    ),
}


BUSY = lazy_gettext(
    "Many people are joining from this network right now. Wait a minute, then press Join "
    "again (or scan the QR code)."
)


def wants_json() -> bool:
    return request.path.startswith("/api/")


#: The machine-readable ``code`` of an API error, by status, when no more precise one is given.
CODES = {
    400: "invalid",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    429: "rate_limited",
    500: "internal",
}

#: The reasons the respondent page's submission (POST /api/v1/surveys/<slug>/responses) may
#: get: those survey_app.respondents.submissions gives, and those of errors any request may meet
#: there.
#: static/js/survey-replies.js says what the page does with each (a test checks the two lists
#: hold the same codes).
SUBMISSION_CODES = frozenset(
    {
        "invalid",
        "not_found",
        "survey_not_open",
        "already_used",
        "code_required",
        "code_invalid",
        "code_used",
        "method_not_allowed",
        "too_large",
        "rate_limited",
        "internal",
    }
)

#: Every ``code`` the JSON API sends: those by status, the submission's, and the analyst's
#: (an export asked too early, or a page left open past its session).
API_CODES = (
    frozenset(CODES.values())
    | SUBMISSION_CODES
    | {"survey_not_closed", "results_held", "signed_out"}
)


def json_error(message: str, status: int, code: str | None = None):
    """``{"error": <words for people>, "code": <a reason for programs>}`` with ``status``."""
    response = jsonify(error=message, code=code or CODES.get(status, "error"))
    response.status_code = status
    return response


#: The one character no address may hold: PostgreSQL can neither store nor compare text with it,
#: and no link of this site writes it.
NUL = "\x00"


def register(app: Flask) -> None:
    @app.before_request
    def _no_nul_in_the_address():
        query = request.args.items(multi=True)
        if NUL in request.path or any(NUL in name + value for name, value in query):
            raise QueryError("the address holds a NUL character (U+0000), which no page reads")

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException):
        status = error.code or 500
        if isinstance(error, SecurityError):
            # A Host header outside SURVEY_APP_TRUSTED_HOSTS: no page of this site can be
            # built for it (its links would name that host), so a plain answer.
            return Response("This address is not served here.\n", 400, mimetype="text/plain")
        if wants_json():
            response = json_error(_api_message(error), status)
            if status == 401:
                response.headers["WWW-Authenticate"] = 'Bearer realm="survey-app"'
            return response
        enter_error_page()  # its words are translated, whichever page it stands for
        if status == 429 and request.endpoint in JOIN_ENDPOINTS:
            # A lecture hall shares one address: the join form again, with what to do.
            page = render_template(
                "respondents/join.html", code=request.args.get("code", "")[:100], error=BUSY
            )
            return page, 429, {"Retry-After": "60"}
        message = MESSAGES.get(status, error.description)
        return render_template("error.html", status=status, message=message), status

    @app.errorhandler(QueryError)
    def _bad_query(error: QueryError):
        # An address whose query names something no page can show: a 400 that says which.
        if wants_json():
            return json_error(str(error), 400)
        enter_error_page()
        message = gettext(
            "This address asks for something the page cannot show: %(reason)s.", reason=str(error)
        )
        return render_template("error.html", status=400, message=message), 400

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        app.logger.exception("unhandled error")
        if wants_json():
            return json_error("internal error; nothing was stored", 500)
        enter_error_page()
        return render_template("error.html", status=500, message=MESSAGES[500]), 500


def _api_message(error: HTTPException) -> str:
    if error.code == 413:
        return f"the body is too large (at most {request.max_content_length // 1024:,} KiB)"
    if error.code == 404:
        return "not found"
    if error.code == 405:
        return "method not allowed"
    if error.code == 400 and error.description and "CSRF" in error.description:
        return error.description
    return (error.description or error.name).strip()
