"""The lesson's step on two questions asked together: what randomizing the pair as one answer
kept of how the two answers go together, against two separate questions at the same total
epsilon, and what that means for how many students it takes; the class's own difference as
the example. The figures come from survey_app.privacy.lesson_pairs; the step's sentences that
depend on a figure (a plural, a choice of words) are here, each whole, the others in its
template."""

from __future__ import annotations

from flask_babel import gettext, ngettext
from markupsafe import Markup, escape

from survey_app import kinds
from survey_app.lesson.figures import formula, mi, mn, mo, mrow, number, paren, times
from survey_app.privacy import lesson_pairs
from survey_app.results import rounding
from survey_app.results.tables import QuestionResult
from survey_app.storage.models import Survey
from survey_app.words import format_epsilon, format_number, grouped, percent, plural_number


def together_step(
    survey: Survey, question: QuestionResult, confidence: float, with_class: bool
) -> dict:
    """What the pair's randomization kept, against separate questions at half the budget
    each; with the class's answers shown (``with_class``), its difference as the example."""
    told = question.told
    figures = lesson_pairs.together(survey.flip_probability, told.shape)
    needed = [
        lesson_pairs.roughly(lesson_pairs.students_needed(kept, shape=told.shape))
        for kept in (figures.kept, figures.separate_kept)
    ]
    return {
        "cells": grouped(told.shape[0] * told.shape[1]),
        "epsilon": format_epsilon(figures.epsilon),
        "half_epsilon": format_epsilon(figures.half_epsilon),
        "kept": percent(figures.kept),
        "separate_kept": percent(figures.separate_kept),
        "students": more_students(figures.students_ratio),
        "needed": needed_students(*needed),
        "formulas": _formulas(figures),
        "difference": _class_difference(survey, question, confidence) if with_class else None,
    }


def _formulas(figures: lesson_pairs.Together) -> list[Markup]:
    """``P - Q = kept`` and ``(P1' - Q1') x (P2' - Q2') = kept separately``, with the digits
    written (privacy.lesson_pairs.together_working)."""
    working = lesson_pairs.together_working(figures)
    keep, other = (number(each, working.places) for each in (working.keep, working.other))
    kept = number(figures.kept)
    first, second = (number(each, working.separate_places) for each in working.gaps)
    separately = number(figures.separate_kept)

    def gap(index: str) -> str:
        # P₁′ − Q₁′: each question's, asked alone at half of epsilon.
        return paren(
            f"<msub>{mi('P′')}{mn(index)}</msub>{mo('−')}<msub>{mi('Q′')}{mn(index)}</msub>"
        )

    return [
        formula(
            mrow(mi("P"), mo("−"), mi("Q"), mo("="), mn(keep, 9), mo("−"), mn(other, 9))
            + mrow(mo("="), mn(kept)),
            f"P - Q = {keep} - {other} = {kept}",
            gettext("What asking together keeps"),
        ),
        formula(
            mrow(gap("1"), gap("2"), mo("="), times(mn(first, 9), mn(second, 9)))
            + mrow(mo("="), mn(separately)),
            f"(P1' - Q1') x (P2' - Q2') = {first} x {second} = {separately}",
            gettext("What asking separately keeps"),
        ),
    ]


def more_students(ratio: float) -> str:
    """How many times as many students separate questions need: the ratio to a whole number."""
    times_as_many = rounding.nearest(ratio, 1.0)
    if times_as_many < 2:
        return gettext(
            "So separate questions need about as many students to see the same relation as "
            "often: the students needed grow as one over the square of the share kept."
        )
    return ngettext(
        "So separate questions need about %(ratio)s time as many students to see the same "
        "relation as often: the students needed grow as one over the square of the share kept.",
        "So separate questions need about %(ratio)s times as many students to see the same "
        "relation as often: the students needed grow as one over the square of the share kept.",
        int(times_as_many),
        ratio=grouped(int(times_as_many)),
    )


def needed_students(together: int, separately: int) -> str:
    """The students a moderate relation needs, each way (privacy.lesson_pairs.students_needed)."""
    return ngettext(
        "To see a moderate relation (φ = %(phi)s) %(power)s of the time with a test at the "
        "%(level)s level takes about %(together)s student asked together, about %(separately)s "
        "asked separately.",
        "To see a moderate relation (φ = %(phi)s) %(power)s of the time with a test at the "
        "%(level)s level takes about %(together)s students asked together, about %(separately)s "
        "asked separately.",
        together,
        phi=format_number(lesson_pairs.MODERATE_RELATION),
        power=percent(lesson_pairs.PLANNED_POWER),
        level=percent(lesson_pairs.PLANNED_LEVEL),
        together=grouped(together),
        separately=grouped(separately),
    )


def _points(share: float, rounded=rounding.nearest) -> str:
    """A difference of shares in percentage points, to a tenth, with a true minus sign."""
    return format_number(rounded(share * 100, 0.1), 1).replace("-", "−")


def _class_difference(survey: Survey, question: QuestionResult, confidence: float):
    """The class's own difference and its guaranteed range, for a pair of two answers each
    (None for larger pairs, or where a row of the table is empty)."""
    association = question.told.association
    if association.difference is None or association.difference_low is None:
        return None
    stored = next(each for each in survey.questions if each.id == question.id)
    first, second = (dict(part["options"]) for part in kinds.kind_of(stored).shown_parts(stored))
    shares = question.told.row_shares
    return difference_words(
        (first[1], first[0], second[1]),
        (percent(shares[1][1]), percent(shares[0][1])),
        association.difference,
        (association.difference_low, association.difference_high),
        percent(confidence),
    )


def difference_words(
    labels: tuple[str, str, str],
    shares: tuple[str, str],
    difference: float,
    ends: tuple[float, float],
    confidence: str,
) -> Markup:
    """The class's difference (``#lesson-pair-difference``) in one sentence: of those who gave
    ``labels[0]`` to the pair's first question, the share who gave ``labels[2]`` to its
    second, against those who gave ``labels[1]``, and the difference's guaranteed range."""
    figures = {
        "among": shares[0],
        "first": labels[0],
        "second": labels[2],
        "others": shares[1],
        "first_other": labels[1],
        "difference": _points(difference),
        "low": _points(ends[0], rounding.down),
        "high": _points(ends[1], rounding.up),
        "confidence": confidence,
    }
    return Markup(
        ngettext(
            "In this class, about %(among)s of those who answered “%(first)s” to the first "
            "question answered “%(second)s” to the second, against %(others)s of those who "
            'answered “%(first_other)s”: a difference of <strong id="lesson-pair-difference">'
            "%(difference)s</strong> percentage point, between %(low)s and %(high)s, "
            "guaranteed at least %(confidence)s of the time.",
            "In this class, about %(among)s of those who answered “%(first)s” to the first "
            "question answered “%(second)s” to the second, against %(others)s of those who "
            'answered “%(first_other)s”: a difference of <strong id="lesson-pair-difference">'
            "%(difference)s</strong> percentage points, between %(low)s and %(high)s, "
            "guaranteed at least %(confidence)s of the time.",
            plural_number(abs(rounding.nearest(difference * 100, 0.1))),
            **{name: escape(value) for name, value in figures.items()},
        )
    )
