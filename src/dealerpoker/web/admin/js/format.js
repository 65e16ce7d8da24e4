// Amounts for the back office: integer minor units shown in the currency's major unit, with the
// exponent of the server's currency formats (the sign-in's `currencies`: every currency offered
// here, ISO or configured, such as mBTC), in the page's language. Never floats for sums.

import { h } from "/js/dom.js";
import { currentLanguage } from "/js/i18n.js";
import { cardLabel } from "/js/cards.js";
import { currencyOf } from "/js/money.js";

let formats = new Map();

/** The server's currency formats ({code, exponent, symbol} each, as GET /admin/api/session lists them). */
export function useCurrencies(list) {
  formats = new Map((list ?? []).map((format) => [format.code, format]));
}

/** "1,234.50 EUR" for 123450 (exponent 2), formatted for the page's language. `currency`: a code
 *  (its format from the server's; a code no longer offered here: its ISO exponent) or a format. */
export function money(minor, currency) {
  if (minor === null || minor === undefined) return "";
  const format = currencyOf(formats.get(currency) ?? currency);
  const digits = format.exponent;
  const negative = minor < 0;
  const text = String(Math.abs(minor)).padStart(digits + 1, "0");
  const major = digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
  const formatted = new Intl.NumberFormat(currentLanguage(), {
    minimumFractionDigits: digits, maximumFractionDigits: digits,
  }).format(Number(major));
  return `${negative ? "-" : ""}${formatted}${currency ? ` ${format.code}` : ""}`;
}

/** "12.34 %" for a fraction 0.1234 (display only). */
export function percent(value, digits = 2) {
  if (value === null || value === undefined) return "";
  return `${new Intl.NumberFormat(currentLanguage(), {
    minimumFractionDigits: digits, maximumFractionDigits: digits,
  }).format(value * 100)} %`;
}

export function table(headings, rows) {
  return h("table.grid", {}, h("thead", {}, h("tr", {}, ...headings.map((text) => h("th", {}, text)))),
    h("tbody", {}, ...rows));
}

export function cell(value, className = "") {
  return h(`td${className ? `.${className}` : ""}`, {}, value ?? "");
}

export function field(label, input) {
  return h("label.field", {}, h("span", {}, label), input);
}

/** The currency's formats offered here (for a currency chooser). */
export function currencyCodes() {
  return [...formats.keys()];
}

/** "12.5" (major units, as a person types it, "," or "." as decimal mark) -> 1250 minor units of
 *  `currency` (exactly: no floats); "" -> ""; null when it is not an amount of that currency. */
export function minorOf(text, currency) {
  const value = String(text ?? "").trim().replace(",", ".");
  if (value === "") return "";
  const digits = currencyOf(formats.get(currency) ?? currency).exponent;
  const match = /^(\d+)(?:\.(\d*))?$/.exec(value);
  if (!match || (match[2] ?? "").length > digits) return null;
  const minor = `${match[1]}${(match[2] ?? "").padEnd(digits, "0")}`.replace(/^0+(?=\d)/, "");
  return minor;
}

/** A card ("Kh") as a small face: rank and suit pip, red or black, named for screen readers. */
export function playingCard(text) {
  const suit = text.slice(-1);
  const rank = text.slice(0, -1);
  const pips = { c: "♣", d: "♦", h: "♥", s: "♠" };
  return h(`span.playing-card.${suit === "h" || suit === "d" ? "red" : "black"}`,
    { dataset: { card: text }, role: "img", "aria-label": cardLabel(text), title: cardLabel(text) },
    `${rank === "T" ? "10" : rank}${pips[suit] ?? suit}`);
}

/** A row of cards (none: "—"). */
export function cardRow(list) {
  return list?.length ? h("span.cards", {}, ...list.map(playingCard)) : h("span.cards", {}, "—");
}
