// One game's table: renders the server's round view and sends the player's intents.
// The page holds no rules: fields, limits, chips and paytables come from GET /api/games,
// legal decisions, stakes, cards and results from the round view.
// This module holds the table's state and its talk with the server; the felt is drawn by
// table-view.js, the chips before the deal are table-bets.js's, the panels table-panels.js's.

import { ApiError, newIdempotencyKey } from "./api.js";
import { DECISION_KEYS, actionTitle } from "./dom.js";
import { STEP_MS, settleFlight } from "./motion.js";
import { t } from "./i18n.js";
import { StrategyHint } from "./hint.js";
import { withJackpot } from "./jackpot.js";
import { errorText } from "./locale.js";
import { Responsible } from "./responsible.js";
import { freeRounds } from "./free-rounds.js";
import { tableEmbed } from "./table-embed.js";
import { tableBets } from "./table-bets.js";
import { tablePanels } from "./table-panels.js";
import { tableView } from "./table-view.js";

export class Table {
  /** `hint`: the server offers the strategy hint (GET /api/games says strategy_hint). */
  constructor(root, api, game, { hint = false } = {}) {
    this.root = root;
    this.api = api;
    this.game = game;
    this.hint = hint ? new StrategyHint(api) : null;
    this.openingFields = game.fields.map((f) => f.name);
    this.balance = null;
    this.pending = {};
    this.placed = {};
    this.selected = 0;
    this.round = null;
    this.lastBets = null;
    this.lastWin = 0;
    this.busy = false;
    this.dealKey = null;
    this.dealtAt = null; // when this page's last round started (the profile's pace between rounds)
    this.refusals = new Map(); // field -> what clears its red border: "closed", "deal" or "change"
    this.jackpot = { on: false }; // whether each deal adds the progressive jackpot bet (jackpot.js)
    this.onKey = (event) => this.handleKey(event);
    this.rg = new Responsible(api, { idle: () => this.phase !== "playing" && !this.busy });
  }

  /** A round of this player's is in play (the casino's pause waits for its end). */
  embedInRound() {
    return this.phase === "playing" || this.busy;
  }

  embedSay(text, kind) {
    this.message(text, kind);
  }

  get phase() {
    if (!this.round) return "betting";
    return this.round.status === "open" ? "playing" : "settled";
  }

  field(name) {
    return this.game.fields.find((f) => f.name === name);
  }

  // ---------------------------------------------------------------- opening and closing

  async start() {
    this.build();
    this.message(t("play.place_bets")); // the status line is never an empty strip
    document.addEventListener("keydown", this.onKey);
    this.render();
    await this.resync({ quiet: true });
    await this.rg.refresh();
    await this.refreshFreeRounds();
    this.startEmbed({ game: this.game.id, balance: this.balance, currency: this.game.currency ?? null });
  }

  destroy() {
    document.removeEventListener("keydown", this.onKey);
    this.pointer?.destroy();
    this.unfollow?.();
    this.rg.destroy();
    this.unembed?.();
  }
  // ---------------------------------------------------------------- the profile's pace

  /** Whether the profile (GET /api/responsible-gaming) lets the table act before a step's animations end. */
  get fastPlay() {
    return Boolean(this.rg.status?.profile?.fast_play);
  }

  /**
   * A step the server answered, drawn. Without fast play the table takes nothing (buttons, keys)
   * until the step's animations have run -- with reduced motion too: it removes the movement, not
   * the time, so it cannot be used to play faster.
   */
  async present() {
    if (this.fastPlay) return; // drawn once the request is over, ready for the next action
    this.render();
    await new Promise((done) => setTimeout(done, STEP_MS));
  }

  /** Whole seconds until the profile's least time between rounds allows the next one (0: now). */
  paceWait() {
    const least = Number(this.rg.status?.profile?.min_round_seconds ?? 0);
    if (!least || this.dealtAt === null) return 0;
    return Math.max(0, Math.ceil((this.dealtAt + least * 1000 - Date.now()) / 1000));
  }

