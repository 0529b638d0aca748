"""What a room reads on a big screen: the size of every visible word."""

from __future__ import annotations

#: A script's function ``wordSizes(inside, skip)``: the font size of every visible word inside
#: the CSS selector ``inside`` (an SVG text's height), but those inside ``skip`` (the
#: professor's own controls, formulas drawn by MathML).
WORD_SIZES_FUNCTION = """
function wordSizes(inside, skip) {
const sizes = [];
for (const element of document.querySelectorAll(inside + ' *')) {
  if (skip && element.closest(skip)) continue;
  const own = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  if (!own) continue;
  const box = element.getBoundingClientRect();
  if (box.width === 0) continue;
  if (element instanceof SVGElement) sizes.push(box.height);
  else sizes.push(parseFloat(getComputedStyle(element).fontSize));
}
return sizes;
}
"""
_WORD_SIZES = WORD_SIZES_FUNCTION + "return wordSizes(...arguments);"


def word_sizes(driver, inside: str, skip: str = "") -> list[float]:
    """The size in pixels of every visible word in ``inside`` (a CSS selector), but ``skip``'s."""
    return driver.execute_script(_WORD_SIZES, inside, skip)
