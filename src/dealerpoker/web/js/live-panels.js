// The live table's panels over the felt: the rules, the player's live rounds with each round's
// audit record, and the limits. Mixed into LiveTable (live-table.js); `this` is the table.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { liveReplayView, liveRoundsList } from "./live-history.js";
import { errorText } from "./locale.js";
import { rulesPanel } from "./panels.js";

export const livePanels = {
  /** The player's limits (the same panel as the solo table's; the server checks them before bets). */
  async toggleLimits() {
    const panel = this.el.limits;
    if (!panel.hidden) {
      panel.hidden = true;
      return;
    }
    this.el.history.hidden = true;
    this.el.rules.hidden = true;
    this.el.fairness.hidden = true;
    const close = h("div.panel__bar", {},
      h("button.btn.btn--small.panel__close", { type: "button", onclick: () => { panel.hidden = true; } }, t("btn.close")));
    panel.replaceChildren(close, h("h2", {}, t("rg.limits_title")), await this.rg.panel());
    panel.hidden = false;
  },

  toggleRules() {
    const panel = this.el.rules;
    if (!panel.hidden) {
      panel.hidden = true;
      return;
    }
    this.el.history.hidden = true;
    this.el.limits.hidden = true;
    this.el.fairness.hidden = true;
    panel.replaceChildren(
      h("div.panel__bar", {}, h("button.btn.btn--small.panel__close", { type: "button", onclick: () => { panel.hidden = true; } },
        t("btn.close"))),
      h("h2", {}, t("panel.rules")),
      this.game ? rulesPanel({ ...this.game, title: this.config.title }, { table: this.config }) : null);
    panel.hidden = false;
  },

  async toggleHistory() {
    if (!this.el.history.hidden) {
      this.el.history.hidden = true;
      return;
    }
    this.el.rules.hidden = true;
    this.el.limits.hidden = true;
    this.el.fairness.hidden = true;
    await this.showHistory();
  },

  /** The round's commitment and seeds (provably fair), one click away for every player. */
  toggleFairness() {
    const panel = this.el.fairness;
    const open = panel.hidden;
    for (const other of [this.el.rules, this.el.history, this.el.limits]) other.hidden = true;
    panel.hidden = !open;
  },

  historyBar() {
    return h("div.panel__bar", {},
      h("button.btn.btn--small.panel__close", { type: "button", onclick: () => { this.el.history.hidden = true; } },
        t("btn.close")));
  },

  async showHistory() {
    const panel = this.el.history;
    panel.replaceChildren(this.historyBar(), h("h2", {}, t("live.my_live_rounds")), h("p", {}, t("panel.loading")));
    panel.hidden = false;
    try {
      const { rounds } = await this.api.call("GET", "/api/live-rounds?limit=20");
      panel.replaceChildren(this.historyBar(), h("h2", {}, t("live.my_live_rounds")),
        liveRoundsList(rounds, (round) => this.openRecord(round)));
    } catch (error) {
      panel.replaceChildren(this.historyBar(), h("h2", {}, t("live.my_live_rounds")),
        h("p.message", { dataset: { kind: "error" } }, errorText(error.payload, error.message)));
    }
  },

  async openRecord(round) {
    const panel = this.el.history;
    const back = h("button.btn.btn--small", { type: "button", onclick: () => this.showHistory() }, t("panel.all_rounds"));
    try {
      const record = await this.api.call("GET", round.record);
      panel.replaceChildren(this.historyBar(), h("h2", {}, t("history.round", { id: record.round_id })), back,
        liveReplayView(record, this.api));
    } catch (error) {
      panel.replaceChildren(this.historyBar(), h("h2", {}, t("live.round")), back,
        h("p.message", { dataset: { kind: "error" } }, errorText(error.payload, error.message)));
    }
  },

};
