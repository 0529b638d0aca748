"""QR codes of a survey's links, for the dashboard, the projector's join panel and the code
slips: inline SVG, sized by the page that places them."""

from __future__ import annotations

import functools

import segno
from markupsafe import Markup


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
