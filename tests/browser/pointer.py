"""WCAG 2.1's pointer criteria, checked in the page a Selenium driver shows.

- 2.5.3 Label in name: every visible control with a visible label (its text, or its ``label``)
  has an accessible name, as Chromium's accessibility tree computes it, that contains that
  label (case, spaces and punctuation aside), so that a person who speaks what they see to
  voice control reaches it.
- 2.5.2 Pointer cancellation: pressing a control, moving the pointer off it and letting go
  does nothing: no click, change, input, submit or toggle, no change to the page outside its
  live regions, no new address. Actions fire on the click (the up event), never on the down.

The commands go through one DevTools client a batch at a time (tests/browser/devtools.py).
docs/accessibility.md cites these checks.
"""

from __future__ import annotations

import json
import re

from tests.browser.devtools import DevToolsError, evaluation, page_devtools, value_of

#: What a person can press or type in.
CONTROLS = (
    "a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], "
    "[role=link], [role=checkbox], [role=radio], [role=tab], [role=menuitem], [role=switch]"
)

#: Every visible control with a visible label, kept in the page (window.__labelled) for the
#: accessibility tree's look-ups; each as [its label, where it is].
LABELLED_CONTROLS = """(() => {
const shown = (element) => {
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== "hidden";
};
const labelOf = (element) => {
  if (element.matches("input[type=submit], input[type=button], input[type=reset]")) {
    return element.value;
  }
  if (element.labels && element.labels.length > 0) {
    return Array.from(element.labels, (label) => label.innerText).join(" ");
  }
  // A field with no label element shows no label: 2.5.3 asks nothing of it.
  return element.matches("input, select, textarea") ? "" : element.innerText;
};
const where = (element) => element.tagName.toLowerCase() + (element.id ? "#" + element.id : "");
window.__labelled = Array.from(document.querySelectorAll(__CONTROLS__))
  .filter(shown)
  .map((element) => ({ element, label: (labelOf(element) || "").replace(/\\s+/g, " ").trim() }))
  .filter((control) => control.label !== "");
return window.__labelled.map((control) => [control.label, where(control.element)]);
})()""".replace("__CONTROLS__", json.dumps(CONTROLS))


def _words(text: str) -> str:
    """Text as it is spoken: lower case, its punctuation and spaces one space."""
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


def label_in_name_problems(driver) -> list[str]:
    """Each visible control whose accessible name does not contain its visible label."""
    with page_devtools(driver) as devtools:
        controls = devtools.evaluate(LABELLED_CONTROLS)
        group = {"objectGroup": "label-in-name"}
        handles = devtools.run(
            [
                ("Runtime.evaluate", {"expression": f"window.__labelled[{index}].element", **group})
                for index in range(len(controls))
            ]
        )
        trees = devtools.run(
            [
                (
                    "Accessibility.getPartialAXTree",
                    {"objectId": handle["result"]["objectId"], "fetchRelatives": False},
                )
                for handle in handles
            ]
        )
        devtools.run(
            [
                ("Runtime.releaseObjectGroup", group),
                evaluation("delete window.__labelled"),
            ]
        )
    problems = []
    for (label, where), tree in zip(controls, trees, strict=True):
        node = tree["nodes"][0]
        if node.get("ignored"):
            continue  # hidden from the accessibility tree: no name to speak
        name = node.get("name", {}).get("value", "")
        if _words(label) not in _words(name):
            problems.append(f"{where}: its label {label!r} is not in its name {name!r}")
    return problems


