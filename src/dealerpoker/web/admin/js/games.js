// Games and paytables: each game's rules in force with each bet's exact RTP and its versions;
// an admin drafts changes, sees their exact house edge, and saves them for new rounds.

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { cell, field, percent, table } from "./format.js";
import { get, post } from "./http.js";
import { can, errorText } from "./state.js";

function figuresTable(figures) {
  return table([t("admin.games.bet"), t("admin.games.rtp"), t("admin.games.exact")],
    Object.entries(figures.rtps).filter(([, value]) => value).map(([name, value]) =>
      h("tr", {}, cell(name), cell(percent(value.float, 4), "num"), cell(value.exact, "code"))));
}

function draftForm(game) {
  const editable = Object.fromEntries(Object.entries(game.rules).filter(([key]) =>
    !["game", "limits", "chips", "rules_version", "title"].includes(key)));
  const text = h("textarea.code", { name: "changes", rows: 12, cols: 80 }, JSON.stringify(editable, null, 1));
  const result = h("div.draft-result");
  const parse = () => JSON.parse(text.value);
  const run = (path, done) => async () => {
    result.replaceChildren(h("p", {}, t("admin.games.computing")));
    try {
      const answer = await post(`/games/${encodeURIComponent(game.game)}/${path}`, { changes: parse() });
      done(answer);
    } catch (error) {
      result.replaceChildren(h("p.message", { role: "alert" }, error instanceof SyntaxError ? t("admin.games.not_json") : errorText(error)));
    }
  };
  const show = (answer) => result.replaceChildren(
    h("p.house-edge", {}, t("admin.games.draft_edge", { edge: percent(answer.house_edge_float, 4),
      exact: answer.house_edge, seconds: answer.seconds })), figuresTable(answer));
  return h("div.draft", {}, h("h4", {}, t("admin.games.draft")), h("p", {}, t("admin.games.draft_explain")), text,
    h("div.actions", {},
      h("button.btn.compute", { type: "button", onclick: run("draft", show) }, t("admin.games.compute")),
      h("button.btn.secondary.save", { type: "button", onclick: run("versions", () => { location.reload(); }) },
        t("admin.games.save"))), result);
}

export async function gamesPage(container) {
  const { games, tables } = await get("/games");
  container.append(h("h2", {}, t("admin.nav.games")));
  for (const game of games) {
    container.append(h("section.card.game", { dataset: { game: game.game } },
      h("h3", {}, `${t(`game.${game.game}`)} — ${game.rules_version}`),
      h("p", {}, t("admin.games.fingerprint", { fingerprint: game.fingerprint })),
      h("p", {}, t("admin.games.house_edge", { edge: percent(game.figures.house_edge_float, 4), exact: game.figures.house_edge })),
      figuresTable(game.figures),
      h("details", {}, h("summary", {}, t("admin.games.rules")), h("pre.code", {}, JSON.stringify(game.rules, null, 1))),
      game.versions.length ? table([t("admin.games.version"), t("admin.audit.at"), t("admin.audit.actor"), t("admin.games.fingerprint_short")],
        game.versions.map((v) => h("tr", {}, cell(v.version), cell(v.created_at), cell(v.created_by), cell(v.fingerprint, "code"))))
        : h("p", {}, t("admin.games.no_versions")),
      can("games.edit") ? draftForm(game) : null));
  }
  if (tables.length) {
    container.append(h("h3", {}, t("admin.games.tables")),
      table([t("admin.rounds.table"), t("admin.rounds.game"), t("admin.reports.currency"), t("admin.games.timers"), t("admin.games.fingerprint_short")],
        tables.map((tb) => h("tr", {}, cell(tb.id), cell(tb.game), cell(tb.currency),
          cell(t("admin.monitor.timers", tb)), cell(tb.fingerprint, "code")))));
  }
}
