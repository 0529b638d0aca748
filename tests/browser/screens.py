"""What a room reads on a big screen: the size of every visible word."""

from __future__ import annotations

#: The font size of every visible word inside ``arguments[0]`` (an SVG text's height), but
#: those inside ``arguments[1]`` (the professor's own controls, formulas drawn by MathML).
_WORD_SIZES = """
const [inside, skip] = arguments;
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
"""


def word_sizes(driver, inside: str, skip: str = "") -> list[float]:
    """The size in pixels of every visible word in ``inside`` (a CSS selector), but ``skip``'s."""
    return driver.execute_script(_WORD_SIZES, inside, skip)
