"""Presenters: what pages and the API show of a survey and its results, in one place.

They shape and word what other modules computed (no math here: survey_app.privacy does it).
"""

from __future__ import annotations

import functools
import math

import segno
from markupsafe import Markup

from survey_app import kinds, privacy
from survey_app.results import rounding
from survey_app.results.tables import NumericResult, SurveyResults
from survey_app.storage.models import Question, Survey

# The words' one rule for plurals, units and percentage points (survey_app.words), offered here
# too: pages and other presenters take their words from the presenters.
from survey_app.words import (  # noqa: F401
    counted,
    format_epsilon,
    format_number,
    format_points,
    format_upper_bound,
    join_words,
    percent,
    percent_high,
    percent_low,
    plural,
    point_figure,
    points,
    precise_points,
    with_unit,
)


def public_definition(survey: Survey) -> dict:
    """The survey as a respondent's browser needs it: questions, options and the mechanism."""
    epsilon = survey.epsilon_per_question
    return {
        "survey": survey.slug,
        "join_code": survey.join_code,
        "title": survey.title,
        "intro": survey.intro,
        "status": survey.status.value,
        # True: a submission must carry an unused one-time code as "code".
        "requires_code": survey.requires_codes,
        "flip_probability": survey.flip_probability,
        "epsilon_per_question": epsilon,
        "epsilon_total": survey.epsilon_total,
        "questions": [
            {
                "id": question.id,
                "text": question.text,
                "type": question.kind,
                "options": [
                    {"value": value, "label": label}
                    for value, label in enumerate(question.option_labels)
                ],
                "epsilon": epsilon,
                **browser_fields(question.mechanism, question),
            }
            for question in survey.questions
        ],
    }


@functools.singledispatch
def browser_fields(mechanism: privacy.Mechanism, question: Question) -> dict:
    """What a browser needs, beyond a question's options, to randomize its answers through
    ``mechanism``: each kind of mechanism answers for itself, so callers never ask which kind
    a question is. Randomized response needs nothing more (its options and the survey's flip
    probability say it all)."""
    return {}


@browser_fields.register(privacy.NumericMechanism)
def numeric_definition(mechanism: privacy.NumericMechanism, question: Question) -> dict:
    """What a browser needs to randomize a numeric answer: bounds, mechanism and its integers.

    ``mechanism.parameters`` are the integers randomized-response.js takes
    (browser_parameters()); ``report_range`` is what the submission API accepts.
    """
    low, high = mechanism.output_range
    return {
        "min": question.minimum,
        "max": question.maximum,
        "unit": question.unit or "",
        "mechanism": {
            "name": mechanism.name,
            "named_in_definition": question.numeric_mechanism is not None,
            "parameters": mechanism.browser_parameters(),
            "real_epsilon": mechanism.real_epsilon,
        },
        "report_range": [low, high],
    }


def privacy_explanation(survey: Survey) -> dict:
    """Plain-language figures of the privacy each answer gets, computed from p."""
    p = survey.flip_probability
    epsilon = survey.epsilon_per_question
    return {
        "flip_percent": _percent(p),
        "flip_one_in": 1.0 / p,
        "odds": privacy.odds_ratio(p),
        "deniability_percent": _percent(privacy.deniability(p)),
        "epsilon": epsilon,
        "epsilon_total": survey.epsilon_total,
        "question_count": len(survey.questions),
        # Warner's coins: a fair coin, then on tails a second coin that says "lie" with
        # probability q = 2p (randomized response with flip probability p = q / 2).
        "warner_lie_percent": _percent(min(1.0, privacy.warner_q_from_flip_probability(p))),
        "has_numeric": any(not q.has_options for q in survey.questions),
        "has_yes_no": any(q.kind == "yes_no" for q in survey.questions),
        "has_choice": any(q.kind == "choice" for q in survey.questions),
        "group_examples": [(k, privacy.total_epsilon([survey.epsilon_total] * k)) for k in (2, 5)],
        "how": privacy_how(survey.questions, _percent(p)),
        "questions": counted(len(survey.questions), "question"),
    }


