"""The professor's side of one-time codes: require them, issue them, print them as slips.

Codes are shown once, in the response that issues them (a page of slips to print and cut, or
a CSV file), and never again: the database keeps only their hashes (see
:mod:`survey_app.classroom.codes`).
"""

from __future__ import annotations

import csv
import io

from flask import (
    Blueprint,
    Response,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext
from flask_login import current_user, login_required

from survey_app.accounts.access import owned_survey_or_404
from survey_app.classroom.codes import (
    CodeRequestError,
    format_code,
    issue_codes,
    parse_code_count,
    require_codes,
)
from survey_app.classroom.qr_codes import qr_code_svg
from survey_app.classroom.words import slip_join, slips_heading
from survey_app.dashboard.rendering import render_dashboard
from survey_app.extensions import db
from survey_app.surveys.services import SurveyStateError
from survey_app.web.file_names import attachment
from survey_app.web.languages import is_english
from survey_app.web.links import external_url, is_absolute
from survey_app.web.security import never_cached
from survey_app.words import grouped

bp = Blueprint("codes", __name__, url_prefix="/analyst")

#: The session's key for the batches of codes issued lately (each issue form names its own).
ISSUED_BATCHES = "issued_code_batches"
#: How many of them it remembers: enough for a morning of sections, small in the cookie.
REMEMBERED_BATCHES = 20


bp.after_request(never_cached)  # a page of codes is shown once


@bp.post("/surveys/<slug>/codes/required")
@login_required
def set_required(slug: str):
    """Require a one-time code from every respondent of a draft, or stop requiring one."""
    survey = owned_survey_or_404(current_user, slug)
    required = request.form.get("required") == "1"
    try:
        require_codes(survey, required)
    except SurveyStateError as error:
        db.session.rollback()
        flash(str(error), "error")
    else:
        db.session.commit()
        flash(
            gettext("Each respondent will need a one-time code. Issue the codes below.")
            if required
            else gettext("Respondents will not need a code."),
            "success",
        )
    return redirect(url_for("dashboard.dashboard", slug=slug, _anchor="codes-heading"))


def refused_count_words(error: CodeRequestError) -> str:
    """Why the number of codes asked for is refused, as a sentence: English says the rule's
    words as the command line does; another language, the catalog's sentence for its reason."""
    if is_english():
        message = str(error)
        return message[0].upper() + message[1:] + "."
    figures = error.figures
    if error.reason == "not_whole":
        return gettext(
            "The number of codes must be a whole number, not “%(typed)s”.", typed=figures["typed"]
        )
    if error.reason == "out_of_range":
        return gettext(
            "The number of codes must be from 1 to %(most)s, not %(count)s.",
            most=grouped(figures["most"]),
            count=grouped(figures["count"]),
        )
    return gettext(
        "A survey holds at most %(most)s codes; this one has %(held)s.",
        most=grouped(figures["most"]),
        held=grouped(figures["held"]),
    )


def codes_csv(codes: list[str]) -> str:
    """The codes as CSV: a header, then one code a row (Excel-friendly: BOM and CRLF)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["code"])
    writer.writerows([format_code(code)] for code in codes)
    return "\ufeff" + buffer.getvalue()


def _sent_before(batch: str) -> bool:
    """True if this form's batch of codes was issued already (the form sent again)."""
    return bool(batch) and batch in session.get(ISSUED_BATCHES, [])


def _remember_batch(batch: str) -> None:
    """Note the batch as issued, keeping only the latest few in the session."""
    if batch:
        session[ISSUED_BATCHES] = [
            *session.get(ISSUED_BATCHES, [])[-(REMEMBERED_BATCHES - 1) :],
            batch,
        ]


def _codes_download(survey, codes: list[str]) -> Response:
    """The codes as a CSV file to save."""
    return Response(
        codes_csv(codes),
        mimetype="text/csv",
        headers={"Content-Disposition": attachment(survey.title, "one-time-codes", "csv")},
    )


def _slips_page(survey, codes: list[str]) -> str:
    """The page of slips to print and cut: each code, with a QR code to scan when it can."""
    join_url = external_url("respondent.home")
    # A QR code of a bare path would lead a phone nowhere: without a known public address the
    # slips carry none, and the page says why (links.external_url never trusts the Host header).
    address_known = is_absolute(join_url)
    slips = [
        {
            "code": format_code(code),
            # The code rides in the fragment, which browsers never send to a server: scanning
            # the slip fills the code in without the code reaching any log.
            "qr": qr_code_svg(
                external_url("respondent.join_by_code", code=survey.join_code)
                + "#code="
                + format_code(code)
            )
            if survey.join_code and address_known
            else None,
        }
        for code in codes
    ]
    return render_template(
        "classroom/code_slips.html",
        survey=survey,
        slips=slips,
        heading=slips_heading(len(slips), survey.title),
        slip_join=slip_join(join_url, survey.join_code),
        join_url=join_url,
        address_known=address_known,
        csv_data=codes_csv(codes),
    )


@bp.post("/surveys/<slug>/codes")
@login_required
def issue(slug: str):
    """Issue one-time codes and show them once: slips to print, or a CSV file."""
    survey = owned_survey_or_404(current_user, slug)
    batch = request.form.get("batch", "")[:64]
    if _sent_before(batch):
        # The same form sent again (a reload of the slips page): its codes were issued and
        # shown; another batch now would leave codes no one asked for. (A double click, whose
        # first request the browser drops, is stopped on the page: analyst.js.) The dashboard's
        # top, where the message is.
        flash(
            gettext(
                "Those codes were issued when the form was first sent, and codes are shown "
                "only once. If you did not print or save them, issue new ones under “One answer "
                "per student”."
            ),
            "error",
        )
        return redirect(url_for("dashboard.dashboard", slug=slug))
    typed = request.form.get("count", "")
    try:
        codes = issue_codes(survey, parse_code_count(typed))
    except CodeRequestError as error:
        # The dashboard again, with what was typed and why next to the field: a redirect would
        # put the field back to its default and the words at the top of the page.
        db.session.rollback()
        said = refused_count_words(error)
        return render_dashboard(survey, code_count=typed[:64], code_count_error=said), 400
    except SurveyStateError as error:
        db.session.rollback()
        flash(str(error), "error")
        return redirect(url_for("dashboard.dashboard", slug=slug, _anchor="codes-heading"))
    db.session.commit()
    _remember_batch(batch)
    if request.form.get("format") == "csv":
        return _codes_download(survey, codes)
    return _slips_page(survey, codes)
