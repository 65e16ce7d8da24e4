// A table inside a casino's page, solo or live: its events to the parent frame and the parent's
// requests (js/embed.js; docs/operators.md#page-events). `pause` lets a round in play finish,
// then holds the table (no new round, no new bet) until `resume`. Each table gives
// `embedInRound()` (a round of this player's is in play) and `embedSay(text, kind)` (its status line).

import { emit, leaveTo, onParent } from "./embed.js";
import { t } from "./i18n.js";
import { setSound } from "./motion.js";

export const tableEmbed = {
  startEmbed(ready) {
    if (this.unembed) return;
    this.held = false;
    this.holdAfterRound = false;
    this.postedBalance = null;
    this.unembed = onParent((type, message) => this.obey(type, message));
    emit("ready", ready);
    this.postBalance();
  },

  obey(type, message) {
    if (type === "pause") {
      if (this.embedInRound()) this.holdAfterRound = true;
      else this.hold();
    } else if (type === "resume") {
      this.holdAfterRound = false;
      if (this.held) {
        this.held = false;
        delete this.root.dataset.held;
        this.embedSay(t("embed.resumed"), "info");
        emit("resumed", {});
        this.render();
      }
    } else if (type === "sound") {
      setSound(Boolean(message.on));
    } else if (type === "lobby" || type === "cashier") {
      leaveTo(type);
    }
  },

  hold() {
    this.held = true;
    this.holdAfterRound = false;
    this.root.dataset.held = "true";
    this.embedSay(t("embed.paused"), "info");
    emit("paused", {});
    this.render();
  },

  postBalance() {
    if (typeof this.balance !== "number" || this.balance === this.postedBalance) return;
    this.postedBalance = this.balance;
    emit("balance", { balance: this.balance });
  },

  postRoundStarted(roundId, stake, free = false) {
    emit("round_started", { round_id: roundId, game: this.game?.id ?? this.config?.game ?? null, stake, free });
  },

  /** A round of this player's just settled: its result, then the hold the parent asked for meanwhile. */
  postRoundEnded(roundId, stake, returned) {
    emit("round_ended", { round_id: roundId, game: this.game?.id ?? this.config?.game ?? null, stake, returned,
      net: returned - stake });
    if (this.holdAfterRound) setTimeout(() => this.hold(), 0); // once this step is drawn
  },
};