def privacy_how(questions, flip_percent: str) -> str:
    """What each kind of question asked gets, in one sentence: "Each respondent’s browser flips
    a yes/no answer 25% of the time and adds random noise to each number before sending it,
    all at the same strength"."""
    asked = {question.kind for question in questions}
    # In the registry's order (yes/no first), each kind asked once.
    ways = [kind.way(flip_percent) for name, kind in kinds.KINDS.items() if name in asked]
    how = f"Each respondent’s browser {join_words(ways)} before sending it"
    if "yes_no" not in asked:
        return f"{how} (as much protection as a {flip_percent}% flip of a yes/no answer)"
    return f"{how}, all at the same strength" if len(ways) > 1 else how


def format_count(respondents: int) -> str:
    """A number of respondents for people: 1234 -> '1,234'; the planner's ceiling -> 'over ...'.

    Planning searches stop at privacy.MAX_PLANNED_RESPONDENTS, which then means "at least".
    """
    if respondents >= privacy.MAX_PLANNED_RESPONDENTS:
        return f"over {privacy.MAX_PLANNED_RESPONDENTS:,}"
    return f"{respondents:,}"


def _percent(share: float) -> str:
    """A share as a percentage with no needless decimals: 0.25 -> '25', 0.125 -> '12.5'."""
    return rounding.text(rounding.nearest(share * 100, 0.1), 1)


def privacy_readout(flip_probability: object, question_count: int = 1) -> dict:
    """What a flip probability means, in words and numbers, or why it is not allowed."""
    try:
        epsilon = privacy.epsilon_from_flip_probability(flip_probability)
    except ValueError:
        message = "The flip probability must be a number above 0 and below 0.5."
        return {"ok": False, "error": message}
    p = float(flip_probability)
    epsilon_total = privacy.total_epsilon([epsilon] * question_count)
    return {
        "ok": True,
        "flip_probability": p,
        "epsilon": epsilon,
        "epsilon_total": epsilon_total,
        "question_count": question_count,
        "flip_percent": _percent(p),
        "deniability_percent": _percent(privacy.deniability(p)),
        "odds": privacy.odds_ratio(p),
        "summary": (
            f"Each answer is flipped {_percent(p)}% of the time (ε = {format_epsilon(epsilon)} "
            f"a question; {format_epsilon(epsilon_total)} for {question_count} "
            f"question{'s' if question_count != 1 else ''}). Seeing a “yes”, an observer who "
            f"thought 50/50 can be at most {_percent(privacy.deniability(p))}% sure it is true."
        ),
    }


#: The ranges a results page can lead with: live while a survey is open (it holds at every
#: look), exact once closed (the narrowest for one reading), or all of a question's at once.
RANGE_KINDS = ("live", "exact", "together")


def headline_range_kind(results: SurveyResults, together: bool = False) -> str:
    """Which range the words and charts lead with: the live one while any of the surveys is
    open (the page redraws itself: it is read again and again), else the exact one, or the
    ranges that hold for all of a question's answers at once when the owner asks for them."""
    if any(each.is_open for each in results.surveys):
        return "live"
    return "together" if together else "exact"


def shown_range(estimate: privacy.Estimate, kind: str) -> tuple[float | None, float | None]:
    """The ends of an option's range of that kind (see RANGE_KINDS)."""
    if kind == "live":
        return estimate.live_low, estimate.live_high
    if kind == "together":
        return estimate.simultaneous_low, estimate.simultaneous_high
    return estimate.exact_low, estimate.exact_high


def widest_shown_half_width(question, kind: str) -> float | None:
    """Half the widest range of that kind among a question's options: the one the "too wide
    to say much yet" caution quotes is the one the page leads with."""
    return question.widest_half_width(lambda estimate: shown_range(estimate, kind))


def range_guarantee(kind: str, confidence: float) -> str:
    """What a range of that kind guarantees, as the sentence ending "between X and Y, ..."."""
    sure = f"guaranteed at least {percent(confidence)} of the time"
    if kind == "live":
        return f"{sure}, however often you look"
    if kind == "together":
        return f"{sure} for all the answers at once"
    return sure


#: A range reaching further than this on either side of its estimate says little yet: a fifth
#: of the scale (±20 points of a share; a fifth of a number question's range).
TOO_WIDE = 0.2


