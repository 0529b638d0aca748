"""Planning a pair of questions asked together: how many students it takes to see a relation.

A paired question is asked to see how two answers go together, so it is planned by how often a
class sees a moderate relation between them (phi = 0.3: for two yes/no questions, 65% of one
answer's yes-sayers saying yes to the other against 35% of its no-sayers), from the
mechanism's own numbers (privacy.respondents_for_association and privacy.association_power,
approximate: Pearson's statistic's noncentral chi-square law, options chosen equally often).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from flask_babel import gettext, ngettext

from survey_app import kinds, privacy
from survey_app.planning.numbers import question_name
from survey_app.privacy.joint import PLANNED_LEVEL
from survey_app.words import format_number, grouped, percent

#: The power planned for, as "8 times in 10" says it.
TIMES_IN_TEN = round(privacy.PLANNED_POWER * 10)
#: A power this high is said as "nearly every time".
NEARLY_ALWAYS = 0.95


@lru_cache(maxsize=1024)
def pair_respondents(flip_probability: float, shape: tuple[int, int]) -> int:
    """The fewest answers that see a moderate relation 8 times in 10, kept."""
    return privacy.respondents_for_association(flip_probability, shape)


@lru_cache(maxsize=4096)
def pair_power(flip_probability: float, shape: tuple[int, int], n: int) -> float:
    """How often n answers see a moderate relation, kept."""
    return privacy.association_power(flip_probability, shape, n)


def joint_kind(question: dict) -> kinds.Kind | None:
    """The kind of a builder's question if it asks its answers together (a pair), else None."""
    name = question.get("type")
    kind = kinds.KINDS.get(name) if isinstance(name, str) else None
    return kind if kind is not None and kind.joint else None


def joint_questions(questions: Sequence[dict]) -> tuple[list[tuple[str, tuple[int, int]]], int]:
    """The builder's pairs that can be planned, each named and with its shape ``(k1, k2)``,
    and how many pairs cannot be yet (a multiple-choice question without its options)."""
    planned, left_out = [], 0
    for number, question in enumerate(questions, start=1):
        kind = joint_kind(question)
        if kind is None:
            continue
        shape = kind.planned_shape(question)
        if shape is None:
            left_out += 1
        else:
            planned.append((question_name(str(question.get("text") or ""), number), shape))
    return planned, left_out


def pair_sentence(name: str, needed: int, class_size: int, power: float) -> str:
    """What a pair needs and what a class of ``class_size`` gets, in words."""
    needs = ngettext(
        "%(name)s, two questions asked together: to see a moderate relation between their "
        "answers (phi = %(phi)s) %(times)s times in 10 takes about %(count)s student.",
        "%(name)s, two questions asked together: to see a moderate relation between their "
        "answers (phi = %(phi)s) %(times)s times in 10 takes about %(count)s students.",
        needed,
        name=name,
        phi=format_number(privacy.PLANNED_PHI),
        times=TIMES_IN_TEN,
        count=grouped(needed),
    )
    if power >= NEARLY_ALWAYS:
        gets = gettext(
            "A class of %(size)s would see it nearly every time.", size=grouped(class_size)
        )
    else:
        times = max(1, round(power * 10))
        gets = ngettext(
            "A class of %(size)s would see it about %(times)s time in 10.",
            "A class of %(size)s would see it about %(times)s times in 10.",
            times,
            size=grouped(class_size),
            times=times,
        )
    return f"{needs[:1].upper()}{needs[1:]} {gets}"


def pairs_readout(
    questions: Sequence[dict], flip_probability: float, class_size: int
) -> tuple[list[dict], str]:
    """Each pair's figures (JSON) and the readout's words for them ("" without pairs)."""
    planned, left_out = joint_questions(questions)
    figures = []
    for name, shape in planned:
        needed = pair_respondents(flip_probability, shape)
        power = pair_power(flip_probability, shape, class_size)
        figures.append({"name": name, "shape": list(shape), "respondents": needed, "power": power})
    said = [pair_sentence(f["name"], f["respondents"], class_size, f["power"]) for f in figures]
    if figures:
        said.append(
            gettext(
                "These figures are approximate, for options chosen equally often; a relation "
                "is seen when the test of no relation gives a p-value of at most %(level)s.",
                level=percent(PLANNED_LEVEL),
            )
        )
    if left_out:
        said.append(
            ngettext(
                "(%(count)s pair of questions left out until each of its multiple-choice "
                "questions has its options, %(high)s pairs of answers at most.)",
                "(%(count)s pairs of questions left out until each of their multiple-choice "
                "questions has its options, %(high)s pairs of answers at most.)",
                left_out,
                count=grouped(left_out),
                high=privacy.MAX_OPTIONS,
            )
        )
    return figures, " ".join(said)


def with_pairs(
    planning: dict | None,
    questions: Sequence[dict],
    flip_probability: float,
    class_size: int,
    alone: bool,
) -> dict | None:
    """The builder's planning readout with what its pairs need; ``alone``: the survey asks
    nothing else the readout plans (its words are then the pairs' alone)."""
    figures, said = pairs_readout(questions, flip_probability, class_size)
    if not said or planning is None:
        return planning
    if alone and figures:
        return {"ok": True, "class_size": class_size, "pairs": figures, "text": said}
    if alone:
        return {"ok": False, "error": said}
    if not planning.get("ok"):
        return planning
    return {**planning, "pairs": figures, "text": f"{planning['text']} {said}"}
