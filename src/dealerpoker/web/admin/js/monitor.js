// The live monitor: each live table's phase, round, players, stakes and last house results,
// refreshed as the table's own messages arrive (its fan-out, on /admin/ws/tables/{id}); admins
// pause a table after the round, resume or close it, and set the timers of the next rounds.

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { cell, field, money, table } from "./format.js";
import { get, post } from "./http.js";
import { can, errorText } from "./state.js";

const CONTROL_NAMES = { open: "admin.monitor.status.open", paused: "admin.monitor.status.paused",
  closed: "admin.monitor.status.closed" };
const TIMER_NAMES = { betting_seconds: "admin.monitor.betting_seconds",
  decision_seconds: "admin.monitor.decision_seconds", pause_seconds: "admin.monitor.pause_seconds" };
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

function tableCard(summary) {
  const card = h("article.card.table-card", { dataset: { table: summary.id } });
  const message = h("p.message", { role: "alert" });
  function render(current) {
    const currency = current.currency_format ?? current.currency; // its format as the server gives it
    card.replaceChildren(
      h("h3", {}, `${current.title} (${current.id})`),
      h("p.state", {}, t("admin.monitor.state", { phase: current.phase, round: current.round ?? "—",
        status: t(CONTROL_NAMES[current.control.status]) })),
      h("p.people", {}, t("admin.monitor.people", { watching: current.players, seated: current.seated,
        betting: current.betting })),
      h("p.stakes", {}, t("admin.monitor.stakes", { stakes: money(current.stakes, currency) })),
      h("p", {}, t("admin.monitor.timers", current.control.timers)),
      current.last_results.length ? table([t("admin.rounds.round"), t("admin.monitor.players"),
        t("admin.rounds.staked"), t("admin.rounds.returned"), t("admin.monitor.house")],
      current.last_results.map((r) => h("tr", {}, cell(r.number), cell(r.players, "num"),
        cell(money(r.staked, currency), "num"), cell(money(r.returned, currency), "num"),
        cell(money(r.house, currency), "num")))) : h("p", {}, t("admin.monitor.no_results")),
      can("tables.control") ? controls(current, render, message) : null, message);
  }
  render(summary);
  let pending = null;
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/admin/ws/tables/${encodeURIComponent(summary.id)}`);
  socket.addEventListener("message", (event) => {
    const update = JSON.parse(event.data);
    if (update.type !== "table") return;
    card.querySelector("p.state").textContent = t("admin.monitor.state", { phase: update.phase,
      round: update.round ?? "—", status: t(CONTROL_NAMES[summary.control.status]) });
    clearTimeout(pending);  // the stakes and results follow from the server, a moment later
    pending = setTimeout(async () => {
      const { tables } = await get("/tables");
      const fresh = tables.find((candidate) => candidate.id === summary.id);
      if (fresh) render(fresh);
    }, 300);
  });
  sockets.push(socket);
  return card;
}

export async function monitorPage(container) {
  closeSockets();
  window.addEventListener("hashchange", closeSockets, { once: true });
  const { tables } = await get("/tables");
  container.append(h("h2", {}, t("admin.nav.monitor")),
    tables.length ? h("div.tables", {}, ...tables.map(tableCard)) : h("p", {}, t("admin.monitor.none")));
}
