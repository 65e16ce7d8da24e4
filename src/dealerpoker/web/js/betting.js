// Which betting fields are open, in the player's words, solo and live alike: a field that needs
// another (Bonus and AA need the Ante) is closed until that one holds chips. The server checks the
// same on every bet; the page says it first, with the fields' titles.

import { fieldTitle } from "./dom.js";
import { t } from "./i18n.js";

export function requiresOf(field) {
  if (!field?.requires) return [];
  return Array.isArray(field.requires) ? field.requires : [field.requires];
}

/** "Bonus is closed: place Ante first." for a field whose required fields hold no chips, else null. */
export function closedByRequirement(field, bets) {
  const missing = requiresOf(field).filter((name) => !bets[name]);
  if (!missing.length) return null;
  return t("bet.closed_needs", { field: fieldTitle(field.name), needs: missing.map(fieldTitle).join(" + ") });
}

/** The fields that must go when `name` is emptied (they need it). */
export function dependants(fields, name) {
  return fields.filter((f) => requiresOf(f).includes(name));
}
