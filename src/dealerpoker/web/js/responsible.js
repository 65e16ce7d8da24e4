// Responsible gaming on the page (the server decides and enforces; docs/api.md#responsible-gaming):
// the reality check between rounds (session time, total staked, net; continue or leave), and the
// limits panel where the player sets loss and stake limits per day and session and a session time.

import { h } from "./dom.js";
import { emit } from "./embed.js";
import { t } from "./i18n.js";
import { showJurisdiction } from "./jurisdiction.js";
import { errorText, formatTime } from "./locale.js";
import { formatMoney, moneyFormat } from "./money.js";

const PATH = "/api/responsible-gaming";
const MONEY_LIMITS = ["loss_day", "loss_session", "stake_day", "stake_session"];
const TITLES = {
  loss_day: "rg.limit.loss_day", loss_session: "rg.limit.loss_session", stake_day: "rg.limit.stake_day",
  stake_session: "rg.limit.stake_session", session_minutes: "rg.limit.session_minutes",
};
const LAUNCH_KEY = "dealerpoker.launch";

/** Where "leave" goes: the launch's lobby_url (an operator's), else this casino's lobby. */
export function lobbyUrl() {
  const launch = JSON.parse(sessionStorage.getItem(LAUNCH_KEY) ?? "{}");
  return typeof launch.lobby_url === "string" && /^https?:\/\//.test(launch.lobby_url) ? launch.lobby_url : "#/";
}

/** "12.50" in the player's currency -> 1250 minor units; null when it is not an amount. */
export function parseAmount(text) {
  const { exponent } = moneyFormat();
  const cleaned = String(text).trim().replace(/\s/g, "");
  const match = /^(\d+)(?:[.,](\d+))?$/.exec(cleaned);
  if (!match || (match[2] ?? "").length > exponent) return null;
  return Number(match[1]) * 10 ** exponent + Number((match[2] ?? "").padEnd(exponent, "0") || 0);
}

export class Responsible {
  /** `idle()`: whether the table is between rounds (the reality check never interrupts a round);
   * `recall`: which rounds the jurisdiction's recall shows, "solo" or "live" (the table's kind). */
  constructor(api, { idle = () => true, recall = "solo" } = {}) {
    this.api = api;
    this.idle = idle;
    this.recall = recall;
    this.status = null;
    this.timer = null;
    this.dialog = null;
  }

  destroy() {
    clearTimeout(this.timer);
    this.dialog?.remove();
  }

  /** Asks the server; shows the reality check when it is due and the table is idle. */
  async refresh() {
    try {
      this.status = await this.api.call("GET", PATH);
    } catch {
      return null;
    }
    this.schedule();
    showJurisdiction(this.status, this.api, this.recall); // what the player's market requires the page to show
    if (this.status.session?.reality_check_due && this.idle()) this.showRealityCheck();
    return this.status;
  }

  schedule() {
    clearTimeout(this.timer);
    const { reality_check_at: at } = this.status.session ?? {};
    if (!at || this.status.session.reality_check_due) return;
    const wait = Date.parse(at) - Date.parse(this.status.server_time);
    if (!Number.isFinite(wait)) return;
    this.timer = setTimeout(() => this.refresh(), Math.min(Math.max(wait, 1000), 2 ** 30));
  }

  /** The pause between rounds: what this session cost, and continue or leave. */
  showRealityCheck() {
    if (this.dialog?.isConnected) return;
    const session = this.status.session ?? {};
    emit("reality_check", { minutes: session.minutes ?? 0, staked: session.staked ?? 0, net: session.net ?? 0 });
    const answer = async (choice) => {
      try {
        this.status = await this.api.call("POST", `${PATH}/reality-check`, { choice });
      } catch (error) {
        note.textContent = errorText(error.payload, error.message);
        return;
      }
      this.dialog.close();
      this.dialog.remove();
      if (choice === "leave") location.assign(lobbyUrl());
      else this.schedule();
    };
    const note = h("p.reality__note", { role: "alert" });
    this.dialog = h("dialog.reality", { id: "reality-check", "aria-labelledby": "reality-title" },
      h("h2", { id: "reality-title" }, t("rg.reality_title")),
      h("p", {}, t("rg.reality_intro", { minutes: t("rg.minutes", { count: session.minutes ?? 0 }) })),
      h("dl.reality__figures", {},
        h("dt", {}, t("rg.session_time")), h("dd", { id: "reality-minutes" }, t("rg.minutes", { count: session.minutes ?? 0 })),
        h("dt", {}, t("rg.staked")), h("dd", { id: "reality-staked" }, formatMoney(session.staked ?? 0)),
        h("dt", {}, t("rg.net")), h("dd", { id: "reality-net" }, formatMoney(session.net ?? 0, { signed: true }))),
      note,
      h("div.reality__buttons", {},
        h("button.btn.btn--action.btn--primary", { type: "button", id: "reality-continue", onclick: () => answer("continue") },
          t("rg.continue")),
        h("button.btn.btn--action", { type: "button", id: "reality-leave", onclick: () => answer("leave") }, t("rg.leave"))));
    this.dialog.addEventListener("cancel", (event) => event.preventDefault()); // Esc does not skip it
    document.body.append(this.dialog);
    this.dialog.showModal();
  }

