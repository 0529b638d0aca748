"""The survey as a respondent's browser needs it: its questions, their options and how each is
randomized (the survey endpoint of the API serves it; the survey page's script reads it).

No words here: a browser reads these figures, and the survey page places the sentences.
"""

from __future__ import annotations

import functools

from survey_app import kinds, privacy
from survey_app.storage.models import Question, Survey


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


@browser_fields.register(privacy.JointRandomizedResponse)
def paired_definition(mechanism: privacy.JointRandomizedResponse, question: Question) -> dict:
    """What a browser needs to randomize a pair of answers as one: each question's options
    (``shape``, ``k1`` then ``k2``) and texts; its ``options`` are the cells, by report
    ``a k2 + b``, and ``report_range`` what the submission API accepts."""
    kind = kinds.kind_of(question)
    parts, labels = kind.parts(question), kind.part_labels(question)
    return {
        "shape": list(mechanism.shape),
        "parts": [
            {
                "text": part.text,
                "type": part.kind,
                "options": [{"value": v, "label": label} for v, label in enumerate(part_labels)],
            }
            for part, part_labels in zip(parts, labels, strict=True)
        ],
        "report_range": list(mechanism.report_range),
    }
