// The lobby: a list of sections, each loaded from the server. Other parts (live tables) add a
// section with addLobbySection(loader); a loader returns {title, entries: [{title, subtitle, href}]}.

import { fieldTitle, gameTitle, h } from "./dom.js";
import { t } from "./i18n.js";
import { jackpotMeter } from "./jackpot.js";
import { readJurisdiction } from "./jurisdiction.js";
import { errorText, languageSwitch } from "./locale.js";
import { formatMoney } from "./money.js";

const sections = [];

export function addLobbySection(loader) {
  sections.push(loader);
}

// Solo tables: one per game the server offers.
addLobbySection(async (api, context) => ({
  id: "games",
  title: t("lobby.solo_tables"),
  entries: context.games.map((game) => ({
    id: game.id,
    kind: "solo",
    title: gameTitle(game),
    subtitle: game.fields.map((f) => `${fieldTitle(f.name)} ${formatMoney(f.min)}–${formatMoney(f.max)}`)
      .join(" · "),
    href: `#/play/${encodeURIComponent(game.id)}`,
  })),
}));

function sectionOf(section) {
  return h("section.lobby__section", { dataset: { section: section.id ?? "" } },
    h("h2", {}, section.title),
    section.note ? h("p.lobby__note", { id: `lobby-note-${section.id}` }, section.note) : null,
    h("ul.lobby__tables", {}, section.entries.map((entry) => h("li", {},
      h("a.lobby__table", { href: entry.href, dataset: { table: entry.id ?? "", kind: entry.kind ?? "" } },
        entry.kind ? h("span.lobby__kind", {}, t(entry.kind === "live" ? "lobby.kind_live" : "lobby.kind_solo")) : null,
        h("span.lobby__name", {}, entry.title),
        entry.subtitle ? h("span.lobby__sub", {}, entry.subtitle) : null)))));
}

export async function renderLobby(root, api, context) {
  const balance = h("output.meter__value", { id: "balance" }, "—");
  // aria-busy until every section is in: a screen reader (and a test) knows the list is whole.
  const list = h("div.lobby__sections", { "aria-busy": "true" });
  root.replaceChildren(h("section.lobby", {},
    h("header.hud", {},
      h("h1.hud__title", {}, t("lobby.title")),
      h("div.meters", {}, h("div.meter", {}, h("span.meter__label", {}, t("meter.balance")), balance), jackpotMeter()),
      h("div.hud__buttons", {}, languageSwitch())),
    h("p.lobby__intro", {}, t("lobby.intro")),
    list));
  api.balance().then(({ balance: b }) => { balance.textContent = formatMoney(b); }).catch(() => {});
  readJurisdiction(api); // the jackpot's ticker only where the player's profile allows it
  // Every section asks the server at once; they are shown in their order as each is answered.
  // (Each failure is caught where it happens, so a late section's is never an unhandled rejection.)
  const loading = sections.map((loader) => loader(api, context).then((section) => ({ section }), (error) => ({ error })));
  for (const answer of loading) {
    const { section, error } = await answer;
    if (error) {
      list.append(h("p.message", { dataset: { kind: "error" } },
        t("lobby.section_failed", { error: errorText(error.payload, error.message) })));
    } else if (section && (section.entries.length || section.note)) {
      list.append(sectionOf(section));
    }
  }
  list.setAttribute("aria-busy", "false");
}
