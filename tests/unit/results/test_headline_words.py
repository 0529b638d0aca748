"""The words around each option's headline figure claim no more than its range, at every count.

Checked on the text a person reads, after the page's rounding (the share to the nearest tenth,
the range outward), by exact enumeration rather than sampling: every count of an option among
1 to 60 answers, for 2 to 6 options, flip probabilities from strong to weak privacy, and each
kind of range a page can lead with. The share must lie inside its printed range; "close to 0%"
only where the printed range ends within CLOSE_POINTS of 0% (and likewise 100%); a range too
wide to say much (TOO_WIDE) is said to be so, never close to anything.
"""

from __future__ import annotations

import re
from itertools import combinations

import pytest
from markupsafe import Markup

from survey_app.privacy import RandomizedResponse
from survey_app.results.panel import option_outside_words
from survey_app.results.question_words import share_sentence
from survey_app.results.tables import OptionResult, shown_range
from survey_app.results.words import (
    CLOSE_POINTS,
    TOO_WIDE,
    shares_total_brief,
    shares_total_words,
)
from survey_app.words import percent

FLIP_PROBABILITIES = (0.1, 0.25, 0.4)
OPTION_COUNTS = (2, 3, 4, 6)
MOST_ANSWERS = 60
RANGE_KINDS = ("exact", "live", "together")

SHARE = re.compile(r"About <strong>(-?[\d.]+)%</strong> would truly answer")
ENDS = re.compile(r"between <strong>([\d.]+)%</strong> and <strong>([\d.]+)%</strong>")
SINGLE = re.compile(r"the range is the single value <strong>([\d.]+)%</strong>")
SHOWN = re.compile(r"The share shown, ([\d.]+)%,")
UNBIASED = re.compile(r"The unbiased estimate is (-?[\d.]+%),")


def printed(sentence: Markup) -> tuple[float, float, float]:
    """The share and the range's two ends, as the sentence prints them (in percent)."""
    share = float(SHARE.search(sentence).group(1))
    ends = ENDS.search(sentence)
    if ends is None:
        low = high = float(SINGLE.search(sentence).group(1))
    else:
        low, high = float(ends.group(1)), float(ends.group(2))
    return share, low, high


def check_option(option: OptionResult, kind: str) -> list[str]:
    """What the option's sentences claim beyond its range, in words (none: all is well)."""
    wrong = []
    sentence = share_sentence(option, kind, 0.95)
    share, low, high = printed(sentence)
    if not low <= share <= high:
        wrong.append(f"share {share}% outside {low}%–{high}%")
    outside = option_outside_words(option, kind) or ""
    if "close to 0%" in outside and high > CLOSE_POINTS:
        wrong.append(f"close to 0% with a range up to {high}%")
    if "close to 100%" in outside and low < 100 - CLOSE_POINTS:
        wrong.append(f"close to 100% with a range from {low}%")
    range_low, range_high = shown_range(option.estimate, kind)
    if outside and (range_high - range_low) / 2 > TOO_WIDE and "too wide" not in outside:
        wrong.append("a range too wide to say much is not said to be")
    if outside and float(SHOWN.search(outside).group(1)) != share:
        wrong.append("the share shown is not the headline's")
    if outside and UNBIASED.search(outside).group(1) != percent(option.estimate.estimate):
        wrong.append("the unbiased estimate is not the option's")
    return wrong