  // ---------------------------------------------------------------- talking to the server

  async request(work) {
    this.busy = true;
    this.render();
    try {
      return await work();
    } finally {
      this.busy = false;
      this.render();
    }
  }

  failed(error, what) {
    this.lastError = error instanceof ApiError && error.lostConnection ? "connection" : "refused";
    const text = error instanceof ApiError
      ? (error.lostConnection ? t("page.connection_lost") : errorText(error.payload, error.message)) : String(error);
    this.message(`${what}: ${text}`, "error");
    if (error.payload?.reason === "reality_check") this.rg.refresh();
  }

  showRound(view) {
    const settledNow = view.status === "settled" && this.round?.status !== "settled";
    this.round = view;
    if (settledNow) {
      // Once drawn: the round's chips go back to the player or to the dealer. They are taken now,
      // before this view is drawn: a fold's drawing takes the main bets' chips off the felt.
      const felt = this.el.spots.closest(".felt");
      const chips = [...felt.querySelectorAll(".spot .stack .chip")];
      setTimeout(() => settleFlight(felt, view.settlement,
        { player: this.el.balance, dealer: this.el.dealer, chips }), 0);
    }
    if (typeof view.balance === "number") this.balance = view.balance;
    if (settledNow) this.postRoundEnded?.(view.id, view.total_stake ?? 0, view.total_returned ?? 0);
    this.postBalance?.();
    if (view.status === "open" && view.bonus?.returned > 0) {
      this.lastWin = view.bonus.returned; // the Bonus is paid at the deal: that is this round's win so far
    } else if (view.status === "settled" && view.settlement) {
      this.lastWin = view.settlement.total_returned;
      this.lastBets = this.openingBets(view.bets);
    }
  }

  openingBets(bets) {
    return Object.fromEntries(Object.entries(bets ?? {}).filter(([name, v]) => this.openingFields.includes(name) && v > 0));
  }

  /** Brings the table in line with the server: balance, the open round (after a reload), the last stakes. */
  async resync({ quiet = false } = {}) {
    try {
      await this.request(async () => {
        const [{ balance }, open] = await Promise.all([this.api.balance(), this.api.rounds({ status: "open" })]);
        this.balance = balance;
        const mine = (open.rounds ?? []).find((r) => r.game === this.game.id);
        if (mine) {
          this.showRound(await this.api.round(mine.id));
          this.message(t("play.restored"));
        } else if (this.round?.status === "open") {
          this.showRound(await this.api.round(this.round.id));
        } else {
          const other = (open.rounds ?? [])[0];
          if (other) this.message(t("play.open_elsewhere", { game: t(`game.${other.game}`) }), "error");
          else if (!quiet) this.message(t("play.connected"));
        }
        if (!this.lastBets) {
          const settled = await this.api.rounds({ status: "settled", limit: 20 });
          const last = (settled.rounds ?? []).find((r) => r.game === this.game.id);
          if (last) this.lastBets = this.openingBets(last.bets);
        }
        this.lastError = null;
      });
    } catch (error) {
      this.failed(error, t("play.load_failed"));
    }
  }


