// Amounts for the back office: integer minor units shown in the currency's major unit
// (the exponent from the server's currency list), in the page's language. Never floats for sums.

import { h } from "/js/dom.js";
import { currentLanguage } from "/js/i18n.js";

const EXPONENTS = { JPY: 0, KWD: 3, BHD: 3, mBTC: 5 };

/** "1,234.50 EUR" for 123450 (exponent 2), formatted for the page's language. */
export function money(minor, currency, exponent) {
  if (minor === null || minor === undefined) return "";
  const digits = exponent ?? EXPONENTS[currency] ?? 2;
  const negative = minor < 0;
  const text = String(Math.abs(minor)).padStart(digits + 1, "0");
  const major = digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
  const formatted = new Intl.NumberFormat(currentLanguage(), {
    minimumFractionDigits: digits, maximumFractionDigits: digits,
  }).format(Number(major));
  return `${negative ? "-" : ""}${formatted}${currency ? ` ${currency}` : ""}`;
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
