// A betting field's gestures, solo and live alike, for a mouse and for a finger:
//  - a click or a tap adds the selected chip (a tap never lifts a stack: a finger has no pointer
//    for the stack to follow);
//  - Ctrl+click takes back the last chip placed; a right click the lowest chip (the rule pages);
//  - a mouse click on a stack lifts it, where the game's rule page describes it (felt-pointer.js);
//  - touch and hold takes every chip off the field; the field's "−" button (shown on touch
//    screens) takes back its last chip.
// The table says which of these the device in hand has (helpText), and switches when the player
// starts using the other kind of pointer.

import { fieldTitle, h } from "./dom.js";
import { t } from "./i18n.js";

const HOLD_MS = 550;

/** Whether the page starts as a touch table (no hover, a coarse pointer: a phone or a tablet). */
function touchFirst() {
  return Boolean(window.matchMedia?.("(hover: none) and (pointer: coarse)").matches);
}

/**
 * Wires a field's spot. `o`: add(), removeLast(), removeLowest(), removeAll() and
 * lift(event) -> true when the click lifted the stack (and must add nothing).
 */
export function wireField(spot, o) {
  let held = false;
  let timer = 0;
  const stop = () => clearTimeout(timer);
  spot.addEventListener("pointerdown", (event) => {
    held = false;
    stop();
    if (event.pointerType !== "touch") return;
    timer = setTimeout(() => {
      held = true;
      o.removeAll();
    }, HOLD_MS);
  });
  for (const type of ["pointerup", "pointercancel", "pointerleave"]) spot.addEventListener(type, stop);
  spot.addEventListener("click", (event) => {
    if (held) { // the hold already took the chips off: its release adds none
      held = false;
      return;
    }
    if (event.ctrlKey || event.metaKey) o.removeLast();
    else if (event.pointerType === "touch" || !o.lift(event)) o.add();
  });
  spot.addEventListener("contextmenu", (event) => {
    event.preventDefault();
    if (event.pointerType === "touch" || held) return; // a long press is the hold's
    if (event.ctrlKey) o.removeLast();
    else o.removeLowest();
  });
}

/** The "−" button under a field: takes back its last chip (shown on touch screens). */
export function removeButton(name, onclick) {
  return h("button.spot__remove", {
    type: "button", dataset: { remove: name }, onclick,
    "aria-label": t("spot.remove_last", { field: fieldTitle(name) }), title: t("spot.remove_last", { field: fieldTitle(name) }),
  }, "−");
}

/**
 * Keeps `table` (its `.table` section) in touch or mouse mode by the pointer last used, and its
 * help line (`help`) saying what that pointer can do. `keys`: the help's catalogue keys.
 */
export function followPointer(table, help, keys) {
  const show = (touch) => {
    table.classList.toggle("table--touch", touch);
    help.textContent = t(touch ? keys.touch : keys.mouse);
  };
  show(touchFirst());
  const onDown = (event) => {
    if (event.pointerType === "touch" || event.pointerType === "pen") show(event.pointerType === "touch");
    else if (event.pointerType === "mouse") show(false);
  };
  document.addEventListener("pointerdown", onDown, true);
  return () => document.removeEventListener("pointerdown", onDown, true);
}
