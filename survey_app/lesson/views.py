"""The lesson view: randomized response worked out, step by step, on the class's own answers.

``/analyst/surveys/<slug>/lesson`` shows one step at a time, for the projector (``?step=N``
and ``?question=N``: plain links, so it works without JavaScript; a small script moves through
them with the arrow keys and a presentation clicker's PageUp / PageDown). It uses only what
the dashboard may show: the released counts while the survey is open, never anyone's answer.
``/analyst/surveys/<slug>/lesson.html`` downloads every step as one self-contained HTML file.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, render_template, request, url_for
from flask_login import current_user, login_required

from survey_app import kinds
from survey_app.accounts.access import owned_survey_or_404
from survey_app.dashboard.rendering import chosen_confidence
from survey_app.lesson.presenters import lesson_steps
from survey_app.lesson.words import CHOOSER_TEXT_LENGTH, steps_of
from survey_app.results.releases import (
    MIN_ANSWERS_FOR_SHARES,
    release_batch,
    results_appear_at,
)
from survey_app.results.tables import DEFAULT_CONFIDENCE, survey_results
from survey_app.results.words import headline_range_kind
from survey_app.storage.models import Survey
from survey_app.web.file_names import attachment
from survey_app.web.languages import pin
from survey_app.web.parsing import parse_whole_number
from survey_app.web.security import never_cached

bp = Blueprint("lesson", __name__, url_prefix="/analyst/surveys/<slug>")

#: The stylesheets the downloaded lesson carries inline, in this order.
DOWNLOAD_STYLESHEETS = ("css/app.css", "css/lesson.css")


bp.after_request(never_cached)  # results are the professor's


def _whole_number(name: str, default: int, highest: int) -> int:
    """``?name=N`` as a number from 1 to ``highest``: ``default`` when absent or out of range
    (a link to a step or question the lesson does not have); a 400 in words when not a whole
    number (parsing.parse_whole_number)."""
    number = parse_whole_number(request.args.get(name), name, default)
    return number if 1 <= number <= highest else default


def _chosen_flip_probability() -> float | None:
    """Step 7's control: ``?p=0.15`` (the nearest row is picked); None when absent or bad."""
    try:
        value = float(request.args.get("p", ""))
    except ValueError:
        return None
    return value if 0.0 < value < 0.5 else None


def _first_yes_no(survey: Survey) -> int:
    """The number of the survey's first yes/no question (the lesson's subject), else 1."""
    for number, question in enumerate(survey.questions, start=1):
        if kinds.kind_of(question).lesson_form == "flip":
            return number
    return 1


def lesson_context(survey: Survey, one_step: bool = False) -> dict:
    """Everything the lesson's pages show: the question chosen and its steps (eight, nine for
    a pair); ``one_step``: the figures of the step asked for (``?step=N``) alone, its number
    ``step_number``."""
    if not survey.questions:
        abort(404)
    confidence = chosen_confidence()
    results = survey_results(survey, confidence)
    number = _whole_number("question", _first_yes_no(survey), len(results.questions))
    question = results.questions[number - 1]
    headline = headline_range_kind(results)
    form = kinds.kind_named(question.kind).lesson_form
    only = _whole_number("step", 1, len(steps_of(form))) if one_step else None
    return {
        "survey": survey,
        "results": results,
        "question": question,
        "confidence": confidence,
        "kept_confidence": _kept_confidence(confidence),
        "chooser_text_length": CHOOSER_TEXT_LENGTH,
        "headline": headline,
        "lesson_form": form,
        "step_number": only,
        "steps": lesson_steps(
            survey,
            question,
            confidence,
            headline,
            (results.answered, _results_appear_at(survey, results)),
            _chosen_flip_probability(),
            only,
        ),
        "dashboard_url": url_for("dashboard.dashboard", slug=survey.slug),
    }


def _results_appear_at(survey: Survey, results) -> int:
    """The count the survey's results appear at: while it is open, by the releases' one rule
    (as the dashboard says it); once closed, the fewest answers that show results."""
    if survey.is_open:
        return results_appear_at(results.respondents, release_batch())
    return MIN_ANSWERS_FOR_SHARES


def _kept_confidence(confidence: float) -> float | None:
    """The confidence a link or form of the lesson carries on: None at the default."""
    return None if confidence == DEFAULT_CONFIDENCE else confidence


def step_url(slug: str, question: int, step: int, confidence: float, **extra) -> str:
    """A step's own page (the links the keys and buttons follow)."""
    kept = _kept_confidence(confidence)
    return url_for(
        ".lesson_page", slug=slug, question=question, step=step, confidence=kept, **extra
    )


@bp.get("/lesson")
@login_required
def lesson_page(slug: str):
    """One step of the lesson, in projector type; the keys and buttons lead to the others."""
    survey = owned_survey_or_404(current_user, slug)
    pin(survey.language)  # the room is the class: it reads the survey's language
    context = lesson_context(survey, one_step=True)
    question = context["question"].number
    confidence = context["confidence"]
    steps = range(1, len(context["steps"]) + 1)
    return render_template(
        "lesson/lesson.html",
        **context,
        step=context["steps"][context["step_number"] - 1],
        step_urls=[step_url(slug, question, each, confidence) for each in steps],
        download_url=url_for(".lesson_download", slug=slug, question=question),
    )


def _inline_styles() -> str:
    """The lesson's stylesheets, read from the static folder, to carry inside the file."""
    folder = Path(current_app.static_folder)
    return "\n".join((folder / name).read_text("utf-8") for name in DOWNLOAD_STYLESHEETS)


@bp.get("/lesson.html")
@login_required
def lesson_download(slug: str):
    """Every step in one self-contained HTML file, to post on a course page (no script)."""
    survey = owned_survey_or_404(current_user, slug)
    pin(survey.language)  # posted for the class: in the survey's language
    context = lesson_context(survey)
    styles = _inline_styles()
    today = dt.date.today()
    page = render_template("lesson/lesson_download.html", **context, styles=styles, made_on=today)
    response = Response(page, mimetype="text/html")
    response.headers["Content-Disposition"] = attachment(survey.title, "lesson", "html", today)
    # Opened from this server, the file may use its own inline styles and nothing else.
    digest = base64.b64encode(hashlib.sha256(styles.encode("utf-8")).digest()).decode("ascii")
    response.headers["Content-Security-Policy"] = (
        f"default-src 'none'; style-src 'sha256-{digest}'; img-src data:; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    )
    return response
