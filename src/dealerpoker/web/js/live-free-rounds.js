// An operator's free rounds at a live table (docs/operators.md#free-bets): "2 free rounds of
// €1.00 ante" above the felt, and a button that places one for the next round. The ante is the
// operator's (never debited); the side bets the player places, and every later decision, are the
// player's own. The free round is claimed when betting closes (the server says if it could not be).

import { freeRounds } from "./free-rounds.js";
import { t } from "./i18n.js";
import { formatMoney } from "./money.js";

export const liveFreeRounds = {
  buildLiveFreeRounds() {
    return freeRounds.buildFreeRounds.call(this, t("free.use_live"), () => this.useFreeRound());
  },

  /** The player's free rounds for this table's game, asked again after each of their rounds. */
  refreshFreeRounds: freeRounds.refreshFreeRounds,

  drawFreeRounds() {
    if (!this.el?.freeRounds) return;
    const offer = this.freeOffer;
    const chosen = this.seat?.free_round ?? null;
    this.el.freeRounds.hidden = !offer && !chosen;
    if (chosen) {
      this.el.freeText.textContent = t("free.chosen_live", { ante: formatMoney(chosen.free_ante) });
    } else if (offer) {
      this.el.freeText.textContent = t("free.offer", { count: offer.rounds_left, ante: formatMoney(offer.ante) });
    }
    this.el.freeButton.hidden = Boolean(chosen) || !offer;
    this.el.freeButton.disabled = !this.betting() || Boolean(this.held) || Boolean(this.wrongCurrency);
  },

  /** Places the next round as a free round: the operator's ante and the side bets placed so far. */
  useFreeRound() {
    const offer = this.freeOffer;
    if (!offer) return undefined;
    if (!this.betting()) return this.say(t("live.bets_closed"), "error");
    this.freeReward = offer.reward;
    const main = this.game?.fields?.[0]?.name ?? "ante";
    return this.sendBets({ ...this.bets, [main]: offer.ante });
  },
};
