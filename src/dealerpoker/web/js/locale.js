// The player's language and currency on every page, and the texts built from the server's data.
//
// Language: the launch's (`?lang=de`, remembered), else the player's choice on the page's switch
// (localStorage), else the browser's, else English. Currency: the account's (`?currency=JPY` asks
// a new demo player in it); amounts are written by money.js in that currency and language.

import { LANGUAGES, currentLanguage, has, preferredLanguage, t, useLanguage } from "./i18n.js";
import { formatMoney, setMoneyFormat } from "./money.js";

export const LANGUAGE_KEY = "dealerpoker.language";
const LAUNCH_KEY = "dealerpoker.launch";
const LANGUAGE_NAMES = { en: "English", de: "Deutsch", es: "Español", sv: "Svenska", fr: "Français", da: "Dansk" };

/** What the page was opened with: `?lang=`, `?currency=` (kept for the tab's later pages). */
export function launch() {
  const query = new URLSearchParams(location.search);
  const saved = JSON.parse(sessionStorage.getItem(LAUNCH_KEY) ?? "{}");
  const found = {
    language: query.get("lang") ?? query.get("language") ?? undefined,
    currency: query.get("currency") ?? undefined,
  };
  const merged = { ...saved, ...Object.fromEntries(Object.entries(found).filter(([, v]) => v)) };
  if (query.has("launch")) delete merged.currency; // an operator's launch: its player's own currency
  sessionStorage.setItem(LAUNCH_KEY, JSON.stringify(merged));
  if (found.language && LANGUAGES.includes(found.language)) localStorage.setItem(LANGUAGE_KEY, found.language);
  return merged;
}

/** What an operator's launch said (its lobby address); the launch's currency is the account's. */
export function rememberLaunch(values) {
  const saved = JSON.parse(sessionStorage.getItem(LAUNCH_KEY) ?? "{}");
  delete saved.currency;
  sessionStorage.setItem(LAUNCH_KEY, JSON.stringify({ ...saved, ...values }));
}

/** Chooses the language, then the currency of `api`'s player (a session in the launch currency). */
export async function startLocale(api) {
  const opened = launch();
  await useLanguage(preferredLanguage(LANGUAGE_KEY));
  api.currency = opened.currency ?? null;
  let { currency } = await api.balance();
  if (opened.currency && currency !== opened.currency) {
    await api.restart(opened.currency);
    ({ currency } = await api.balance());
  }
  const games = await api.games(currency);
  useCurrency(games.currency ?? { code: currency });
  return games;
}

/** Amounts from now on in `currency` ({code, exponent, symbol}) and the page's language. */
export function useCurrency(currency) {
  setMoneyFormat(currency, currentLanguage());
}

/** The language switch: the choice is remembered and the page drawn again in it. */
export function languageSwitch() {
  const select = document.createElement("select");
  select.className = "language-switch";
  select.id = "language";
  select.setAttribute("aria-label", t("page.language"));
  for (const code of LANGUAGES) {
    // On a phone the closed switch shows the language's code (EN, DE, ES): the header has no room.
    const narrow = window.matchMedia?.("(max-width: 640px), (max-height: 520px)").matches;
    const option = new Option(narrow ? code.toUpperCase() : LANGUAGE_NAMES[code], code, false, code === currentLanguage());
    option.title = LANGUAGE_NAMES[code];
    option.lang = code;
    select.append(option);
  }
  select.addEventListener("change", () => {
    localStorage.setItem(LANGUAGE_KEY, select.value);
    const saved = JSON.parse(sessionStorage.getItem(LAUNCH_KEY) ?? "{}");
    delete saved.language;
    sessionStorage.setItem(LAUNCH_KEY, JSON.stringify(saved));
    const url = new URL(location.href);
    url.searchParams.delete("lang");
    url.searchParams.delete("language");
    location.replace(url.toString());
    if (url.toString() === location.href) location.reload();
  });
  return select;
}

const AMOUNTS = new Set(["amount", "min", "max", "needed", "balance", "at_stake", "left", "limit", "stake",
  "returned", "net", "used"]);

function fieldName(name) {
  return has(`field.${name}`) ? t(`field.${name}`) : name;
}

/** A message's parameters as the player reads them: amounts in the currency, names in the language. */
export function localParams(params = {}) {
  const out = {};
  for (const [name, value] of Object.entries(params ?? {})) {
    if (AMOUNTS.has(name) && Number.isInteger(value)) out[name] = formatMoney(value);
    else if ((name === "field" || name === "main") && typeof value === "string") out[name] = fieldName(value);
    else if (name === "category" && has(`category.${value}`)) out[name] = t(`category.${value}`);
    else if (name === "rank" && has(`rank.${value}_one`)) out[name] = t(`rank.${value}_one`);
    else if (name === "rank_plural" && has(`rank.${value}_other`)) out[name] = t(`rank.${value}_other`);
    else if (name === "phase" && has(`phase.${value}`)) out[name] = t(`phase.${value}`);
    else if ((name === "action" || name === "point") && has(`action.${value}`)) out[name] = t(`action.${value}`);
    else if (name === "until" && typeof value === "string") out[name] = formatTime(value);
    else out[name] = value;
  }
  return out;
}

export function formatTime(iso) {
  const moment = new Date(iso);
  if (Number.isNaN(moment.getTime())) return iso;
  return new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "medium", timeStyle: "short" }).format(moment);
}

/** The text of a server error (REST body or WebSocket message) in the player's language. */
export function errorText(payload, fallback = "") {
  if (payload?.key && has(payload.key)) return t(payload.key, localParams(payload.params));
  if (payload?.error && has(`error.code.${payload.error}`)) return t(`error.code.${payload.error}`);
  return payload?.message ?? fallback;
}

const RANK_ORDER = "23456789TJQKA";

/** A hand's name ("Paar Zehner") from its category and best five cards, as the evaluator names it. */
export function handName(hand) {
  if (!hand?.category) return "";
  const cards = hand.best_five ?? [];
  // Five cards, or before the flop the two hole cards (a pair or the high card).
  if (!has(`hand.${hand.category}`) || (cards.length !== 5 && cards.length !== 2)) return hand.name ?? "";
  const counts = new Map();
  for (const card of cards) counts.set(card[0], (counts.get(card[0]) ?? 0) + 1);
  const ranks = [...counts.keys()].sort((a, b) =>
    counts.get(b) - counts.get(a) || RANK_ORDER.indexOf(b) - RANK_ORDER.indexOf(a));
  let [first, second] = ranks;
  const wheel = ["A", "2", "3", "4", "5"].every((r) => counts.has(r));
  if (wheel && (hand.category === "straight" || hand.category === "straight-flush")) first = "5";
  return t(`hand.${hand.category}`, {
    r1: t(`rank.${first}_one`), r1s: t(`rank.${first}_other`), r2s: second ? t(`rank.${second}_other`) : "",
  });
}
