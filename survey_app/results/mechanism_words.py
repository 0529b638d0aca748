"""A number question's mechanism in words: what it did to each number, where its range's bound
comes from, and why it was the one used (privacy.mechanism_choice_reason's reasons, each a whole
sentence of the catalog in a language other than English).
"""

from __future__ import annotations

from flask_babel import lazy_gettext, ngettext

from survey_app import privacy
from survey_app.privacy.numeric import REASON_PLANNING_RESPONDENTS, range_width_ratio
from survey_app.words import grouped, local_percent

#: Where a numeric average's fixed-size range comes from, by NumericEstimate.bound.
BOUND_WORDS = {
    "exact": lazy_gettext(
        "the exact law of the noise the browsers added (it does not depend on the answers)"
    ),
    "chernoff": lazy_gettext("a Chernoff bound on the exact law of the randomized numbers"),
    "binomial": lazy_gettext("the exact tails of a count of independent bits (Hoeffding, 1956)"),
    "bernstein": lazy_gettext(
        "Bernstein’s inequality, which uses that randomized numbers are bounded"
    ),
    "chebyshev": lazy_gettext("Chebyshev’s inequality, which uses only their variance"),
}

#: What each numeric mechanism does to a number, for the dashboard.
MECHANISM_WORDS = {
    "hybrid": lazy_gettext(
        "The hybrid mechanism (Wang et al., 2019) randomized each number: the browser either "
        "reported a value near the number’s place on the scale more often than any other, or "
        "one of two extreme values, the higher one more often the higher the number."
    ),
    "one_bit": lazy_gettext(
        "The one-bit mechanism (Duchi et al., 2018) randomized each number: the browser sent "
        "a single “high” or “low”, “high” more often the higher the number on the scale."
    ),
    "laplace": lazy_gettext(
        "The Laplace mechanism randomized each number: the browser added random noise of "
        "typical size (max − min) / ε, drawn exactly in whole steps of the scale."
    ),
}

#: How a reason names the mechanism whose range it compares, with the share of it the range is.
AS_WIDE_AS = {
    "laplace": lazy_gettext("%(ratio)s as wide as Laplace’s would be"),
    "hybrid": lazy_gettext("%(ratio)s as wide as the hybrid’s would be"),
    "one_bit": lazy_gettext("%(ratio)s as wide as the one-bit mechanism’s would be"),
}


def translated_mechanism_reason(result) -> str:
    """Why a number question uses its mechanism (``result``: its tables.NumericResult), as
    privacy.mechanism_choice_reason words it in English, in the page's language."""
    mechanism, estimate = result.mechanism, result.estimate
    n = estimate.n or REASON_PLANNING_RESPONDENTS
    others = [
        privacy.numeric_mechanism(mechanism.lo, mechanism.hi, mechanism.epsilon, name)
        for name in privacy.NUMERIC_MECHANISMS
        if name != mechanism.name
    ]
    best = min(others, key=lambda other: other.half_width(n, estimate.confidence))
    ratio = range_width_ratio(mechanism, best, n, estimate.confidence)
    figures = {
        "count": grouped(n),
        "planned": grouped(result.planned),
        "beside": str(AS_WIDE_AS[best.name]) % {"ratio": local_percent(round(ratio * 100))},
    }
    case = (
        "named"
        if result.named
        else "earlier"
        if result.chosen_earlier
        else "narrowest"
        if ratio <= 1.0
        else "wider"
    )
    return REASONS[case, bool(estimate.n)](n, **figures)


#: Why a number question uses its mechanism, by why it was chosen and whether answers came
#: (else the ranges are compared at privacy.numeric.REASON_PLANNING_RESPONDENTS answers).
REASONS = {
    ("named", True): lambda n, **figures: ngettext(
        "The survey’s definition asks for this mechanism. At this privacy level and with these "
        "%(count)s answer, its range is %(beside)s.",
        "The survey’s definition asks for this mechanism. At this privacy level and with these "
        "%(count)s answers, its range is %(beside)s.",
        n,
        **figures,
    ),
    ("named", False): lambda n, **figures: ngettext(
        "The survey’s definition asks for this mechanism. At this privacy level and with "
        "%(count)s answer, its range is %(beside)s.",
        "The survey’s definition asks for this mechanism. At this privacy level and with "
        "%(count)s answers, its range is %(beside)s.",
        n,
        **figures,
    ),
    ("earlier", True): lambda n, **figures: ngettext(
        "Chosen when the survey opened, by the rule of the time (the smaller worst-case noise); "
        "its answers keep it. At this privacy level and with these %(count)s answer, its range "
        "is %(beside)s.",
        "Chosen when the survey opened, by the rule of the time (the smaller worst-case noise); "
        "its answers keep it. At this privacy level and with these %(count)s answers, its range "
        "is %(beside)s.",
        n,
        **figures,
    ),
    ("earlier", False): lambda n, **figures: ngettext(
        "Chosen when the survey opened, by the rule of the time (the smaller worst-case noise); "
        "its answers keep it. At this privacy level and with %(count)s answer, its range is "
        "%(beside)s.",
        "Chosen when the survey opened, by the rule of the time (the smaller worst-case noise); "
        "its answers keep it. At this privacy level and with %(count)s answers, its range is "
        "%(beside)s.",
        n,
        **figures,
    ),
    ("narrowest", True): lambda n, **figures: ngettext(
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        "class of %(planned)s planned: with these %(count)s answer, its range is %(beside)s, "
        "for the same privacy.",
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        "class of %(planned)s planned: with these %(count)s answers, its range is %(beside)s, "
        "for the same privacy.",
        n,
        **figures,
    ),
    ("narrowest", False): lambda n, **figures: ngettext(
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        "class of %(planned)s planned: with %(count)s answer, its range is %(beside)s, for the "
        "same privacy.",
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        "class of %(planned)s planned: with %(count)s answers, its range is %(beside)s, for the "
        "same privacy.",
        n,
        **figures,
    ),
    ("wider", True): lambda n, **figures: ngettext(
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        "class of %(planned)s planned. With these %(count)s answer, though, its range is "
        "%(beside)s.",
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        "class of %(planned)s planned. With these %(count)s answers, though, its range is "
        "%(beside)s.",
        n,
        **figures,
    ),
    ("wider", False): lambda n, **figures: ngettext(
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        "class of %(planned)s planned. With %(count)s answer, though, its range is %(beside)s.",
        "Chosen because its guaranteed range is the narrowest at this privacy level for the "
        "class of %(planned)s planned. With %(count)s answers, though, its range is %(beside)s.",
        n,
        **figures,
    ),
}