  /** The limits panel's body: each limit, what applies, a raise waiting, and a form to set it. */
  async panel() {
    const body = h("div.panel__body.limits-panel", { id: "limits-body" });
    const draw = () => body.replaceChildren(...this.rows(draw));
    if (!this.status) await this.refresh();
    if (this.status) draw();
    else body.append(h("p.message", { dataset: { kind: "error" } }, t("page.connection_lost")));
    return body;
  }

  rows(redraw) {
    const { limits = {}, profile = {}, session = {}, day = {} } = this.status;
    const message = h("p.message", { id: "limits-message", role: "status" });
    const money = (v) => (v === null || v === undefined ? t("rg.no_limit") : formatMoney(v));
    const shown = (kind, v) => (kind === "session_minutes" ? (v ? t("rg.minutes", { count: v }) : t("rg.no_limit")) : money(v));
    const rows = [...MONEY_LIMITS, "session_minutes"].map((kind) => {
      const limit = limits[kind] ?? {};
      const input = h("input.limits__input", {
        id: `limit-${kind}`, name: kind, inputmode: kind === "session_minutes" ? "numeric" : "decimal",
        autocomplete: "off", "aria-label": t(TITLES[kind]),
      });
      const set = async (value) => {
        if (value === undefined) {
          message.dataset.kind = "error";
          message.textContent = t("rg.not_an_amount", { text: input.value });
          return;
        }
        try {
          this.status = await this.api.call("PUT", `${PATH}/limits`, { [kind]: value });
        } catch (error) {
          message.dataset.kind = "error";
          message.textContent = errorText(error.payload, error.message);
          return;
        }
        redraw();
        const now = this.status.limits[kind];
        const info = document.getElementById("limits-message");
        if (info) {
          info.dataset.kind = "info";
          info.textContent = now.pending
            ? t("rg.raise_waits", { limit: t(TITLES[kind]), until: formatTime(now.pending.applies_at) })
            : t("rg.limit_set", { limit: t(TITLES[kind]), value: shown(kind, now.applies) });
        }
      };
      const read = () => {
        const text = input.value.trim();
        if (kind === "session_minutes") return /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
        const amount = parseAmount(text);
        return amount && amount > 0 ? amount : undefined;
      };
      return h("tr", { dataset: { limit: kind } },
        h("th", { scope: "row" }, t(TITLES[kind])),
        h("td.limits__applies", {}, shown(kind, limit.applies)),
        h("td.limits__pending", {}, limit.pending
          ? t("rg.pending", { value: shown(kind, limit.pending.amount), until: formatTime(limit.pending.applies_at) }) : ""),
        h("td", {}, h("form.limits__form", {
          onsubmit: (event) => { event.preventDefault(); set(read()); },
        }, input,
        h("button.btn.btn--small", { type: "submit", dataset: { setLimit: kind } }, t("rg.set")),
        limit.player !== null && limit.player !== undefined
          ? h("button.btn.btn--small", { type: "button", dataset: { removeLimit: kind }, onclick: () => set(null) }, t("rg.remove"))
          : null)));
    });
    return [
      h("p", {}, t("rg.limits_intro", { hours: profile.cooling_off_hours ?? 0 })),
      h("table.limits.limits--rg", {},
        h("thead", {}, h("tr", {}, ["rg.limit", "rg.applies", "rg.waiting", "rg.change"].map((key) => h("th", { scope: "col" }, t(key))))),
        h("tbody", {}, rows)),
      message,
      h("h3", {}, t("rg.this_session")),
      h("p", { id: "rg-session" }, t("rg.session_line", {
        minutes: t("rg.minutes", { count: session.minutes ?? 0 }), staked: formatMoney(session.staked ?? 0),
        net: formatMoney(session.net ?? 0, { signed: true }),
      })),
      h("p", { id: "rg-day" }, t("rg.day_line", { staked: formatMoney(day.staked ?? 0), net: formatMoney(day.net ?? 0, { signed: true }) })),
      profile.reality_check_minutes ? h("p", {}, t("rg.reality_every", { minutes: t("rg.minutes", { count: profile.reality_check_minutes }) })) : null,
    ];
  }
}
