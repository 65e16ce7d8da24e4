// An operator's free rounds at the solo table (docs/operators.md#free-bets): "3 free rounds of
// €1.00 ante" above the felt, and a button that deals one. The ante is the operator's (the server
// does not debit it); the side bet the player placed, and every later bet, are the player's own.

import { ApiError } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { formatMoney } from "./money.js";

export const freeRounds = {
  /** The element the table shows them in (built once, with the rest of the table); the live
   * table's button places one for the next round instead (``js/live-free-rounds.js``). */
  buildFreeRounds(label = t("free.play"), onclick = () => this.dealFree()) {
    this.freeOffer ??= null;
    this.el.freeText = h("span.free-rounds__text", { id: "free-rounds-text" });
    this.el.freeButton = h("button.btn.btn--primary.free-rounds__play", {
      type: "button", id: "free-round-button", onclick,
    }, label);
    this.el.freeRounds = h("div.free-rounds", { id: "free-rounds", hidden: true, role: "status" },
      this.el.freeText, this.el.freeButton);
    return this.el.freeRounds;
  },

  /** Asks the server which free rounds the player has now (after the start and each round). */
  async refreshFreeRounds() {
    try {
      const found = await this.api.freeRounds(this.game.id);
      this.freeOffer = (found.free_rounds ?? [])[0] ?? null;
    } catch (error) {
      // No operators on this server (404), or the connection: no free rounds shown.
      if (!(error instanceof ApiError)) throw error;
      this.freeOffer = null;
    }
    this.drawFreeRounds();
  },

  drawFreeRounds() {
    const offer = this.freeOffer;
    if (!this.el?.freeRounds) return;
    this.el.freeRounds.hidden = !offer;
    if (!offer) return;
    this.el.freeText.textContent = t("free.offer", { count: offer.rounds_left, ante: formatMoney(offer.ante) });
    this.el.freeButton.disabled = this.busy || this.phase === "playing";
  },

  /** Deals one free round: the operator's ante and the side bets the player placed. */
  async dealFree() {
    const offer = this.freeOffer;
    if (!offer || this.busy || this.phase === "playing") return;
    const main = this.openingFields[0];
    const sides = Object.fromEntries(Object.entries(this.pending).filter(([name, v]) => name !== main && v > 0));
    await this.deal({ ...sides, [main]: offer.ante }, { what: t("free.refused"), freeRound: offer.reward });
  },
};