def too_wide_half_width(question, kind: str) -> float | None:
    """Half the widest range of that kind among a question's options, when it is too wide to
    say much yet (:data:`TOO_WIDE`); else None. The caution quotes the range the page leads
    with."""
    widest = widest_shown_half_width(question, kind)
    return widest if widest is not None and widest > TOO_WIDE else None


#: Why results change in releases, as the dashboard says it.
RELEASE_REASON = "so that nobody’s answers can be picked out by watching them arrive"


def release_words(results: SurveyResults, batch: int, brief: bool = False) -> str | None:
    """What the results hold while they change in releases (survey_app.results.releases), and when
    they next change; None when they hold every answer of a closed survey.

    ``brief``: for the projector, where the room reads it from afar.
    """
    if results.held:
        return (
            f"You reopened this survey and closed it again before {counted(batch, 'new answer')} "
            f"came in: {RELEASE_REASON}, the results still show the "
            f"{counted(results.respondents, 'person', 'people')} "
            f"who had answered before. The newer answers show once at least {batch:,} "
            f"{plural(batch, 'has', 'have')} come in: reopen the survey to collect them."
        )
    if not any(each.is_open for each in results.surveys):
        return None
    held, answered = results.respondents, results.answered
    if brief:
        if held == 0:
            return f"Results come once {batch:,} {plural(batch, 'has', 'have')} answered."
        of_answered = counted(answered, "person", "people")
        included = f"{held:,} of {of_answered}" if held < answered else "everyone"
        every = "with each answer" if batch == 1 else f"every {batch:,} answers"
        return f"Results include {included}; they update {every}."
    every = "every new answer" if batch == 1 else f"every {batch:,} new answers"
    why = "" if batch == 1 else f", {RELEASE_REASON}"
    if held == 0:
        return (
            f"The first results come once {counted(batch, 'person has', 'people have')} "
            f"answered, then with {every}{why}."
        )
    included = (
        f"{held:,} of the {counted(answered, 'person who has', 'people who have')} answered"
        if held < answered
        else "everyone who has answered"
    )
    return (
        f"The results below include {included}; they update with {every}{why}, and show "
        "everyone when you close the survey."
    )


def results_document(results: SurveyResults) -> dict:
    """The results as the JSON API returns them.

    ``ci_low``, ``ci_high`` and ``half_width`` are the Chebyshev interval (as ever);
    ``exact_ci_low`` and ``exact_ci_high`` the exact one (None when the counts are not
    consistent with the randomization). Pooled results name every survey in ``surveys``.
    """
    survey = results.survey
    return {
        "survey": survey.slug,
        "surveys": [each.slug for each in results.surveys],
        "title": survey.title,
        "status": survey.status.value,
        # How many answers the figures hold, and how many have answered so far: while a
        # survey is open its figures change in releases of several answers.
        "respondents": results.respondents,
        "answered": results.answered,
        "flip_probability": survey.flip_probability,
        "epsilon_per_question": results.epsilon_per_question,
        "epsilon_total": results.epsilon_total,
        "confidence": results.confidence,
        "questions": [
            {
                "id": question.id,
                "number": question.number,
                "text": question.text,
                "type": question.kind,
                "n": question.n,
                **told_fields(question.told, question),
                "options": [
                    {
                        "value": option.value,
                        "label": option.label,
                        "noisy_count": option.noisy_count,
                        "noisy_share": option.estimate.noisy_share,
                        "estimate": option.estimate.estimate,
                        "ci_low": option.estimate.ci_low,
                        "ci_high": option.estimate.ci_high,
                        "half_width": option.estimate.half_width,
                        "exact_ci_low": option.estimate.exact_low,
                        "exact_ci_high": option.estimate.exact_high,
                        # All the options' ranges at once (Bonferroni over k options).
                        "simultaneous_ci_low": option.estimate.simultaneous_low,
                        "simultaneous_ci_high": option.estimate.simultaneous_high,
                        # Valid at every look, however often read while the survey is open.
                        "live_ci_low": option.estimate.live_low,
                        "live_ci_high": option.estimate.live_high,
                        "consistent": option.estimate.consistent_with_randomization,
                    }
                    for option in question.options
                ],
            }
            for question in results.questions
        ],
    }


