"""The kinds of question a survey asks, registered in one place.

Each kind (survey_app.kinds.base.Kind) says all that differs between kinds: its definition's
fields and checks, its mechanism, its option labels, its respondent partial and page script,
and its words. Callers ask ``kind_of(question)`` and never branch on a kind's name.
"""

from __future__ import annotations

from survey_app.kinds.base import Kind

#: The registered kinds by name, in the order the builder offers them.
KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    """Add ``kind`` to the registry (a kind registered again under its name replaces it)."""
    KINDS[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Take the kind named ``name`` out of the registry (nothing if it is not there)."""
    KINDS.pop(name, None)


def kind_named(name: object) -> Kind:
    """The kind registered as ``name``; KeyError if there is none."""
    if not isinstance(name, str) or name not in KINDS:
        raise KeyError(name)
    return KINDS[name]


def kind_of(question: object) -> Kind:
    """The kind of a stored or defined question (anything with a ``kind`` name)."""
    return kind_named(question.kind)


def _register_the_kinds() -> None:
    # The one list of the kinds every survey can ask.
    from survey_app.kinds import choice, numeric, paired, yes_no

    for module in (yes_no, choice, numeric, paired):
        register(module.KIND)


_register_the_kinds()
