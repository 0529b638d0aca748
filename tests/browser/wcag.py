"""WCAG 2.1 checks that axe-core does not make, run on every page the accessibility tests visit.

- 1.4.10 Reflow: at 320 CSS pixels wide nothing needs horizontal scrolling.
- 1.4.4 Resize text: with text at 200% (the root font size doubled, as a browser's text-only
  zoom does) nothing needs horizontal scrolling at 1280 px and no text is cut off by a box that
  hides its overflow.
- 2.4.7 Focus visible: every element the Tab key reaches shows a focus ring (an outline or a
  box shadow), and Tab goes round the page without being trapped (2.1.2).
- 1.1.1 Non-text content: every visible chart (an inline SVG) either has a text alternative
  (role="img" with a name) or is hidden from screen readers beside words that say the same.
docs/accessibility.md cites these checks.
"""

from __future__ import annotations

from tests.browser.devtools import evaluation, page_devtools, value_of

REFLOW_WIDTH = 320
TEXT_ZOOM = "200%"
MOST_TABS = 400  # more stops than any page has: a page that traps focus fails, not hangs
TABS_AT_ONCE = 32  # the first batch of Tabs; each batch after it is twice as long
_TAB_KEY = {"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9}
TAB = [("Input.dispatchKeyEvent", {"type": kind, **_TAB_KEY}) for kind in ("keyDown", "keyUp")]

HORIZONTAL_SCROLL = "return document.documentElement.scrollWidth - window.innerWidth"

CLIPPED_TEXT = """
return Array.from(document.querySelectorAll("body *")).filter((element) => {
  const style = getComputedStyle(element);
  const hides = ["hidden", "clip"].includes(style.overflowX) && style.display !== "inline";
  const box = element.getBoundingClientRect();
  return hides && box.width > 0 && element.innerText && element.innerText.trim() !== "" &&
    element.scrollWidth > element.clientWidth + 1 && style.textOverflow !== "ellipsis" &&
    !element.matches(".visually-hidden, .sr-only, [class*=visually-hidden]");
}).map((element) => element.tagName.toLowerCase() + "#" + element.id + "." + element.className);
"""

#: Installs a recorder of the Tab walk: at the end of each Tab (its keyup, when the page's own
#: handlers have run) the element then focused, its label, its focus ring, and which earlier stop
#: it is (-1 for a new one); null when focus left the page. ``__tabWalk.end()`` removes the
#: recorder and leaves nothing focused.
FOCUS_RECORDER = """(() => {
const elements = [];
const ring = (style) => [style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0
                           ? style.outlineStyle + style.outlineWidth + style.outlineColor : "",
                         style.boxShadow !== "none" ? style.boxShadow : ""]
                        .filter(Boolean).join(" | ");
const stops = [];
const record = (event) => {
  if (event.key !== "Tab") return;
  const element = document.activeElement;
  if (!element || element === document.body) {
    stops.push(null);
    return;
  }
  const text = (element.innerText || element.value || element.getAttribute("aria-label") ||
                 element.id || element.tagName).trim();
  // By code points: a MathML formula's italic letters lie beyond the BMP, and half of one
  // cannot be sent back to Python.
  const label = Array.from(text).slice(0, 40).join("");
  const earlier = elements.indexOf(element);
  if (earlier < 0) elements.push(element);
  stops.push({label: label, focused: ring(getComputedStyle(element)), earlier: earlier});
};
document.addEventListener("keyup", record, true);
window.__tabWalk = {
  read: () => stops.splice(0),
  end: () => {
    document.removeEventListener("keyup", record, true);
    delete window.__tabWalk;
    if (document.activeElement) document.activeElement.blur();
  },
};
// From the top: blur() alone leaves Chromium's starting point for Tab at the element blurred
// (or where the page was last clicked), and the walk would begin mid-page. Focusing the body
// moves that point to the top.
const body = document.body;
const tabIndex = body.getAttribute("tabindex");
body.tabIndex = -1;
body.focus();
if (tabIndex === null) body.removeAttribute("tabindex");
else body.setAttribute("tabindex", tabIndex);
window.scrollTo(0, 0);
})()"""

UNNAMED_CHARTS = """
return Array.from(document.querySelectorAll("svg")).filter((svg) => {
  const box = svg.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return false;
  if (svg.closest("[aria-hidden=true]")) return false;
  if (svg.parentElement.closest("svg")) return false;
  // Inside a figure that is itself an image with a name (the join QR code): named there.
  const namedFigure = "[role=img][aria-label], [role=img][aria-labelledby]";
  if (svg.parentElement.closest(namedFigure)) return false;
  const named = svg.getAttribute("aria-label") || svg.getAttribute("aria-labelledby") ||
                svg.querySelector(":scope > title");
  return !(svg.getAttribute("role") === "img" && named);
}).map((svg) => svg.outerHTML.slice(0, 80));
"""


def reflow_problems(driver) -> list[str]:
    """Horizontal scrolling at 320 px wide (the window is left at that width; callers reset it)."""
    driver.set_window_size(REFLOW_WIDTH, 800)
    overflow = driver.execute_script(HORIZONTAL_SCROLL)
    return [f"{overflow} px of horizontal scroll at {REFLOW_WIDTH} px"] if overflow > 0 else []


def text_zoom_problems(driver) -> list[str]:
    """At 1280 px with text at 200%: horizontal scrolling, or text cut off."""
    driver.set_window_size(1280, 900)
    driver.execute_script("document.documentElement.style.fontSize = arguments[0]", TEXT_ZOOM)
    try:
        problems = []
        overflow = driver.execute_script(HORIZONTAL_SCROLL)
        if overflow > 0:
            problems.append(f"{overflow} px of horizontal scroll with text at {TEXT_ZOOM}")
        problems += [
            f"text cut off at {TEXT_ZOOM}: {where}" for where in driver.execute_script(CLIPPED_TEXT)
        ]
        return problems
    finally:
        driver.execute_script("document.documentElement.style.fontSize = ''")


def focus_problems(driver) -> list[str]:
    """Tab from the top of the page through every stop; each must show a focus ring, and focus
    must come back to the first stop or leave the page (not go round some stops for ever).

    The Tabs are key events of the DevTools protocol (as WebDriver's own are), sent in batches
    (tests/browser/devtools.py), a recorder in the page noting every stop (FOCUS_RECORDER); the
    walk ends where focus first comes back to a stop or leaves the page, and Tabs sent past that
    end are not read.
    """
    problems: list[str] = []
    labels: list[str] = []
    batch = TABS_AT_ONCE
    with page_devtools(driver) as devtools:
        devtools.evaluate(FOCUS_RECORDER)
        try:
            while len(labels) < MOST_TABS:
                *_, read = devtools.run([*TAB * batch, evaluation("window.__tabWalk.read()")])
                for stop in value_of(read):
                    if stop is None or stop["earlier"] == 0:  # left the page, or went round
                        return problems
                    if stop["earlier"] > 0:
                        trapped = labels[stop["earlier"] :]
                        problems.append(f"focus trapped: Tab goes round {trapped} and never leaves")
                        return problems
                    labels.append(stop["label"])
                    if not stop["focused"]:
                        problems.append(f"no visible focus on {stop['label']!r}")
                    if len(labels) == MOST_TABS:
                        break
                batch = min(2 * batch, MOST_TABS - len(labels)) or 1
            problems.append(f"more than {MOST_TABS} tab stops: focus seems trapped")
            return problems
        finally:
            devtools.evaluate("window.__tabWalk.end()")


def wcag_problems(driver) -> list[str]:
    """Every problem the checks above find on the page as it is now."""
    problems = focus_problems(driver)
    problems += [
        f"chart without a text alternative: {chart}"
        for chart in driver.execute_script(UNNAMED_CHARTS)
    ]
    problems += text_zoom_problems(driver)
    problems += reflow_problems(driver)
    return problems
