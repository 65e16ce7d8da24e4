// Tiny DOM helpers, so the views read as markup.

import { has, t } from "./i18n.js";

// Keys for the decisions (F/B/C/R), solo and live; "call" is the engine's alias of "raise".
export const DECISION_KEYS = { f: ["fold"], b: ["bet"], c: ["check", "call"], r: ["raise", "call"] };

/** h("button.btn", {type: "button", onclick}, "DEAL") -> element. */
export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "text") el.textContent = value;
    else if (key === "style") setStyle(el, String(value));
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * What a clock writes many times a second, written only when it changed: an unchanged text or
 * attribute then costs the page no new layout and no new frame.
 */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

export function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/**
 * "--level:2; color: red" set through the CSSOM, not as a style attribute: the server's
 * Content-Security-Policy (style-src 'self') refuses inline style attributes, not the CSSOM.
 */
function setStyle(el, text) {
  for (const rule of text.split(";")) {
    const colon = rule.indexOf(":");
    if (colon > 0) el.style.setProperty(rule.slice(0, colon).trim(), rule.slice(colon + 1).trim());
  }
}

/** "aa" -> "AA", "ante" -> "Ante", "flop" -> "Flop": display names for betting fields (the catalogue's). */
export function fieldTitle(name) {
  if (has(`field.${name}`)) return t(`field.${name}`);
  if (name.length <= 2) return name.toUpperCase();
  return name.charAt(0).toUpperCase() + name.slice(1).replace(/[-_]/g, " ");
}

/** A game's name as the catalogue has it ("(live)" belongs to live tables' own titles only). */
export function gameTitle(game) {
  return has(`game.${game.id}`) ? t(`game.${game.id}`) : game.title;
}

// A recorded step that is no player's action: the deal (the DEAL button's word).
const STEP_TITLES = { deal: "btn.deal" };

export function actionTitle(action) {
  if (STEP_TITLES[action]) return t(STEP_TITLES[action]);
  return has(`action.${action}`) ? t(`action.${action}`) : action.toUpperCase();
}

// Buttons left to right: giving up first, then the free option, then the ones that cost.
const ACTION_ORDER = ["fold", "check", "bet", "raise", "call"];

/** The legal decisions in the order their buttons stand. */
export function orderActions(actions) {
  const rank = (a) => { const i = ACTION_ORDER.indexOf(a); return i < 0 ? ACTION_ORDER.length : i; };
  return [...(actions ?? [])].sort((a, b) => rank(a) - rank(b));
}

/** `text` as nodes in which each of `amounts` (formatted money) never breaks across lines. */
export function keepAmounts(text, amounts) {
  const wanted = [...new Set(amounts.filter(Boolean))].sort((a, b) => b.length - a.length);
  if (!wanted.length) return [text];
  const pattern = new RegExp(`(${wanted.map((a) => a.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`);
  return text.split(pattern).filter((part) => part !== "")
    .map((part) => (wanted.includes(part) ? h("span.money", {}, part) : part));
}
