// A live table: one hand dealt for everyone on the dealer's clock; each player bets and decides
// for themselves. The page renders what the server sends over /ws/tables/{id} and sends intents;
// it holds no rules (fields, limits, chips, legal actions and stakes come from the server).
// This module holds the table's state, its WebSocket and the player's intents; the felt is drawn
// by live-view.js, the panels are live-panels.js's; live.js starts the page.

import { closedByRequirement } from "./betting.js";
import { DECISION_KEYS, actionTitle, fieldTitle, h } from "./dom.js";
import { t } from "./i18n.js";
import { liveFreeRounds } from "./live-free-rounds.js";
import { livePanels } from "./live-panels.js";
import { liveView } from "./live-view.js";
import { errorText, launch, useCurrency } from "./locale.js";
import { formatMoney, stackFor } from "./money.js";
import { StrategyHint } from "./hint.js";
import { withJackpot } from "./jackpot.js";
import { fly, play, settleFlight } from "./motion.js";
import { bonusText } from "./panels.js";
import { Responsible } from "./responsible.js";
import { TableSocketClient } from "./socket.js";
import { emit } from "./embed.js";
import { tableEmbed } from "./table-embed.js";

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
    this.pendingBets = null; // the bets clicked and sent, until the server has answered each
    this.unanswered = 0;
    this.placed = {}; // each field's chips in the order placed (Ctrl+click takes back the last)
    this.lastBets = null; // the opening bets of this player's last round (REBET)
    this.lastJackpot = false; // whether they carried the jackpot bet (REBET repeats it)
    this.jackpot = { on: false }; // the JACKPOT switch: this player's bets carry the jackpot bet (jackpot.js)
    this.jackpotOffer = null; // the jackpot bet this table offers ({stake, pool_category}), from the welcome
    this.onKey = (event) => this.handleKey(event);
    // The reality check between rounds: never while this player has a decision open.
    this.rg = new Responsible(api, { idle: () => !(this.seat?.legal_actions ?? []).length, recall: "live" });
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
    document.addEventListener("keydown", this.onKey);
    this.timer = setInterval(() => this.tick(), 100);
  }

  destroy() {
    this.closed = true;
    this.rg.destroy();
    this.unembed?.();
    document.removeEventListener("keydown", this.onKey);
    this.pointer?.destroy();
    this.unfollow?.();
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
        // The balance is in the player's currency; a table in another one is refused at once.
        this.playerCurrency = message.player_currency_format ?? null;
        this.wrongCurrency = Boolean(message.player_currency && message.currency
          && message.player_currency !== message.currency)
          ? t("live.wrong_currency_table", { table: message.currency, currency: message.player_currency }) : null;
        this.freeOffer = (message.free_rounds ?? [])[0] ?? null; // "N free rounds of X ante"
        this.jackpotOffer = message.jackpot ?? null;
        this.build();
        if (this.wrongCurrency) this.say(this.wrongCurrency, "error");
        this.rg.refresh();
        this.startEmbed({ table: this.tableId, game: this.config?.game ?? null, balance: this.balance,
          currency: message.currency ?? null });
        break;
      case "table":
        this.onTable(message);
        break;
      case "presence":
        this.state.players = message.players;
        break;
      case "you":
        this.answered();
        this.onSeat(message);
        break;
      case "error":
        this.answered({ refused: true });
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
    if (this.unembed) this.postBalance();
  }

  /** A round of this player's is in play: bets accepted and not settled yet. */
  embedInRound() {
    return Boolean(Object.keys(this.seat?.bets ?? {}).length && !this.seat?.settlement) || this.unanswered > 0;
  }

  embedSay(text, kind) {
    this.say(text, kind);
  }

  onTable(message) {
    const newRound = message.round !== this.state.round;
    this.state = message;
    if (newRound && message.phase === "betting") {
      this.seat = null;
      this.pendingBets = null;
      this.unanswered = 0;
      this.placed = {};
      this.recordUrl = null;
      this.timeoutNote = null;
      this.freeReward = null; // a free round is chosen for one round
      this.say(t("live.place_bets"), "info");
    }
    if (message.event === "no_more_bets") this.say(t("live.no_more_bets"), "info");
    if (message.event === "misdeal") this.say(t("live.misdeal"), "info");
    if (message.event === "resumed") this.send({ type: "hello" }); // our part, as the server has it
  }

  onSeat(message) {
    if (message.round && this.state.round && message.round !== this.state.round) return;
    this.seat = message.seat;
    // What REBET repeats: this round's opening bets, once they are in play.
    if (message.phase !== "betting" && Object.keys(this.seat?.bets ?? {}).length) {
      this.lastBets = { ...this.seat.bets };
      this.lastJackpot = Boolean(this.seat.jackpot);
    }
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
    const roundId = `${this.tableId}/${message.round}`;
    if (this.unembed && message.phase !== "betting" && Object.keys(this.seat?.bets ?? {}).length
        && this.startedRound !== message.round) {
      this.startedRound = message.round;
      this.postRoundStarted(roundId, this.seat.total_stake ?? 0);
    }
    if (this.unembed && settlement && message.phase === "pause" && this.endedRound !== message.round) {
      this.endedRound = message.round;
      this.postRoundEnded(roundId, settlement.total_stake, settlement.total_returned);
    }
    if (settlement && this.seat?.free_round && this.freeAskedRound !== message.round) {
      this.freeAskedRound = message.round; // one used: how many are left now
      this.refreshFreeRounds();
    }
    if (settlement && this.flownRound !== message.round) {
      this.flownRound = message.round; // once drawn: the round's chips go back to the player or to the dealer
      setTimeout(() => settleFlight(this.el.spots.closest(".felt"), settlement,
        { player: this.el.balance, dealer: this.el.dealer }), 0);
    }
    if (settlement?.outcome === "misdeal") {
      this.say(t("live.misdeal_returned", { amount: formatMoney(settlement.total_returned) }), "info");
    } else if (settlement && message.phase === "pause") {
      const net = settlement.net;
      this.say(withJackpot(this.seat, net > 0 ? t("live.you_win", { amount: formatMoney(net) }) : net < 0
        ? t("live.you_lose", { amount: formatMoney(-net) }) : t("live.push")), net > 0 ? "win" : "info");
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

  /** The player's bets as they stand: the ones sent and not yet answered, else the server's. */
  get bets() {
    return { ...(this.pendingBets ?? this.seat?.bets ?? {}) };
  }

  /** An answer (a seat or an error) to one of the bets sent: once all are answered, the server's
   * seat is the truth again; a refusal drops what was not confirmed. */
  answered({ refused = false } = {}) {
    if (this.unanswered > 0) this.unanswered -= 1;
    if (refused || !this.unanswered) {
      this.pendingBets = null;
      this.unanswered = 0;
    }
  }

  betting() {
    return this.state.phase === "betting" && this.deadlineLeft() > 0;
  }

  addChip(name) {
    if (this.held) return this.say(t("embed.paused"), "error"); // the casino's pause: no new round
    if (this.wrongCurrency) return this.say(this.wrongCurrency, "error");
    if (!this.betting()) return this.say(t("live.bets_closed"), "error");
    const bets = this.bets;
    const field = this.game?.fields.find((f) => f.name === name);
    const closed = field ? closedByRequirement(field, bets) : null;
    if (closed) return this.say(closed, "error");
    bets[name] = (bets[name] ?? 0) + this.config.chips[this.selected];
    (this.placed[name] ??= []).push(this.config.chips[this.selected]);
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

  /** Ctrl+click: the last chip placed on the field comes back. */
  removeLast(name) {
    if (this.wrongCurrency) return this.say(this.wrongCurrency, "error");
    if (!this.betting()) return this.say(t("live.bets_closed"), "error");
    const bets = this.bets;
    if (!bets[name]) return this.say(t("bet.nothing_to_remove", { field: fieldTitle(name) }), "error");
    const placed = this.placed[name] ?? [];
    const chip = placed.length ? placed.pop() : stackFor(bets[name], this.config.chips).at(-1);
    bets[name] -= chip;
    if (bets[name] <= 0) delete bets[name];
    return this.sendBets(bets);
  }

  /** A lifted stack's right click, or a finger held on the field: all its chips come back. */
  removeAll(name) {
    if (!this.betting()) return this.say(t("live.bets_closed"), "error");
    const bets = this.bets;
    if (!bets[name]) return this.say(t("bet.nothing_to_remove", { field: fieldTitle(name) }), "error");
    delete bets[name];
    delete this.placed[name];
    this.sendBets(bets);
    return this.say(t("bet.stack_removed", { field: fieldTitle(name) }), "info");
  }

  clearBets() {
    this.placed = {};
    this.freeReward = null;
    this.sendBets({});
  }

  /** REBET: this player's opening bets of their last round, again. */
  rebet() {
    if (this.wrongCurrency) return this.say(this.wrongCurrency, "error");
    if (!this.betting()) return this.say(t("live.bets_closed"), "error");
    if (!this.lastBets) return this.say(t("bet.no_rebet"), "error");
    this.placed = {};
    if (this.jackpotOffer) this.jackpot.on = this.lastJackpot; // the last round's jackpot bet too
    return this.sendBets({ ...this.lastBets });
  }

  /** The JACKPOT switch pressed: bets already on the table are sent again with (or without) it;
   * otherwise it applies to the next bets. */
  jackpotChanged() {
    if (this.betting() && Object.keys(this.bets).length) this.sendBets(this.bets);
    else this.render();
  }

  sendBets(bets) {
    if (this.held) return this.say(t("embed.paused"), "error"); // the casino's pause: no new round
    const message = { type: "bet", bets };
    if (this.freeReward && Object.keys(bets).length) message.free_round = this.freeReward; // a free round chosen
    if (this.jackpot.on && this.jackpotOffer && Object.keys(bets).length) message.jackpot = true;
    if (!this.send(message)) return; // not connected: said so, nothing pending
    this.pendingBets = { ...bets };
    this.unanswered += 1;
    this.render();
  }

  /** The keyboard, as at the solo table: 1-9 chips, F/B/C/R decisions, R repeats the last bets
   * while bets are open, Esc closes the panels. */
  handleKey(event) {
    if (event.ctrlKey || event.altKey || event.metaKey || !this.el) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement
      || event.target instanceof HTMLSelectElement) return;
    const key = event.key.toLowerCase();
    if (key === "escape") {
      for (const panel of [this.el.rules, this.el.history, this.el.limits, this.el.fairness]) panel.hidden = true;
      return;
    }
    if (/^[1-9]$/.test(key) && Number(key) <= this.config.chips.length) {
      event.preventDefault();
      this.selected = Number(key) - 1;
      this.render();
      return;
    }
    const legal = this.seat?.legal_actions ?? [];
    if (legal.length && DECISION_KEYS[key]) {
      const action = DECISION_KEYS[key].find((a) => legal.includes(a));
      if (action) {
        event.preventDefault();
        this.send({ type: "decide", action });
      }
      return;
    }
    if (key === "r" && this.state.phase === "betting") {
      event.preventDefault();
      this.rebet();
    }
  }

  deadlineLeft() {
    return this.secondsLeft(this.state.deadline, 0);
  }

  say(text, kind = "info") {
    if (kind === "error") emit("error", { code: "refused", message: text });
    if (!this.el) return;
    if (this.wrongCurrency && kind !== "error") return; // the refusal stays in view
    this.el.message.textContent = text;
    this.el.message.dataset.kind = kind;
  }
}

Object.assign(LiveTable.prototype, liveView, livePanels, tableEmbed, liveFreeRounds);
