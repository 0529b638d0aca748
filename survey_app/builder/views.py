"""The analyst's builder pages: the survey list, a new survey, a draft's edits, the preview, and
the builder's live privacy readout (JSON). The form -> definition service is
survey_app.builder.form."""

from __future__ import annotations

from dataclasses import dataclass

from flask import flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext, lazy_gettext
from flask_login import current_user, login_required
from sqlalchemy import select
from sqlalchemy.orm import undefer

from survey_app import kinds
from survey_app.accounts.access import owned_survey_or_404
from survey_app.builder.errors import (
    builder_errors,
    errors_heading,
    wide_heading,
    wide_range_words,
    worded_error,
)
from survey_app.builder.form import (
    definition_from_form,
    definition_of,
    field_limits,
    figure_g,
    is_much_wider,
    range_of,
    ranges_before_from_form,
    ranges_to_carry,
    removed_field,
    removed_from_form,
    shown_bound,
    warner_flip_probability,
    warner_q_shown,
)
from survey_app.extensions import db
from survey_app.kinds.numeric import typed_or_text
from survey_app.planning import shares as planning
from survey_app.respondents.words import privacy_words
from survey_app.results.exports import date_like_labels
from survey_app.storage.models import Survey
from survey_app.surveys.definition_checks import SurveyDefinitionError
from survey_app.surveys.services import (
    MAX_QUESTIONS,
    SurveyDefinition,
    create_survey,
    parse_definition,
    replace_questions,
)
from survey_app.surveys.typed_numbers import whole_number
from survey_app.surveys.words import privacy_explanation
from survey_app.web.analyst_area import analyst_blueprint
from survey_app.web.forms import ActionForm
from survey_app.web.languages import enter_students_page, is_english, pin
from survey_app.words import grouped

bp = analyst_blueprint("builder", __name__)

#: What the survey list calls each status, in its badge.
STATUS_NAMES = {
    "draft": lazy_gettext("draft"),
    "open": lazy_gettext("open"),
    "closed": lazy_gettext("closed"),
}


def respondents_shown(count: int) -> str:
    """How many answered, as the survey list shows it: "1234" in English (as it always did),
    grouped the page language's way otherwise ("1.234")."""
    return str(count) if is_english() else grouped(count)


@bp.get("/")
@login_required
def surveys():
    """The signed-in analyst's surveys, but for those archived (counted, and a link away)."""
    owned = list(
        db.session.execute(
            select(Survey)
            .where(Survey.owner_id == current_user.id)
            .order_by(Survey.created_at.desc())
            # Each row shows how many answered: counted in the list's one query, not one a row.
            .options(undefer(Survey.respondents))
        ).scalars()
    )
    return render_template(
        "builder/surveys.html",
        surveys=[survey for survey in owned if not survey.archived],
        archived_count=sum(survey.archived for survey in owned),
        status_names=STATUS_NAMES,
        respondents=respondents_shown,
        form=ActionForm(),
    )


BLANK_DEFINITION = {
    "title": "",
    "intro": "",
    "flip_probability": 0.25,
    "questions": [next(iter(kinds.KINDS.values())).blank()],
}

#: What the builder says when asked for one question more than a survey holds.
QUESTION_LIMIT_WORDS = lazy_gettext(
    "A survey holds at most %(limit)s questions.", limit=MAX_QUESTIONS
)


#: The new question each "Add" button adds: a number's bounds start empty (placeholders).
def new_questions() -> dict[str, dict]:
    """The new question each kind's "Add" button (named add_<kind>) adds."""
    return {f"add_{kind.name}": kind.blank() for kind in kinds.KINDS.values()}


@dataclass
class Draft:
    """The builder's form as posted: the definition, each question's range as the page last
    showed it (to ask before saving one much wider), and what the next page shows."""

    definition: dict
    before: list
    removed: tuple | None = None  # (place, question, range before): carried for its undo
    focus: str | None = None  # the id of the field the page puts focus on
    notice: str | None = None

    @classmethod
    def from_form(cls) -> Draft:
        definition = definition_from_form()
        return cls(definition, ranges_before_from_form(len(definition["questions"])))

    @classmethod
    def of(cls, definition: dict) -> Draft:
        return cls(definition, [range_of(q) for q in definition["questions"]])

    def wide_ranges(self) -> list:
        """The questions whose range is now much wider than the one typed before."""
        return [
            wide_range_words(index, range_of(question), earlier)
            for index, (question, earlier) in enumerate(
                zip(self.definition["questions"], self.before, strict=True)
            )
            if is_much_wider(range_of(question), earlier)
        ]