#: Installs a recorder of what the page does (window.__pointer): events that act, changes to
#: the page outside its live regions, its address; ``take()`` hands over what happened since
#: the last take. Returns each visible control's centre, where the control is what a pointer
#: there meets, and a place to let go that is on no control.
POINTER_RECORDER = """(() => {
const controls = __CONTROLS__;
const live = "[aria-live], [role=status], [role=alert], [role=log], [role=timer]";
const where = (node) => {
  const element = node.nodeType === 1 ? node : node.parentElement;
  if (!element) return "?";
  return element.tagName.toLowerCase() + (element.id ? "#" + element.id : "");
};
let acted = [];
const onControl = (target) => target instanceof Element && target.closest(controls + ", label");
const note = (event) => {
  // A click lands on what the press and the release share: on a control, it acted.
  if (event.type !== "click" || onControl(event.target)) {
    acted.push(event.type + " " + where(event.target));
  }
};
const types = ["click", "change", "input", "submit", "toggle"];
for (const type of types) window.addEventListener(type, note, true);
const observer = new MutationObserver((mutations) => {
  for (const mutation of mutations) {
    const target = mutation.target;
    const element = target.nodeType === 1 ? target : target.parentElement;
    if (element && element.closest(live)) continue;  // what the page says of itself, as it goes
    const attribute = mutation.attributeName ? " [" + mutation.attributeName + "]" : "";
    acted.push("changed " + where(target) + attribute);
  }
});
const everything = { subtree: true, childList: true, attributes: true, characterData: true };
observer.observe(document.documentElement, everything);
// A navigation the page starts is noted and stopped, so the page stays to be pressed on.
const leave = (event) => {
  acted.push("went to " + event.destination.url);
  if (event.cancelable) event.preventDefault();
};
navigation.addEventListener("navigate", leave);
const address = location.href;
window.__pointer = {
  take: () => {
    const taken = acted.concat(location.href === address ? [] : ["went to " + location.href]);
    acted = [];
    return taken;
  },
  end: () => {
    observer.disconnect();
    navigation.removeEventListener("navigate", leave);
    for (const type of types) window.removeEventListener(type, note, true);
    delete window.__pointer;
  },
};
const presses = [];
for (const element of document.querySelectorAll(controls)) {
  // A list box opens on the down event as the browser's own, not the page's, control.
  if (element.matches("select")) continue;
  const box = element.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) continue;
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const met = document.elementFromPoint(x, y);
  const labels = Array.from(element.labels || []);
  // Under another element (a radio drawn by its label, say): pressed where it shows, if at all.
  if (!met || !(element.contains(met) || labels.some((label) => label.contains(met)))) continue;
  presses.push({ x, y, where: where(element) });
}
let away = null;
for (let y = innerHeight - 2; y > 0 && !away; y -= 7) {
  for (const x of [2, innerWidth - 3, innerWidth / 2]) {
    const met = document.elementFromPoint(x, y);
    if (met && !met.closest(controls + ", label")) { away = { x, y }; break; }
  }
}
return { presses, away };
})()""".replace("__CONTROLS__", json.dumps(CONTROLS))

#: The height the page is shown at while it is pressed, so that every control is on the screen
#: without scrolling (the protocol's pointer events land where the screen is).
TALLEST = 8000


def _press_and_slide_off(press: dict, away: dict) -> list[tuple[str, dict]]:
    mouse = {"button": "left", "clickCount": 1}
    return [
        (
            "Input.dispatchMouseEvent",
            {"type": "mousePressed", "x": press["x"], "y": press["y"], **mouse},
        ),
        (
            "Input.dispatchMouseEvent",
            {"type": "mouseMoved", "x": away["x"], "y": away["y"], "button": "left", "buttons": 1},
        ),
        (
            "Input.dispatchMouseEvent",
            {"type": "mouseReleased", "x": away["x"], "y": away["y"], **mouse},
        ),
        evaluation("window.__pointer.take()"),
    ]


def pointer_cancellation_problems(driver) -> list[str]:
    """Each control that acts when pressed, then let go of off it; what it did."""
    size = driver.execute_script(
        "return [innerWidth, Math.min(document.documentElement.scrollHeight, arguments[0])]",
        TALLEST,
    )
    metrics = {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        with page_devtools(driver) as devtools:
            devtools.evaluate("window.scrollTo(0, 0)")
            layout = devtools.evaluate(POINTER_RECORDER)
            if layout["away"] is None:
                return ["no place on the page to let go of the pointer off every control"]
            if not layout["presses"]:
                return ["no control on the page could be pressed"]
            problems = []
            for press in layout["presses"]:
                try:
                    *_, taken = devtools.run(_press_and_slide_off(press, layout["away"]))
                    acted = value_of(taken)
                except DevToolsError as error:  # the page went away: pressing navigated
                    return [*problems, f"{press['where']}: the page left ({error})"]
                if acted:
                    problems.append(f"{press['where']}: {', '.join(acted)}")
            devtools.evaluate("window.__pointer.end()")
            return problems
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
