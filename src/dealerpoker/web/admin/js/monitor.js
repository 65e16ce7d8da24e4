// The live monitor: each live table's phase, round, players, stakes and last house results,
// refreshed as the table's own messages arrive (its fan-out, on /admin/ws/tables/{id}); admins
// pause a table after the round, resume or close it, and set the timers of the next rounds.
// A filter chooses one jurisdiction: only the tables serving it (or seating its players) are
// shown; each card lists its seated players grouped by the jurisdiction they play under.

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { cell, field, money, table } from "./format.js";
import { get, post, query } from "./http.js";
import { can, errorText } from "./state.js";

const CONTROL_NAMES = { open: "admin.monitor.status.open", paused: "admin.monitor.status.paused",
  closed: "admin.monitor.status.closed" };
const TIMER_NAMES = { betting_seconds: "admin.monitor.betting_seconds",
  decision_seconds: "admin.monitor.decision_seconds", pause_seconds: "admin.monitor.pause_seconds" };
const REFRESH_MS = 3000;
let sockets = [];

function closeSockets() {
  for (const socket of sockets) socket.close();
  sockets = [];
}

function controls(summary, refresh, message) {
  const act = (path, body) => async () => {
    message.textContent = "";
    try {
      refresh(await post(`/tables/${encodeURIComponent(summary.id)}/${path}`, body));
    } catch (error) {
      message.textContent = errorText(error);
    }
  };
  const status = summary.control.status;
  const timers = Object.fromEntries(Object.keys(TIMER_NAMES).map((name) =>
    [name, h("input", { name, type: "number", min: 1, max: 3600, step: 1, value: summary.control.timers[name] })]));
  return h("div", {},
    h("div.actions", {},
      h("button.btn.pause", { type: "button", disabled: status === "paused", onclick: act("status", { status: "paused" }) },
        t("admin.monitor.pause")),
      h("button.btn.resume", { type: "button", disabled: status === "open", onclick: act("status", { status: "open" }) },
        t("admin.monitor.resume")),
      h("button.btn.secondary.close", { type: "button", disabled: status === "closed",
        onclick: act("status", { status: "closed" }) }, t("admin.monitor.close"))),
    h("form.filters.timers", {
      onsubmit: (event) => {
        event.preventDefault();
        act("timers", Object.fromEntries(Object.entries(timers).map(([name, input]) => [name, Number(input.value)])))();
      },
    }, ...Object.entries(timers).map(([name, input]) => field(t(TIMER_NAMES[name]), input)),
    h("button.btn.small", { type: "submit" }, t("admin.monitor.set_timers"))));
}

/** A studio table's dealer: connected or not, the deal's countdown (from the seconds the server's
 *  clock leaves, counted down here each second), misdeals among its last rounds. */
function studioStatus(current) {
  const studio = current.studio;
  if (!studio) return null;
  let countdown = null;
  if (studio.seconds_left !== null && studio.seconds_left !== undefined) {
    const end = Date.now() + studio.seconds_left * 1000;
    const show = () => t("admin.monitor.deal_countdown", { seconds: Math.max(0, Math.round((end - Date.now()) / 1000)) });
    countdown = h("p.deal-countdown", { dataset: { dealing: "yes" } }, show());
    const ticking = setInterval(() => {
      if (!countdown.isConnected) clearInterval(ticking);
      else countdown.textContent = show();
    }, 1000);
  }
  return h("div.studio-status", { dataset: { dealer: studio.dealer_connected ? "connected" : "absent" } },
    h(`p.dealer.${studio.dealer_connected ? "ok" : "bad"}`, {},
      t(studio.dealer_connected ? "admin.monitor.dealer_connected" : "admin.monitor.dealer_absent")),
    countdown,
    h(`p.misdeals${studio.misdeals ? ".bad" : ""}`, { dataset: { misdeals: studio.misdeals } },
      t("admin.monitor.misdeals", { misdeals: studio.misdeals, rounds: studio.last_rounds })));
}

/** The seated players grouped by the jurisdiction they play under: each group its code, its
 *  count and its players (each linking to their page). */
function seatedByJurisdiction(current) {
  const groups = Object.entries(current.seated_players_by_jurisdiction ?? {});
  if (!groups.length) return h("p.seated-groups.none", {}, t("admin.monitor.seated_none"));
  return h("div.seated-groups", {}, h("h4", {}, t("admin.monitor.seated_by_jurisdiction")),
    h("ul", {}, ...groups.map(([code, players]) => h("li", { dataset: { jurisdiction: code, seated: players.length } },
      h("strong.code", {}, code), " ", t("admin.monitor.seated_count", { seated: players.length }), ": ",
      ...players.flatMap((player, index) => [index ? ", " : "",
        h("a.player", { href: `#player/${encodeURIComponent(player)}` }, player)])))));
}