def apply_builder_action(draft: Draft) -> bool:
    """Add, remove or restore a question as the pressed button asks; True if it was such a
    button (the page comes back), False for saving."""
    definition, questions = draft.definition, draft.definition["questions"]
    action = request.form.get("action", "save")
    if action in new_questions():
        if len(questions) >= MAX_QUESTIONS:
            draft.notice, draft.focus = QUESTION_LIMIT_WORDS, "builder-notice"
        else:
            questions.append(_copy_question(new_questions()[action]))
            draft.before.append(None)
            draft.focus = f"question-text-{len(questions) - 1}"
    elif action == "apply_warner":  # Warner's coins: p = q / 2 (pages without JavaScript)
        warner = warner_flip_probability(request.form.get("warner_q", ""))
        if warner is not None:  # else the field's own check says why when the draft is saved
            definition["flip_probability"] = warner
    elif action.startswith("remove_") and whole_number(action[7:]) is not None:
        index = whole_number(action[7:])
        if index < len(questions):
            draft.removed = (index, questions.pop(index), draft.before.pop(index))
            draft.focus = "undo-remove"
    elif action == "undo_remove":
        restore(draft)
    elif action == "review_wide":  # back from "save it anyway?" to the range typed
        wide = draft.wide_ranges()
        draft.focus = f"question-max-{wide[0].index}" if wide else None
    elif action == "apply_suggestion":
        suggestion = planning.builder_readout(definition, *planning_fields())["suggestion"]
        if suggestion and suggestion.get("flip_probability") is not None:
            definition["flip_probability"] = suggestion["flip_probability"]
    elif action != "plan":  # "plan" only shows the figures again (pages without JavaScript)
        return False
    return True


def restore(draft: Draft) -> None:
    """Put the question the last button removed back at its place (the undo)."""
    removed = removed_from_form()
    questions = draft.definition["questions"]
    if removed is None:
        return
    if len(questions) >= MAX_QUESTIONS:
        draft.notice, draft.focus = QUESTION_LIMIT_WORDS, "builder-notice"
        return
    index, question, earlier = removed
    index = min(max(index, 0), len(questions))
    questions.insert(index, question)
    draft.before.insert(index, earlier)
    draft.focus = f"question-text-{index}"


def planning_fields(planned: int = planning.DEFAULT_CLASS_SIZE) -> tuple[str, str]:
    """The class size (saved with the survey, by planning.parse_class_size) and the margin
    wanted (not), as typed in the builder; the class size ``planned`` before anything was
    typed."""
    form = request.form
    return form.get("class_size", str(planned)), form.get("margin", "")


def render_builder(
    draft: Draft, survey: Survey | None = None, errors: list | None = None, wide: list = ()
):
    """The builder page for ``draft``: with its errors beside their fields (400), or asking
    before saving ranges much wider than before, or as the last button left it."""
    definition = draft.definition
    class_size, margin = planning_fields(
        definition.get("expected_respondents", planning.DEFAULT_CLASS_SIZE)
    )
    errors = errors or []
    focus = errors[0].field_id if errors else "wide-range-ask" if wide else draft.focus
    removed = draft.removed
    return (
        render_template(
            "builder/builder.html",
            definition=definition,
            survey=survey,
            errors=errors,
            errors_heading=errors_heading(errors),
            wide_heading=wide_heading(wide),
            error_of={error.field_id: error for error in errors},
            focus=focus,
            notice=draft.notice,
            wide=wide,
            before=ranges_to_carry(definition, draft.before),
            removed=removed and {"number": removed[0] + 1, "field": removed_field(*removed)},
            max_questions=MAX_QUESTIONS,
            question_kinds=list(kinds.KINDS.values()),
            shown_bound=shown_bound,
            question_limit_words=QUESTION_LIMIT_WORDS,
            form=ActionForm(),
            class_size=class_size,
            margin=margin,
            planning=planning,
            limits=field_limits(),
            suggested_figure=figure_g,
            warner_q=warner_q_shown(definition.get("flip_probability")),
            # The same figures and words as the live readout's JSON.
            readout=planning.builder_readout(definition, class_size, margin),
        ),
        400 if errors else 200,
    )


