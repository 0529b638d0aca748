"""The JSON API under /api/v1."""

from __future__ import annotations

from flask import (
    Blueprint,
    Response,
    abort,
    jsonify,
    request,
    stream_with_context,
)

from survey_app.accounts.access import api_analyst, owned_survey_or_404, owned_surveys_or_404
from survey_app.extensions import csrf
from survey_app.respondents.definition import public_definition
from survey_app.respondents.submissions import SubmissionRejected, record_submission
from survey_app.results.documents import results_document
from survey_app.results.exports import responses_csv, results_csv
from survey_app.results.tables import PoolingError, survey_results
from survey_app.surveys.services import find_survey
from survey_app.web import strictjson
from survey_app.web.errors import json_error
from survey_app.web.file_names import attachment
from survey_app.web.languages import SHIPPED_LANGUAGES, is_shipped
from survey_app.web.parsing import QueryError, parse_confidence, parse_survey_list
from survey_app.web.ratelimits import DEVICE_HEADER, DeviceHeaderError, device_id
from survey_app.web.security import never_cached

bp = Blueprint("api", __name__, url_prefix="/api/v1")


def strict_json_body() -> object:
    """The request body as strict JSON (no NaN, no repeated keys), or SubmissionRejected."""
    if request.mimetype != "application/json":
        raise SubmissionRejected("the body must be JSON sent as Content-Type: application/json")
    body = request.get_data(cache=False)  # refuses bodies above MAX_CONTENT_LENGTH with 413
    limit = request.max_content_length
    # A body of no declared length (chunked) is cut at the limit, not refused, by Werkzeug;
    # one more byte on the wire means it was too large.
    if request.content_length is None and limit is not None and len(body) >= limit:
        if request.environ["wsgi.input"].read(1):
            abort(413)
    try:
        return strictjson.loads(body.decode("utf-8"))
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
        # The device id only counts the device's submissions (ratelimits): never stored.
        device_id(request.headers.get(DEVICE_HEADER))
    except DeviceHeaderError as error:
        return json_error(str(error), 400)
    try:
        submission_id, created = record_submission(slug, strict_json_body())
    except SubmissionRejected as rejection:
        return json_error(str(rejection), rejection.status, rejection.code)
    response = jsonify(submission_id=submission_id, status="recorded")
    response.status_code = 201 if created else 200
    return response


def requested_confidence() -> float:
    """The ``confidence`` query parameter, in (0, 1); else a QueryError, which errors answers
    with a 400 in its words (parsing.parse_confidence)."""
    return parse_confidence(request.args.get("confidence"))


def csv_response(lines, survey, holds: str) -> Response:
    """A CSV download, named by the survey's title and the day (file_names)."""
    response = Response(stream_with_context(lines), mimetype="text/csv")
    response.headers["Content-Disposition"] = attachment(survey.title, holds, "csv")
    return never_cached(response)


@bp.get("/surveys/<slug>/results")
def survey_results_json(slug: str):
    """Debiased estimates and Chebyshev intervals of the caller's own survey."""
    survey = owned_survey_or_404(api_analyst(), slug)
    confidence = requested_confidence()
    return never_cached(jsonify(results_document(survey_results(survey, confidence))))


def requested_slugs() -> list[str]:
    """The ``surveys`` query parameter: slugs separated by commas, each once; else a
    QueryError (a 400 in its words)."""
    return parse_survey_list(request.args.getlist("surveys"))


@bp.get("/results")
def pooled_results_json():
    """Several of the caller's surveys with the same questions and p, their answers pooled."""
    analyst = api_analyst()
    surveys = owned_surveys_or_404(analyst, requested_slugs())
    confidence = requested_confidence()
    try:
        results = survey_results(surveys, confidence)
    except PoolingError as error:
        abort(400, description=f"these surveys cannot be pooled: {error}")
    return never_cached(jsonify(results_document(results)))


def requested_labels() -> str | None:
    """The ``labels`` query parameter: the shipped language the columns' names are asked in
    ("de"), None when absent; else a QueryError (a 400 in its words)."""
    raw = request.args.get("labels")
    if raw is None or is_shipped(raw):
        return raw
    shipped = ", ".join(SHIPPED_LANGUAGES)
    shown = raw if len(raw) <= 20 else raw[:20] + "…"  # a value may be thousands of characters
    raise QueryError(
        f"labels must be the code of a language the app speaks ({shipped}), got {shown!r}"
    )


@bp.get("/surveys/<slug>/results.csv")
def survey_results_csv(slug: str):
    """One CSV row a question option, with the estimate and its interval (and names: labels)."""
    survey = owned_survey_or_404(api_analyst(), slug)
    results = survey_results(survey, requested_confidence())
    return csv_response(results_csv(results, requested_labels()), survey, "results")


@bp.get("/surveys/<slug>/responses.csv")
def survey_responses_csv(slug: str):
    """Every submission's randomized values, streamed."""
    survey = owned_survey_or_404(api_analyst(), slug)
    if survey.is_open:
        # A row per submission, read before and after one arrival, would show its answers:
        # while open, results come only in releases of several (survey_app.results.releases).
        return json_error(
            "the randomized responses can be exported once the survey closes; until then, "
            "results.csv has the results released so far",
            409,
            "survey_not_closed",
        )
    if survey.results_held:
        # Reopened and closed again before a batch of new answers: comparing this export with
        # the one before would show those few rows.
        return json_error(
            "this survey was reopened and closed again before a batch of new answers came in; "
            "its responses can be exported once it has",
            409,
            "results_held",
        )
    # The saved file's name says what its rows are: scrambled answers, not people's own.
    return csv_response(responses_csv(survey), survey, "randomized-responses")
