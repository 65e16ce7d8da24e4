// A live table: one hand dealt for everyone on the dealer's clock; each player bets and decides
// for themselves. The page renders what the server sends over /ws/tables/{id} and sends intents;
// it holds no rules (fields, limits, chips, legal actions and stakes come from the server).
// This module holds the table's state, its WebSocket and the player's intents; the felt is drawn
// by live-view.js, the panels are live-panels.js's; live.js starts the page.

import { closedByRequirement } from "./betting.js";
import { actionTitle, h } from "./dom.js";
import { t } from "./i18n.js";
import { livePanels } from "./live-panels.js";
import { liveView } from "./live-view.js";
import { errorText, launch, useCurrency } from "./locale.js";
import { formatMoney, stackFor } from "./money.js";
import { StrategyHint } from "./hint.js";
import { fly, play, settleFlight } from "./motion.js";
import { bonusText } from "./panels.js";
import { Responsible } from "./responsible.js";
import { TableSocketClient } from "./socket.js";

// A decision the timer took, as its player is told at once.
const TIMEOUT_KEYS = { fold: "timeout.fold", check: "timeout.check", bet: "timeout.bet", raise: "timeout.raise",
  call: "timeout.raise" };

export class LiveTable extends TableSocketClient {
  constructor(root, api, tableId) {
    super("live.not_sent");
    this.root = root;
    this.api = api;
    this.tableId = tableId;
    this.config = null;
    this.state = { phase: "unknown" };
    this.seat = null;
    this.bonusTold = null; // the round whose Bonus result was announced
    this.timeoutTold = null; // the last decision the timer took for this player, once announced
    this.lastWin = 0; // what the last round returned (a Bonus paid at the deal counts at once)
    this.game = null; // the table's game as GET /api/games describes one (fields, paytables)
    this.balance = null;
    this.ledgerMoment = null; // the last money moment whose balance was read (see followLedger)
    this.selected = 0;
    this.timer = null;
    // The reality check between rounds: never while this player has a decision open.
    this.rg = new Responsible(api, { idle: () => !(this.seat?.legal_actions ?? []).length });
  }

  async start() {
    this.api.currency = launch().currency ?? null; // a new player in the launch's currency
    try {
      const offer = await this.api.games();
      this.games = offer.games;
      // The server offers the strategy hint (off by default): asked at each of this seat's decisions.
      if (offer.strategy_hint === true) {
        this.hint = new StrategyHint(this.api, () => `/api/tables/${encodeURIComponent(this.tableId)}/advice`);
      }
    } catch {
      this.games = []; // the Bonus line keeps the server's English name
    }
    await this.connect();
    this.timer = setInterval(() => this.tick(), 100);
  }

  destroy() {
    this.closed = true;
    this.rg.destroy();
    clearInterval(this.timer);
    this.socket?.close();
  }

  async connect() {
    const token = await this.api.ensureSession();
    this.openSocket(`/ws/tables/${encodeURIComponent(this.tableId)}`, token, () => {
      if (this.closed) return;
      this.say(t("live.reconnecting"), "error");
      this.retry(() => this.connect().catch(() => {}));
    });
  }

  // ---------------------------------------------------------------- messages from the server

  receive(message) {
    switch (message.type) {
      case "welcome":
        this.config = message.table;
        this.game = message.game ?? null;
        this.balance = message.balance;
        useCurrency(message.currency_format ?? { code: message.currency ?? message.table?.currency });
        this.playerId = message.player_id;
        this.build();
        this.rg.refresh();
        break;
      case "table":
        this.onTable(message);
        break;
      case "presence":
        this.state.players = message.players;
        break;
      case "you":
        this.onSeat(message);
        break;
      case "error":
        if (message.error === "not_found") {
          this.closed = true;
          this.root.replaceChildren(h("p.message", { dataset: { kind: "error" }, role: "alert" },
            `${errorText(message, message.message)}. `, h("a", { href: "./#/" }, t("page.back_to_lobby"))));
          return;
        }
        this.say(errorText(message, message.message), "error");
        if (message.reason === "reality_check") this.rg.refresh();
        if (message.error === "unauthorized") this.api.storage.removeItem("dealerpoker.token");
        break;
      default:
        break;
    }
    if (this.el) this.render();
  }

  onTable(message) {
    const newRound = message.round !== this.state.round;
    this.state = message;
    if (newRound && message.phase === "betting") {
      this.seat = null;
      this.recordUrl = null;
      this.timeoutNote = null;
      this.say(t("live.place_bets"), "info");
    }
    if (message.event === "no_more_bets") this.say(t("live.no_more_bets"), "info");
    if (message.event === "misdeal") this.say(t("live.misdeal"), "info");
    if (message.event === "resumed") this.send({ type: "hello" }); // our part, as the server has it
  }