def checked_draft(draft: Draft, survey: Survey | None = None):
    """The posted draft checked for saving: (its definition, None), or (None, the page that
    says what to change or asks before saving a much wider range)."""
    _, class_size_error = planning.parse_class_size(request.form.get("class_size"))
    errors = builder_errors(draft.definition, class_size_error)
    if errors:
        return None, render_builder(draft, survey, errors=errors)
    wide = draft.wide_ranges()
    if wide and request.form.get("action") != "save_wide":
        return None, render_builder(draft, survey, wide=wide)
    try:
        return parse_definition(draft.definition), None
    except SurveyDefinitionError as error:  # builder_errors found none: a safety net
        return None, render_builder(draft, survey, errors=[worded_error(error)])


@bp.route("/surveys/new", methods=["GET", "POST"])
@login_required
def new_survey():
    """Build a new survey (it starts as a draft)."""
    if request.method == "GET":
        return render_builder(Draft.of(_copy(BLANK_DEFINITION)))
    draft = Draft.from_form()
    if apply_builder_action(draft):
        return render_builder(draft)
    checked, page = checked_draft(draft)
    if checked is None:
        return page
    survey = create_survey(current_user, checked)
    db.session.commit()
    flash(
        gettext("Draft saved. Preview it, then open it to respondents when it is ready."),
        "success",
    )
    note_date_like_labels(checked)
    return redirect(url_for("dashboard.dashboard", slug=survey.slug))


@bp.route("/surveys/<slug>/edit", methods=["GET", "POST"])
@login_required
def edit_survey(slug: str):
    """Change a draft; a survey that has opened keeps its questions and mechanism."""
    survey = owned_survey_or_404(current_user, slug)
    if not survey.is_draft:
        flash(
            gettext(
                "A survey that has opened can no longer change: answers must all come from "
                "the same questions and the same randomization."
            ),
            "error",
        )
        return redirect(url_for("dashboard.dashboard", slug=slug))
    if request.method == "GET":
        return render_builder(Draft.of(definition_of(survey)), survey)
    draft = Draft.from_form()
    if apply_builder_action(draft):
        return render_builder(draft, survey)
    checked, page = checked_draft(draft, survey)
    if checked is None:
        return page
    survey.title = checked.title
    survey.intro = checked.intro
    survey.flip_probability = checked.flip_probability
    survey.expected_respondents = checked.expected_respondents
    survey.show_results_after_close = checked.show_results_after_close
    survey.language = checked.language
    replace_questions(survey, checked.questions)
    db.session.commit()
    flash(gettext("Draft saved."), "success")
    note_date_like_labels(checked)
    return redirect(url_for("dashboard.dashboard", slug=slug))


def note_date_like_labels(definition: SurveyDefinition) -> None:
    """Say, after a save, which options a spreadsheet would turn into dates in the exports."""
    labels = date_like_labels(
        label for question in definition.questions for label in question.choices or ()
    )
    if labels:
        quoted = ", ".join(gettext("“%(text)s”", text=label) for label in labels[:3])
        flash(
            gettext(
                "Excel shows options such as %(options)s as dates when it opens the exported "
                "files (the number beside each answer stays right). Writing “1 to 2” avoids it.",
                options=quoted,
            ),
            "notice",
        )


def _copy(definition: dict) -> dict:
    return {**definition, "questions": [_copy_question(q) for q in definition["questions"]]}


def _copy_question(question: dict) -> dict:
    return {
        name: list(value) if isinstance(value, list) else value for name, value in question.items()
    }


@bp.get("/surveys/<slug>/preview")
@login_required
def preview(slug: str):
    """The survey as respondents will see it; nothing can be sent from a preview."""
    survey = owned_survey_or_404(current_user, slug)
    enter_students_page()  # as its students will see it, in the class's language
    pin(survey.language)
    explanation = privacy_explanation(survey)
    return render_template(
        "respondents/survey.html",
        survey=survey,
        explanation=explanation,
        privacy_words=privacy_words(explanation),
        preview=True,
    )


@bp.route("/privacy-readout", methods=["GET", "POST"])
@login_required
def readout():
    """What p means and what the class will learn, for the builder's live readout (JSON).

    POST: the builder's form, as the page sends it while it changes. GET: ``flip_probability``,
    ``questions`` (how many yes/no questions), ``class_size`` and ``margin``.
    """
    if request.method == "POST":
        return jsonify(planning.builder_readout(definition_from_form(), *planning_fields()))
    # Typed as the builder's field is ("0,3" is 0.3); anything else is refused in words.
    value = typed_or_text(request.args.get("flip_probability", ""))
    count = min(whole_number(request.args.get("questions", "1")) or 1, MAX_QUESTIONS)
    definition = {"flip_probability": value, "questions": planning.yes_no_questions(count)}
    return jsonify(
        planning.builder_readout(
            definition, request.args.get("class_size"), request.args.get("margin")
        )
    )
