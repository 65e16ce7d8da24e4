// A server's refusal in the player's words (solo and live): the catalogue's text of its key, with
// the fields' titles ("Bonus: needs an Ante bet") and amounts formatted, never raw field keys.

import { fieldTitle } from "./dom.js";
import { has, t } from "./i18n.js";
import { formatMoney } from "./money.js";

const FIELD_PARAMS = ["field", "main", "needs"];
const MONEY_PARAMS = ["amount", "min", "max", "needed", "balance", "at_stake", "left", "limit"];

function sentence(text) {
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

/** The text of an error payload ({error, message, key, params}). */
export function errorText(payload) {
  if (payload?.key && has(payload.key)) {
    const params = { ...(payload.params ?? {}) };
    for (const name of FIELD_PARAMS) if (typeof params[name] === "string") params[name] = fieldTitle(params[name]);
    for (const name of MONEY_PARAMS) if (Number.isInteger(params[name])) params[name] = formatMoney(params[name]);
    for (const [name, value] of Object.entries(params)) {
      if (Array.isArray(value)) params[name] = value.map((v) => (typeof v === "string" ? fieldTitle(v) : v)).join(", ");
    }
    return sentence(t(payload.key, params));
  }
  if (payload?.error && has(`error.code.${payload.error}`)) return t(`error.code.${payload.error}`);
  return sentence(payload?.message ?? "");
}