function tableCard(summary, tablesPath) {
  const card = h("article.card.table-card", { dataset: { table: summary.id } });
  const message = h("p.message", { role: "alert" });
  function render(current) {
    const currency = current.currency_format ?? current.currency; // its format as the server gives it
    card.replaceChildren(...[  // no null among them: replaceChildren would write it as "null"
      h("h3", {}, `${current.title} (${current.id})`),
      h("p.state", {}, t("admin.monitor.state", { phase: current.phase, round: current.round ?? "—",
        status: t(CONTROL_NAMES[current.control.status]) })),
      h("p.people", {}, t("admin.monitor.people", { watching: current.players, seated: current.seated,
        betting: current.betting })),
      h("p.stakes", {}, t("admin.monitor.stakes", { stakes: money(current.stakes, currency) })),
      h("p.markets", {}, t("admin.monitor.serves", {
        served: (current.jurisdictions ?? []).join(", ") || t("admin.monitor.every_jurisdiction"),
      })),
      seatedByJurisdiction(current),
      h("p", {}, t("admin.monitor.timers", current.control.timers)),
      current.last_results.length ? table([t("admin.rounds.round"), t("admin.monitor.players"),
        t("admin.rounds.staked"), t("admin.rounds.returned"), t("admin.monitor.house")],
      current.last_results.map((r) => h("tr", {}, cell(r.number), cell(r.players, "num"),
        cell(money(r.staked, currency), "num"), cell(money(r.returned, currency), "num"),
        cell(money(r.house, currency), "num")))) : h("p", {}, t("admin.monitor.no_results")),
      studioStatus(current),
      can("tables.control") ? controls(current, render, message) : null, message].filter(Boolean));
  }
  render(summary);
  card.refresh = render;
  let pending = null;
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/admin/ws/tables/${encodeURIComponent(summary.id)}`);
  socket.addEventListener("message", (event) => {
    const update = JSON.parse(event.data);
    if (update.type !== "table") return;
    card.querySelector("p.state").textContent = t("admin.monitor.state", { phase: update.phase,
      round: update.round ?? "—", status: t(CONTROL_NAMES[summary.control.status]) });
    clearTimeout(pending);  // the stakes and results follow from the server, a moment later
    pending = setTimeout(async () => {
      const { tables } = await get(tablesPath());
      const fresh = tables.find((candidate) => candidate.id === summary.id);
      if (fresh) render(fresh);
    }, 300);
  });
  sockets.push(socket);
  return card;
}

let polling = null;

export async function monitorPage(container) {
  closeSockets();
  clearInterval(polling);
  window.addEventListener("hashchange", () => { closeSockets(); clearInterval(polling); }, { once: true });
  const first = await get("/tables");
  const chosen = h("select", { name: "jurisdiction" }, h("option", { value: "" }, t("admin.monitor.every_jurisdiction")),
    ...(first.jurisdictions ?? []).map((code) => h("option", { value: code }, code)));
  const tablesPath = () => `/tables${query({ jurisdiction: chosen.value })}`;
  const shown = h("div.monitor-tables");
  let cards = [];
  function show(tables) {
    closeSockets();
    cards = tables.map((summary) => tableCard(summary, tablesPath));
    shown.dataset.jurisdiction = chosen.value;  // the filter the cards shown follow
    shown.replaceChildren(tables.length ? h("div.tables", {}, ...cards)
      : h("p", {}, t(chosen.value ? "admin.monitor.none_for" : "admin.monitor.none", { jurisdiction: chosen.value })));
  }
  chosen.addEventListener("change", async () => show((await get(tablesPath())).tables));
  container.append(h("h2", {}, t("admin.nav.monitor")),
    h("form.filters.monitor-filter", { onsubmit: (event) => event.preventDefault() },
      field(t("admin.monitor.filter_jurisdiction"), chosen)),
    shown);
  show(first.tables);
  // A dealer connecting or leaving sends the table no message: the cards look again every few seconds.
  polling = setInterval(async () => {
    if (!container.isConnected) { clearInterval(polling); return; }
    try {
      const fresh = new Map((await get(tablesPath())).tables.map((summary) => [summary.id, summary]));
      for (const card of cards) {
        const summary = fresh.get(card.dataset.table);
        // not while an admin types into the card's timers: a new render would drop what they typed
        if (summary && !card.contains(document.activeElement)) card.refresh(summary);
      }
    } catch {
      // signed out or the server away: the next look tries again
    }
  }, REFRESH_MS);
}
