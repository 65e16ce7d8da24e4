// The solo table's panels over the felt: the rules (with the exact RTPs), the player's history
// with each round's replay, and the limits. Mixed into Table (table.js); `this` is the table.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { errorText } from "./locale.js";
import { moneyFormat } from "./money.js";
import { historyList, replayView, rulesPanel } from "./panels.js";

export const tablePanels = {
  /** The bar on top of a panel: switch to the other panel, or close (the panel covers the header). */
  panelBar(panel) {
    return h("div.panel__bar", {},
      h("button.btn.btn--small", { type: "button", dataset: { panelTab: "rules" }, onclick: () => this.showPanel("rules") },
        t("btn.rules")),
      h("button.btn.btn--small", { type: "button", dataset: { panelTab: "history" }, onclick: () => this.showPanel("history") },
        t("btn.history")),
      h("button.btn.btn--small", { type: "button", dataset: { panelTab: "limits" }, onclick: () => this.showPanel("limits") },
        t("btn.limits")),
      h("button.btn.btn--small", { type: "button", dataset: { panelTab: "fairness" }, onclick: () => this.showPanel("fairness") },
        t("btn.fairness")),
      h("button.btn.btn--small.panel__close", { type: "button", onclick: () => { panel.hidden = true; } }, t("btn.close")));
  },

  panelOf(which) {
    return { rules: this.el.rulesPanel, history: this.el.historyPanel, limits: this.el.limitsPanel,
      fairness: this.el.fairnessPanel }[which];
  },

  async togglePanel(which) {
    const panel = this.panelOf(which);
    if (!panel.hidden) {
      panel.hidden = true;
      return;
    }
    await this.showPanel(which);
  },

  async showPanel(which) {
    const panel = this.panelOf(which);
    for (const other of ["rules", "history", "limits", "fairness"]) if (other !== which) this.panelOf(other).hidden = true;
    const bar = this.panelBar(panel);
    if (which === "fairness") {
      // The next deal's commitment (it lives here, one click away, for every player).
      panel.replaceChildren(bar, h("h2", {}, t("fair.panel_title")), h("p", {}, t("fair.panel_intro")), this.el.nextDeal);
    } else if (which === "limits") {
      panel.replaceChildren(bar, h("h2", {}, t("rg.limits_title")), await this.rg.panel());
    } else if (which === "rules") {
      try {
        // The server fills in the exact RTPs in the background after it starts: ask again.
        const fresh = (await this.api.games(moneyFormat().code)).games.find((g) => g.id === this.game.id);
        if (fresh) this.game.rtp = fresh.rtp;
      } catch {
        // Keep the RTPs we have; the panel still shows the rules.
      }
      panel.replaceChildren(bar, h("h2", {}, t("panel.rules")), rulesPanel(this.game));
    } else {
      panel.replaceChildren(bar, h("h2", {}, t("panel.history")), h("p", {}, t("panel.loading")));
      panel.hidden = false;
      try {
        const { rounds } = await this.api.rounds({ status: "settled", limit: 20 });
        panel.replaceChildren(bar, h("h2", {}, t("panel.history")), historyList(rounds, (round) => this.openReplay(round)));
      } catch (error) {
        panel.replaceChildren(bar, h("h2", {}, t("panel.history")), h("p.message", { dataset: { kind: "error" } }, errorText(error.payload, error.message)));
      }
    }
    panel.hidden = false;
  },

  async openReplay(summary) {
    const panel = this.el.historyPanel;
    const bar = this.panelBar(panel);
    const back = h("button.btn.btn--small", { type: "button", onclick: () => this.showPanel("history") }, t("panel.all_rounds"));
    try {
      const [round, replay] = await Promise.all([this.api.round(summary.id), this.api.replay(summary.id)]);
      round.frames = replay.frames;
      panel.replaceChildren(bar, h("h2", {}, t("panel.replay_of", { id: round.id })), back, replayView(round, this.api));
    } catch (error) {
      panel.replaceChildren(bar, h("h2", {}, t("panel.replay")), back, h("p.message", { dataset: { kind: "error" } }, errorText(error.payload, error.message)));
    }
  },
};