  async deal(bets = this.pending, { what = t("bet.deal_refused"), freeRound = null } = {}) {
    if (this.busy || this.phase === "playing") return;
    if (this.held) return this.refuse(null, `${what}: ${t("embed.paused")}`);
    const problem = this.checkBets(bets);
    if (problem) return this.refuse(problem[0], `${what}: ${problem[1]}`, "deal");
    // The server refuses it too (too_fast); said here, nothing is sent.
    const wait = this.paceWait();
    if (wait > 0) return this.refuse(null, `${what}: ${t("error.rg.too_fast", { seconds: wait })}`);
    this.dealKey ??= newIdempotencyKey();
    try {
      await this.request(async () => {
        const view = await this.api.deal(this.game.id, { ...bets }, this.dealKey,
          { jackpot: this.jackpot.on, freeRound });
        this.dealKey = null;
        this.dealtAt = Date.now();
        this.pending = {};
        this.placed = {};
        this.postRoundStarted?.(view.id, view.total_stake, Boolean(freeRound));
        this.showRound(view);
        this.message(withJackpot(view, view.status === "settled" ? t("play.settled")
          : freeRound ? t("free.dealt") : t("play.dealt")));
        await this.present();
      });
      if (freeRound) await this.refreshFreeRounds();
      // Once the table is idle again: a reality check due shows between rounds.
      if (this.round?.status === "settled") this.rg.refresh();
    } catch (error) {
      if (!(error instanceof ApiError && error.lostConnection)) this.dealKey = null;
      this.failed(error, what);
      await this.refreshBalance();
    }
  }

  async refreshBalance() {
    try {
      this.balance = (await this.api.balance()).balance;
      this.render();
    } catch {
      // The message already says the connection is lost.
    }
  }

  async act(action) {
    if (this.busy || this.phase !== "playing") return;
    if (!(this.round.legal_actions ?? []).includes(action)) return;
    const id = this.round.id;
    try {
      await this.request(async () => {
        const view = await this.api.act(id, action, this.round.steps.length);
        this.showRound(view);
        this.message(withJackpot(view, view.status === "settled" ? t("play.settled")
          : t("play.next_decision", { action: actionTitle(action) })));
        await this.present();
      });
      if (this.round?.status === "settled") this.rg.refresh();
    } catch (error) {
      this.failed(error, t("bet.action_refused", { action: actionTitle(action) }));
      // Whatever happened, show what the server holds.
      try {
        this.showRound(await this.api.round(id));
        this.render();
      } catch {
        // Still disconnected: the table keeps the last state the server confirmed.
      }
    }
  }

  newGame() {
    if (this.busy || this.phase !== "settled") return;
    this.round = null;
    this.pending = {};
    this.placed = {};
    this.message(t("play.place_bets"));
    this.render();
  }

  async rebet() {
    if (this.busy || this.phase === "playing") return;
    if (!this.lastBets || !Object.keys(this.lastBets).length) return this.refuse(null, t("bet.no_rebet"));
    const bets = { ...this.lastBets };
    const problem = this.checkBets(bets);
    if (problem) return this.refuse(problem[0], `${t("bet.rebet_refused")}: ${problem[1]}`);
    const previous = this.round;
    this.round = null;
    await this.deal(bets, { what: t("bet.rebet_refused") });
    if (!this.round) this.round = previous;
    this.render();
  }


  handleKey(event) {
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
    const key = event.key.toLowerCase();
    if (key === "escape") {
      this.el.rulesPanel.hidden = true;
      this.el.historyPanel.hidden = true;
      this.el.limitsPanel.hidden = true;
      this.el.fairnessPanel.hidden = true;
      return;
    }
    if (/^[1-9]$/.test(key)) {
      this.selectChip(Number(key) - 1);
      event.preventDefault();
      return;
    }
    if (key === "enter") {
      // Enter on a focused control or link is that control's; anywhere else (a betting field, a
      // chip just clicked) it deals, rather than dropping one more chip.
      if (event.target instanceof Element && event.target.closest("#controls, .panel, .hud, a")) return;
      event.preventDefault();
      if (this.phase === "betting") this.deal();
      else if (this.phase === "settled") this.newGame();
      return;
    }
    if (key === "n" && this.phase === "settled") {
      this.newGame();
      return;
    }
    if (this.phase === "playing" && DECISION_KEYS[key]) {
      const action = DECISION_KEYS[key].find((a) => (this.round.legal_actions ?? []).includes(a));
      if (action) {
        event.preventDefault();
        this.act(action);
      }
    }
  }
}

Object.assign(Table.prototype, tableView, tableBets, tablePanels, freeRounds, tableEmbed);
