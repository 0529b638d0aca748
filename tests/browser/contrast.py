"""The contrast of every control's text against its real background, in every state.

axe-core checks text contrast at rest only, and it once let the builder's "Remove question"
buttons through as blank red bars (red text on a red background). This measures, in Chromium,
every visible button, link, summary and submit input: at rest, hovered and focused (forced with
the DevTools protocol, so no mouse is needed and nothing else changes; one batch of commands),
and disabled controls as they are. The background is what is really painted behind the text:
the element's own and its ancestors' background colours, blended through any transparency,
over the page's white or the dark scheme's canvas. WCAG 2.1 asks 4.5:1 for text (1.4.3); we
ask it of every control.
"""

from __future__ import annotations

import json

from tests.browser.devtools import DevToolsError, evaluation, page_devtools, value_of

MINIMUM = 4.5
CONTROLS = "button, a[href], summary, input[type=submit], input[type=button], [role=button]"
STATES = ((), ("hover",), ("focus", "focus-visible"))

MEASURE = """
const selector = arguments[0];
function rgba(text) {
  const parts = (text.match(/[\\d.]+/g) || []).map(Number);
  return parts.length >= 3 ? [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1]
                           : [0, 0, 0, 0];
}
function over(top, bottom) {  // paint top (with alpha) over an opaque bottom
  const a = top[3];
  return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat([1]);
}
function luminance([r, g, b]) {
  const channel = (c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}
function canvas() {
  const dark = matchMedia("(prefers-color-scheme: dark)").matches &&
    getComputedStyle(document.documentElement).colorScheme.includes("dark");
  return dark ? [18, 18, 18, 1] : [255, 255, 255, 1];
}
function background(element) {
  const layers = [];
  for (let node = element; node && node.nodeType === 1; node = node.parentElement) {
    const colour = rgba(getComputedStyle(node).backgroundColor);
    if (colour[3] > 0) layers.push(colour);
    if (colour[3] >= 1) break;
  }
  let painted = layers.length && layers[layers.length - 1][3] >= 1 ? layers.pop() : canvas();
  while (layers.length) painted = over(layers.pop(), painted);
  return painted;
}
function visible(element) {
  const box = element.getBoundingClientRect();
  const style = getComputedStyle(element);
  const shown = box.width > 0 && box.height > 0 && style.visibility !== "hidden";
  const words = (element.innerText || element.value || "").trim();
  return shown && words !== "";
}
return Array.from(document.querySelectorAll(selector)).map((element, index) => {
  if (!visible(element)) return null;
  const back = background(element);
  const text = over(rgba(getComputedStyle(element).color), back);
  const [a, b] = [luminance(text), luminance(back)];
  return {
    index: index,
    words: (element.innerText || element.value || "").trim().slice(0, 40),
    ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
  };
}).filter(Boolean);
"""


def _force(node_ids: list[int], state: tuple[str, ...]) -> list[tuple[str, dict]]:
    return [
        ("CSS.forcePseudoState", {"nodeId": node_id, "forcedPseudoClasses": list(state)})
        for node_id in node_ids
    ]


def low_contrast_controls(driver, attempts: int = 3) -> list[str]:
    """Every control whose text is under 4.5:1 against its background, in some state.

    A page that redraws itself on a timer (the open dashboard swaps its results panel every
    10 s) can drop a control between finding it and forcing its state, which DevTools refuses
    ("Could not find node"): then every control is found and measured again, on the page as it
    now is.
    """
    for _ in range(attempts - 1):
        try:
            return _low_contrast_controls(driver)
        except DevToolsError as error:
            if "Could not find node" not in str(error):
                raise
    return _low_contrast_controls(driver)


def _low_contrast_controls(driver) -> list[str]:
    # One batch of DevTools commands (tests/browser/devtools.py), run in order: each state
    # forced on every control, then every control measured; the states lifted at the end.
    with page_devtools(driver) as devtools:
        *_, document = devtools.run(
            [("DOM.enable", {}), ("CSS.enable", {}), ("DOM.getDocument", {})]
        )
        (found,) = devtools.run(
            [("DOM.querySelectorAll", {"nodeId": document["root"]["nodeId"], "selector": CONTROLS})]
        )
        node_ids = found["nodeIds"]
        measure = evaluation(f"(function () {{ {MEASURE} }})({json.dumps(CONTROLS)})")
        commands, measured_at = [], []
        for state in STATES:
            commands += _force(node_ids, state)
            measured_at.append(len(commands))
            commands.append(measure)
        commands += [*_force(node_ids, ()), ("CSS.disable", {})]
        results = devtools.run(commands)
    failures = []
    for state, position in zip(STATES, measured_at, strict=True):
        for control in value_of(results[position]):
            if control["ratio"] < MINIMUM:
                where = ":" + state[0] if state else "at rest"
                failures.append(f"{control['words']!r} {where}: {control['ratio']:.2f}:1")
    return failures
