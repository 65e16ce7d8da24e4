// The page's texts: the message catalogues the server serves as they are (web/i18n/{en,de,es}.json,
// the same files dealerpoker.messages reads). Load once at boot, then t(key, params) anywhere.
// A text that depends on a count has one key per plural category (key_one, key_other).

export const LANGUAGES = ["en", "de", "es"];
const FALLBACK = "en";
const PLACEHOLDER = /\{([a-z_][a-z0-9_]*)\}/g;

let current = FALLBACK;
let entries = {};
let english = {};

/** The player's language: ?lang=, then the browser's, among the catalogues'. */
export function chooseLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  const wanted = [asked, ...(navigator.languages ?? [navigator.language])].filter(Boolean);
  for (const tag of wanted) {
    const base = tag.toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return FALLBACK;
}

async function fetchCatalogue(language) {
  const response = await fetch(`i18n/${language}.json`, { cache: "no-cache" });
  if (!response.ok) throw new Error(`the ${language} texts did not load (${response.status})`);
  return response.json();
}

/** Loads the catalogue of `language` (English too, for any key a translation lacks). */
export async function loadMessages(language = chooseLanguage()) {
  english = await fetchCatalogue(FALLBACK);
  entries = language === FALLBACK ? english : await fetchCatalogue(language).catch(() => english);
  current = entries === english ? FALLBACK : language;
  document.documentElement.lang = current;
  return current;
}

export function language() {
  return current;
}

/** True when the catalogue has `key` (some names are built from data and may have no entry). */
export function has(key) {
  return key in entries || key in english;
}

function lookup(key, params) {
  const plural = "count" in params ? `${key}_${params.count === 1 ? "one" : "other"}` : null;
  for (const table of [entries, english]) {
    if (key in table) return table[key];
    if (plural && plural in table) return table[plural];
  }
  return null;
}

/** The text of `key` with `{name}` placeholders filled in from `params`; the key itself if unknown. */
export function t(key, params = {}) {
  const template = lookup(key, params);
  if (template === null) return key;
  return template.replace(PLACEHOLDER, (whole, name) => (name in params ? String(params[name]) : whole));
}
