"""The JSON API under /api/v1."""

from __future__ import annotations

import json

from flask import Blueprint, abort, jsonify, request

from survey_app.errors import json_error
from survey_app.extensions import csrf
from survey_app.surveys import SubmissionRejected, find_survey, record_submission
from survey_app.views import public_definition

bp = Blueprint("api", __name__, url_prefix="/api/v1")


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


def _refuse_duplicates(pairs: list[tuple[str, object]]) -> dict:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key appears twice in one object")
    return dict(pairs)


def strict_json_body() -> object:
    """The request body as strict JSON (no NaN, no repeated keys), or SubmissionRejected."""
    if request.mimetype != "application/json":
        raise SubmissionRejected("the body must be JSON sent as Content-Type: application/json")
    body = request.get_data(cache=False)  # refuses bodies above MAX_CONTENT_LENGTH with 413
    try:
        return json.loads(
            body.decode("utf-8"),
            parse_constant=_refuse_constant,
            object_pairs_hook=_refuse_duplicates,
        )
    except UnicodeDecodeError:
        raise SubmissionRejected("the body must be UTF-8 encoded JSON") from None
    except (ValueError, RecursionError) as error:
        raise SubmissionRejected(f"the body is not valid JSON: {error}") from None


@bp.get("/surveys/<slug>")
def survey_definition(slug: str):
    """The public definition of an open or closed survey."""
    survey = find_survey(slug)
    if survey is None or survey.is_draft:
        abort(404)
    return jsonify(public_definition(survey))


@bp.post("/surveys/<slug>/responses")
@csrf.exempt  # takes no cookies or credentials; JSON only; stores only randomized values
def submit_response(slug: str):
    """Record one submission of randomized answers."""
    try:
        submission_id, created = record_submission(slug, strict_json_body())
    except SubmissionRejected as rejection:
        return json_error(str(rejection), rejection.status)
    response = jsonify(submission_id=submission_id, status="recorded")
    response.status_code = 201 if created else 200
    return response
