// The message catalogues (web/i18n/{en,de,es,sv,fr,da}.json, see dealerpoker/messages.py) on the page:
// t(key, params) renders a key in the chosen language, with "{name}" placeholders and the
// "_one"/"_other" plural keys, falling back to English for a key a language lacks.
export const LANGUAGES = ["en", "de", "es", "sv", "fr", "da"];
const catalogues = {};
let language = "en";

/** The page's language: a saved choice, else the browser's, else English. */
export function preferredLanguage(storageKey) {
  const saved = storageKey ? localStorage.getItem(storageKey) : null;
  if (LANGUAGES.includes(saved)) return saved;
  const browser = (navigator.language || "en").slice(0, 2).toLowerCase();
  return LANGUAGES.includes(browser) ? browser : "en";
}

async function fetchCatalogue(code) {
  if (!catalogues[code]) {
    const response = await fetch(`/i18n/${code}.json`, { cache: "no-cache" });
    catalogues[code] = response.ok ? await response.json() : {};
  }
  return catalogues[code];
}

/** Load (once) and choose the catalogue of `code`. */
export async function useLanguage(code) {
  language = LANGUAGES.includes(code) ? code : "en";
  await Promise.all([fetchCatalogue("en"), fetchCatalogue(language)]);
  document.documentElement.lang = language;
  return language;
}

export function currentLanguage() {
  return language;
}

function lookup(key, params) {
  for (const code of [language, "en"]) {
    const entries = catalogues[code] ?? {};
    if (key in entries) return entries[key];
    if (params && "count" in params) {
      const plural = entries[`${key}_${params.count === 1 ? "one" : "other"}`] ?? entries[`${key}_other`];
      if (plural !== undefined) return plural;
    }
  }
  return key;
}

/** The text of `key` with its `{name}` placeholders filled from `params`. */
export function t(key, params = {}) {
  return lookup(key, params).replace(/\{([a-z_][a-z0-9_]*)\}/g, (whole, name) =>
    name in params ? String(params[name]) : whole);
}

/** True when the catalogues have `key` (a name built from data may have no entry). */
export function has(key) {
  return [language, "en"].some((code) => key in (catalogues[code] ?? {}));
}