#: What each numeric mechanism does to a number, for the dashboard.
#: Where a numeric average's fixed-size range comes from, by NumericEstimate.bound.
BOUND_WORDS = {
    "exact": "the exact law of the noise the browsers added (it does not depend on the answers)",
    "chernoff": "a Chernoff bound on the exact law of the randomized numbers",
    "binomial": "the exact tails of a count of independent bits (Hoeffding, 1956)",
    "bernstein": "Bernstein’s inequality, which uses that randomized numbers are bounded",
    "chebyshev": "Chebyshev’s inequality, which uses only their variance",
}

MECHANISM_WORDS = {
    "hybrid": (
        "The hybrid mechanism (Wang et al., 2019) randomized each number: the browser either "
        "reported a value near the number’s place on the scale more often than any other, or "
        "one of two extreme values, the higher one more often the higher the number."
    ),
    "one_bit": (
        "The one-bit mechanism (Duchi et al., 2018) randomized each number: the browser sent "
        "a single “high” or “low”, “high” more often the higher the number on the scale."
    ),
    "laplace": (
        "The Laplace mechanism randomized each number: the browser added random noise of "
        "typical size (max − min) / ε, drawn exactly in whole steps of the scale."
    ),
}


def numeric_places(lo: float, hi: float) -> int:
    """Decimals to show a numeric question's figures with: 3 significant digits of its range."""
    return max(0, 3 - math.ceil(math.log10(hi - lo)))


def bar_label(first: float, last: float) -> str:
    """The answers a histogram bar holds: "3" for one, "0 to 4" for several."""
    low, high = format_number(first), format_number(last)
    return low if low == high else f"{low} to {high}"


def numeric_range_words(estimate: privacy.NumericEstimate, kind: str = "exact") -> dict:
    """A numeric average's ranges in words, in its unit's decimals, rounded outward (they still
    cover what they guarantee). ``kind`` "live": ``low``/``high`` are the live range (an open
    survey's page is read again and again); else the narrowest fixed-size range."""
    places = numeric_places(estimate.lo, estimate.hi)
    step = 10.0**-places

    def down(value: float | None) -> str | None:
        return None if value is None else rounding.text(rounding.down(value, step), places)

    def up(value: float | None) -> str | None:
        return None if value is None else rounding.text(rounding.up(value, step), places)

    live = kind == "live"
    shown_half_width = (
        (estimate.live_high - estimate.live_low) / 2.0
        if live and estimate.live_low is not None
        else estimate.half_width
    )
    return {
        "low": down(estimate.live_low if live else estimate.ci_low),
        "high": up(estimate.live_high if live else estimate.ci_high),
        "live_low": down(estimate.live_low),
        "live_high": up(estimate.live_high),
        "half_width": up(estimate.half_width),
        "chebyshev": up(estimate.chebyshev_half_width),
        "bernstein": up(estimate.bernstein_half_width),
        "bound": BOUND_WORDS.get(estimate.bound or "", ""),
        # Ranges wider than a fifth of the scale say little yet: the one shown is judged.
        "too_wide": shown_half_width is not None
        and shown_half_width > TOO_WIDE * (estimate.hi - estimate.lo),
    }


#: A number question's figures that :func:`numeric_words` also says with their unit.
NUMERIC_FIGURES = (
    "mean",
    "raw_mean",
    "low",
    "high",
    "live_low",
    "live_high",
    "half_width",
    "bernstein",
    "chebyshev",
    "min",
    "max",
)