@pytest.mark.parametrize("options", OPTION_COUNTS)
def test_no_sentence_claims_more_than_its_printed_range_at_any_count(options):
    wrong, outside_said, close_said = [], 0, 0
    for p in FLIP_PROBABILITIES:
        mechanism = RandomizedResponse(p, options)
        for n in range(1, MOST_ANSWERS + 1):
            # Each count of 0 to n once: the first option's up to n / 2, the second's beyond.
            for count in range(n // 2 + 1):
                counts = [count, n - count] + [0] * (options - 2)
                first, second = mechanism.estimate(counts, 0.95)[:2]
                for estimate in (first, second) if count < n - count else (first,):
                    option = OptionResult(0, "A", estimate)
                    if not estimate.consistent_with_randomization:
                        continue  # no share, no range: the sentence says why instead
                    for kind in RANGE_KINDS:
                        found = check_option(option, kind)
                        where = f"p={p} n={n} count={estimate.noisy_count} {kind}"
                        wrong += [f"{where}: {each}" for each in found]
                        outside = option_outside_words(option, kind) or ""
                        outside_said += bool(outside)
                        close_said += "close to" in outside
    assert wrong == []
    # The enumeration reaches the sentences it checks: estimates outside 0–100%, and ranges
    # close enough to an end to be said so (p = 0.1 with many answers).
    assert outside_said > 100 and close_said > 10


def test_floating_point_dust_says_nothing_of_0_to_100_percent():
    # At p = 0.1 one "Yes" of ten debiases to -1.2e-10 (the browser's integer thresholds).
    option = OptionResult(1, "Yes", RandomizedResponse(0.1).estimate([9, 1])[1])
    assert option.estimate.estimate < 0
    assert option_outside_words(option, "exact") is None
    assert "About <strong>0%</strong>" in share_sentence(option, "exact", 0.95)


def test_a_range_up_to_a_few_points_is_close_to_0_percent_and_one_up_to_ten_is_not():
    # At p = 0.25 no "Yes" among 40 answers: the unbiased estimate is -50% and the range
    # reaches 2.5%. Two among 20: -30%, and the range reaches 10%, which is not "close to 0%".
    mechanism = RandomizedResponse(0.25)
    many = OptionResult(1, "Yes", mechanism.estimate([40, 0])[1])
    few = OptionResult(1, "Yes", mechanism.estimate([18, 2])[1])
    assert many.estimate.exact_high * 100 <= CLOSE_POINTS < few.estimate.exact_high * 100
    assert option_outside_words(many, "exact") == (
        "The unbiased estimate is -50%, outside 0–100%: the randomization noise pushed it "
        "there, which is normal with few respondents. The share shown, 0%, is the nearest share "
        "its range allows, and the range says the true share is close to 0%."
    )
    assert option_outside_words(few, "exact") == (
        "The unbiased estimate is -30%, outside 0–100%: the randomization noise pushed it "
        "there, which is normal with few respondents. The share shown, 0%, is the nearest share "
        "its range allows; the true share may be anywhere from 0% to 10%."
    )


def test_the_shares_say_what_they_add_up_to_at_every_count_of_three_options():
    # Every count of 3 options among 10 to 20 answers: the sentence names the sum of the shares
    # shown, and says 100% only where the shares printed add up to 100% within their rounding.
    wrong = []
    for p in FLIP_PROBABILITIES:
        mechanism = RandomizedResponse(p, 3)
        for n in range(10, 21):
            for first, second in combinations(range(n + 2), 2):
                counts = [first, second - first - 1, n + 1 - second]
                shares = [
                    OptionResult(value, "A", estimate).headline("exact")
                    for value, estimate in enumerate(mechanism.estimate(counts, 0.95))
                ]
                said = shares_total_words(shares)
                # The projector says it only where the dashboard says "not 100%".
                brief = shares_total_brief(shares)
                if (brief is None) != (said == "The shares add up to 100%."):
                    wrong.append((p, counts, said, brief))
                printed_total = sum(float(percent(share)[:-1]) for share in shares)
                if said == "The shares add up to 100%.":
                    ok = abs(printed_total - 100) <= 3 * 0.05 + 1e-9
                else:
                    ok = said.startswith(f"The shares add up to {percent(sum(shares))}, not 100%")
                if not ok:
                    wrong.append((p, counts, said, printed_total))
    assert wrong == []


def test_the_shares_add_up_to_100_percent_or_say_how_much_more():
    assert shares_total_words([0.25, 0.75]) == "The shares add up to 100%."
    assert shares_total_words([1.0, 0.2, 0.0]) == (
        "The shares add up to 120%, not 100%: each is its own answer’s estimate, kept within "
        "0–100% where the randomization noise pushed it outside."
    )
    # The projector's line, only where it is not 100%.
    assert shares_total_brief([0.25, 0.75]) is None
    assert shares_total_brief([1.0, 0.2, 0.0]) == (
        "These add up to 120%: each share is kept within 0–100%."
    )
