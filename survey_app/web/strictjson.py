"""JSON read strictly: no NaN or Infinity (not JSON at all), no key given twice in one object.

One reader for everything the app parses: submission bodies and survey definition files.
"""

from __future__ import annotations

import json


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number JSON allows")


def _refuse_duplicates(pairs: list[tuple[str, object]]) -> dict:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key appears twice in one object")
    return dict(pairs)


def loads(text: str) -> object:
    """Parse ``text``; ``ValueError`` (``json.JSONDecodeError`` for bad syntax) says what is wrong.

    Deeply nested input may raise ``RecursionError``, as :func:`json.loads` does.
    """
    return json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_refuse_duplicates)