  onSeat(message) {
    if (message.round && this.state.round && message.round !== this.state.round) return;
    this.seat = message.seat;
    this.recordUrl = message.record ?? null; // the settled round's audit record (your part)
    this.followLedger(message); // the balance, the won Bonus's credit included
    // The Bonus is paid at the deal: say so (once per round).
    const bonus = this.seat?.bonus;
    if (bonus?.returned > 0 && !this.seat.settlement) this.lastWin = bonus.returned; // paid at the deal
    if (this.seat?.settlement) this.lastWin = this.seat.settlement.total_returned;
    this.announceTimeout(message.round);
    if (bonus && bonus.status !== "pending" && this.bonusTold !== message.round && message.phase !== "pause") {
      this.bonusTold = message.round;
      this.say(bonusText(bonus, this.gameOf()).text, bonus.status === "won" ? "win" : "info");
    }
    const settlement = this.seat?.settlement;
    if (settlement && this.flownRound !== message.round) {
      this.flownRound = message.round; // once drawn: the round's chips go back to the player or to the dealer
      setTimeout(() => settleFlight(this.el.spots.closest(".felt"), settlement,
        { player: this.el.balance, dealer: this.el.dealer }), 0);
    }
    if (settlement?.outcome === "misdeal") {
      this.say(t("live.misdeal_returned", { amount: formatMoney(settlement.total_returned) }), "info");
    } else if (settlement && message.phase === "pause") {
      const net = settlement.net;
      this.say(net > 0 ? t("live.you_win", { amount: formatMoney(net) }) : net < 0
        ? t("live.you_lose", { amount: formatMoney(-net) }) : t("live.push"), net > 0 ? "win" : "info");
    }
  }

  /** "Time ran out: folded": the timer decided for this player; said once, at once, and kept on the felt. */
  announceTimeout(round) {
    const steps = this.seat?.steps ?? [];
    const last = steps[steps.length - 1];
    if (!last || last.source !== "timeout") return;
    const told = `${round}|${last.point}`;
    if (this.timeoutTold === told) return;
    this.timeoutTold = told;
    this.timeoutNote = t(TIMEOUT_KEYS[last.action] ?? "timeout.other", { action: actionTitle(last.action) });
    this.say(this.timeoutNote, "info");
  }

  /** Folded (by the player or the timer): the main bets' chips have left the table. */
  folded() {
    return (this.seat?.steps ?? []).some((step) => step.action === "fold");
  }

  /**
   * Follow the balance through the commits that moved the player's money: the deal (bets
   * debited, a won Bonus paid), a decision point with a stake, the settlement. The seat message
   * sent after such a commit carries the balance it left; only when it does not (a round
   * resumed after a restart, say) is the balance read again, once per money moment.
   */
  followLedger(message) {
    const seat = message.seat;
    const committed = seat && (seat.settlement || ["dealing", "decision", "showdown"].includes(message.phase));
    const carried = typeof message.balance === "number";
    if (carried) this.balance = message.balance;
    if (!committed) return;
    const moment = `${message.round}|${seat.total_stake}|${seat.bonus?.status ?? ""}|${seat.settlement ? "settled" : ""}`;
    if (moment === this.ledgerMoment) return;
    this.ledgerMoment = moment;
    if (carried) return;
    this.api.balance().then(({ balance }) => {
      if (this.ledgerMoment === moment) this.balance = balance;
      this.render();
    }).catch(() => {});
  }

  /** The game's description (its paytables name a Bonus line in the player's language). */
  gameOf() {
    return this.games?.find((g) => g.id === this.config?.game) ?? null;
  }

  get bets() {
    return { ...(this.seat?.bets ?? {}) };
  }

  betting() {
    return this.state.phase === "betting" && this.deadlineLeft() > 0;
  }

  addChip(name) {
    if (!this.betting()) return this.say(t("live.bets_closed"), "error");
    const bets = this.bets;
    const field = this.game?.fields.find((f) => f.name === name);
    const closed = field ? closedByRequirement(field, bets) : null;
    if (closed) return this.say(closed, "error");
    bets[name] = (bets[name] ?? 0) + this.config.chips[this.selected];
    const tray = this.el.tray.children[this.selected];
    fly(tray, this.el.spots.querySelector(`[data-spot="${name}"] .spot`), [tray]);
    play("chip");
    return this.sendBets(bets);
  }

  removeLowest(name) {
    if (!this.betting()) return this.say(t("live.bets_closed"), "error");
    const bets = this.bets;
    const stack = stackFor(bets[name] ?? 0, this.config.chips);
    if (!stack.length) return undefined;
    bets[name] -= stack[stack.length - 1];
    if (!bets[name]) delete bets[name];
    return this.sendBets(bets);
  }

  sendBets(bets) {
    this.send({ type: "bet", bets });
  }

  deadlineLeft() {
    return this.secondsLeft(this.state.deadline, 0);
  }

  say(text, kind = "info") {
    if (!this.el) return;
    this.el.message.textContent = text;
    this.el.message.dataset.kind = kind;
  }
}

Object.assign(LiveTable.prototype, liveView, livePanels);
