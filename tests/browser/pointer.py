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
#: the page outside its live regions, its address. ``aim(i)`` brings the i-th control into
#: view and gives the middle of its first box (a link that wraps has a box a line), if a
#: pointer there meets it, and a place nearby on no control to let go; ``take()`` hands over
#: what happened since the last take. Returns how many controls there are.
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
// A list box opens on the down event as the browser's own control, not the page's.
const pressable = Array.from(document.querySelectorAll(controls)).filter(
  (element) => !element.matches("select"),
);
const offControls = (x, y) => {
  const met = document.elementFromPoint(x, y);
  return met !== null && !met.closest(controls + ", label");
};
const awayFrom = (y) => {
  for (let step = 0; step < innerHeight; step += 6) {
    for (const row of [y + step, y - step]) {
      if (row < 1 || row > innerHeight - 2) continue;
      for (const x of [2, innerWidth - 3, innerWidth / 2]) {
        if (offControls(x, row)) return { x, y: row };
      }
    }
  }
  return null;
};
window.__pointer = {
  aim: (index) => {
    const element = pressable[index];
    if (!element.isConnected) return null;
    element.scrollIntoView({ block: "center", behavior: "instant" });
    const box = element.getClientRects()[0];
    if (!box || box.width === 0 || box.height === 0) return null;
    const x = box.left + box.width / 2, y = box.top + box.height / 2;
    const met = document.elementFromPoint(x, y);
    const labels = Array.from(element.labels || []);
    // Under another element (a radio drawn by its label, say): pressed where it shows, if at all.
    const meets = met && (element.contains(met) || labels.some((label) => label.contains(met)));
    if (!meets) return null;
    return { x, y, where: where(element), away: awayFrom(y) };
  },
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
return pressable.length;
})()""".replace("__CONTROLS__", json.dumps(CONTROLS))


#: What happened, read once what a press set going has started: a navigation begun in a
#: handler reaches the page's navigate event a moment later, not at once.
SETTLE_MS = 100
TAKE_WHEN_SETTLED = (
    f"new Promise((done) => setTimeout(() => done(window.__pointer.take()), {SETTLE_MS}))"
)


def _press_and_slide_off(aim: dict) -> list[tuple[str, dict]]:
    mouse = {"button": "left", "clickCount": 1}
    away = aim["away"]
    return [
        (
            "Input.dispatchMouseEvent",
            {"type": "mousePressed", "x": aim["x"], "y": aim["y"], **mouse},
        ),
        ("Input.dispatchMouseEvent", {"type": "mouseMoved", "buttons": 1, **away}),
        ("Input.dispatchMouseEvent", {"type": "mouseReleased", **away, **mouse}),
        evaluation(TAKE_WHEN_SETTLED, await_promise=True),
    ]


def pointer_cancellation_problems(driver) -> list[str]:
    """Each control that acts when pressed, then let go of off it; what it did."""
    with page_devtools(driver) as devtools:
        count = devtools.evaluate(POINTER_RECORDER)
        problems, pressed = [], 0
        for index in range(count):
            try:
                aim = devtools.evaluate(f"window.__pointer.aim({index})")
                if aim is None:
                    continue  # hidden, or under another control pressed in its stead
                if aim["away"] is None:
                    problems.append(f"{aim['where']}: no place near it to let go off every control")
                    continue
                *_, taken = devtools.run(_press_and_slide_off(aim))
                acted = value_of(taken)
            except DevToolsError as error:  # the page went away: pressing navigated
                return [*problems, f"control {index}: the page left ({error})"]
            pressed += 1
            if acted:
                problems.append(f"{aim['where']}: {', '.join(acted)}")
        devtools.evaluate("window.__pointer.end(); window.scrollTo(0, 0)")
    return problems if pressed else ["no control on the page could be pressed"]