def numeric_words(result: NumericResult, kind: str = "exact") -> dict:
    """A numeric question's figures for people: mean, ranges and bins, in the question's unit.

    The mean is clipped to [min, max] and rounded to nearest; the ranges are
    :func:`numeric_range_words`.
    """
    estimate = result.estimate
    places = numeric_places(estimate.lo, estimate.hi)
    shown_mean = estimate.clipped_mean
    histogram = result.histogram
    words = {
        "unit": f" {result.unit}" if result.unit else "",
        # The mean in words is clipped to [min, max], as shares are to [0, 1]; the unbiased
        # figure stays in the API and CSV, and ``raw_mean`` says it when it was clipped.
        "mean": None if shown_mean is None else format_number(shown_mean, places),
        "raw_mean": None if estimate.mean is None else format_number(estimate.mean, places),
        "clipped": None
        if shown_mean is None or shown_mean == estimate.mean
        else ("below" if estimate.mean < estimate.lo else "above"),
        **numeric_range_words(estimate, kind),
        "min": format_number(estimate.lo),
        "max": format_number(estimate.hi),
        # Each bar's label says which answers it holds: "3", or "0 to 4".
        "bins": []
        if histogram is None
        else [
            (bar_label(first, last), share)
            for (first, last), share in zip(histogram.answers_held, histogram.shares, strict=True)
        ],
        "answer_step": None
        if histogram is None or histogram.answer_step is None
        else format_number(histogram.answer_step),
        "mechanism": MECHANISM_WORDS[result.mechanism.name],
        "reason": mechanism_reason(result),
    }
    # Each figure with its unit, as the figure wants it: "6.5 hours", "1 hour" (words.with_unit).
    words["said"] = {
        key: None if words[key] is None else with_unit(words[key], result.unit)
        for key in NUMERIC_FIGURES
    }
    words["bins_said"] = [(with_unit(label, result.unit), share) for label, share in words["bins"]]
    return words


def mechanism_reason(result: NumericResult) -> str:
    """Which mechanism and why, comparing the ranges at the answers counted so far."""
    estimate = result.estimate
    return privacy.mechanism_choice_reason(
        result.mechanism,
        result.named,
        estimate.n,
        estimate.confidence,
        result.planned,
        result.chosen_earlier,
    )


@functools.singledispatch
def told_fields(told: privacy.Told, question) -> dict:
    """What the JSON API adds to a question's options for what its counts tell: each kind
    (privacy.Shares, privacy.Average) answers for itself. Shares add nothing: their
    ``options`` say it all."""
    return {}


@told_fields.register(privacy.Average)
def _average_fields(told: privacy.Average, question) -> dict:
    """An average's figures (:func:`numeric_document`)."""
    return numeric_document(question.numeric)


def numeric_document(result: NumericResult) -> dict:
    """A numeric question's results as the JSON API gives them (its ``options`` are empty).

    ``mean`` is unbiased and unclipped; ``ci_low``/``ci_high`` is ``mean -/+ half_width``
    clipped to [min, max], ``half_width`` the narrowest range the mechanism proves (its own
    exact-law or Chernoff bound, or Chebyshev's or Bernstein's); ``live_ci_low``/``live_ci_high``
    the live range, valid at every look.
    """
    estimate, histogram = result.estimate, result.histogram
    return {
        "min": estimate.lo,
        "max": estimate.hi,
        "unit": result.unit,
        "mechanism": result.mechanism.name,
        "mechanism_reason": mechanism_reason(result),
        "mean": estimate.mean,
        "ci_low": estimate.ci_low,
        "ci_high": estimate.ci_high,
        "half_width": estimate.half_width,
        "chebyshev_half_width": estimate.chebyshev_half_width,
        "bernstein_half_width": estimate.bernstein_half_width,
        "live_ci_low": estimate.live_low,
        "live_ci_high": estimate.live_high,
        "consistent": estimate.consistent_with_randomization,
        # None for the one-bit mechanism, whose reports tell the mean alone.
        "histogram": None
        if histogram is None
        else {"edges": list(histogram.edges), "shares": list(histogram.shares)},
    }


def qr_code_svg(address: str) -> Markup:
    """An inline SVG QR code of ``address`` (segno; medium error correction, a 4-module quiet
    zone), sized by its container: sharp on a phone and on a 4K projector alike."""
    code = segno.make(address, error="m")
    return Markup(code.svg_inline(scale=1, border=4, omitsize=True, svgclass="qr"))


@functools.lru_cache(maxsize=64)
def join_qr_code_svg(address: str) -> Markup:
    """:func:`qr_code_svg` of a survey's join link, kept per address: the projector's state
    sends its join panel again at every change, and the link does not change while the survey
    is open. Never for a slip's link, which carries a one-time code that must not be kept."""
    return qr_code_svg(address)
