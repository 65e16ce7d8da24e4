// Chips as the felt draws them, solo and live alike: the tray's buttons (one colour per
// denomination, in the table's order) and a field's stack (the fewest chips that make its amount).

import { h } from "./dom.js";
import { chipFace, stackFor } from "./money.js";

const CHIP_COLOURS = ["white", "red", "blue", "green", "black", "purple", "orange", "pink", "brown"];

function colourOf(index) {
  return index < 0 ? "plaque" : CHIP_COLOURS[index % CHIP_COLOURS.length];
}

/** The tray's button for `chips[index]`; `label` is its accessible name (and title, when given). */
export function trayChip(chips, index, { label, title, onclick }) {
  const chip = chips[index];
  return h("button.chip", {
    type: "button", role: "radio", "aria-checked": "false", "aria-label": label, title,
    dataset: { chip, colour: colourOf(index) }, onclick,
  }, h("span.chip__face", {}, chipFace(chip)));
}

/** Marks the selected chip of the tray. */
export function markSelected(tray, selected) {
  [...tray.children].forEach((chip, index) => {
    chip.classList.toggle("is-selected", index === selected);
    chip.setAttribute("aria-checked", String(index === selected));
  });
}

/**
 * Fills `container` with the stack of `amount` made of the table's `chips`. An unchanged stack
 * keeps its elements: a page renders at every message, and a chip replaced between the press and
 * the release of a click turned the click into one on the field (a chip added, not the stack
 * lifted).
 */
export function drawStack(container, amount, chips) {
  const drawn = `${amount}:${chips.join(",")}`;
  if (container.dataset.drawn === drawn) return;
  container.dataset.drawn = drawn;
  const stack = stackFor(amount, chips);
  container.style.setProperty("--n", String(Math.max(1, stack.length - 1))); // a tall stack packs closer
  container.replaceChildren(...stack.map((chip, level) => h("span.chip.chip--stacked", {
    style: `--level:${level}`, dataset: { chip, colour: colourOf(chips.indexOf(chip)) }, "aria-hidden": "true",
  }, h("span.chip__face", {}, chipFace(chip)))));
  container.dataset.amount = String(amount);
}
