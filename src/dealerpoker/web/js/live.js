// A live table: one hand dealt for everyone on the dealer's clock; each player bets and decides
// for themselves. The page renders what the server sends over /ws/tables/{id} and sends intents;
// it holds no rules (fields, limits, chips, legal actions and stakes come from the server).

import { Api } from "./api.js";
import { fillCards } from "./cards.js";
import { actionTitle, fieldTitle, h } from "./dom.js";
import { closedByRequirement } from "./betting.js";
import { preferredLanguage, t, useLanguage } from "./i18n.js";
import { LANGUAGE_KEY, errorText, handName, languageSwitch, launch, useCurrency } from "./locale.js";
import { chipFace, formatMoney, stackFor } from "./money.js";
import { fly, play, settleFlight, soundSwitch } from "./motion.js";
import { liveReplayView, liveRoundsList } from "./live-history.js";
import { bonusText, limitSign, rulesPanel, settlementTable } from "./panels.js";
import { qualificationText, resultHeadline, sideFields } from "./result.js";
import { Responsible } from "./responsible.js";
import { dealingTitle, studioNote, studioVideo } from "./studio.js";

const CHIP_COLOURS = ["white", "red", "blue", "green", "black", "purple", "orange", "pink", "brown"];
const ACTION_ORDER = ["fold", "check", "bet", "raise", "call"];
const PHASE_TITLES = {
  idle: "live.phase.idle", betting: "live.phase.betting", closed: "live.phase.closed", dealing: "live.phase.dealing",
  decision: "live.phase.decision", showdown: "live.phase.showdown", pause: "live.phase.pause", unknown: "live.phase.unknown",
};
const RING_LENGTH = 2 * Math.PI * 40;
// A decision the timer took, as its player is told at once.
const TIMEOUT_KEYS = { fold: "timeout.fold", check: "timeout.check", bet: "timeout.bet", raise: "timeout.raise",
  call: "timeout.raise" };

function sum(values) {
  return values.reduce((a, b) => a + b, 0);
}

export class LiveTable {
  constructor(root, api, tableId) {
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
    this.skew = 0; // server clock - our clock (seconds)
    this.retries = 0;
    this.closed = false;
    this.timer = null;
    // The reality check between rounds: never while this player has a decision open.
    this.rg = new Responsible(api, { idle: () => !(this.seat?.legal_actions ?? []).length });
  }

  async start() {
    this.api.currency = launch().currency ?? null; // a new player in the launch's currency
    try {
      this.games = (await this.api.games()).games;
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
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`);
    this.socket = socket;
    socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "auth", token })));
    socket.addEventListener("message", (event) => this.receive(JSON.parse(event.data)));
    socket.addEventListener("close", () => {
      if (this.closed) return;
      this.say(t("live.reconnecting"), "error");
      this.retries += 1;
      setTimeout(() => this.connect().catch(() => {}), Math.min(5000, 500 * this.retries));
    });
  }

  send(message) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
    else this.say(t("live.not_sent"), "error");
  }

  // ---------------------------------------------------------------- messages from the server

  receive(message) {
    if (typeof message.sent_at === "number") this.skew = message.sent_at - Date.now() / 1000;
    switch (message.type) {
      case "welcome":
        this.retries = 0;
        this.config = message.table;
        this.game = message.game ?? null;
        this.balance = message.balance;
        useCurrency({ code: message.currency ?? message.table?.currency });
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

  /** The countdown's label: a decision is named by the bet it decides (as the solo spots are). */
  phaseTitle() {
    const { phase, point } = this.state;
    if (phase === "dealing") return dealingTitle(this.state);
    if (phase !== "decision") return PHASE_TITLES[phase] ? t(PHASE_TITLES[phase]) : phase;
    const bet = this.config.decision_bets?.[point];
    return bet ? t("live.decide_bet", { field: fieldTitle(bet) }) : t("live.decide_point", { point });
  }

  // ---------------------------------------------------------------- building and rendering

  build() {
    const config = this.config;
    document.title = `${config.title} — dealerpoker`;
    this.el = {};
    const meter = (id, label) => h("div.meter", {},
      h("span.meter__label", { id: `${id}-label` }, label),
      (this.el[id] = h("output.meter__value", { id, "aria-labelledby": `${id}-label` }, "—")));
    this.el.message = h("p.message", { id: "message", role: "status", "aria-live": "polite" });
    this.el.phase = h("span.live__phase", { id: "live-phase" });
    this.el.banner = h("p.live__banner", { id: "no-more-bets", hidden: true }, t("live.no_more_bets_banner"));
    this.el.ringBar = document.createElementNS("http://www.w3.org/2000/svg", "circle");
    const track = document.createElementNS("http://www.w3.org/2000/svg", "circle");
    for (const circle of [track, this.el.ringBar]) {
      circle.setAttribute("cx", "50");
      circle.setAttribute("cy", "50");
      circle.setAttribute("r", "40");
    }
    track.setAttribute("class", "ring__track");
    this.el.ringBar.setAttribute("class", "ring__bar");
    this.el.ringBar.setAttribute("stroke-dasharray", String(RING_LENGTH));
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 100 100");
    svg.setAttribute("aria-hidden", "true");
    svg.append(track, this.el.ringBar);
    this.el.ringText = h("span.ring__text", { id: "countdown" }, "");
    this.el.ring = h("div.ring", { role: "timer", "aria-label": t("live.time_left"), id: "countdown-ring" }, svg, this.el.ringText);
    this.el.dealer = h("div.cards", { id: "dealer-cards", "aria-label": t("play.dealer_cards") });
    this.el.board = h("div.cards", { id: "board-cards", "aria-label": t("play.board_cards") });
    this.el.player = h("div.cards", { id: "player-cards", "aria-label": t("live.shared_hand") });
    this.el.dealerHand = h("p.hand-name", { id: "dealer-hand" });
    this.el.playerHand = h("p.hand-name", { id: "player-hand" });
    this.el.bonus = h("p.bonus-result", { id: "bonus-result", hidden: true });
    this.el.spots = h("div.spots", { id: "spots" });
    this.el.decisionSpots = h("div.spots.spots--decisions", { id: "decision-spots" });
    this.el.decisions = h("div.live__decisions", { id: "decisions" });
    this.el.result = h("div.result", { id: "result", hidden: true, role: "region", "aria-label": t("live.your_result") });
    this.el.fair = h("p.live__fair", { id: "fairness" });
    this.el.history = h("aside.panel", { id: "live-history-panel", hidden: true, "aria-label": t("live.my_rounds") });
    this.el.rules = h("aside.panel", { id: "rules-panel", hidden: true, "aria-label": t("btn.rules") });
    this.el.timeout = h("p.live__timeout", { id: "timeout-note", role: "status", hidden: true });
    this.el.tray = h("div.chip-tray", { id: "chip-tray", role: "radiogroup", "aria-label": t("play.chips") });
    config.chips.forEach((chip, index) => this.el.tray.append(h("button.chip", {
      type: "button", role: "radio", "aria-checked": "false", "aria-label": t("play.chip", { amount: formatMoney(chip) }),
      dataset: { chip, colour: CHIP_COLOURS[index % CHIP_COLOURS.length] },
      onclick: () => { this.selected = index; this.render(); },
    }, h("span.chip__face", {}, chipFace(chip)))));
    for (const [name, limit] of Object.entries(config.limits)) {
      if (!this.game || this.game.fields.some((f) => f.name === name)) this.el.spots.append(this.spotFor(name, limit));
    }
    this.el.clear = h("button.btn.btn--ghost", { type: "button", id: "clear", onclick: () => this.sendBets({}) }, t("btn.clear"));

    this.root.replaceChildren(h(`section.table.table--${config.game}.live`, { dataset: { game: config.game, table: config.id } },
      h("header.hud", {},
        h("a.btn.btn--ghost", { href: "./#/", id: "lobby-link" }, t("btn.lobby")),
        h("h1.hud__title", {}, config.title),
        h("button.btn.btn--ghost", { type: "button", id: "rules-button", onclick: () => this.toggleRules() }, t("btn.rules")),
        h("button.btn.btn--ghost", { type: "button", id: "live-history-button", onclick: () => this.toggleHistory() },
          t("live.my_rounds_button")),
        h("button.btn.btn--ghost", { type: "button", id: "limits-button", onclick: () => this.toggleLimits() },
          t("btn.limits")),
        soundSwitch(),
        languageSwitch(),
        h("div.meters", {}, meter("balance", t("meter.balance")), meter("total-bet", t("meter.total_bet")),
          meter("last-win", t("meter.last_win")), meter("players", t("live.players")))),
      h("div.live__status", {}, this.el.ring, this.el.phase, this.el.banner),
      this.el.message,
      studioVideo(config),
      h("div.felt", {},
        h("div.zone.zone--dealer", {}, h("h2.zone__title", {}, t("zone.dealer")), this.el.dealer, this.el.dealerHand),
        h("div.zone.zone--board", {}, h("h2.zone__title", {}, t("zone.board")), this.el.board),
        h("div.zone.zone--player", {}, h("h2.zone__title", {}, t("live.player_hand_shared")), this.el.player,
          this.el.playerHand, this.el.bonus),
        h("div.zone.zone--bets", {}, h("h2.zone__title", {}, t("live.your_bets")),
          h("div.bets-row", {}, this.el.spots, this.el.decisionSpots), this.el.timeout),
        this.el.result),
      h("div.rail", {}, h("div.controls", {}, this.el.decisions, this.el.clear), this.el.tray),
      this.el.fair,
      this.el.rules,
      this.el.history,
      (this.el.limits = h("aside.panel", { id: "limits-panel", hidden: true, "aria-label": t("rg.limits_title") }))));
  }

  /** The player's limits (the same panel as the solo table's; the server checks them before bets). */
  async toggleLimits() {
    const panel = this.el.limits;
    if (!panel.hidden) {
      panel.hidden = true;
      return;
    }
    this.el.history.hidden = true;
    this.el.rules.hidden = true;
    const close = h("div.panel__bar", {},
      h("button.btn.btn--small.panel__close", { type: "button", onclick: () => { panel.hidden = true; } }, t("btn.close")));
    panel.replaceChildren(close, h("h2", {}, t("rg.limits_title")), await this.rg.panel());
    panel.hidden = false;
  }

  toggleRules() {
    const panel = this.el.rules;
    if (!panel.hidden) {
      panel.hidden = true;
      return;
    }
    this.el.history.hidden = true;
    this.el.limits.hidden = true;
    panel.replaceChildren(
      h("div.panel__bar", {}, h("button.btn.btn--small.panel__close", { type: "button", onclick: () => { panel.hidden = true; } },
        t("btn.close"))),
      h("h2", {}, t("panel.rules")),
      this.game ? rulesPanel({ ...this.game, title: this.config.title }) : null);
    panel.hidden = false;
  }

  async toggleHistory() {
    if (!this.el.history.hidden) {
      this.el.history.hidden = true;
      return;
    }
    this.el.rules.hidden = true;
    this.el.limits.hidden = true;
    await this.showHistory();
  }

  historyBar() {
    return h("div.panel__bar", {},
      h("button.btn.btn--small.panel__close", { type: "button", onclick: () => { this.el.history.hidden = true; } },
        t("btn.close")));
  }

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
  }

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
  }

  spotFor(name, limit) {
    const tip = h("span.spot__tip", { role: "tooltip" }, fieldTitle(name));
    const spot = h("button.spot", {
      type: "button", dataset: { field: name }, "aria-label": t("spot.field", { field: fieldTitle(name) }),
      onclick: () => this.addChip(name),
      oncontextmenu: (event) => { event.preventDefault(); this.removeLowest(name); },
    }, h("span.spot__name", {}, fieldTitle(name)), h("span.stack", {}), tip);
    const sign = limitSign(this.game ?? { fields: [] }, name, limit.min, limit.max);
    return h("div.spot-wrap", { dataset: { spot: name } }, spot, sign);
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
    const deadline = this.state.deadline;
    if (typeof deadline !== "number") return 0;
    return Math.max(0, deadline - (Date.now() / 1000 + this.skew));
  }

  tick() {
    if (!this.el) return;
    const deadline = this.state.deadline;
    const total = this.state.phase === "betting" ? this.config.betting_seconds
      : this.state.phase === "decision" ? this.config.decision_seconds
        : this.state.phase === "pause" ? this.config.pause_seconds
          : this.state.phase === "dealing" ? this.config.deal_seconds ?? 0 : 0;
    const left = this.deadlineLeft();
    const fraction = typeof deadline === "number" && total ? Math.min(1, left / total) : 0;
    this.el.ringBar.setAttribute("stroke-dashoffset", String(RING_LENGTH * (1 - fraction)));
    this.el.ringText.textContent = typeof deadline === "number" ? String(Math.ceil(left)) : "";
    this.el.ring.dataset.urgent = String(left > 0 && left <= 3);
    this.el.ring.setAttribute("aria-label", t("live.seconds_left", { count: Math.ceil(left) }));
  }

  render() {
    const state = this.state;
    const seat = this.seat;
    const table = this.root.querySelector(".table");
    table.dataset.phase = state.phase;
    table.dataset.round = state.round ?? "";
    this.el.phase.textContent = this.phaseTitle();
    this.el.banner.hidden = !["closed", "dealing", "decision", "showdown"].includes(state.phase);
    this.el.balance.textContent = this.balance === null ? "—" : formatMoney(this.balance);
    this.el.players.textContent = String(state.players ?? "—");
    this.el["total-bet"].textContent = formatMoney(seat?.total_stake ?? sum(Object.values(seat?.bets ?? {})));
    this.el["last-win"].textContent = formatMoney(this.lastWin);
    [...this.el.tray.children].forEach((chip, index) => {
      chip.classList.toggle("is-selected", index === this.selected);
      chip.setAttribute("aria-checked", String(index === this.selected));
    });
    // A fold takes the main bets' chips off the table (side bets wait for their own result).
    const sides = sideFields(this.game?.fields);
    const bets = this.folded() && !seat?.settlement
      ? Object.fromEntries(Object.entries(seat?.bets ?? {}).filter(([name]) => sides.has(name))) : seat?.bets ?? {};
    this.el.timeout.hidden = !this.timeoutNote;
    this.el.timeout.textContent = this.timeoutNote ?? "";
    for (const wrap of this.el.spots.children) {
      const name = wrap.dataset.spot;
      this.drawStack(wrap.querySelector(".stack"), bets[name] ?? 0);
      wrap.querySelector(".spot__tip").textContent =
        bets[name] ? t("bet.placed", { field: fieldTitle(name), amount: formatMoney(bets[name]) }) : fieldTitle(name);
      wrap.querySelector(".spot").classList.toggle("is-open", state.phase === "betting");
    }
    const decided = this.folded() ? []
      : Object.entries(seat?.fields ?? {}).filter(([name, amount]) => !(name in bets) && amount > 0);
    this.el.decisionSpots.replaceChildren(...decided.map(([name, amount]) => {
      const stack = h("span.stack", {});
      this.drawStack(stack, amount);
      return h("div.spot-wrap", { dataset: { spot: name } },
        h("div.spot.spot--decision", { "aria-label": t("bet.placed", { field: fieldTitle(name), amount: formatMoney(amount) }) },
          h("span.spot__name", {}, fieldTitle(name)), stack));
    }));
    this.el.clear.hidden = state.phase !== "betting";

    const dealt = (state.player_cards ?? []).length > 0;
    fillCards(this.el.dealer, state.dealer_cards ?? [], dealt ? 2 : 0);
    fillCards(this.el.board, state.board ?? [], dealt ? 5 : 0);
    fillCards(this.el.player, state.player_cards ?? [], dealt ? 2 : 0);
    const settlement = seat?.settlement ?? null;
    this.el.playerHand.textContent = handName(settlement?.player_hand ?? (dealt ? state.player_hand : null));
    this.el.dealerHand.textContent = handName(settlement?.dealer_hand);
    const bonus = seat?.bonus ?? null;
    this.el.bonus.hidden = !bonus;
    if (bonus) {
      const { text, won } = bonusText(bonus, this.gameOf());
      this.el.bonus.textContent = text;
      this.el.bonus.classList.toggle("is-win", won);
    }

    const actions = [...(seat?.legal_actions ?? [])].sort((a, b) => ACTION_ORDER.indexOf(a) - ACTION_ORDER.indexOf(b));
    this.el.decisions.replaceChildren(...actions.map((action) => h(`button.btn.btn--action.btn--${action}`, {
      type: "button", dataset: { action }, onclick: () => this.send({ type: "decide", action }),
    }, actionTitle(action), seat.action_stakes?.[action] ? ` ${formatMoney(seat.action_stakes[action])}` : "")));
    if (seat?.pending) this.el.decisions.append(h("span", { id: "pending" }, t("live.you_chose", { action: actionTitle(seat.pending) })));

    this.el.result.hidden = !settlement;
    if (settlement) {
      const net = settlement.net;
      const qualification = qualificationText(settlement);
      this.el.result.replaceChildren(...[
        h("p.result__headline", { id: "result-headline" }, resultHeadline(settlement, sides)),
        h("p.result__amount", { id: "result-net", dataset: { net } }, formatMoney(net, { signed: true })),
        qualification ? h("p.result__note.result__qualification", { id: "dealer-qualification" }, qualification) : null,
        settlementTable(settlement),
        this.recordUrl ? h("button.btn.btn--small", {
          type: "button", id: "verify-round",
          onclick: () => { this.el.rules.hidden = true; this.el.history.hidden = false; this.openRecord({ record: this.recordUrl }); },
        }, t("live.verify_round")) : null].filter(Boolean)); // replaceChildren would write "null"
    }
    const fairness = state.fairness;
    this.el.fair.textContent = state.dealing === "studio"
      ? (state.round ? t("live.round_studio", { round: state.round, note: studioNote() }) : studioNote())
      : fairness
        ? t("live.fair_line", { round: state.round, commitment: fairness.commitment })
          + (fairness.client_seed ? ` · ${t("live.fair_client", { seed: fairness.client_seed })}` : "")
          + (fairness.server_seed ? ` · ${t("live.fair_server", { seed: fairness.server_seed })}` : "")
        : "";
    this.tick();
  }

  drawStack(container, amount) {
    const chips = stackFor(amount, this.config.chips);
    container.style.setProperty("--n", String(Math.max(1, chips.length - 1))); // a tall stack packs closer
    container.replaceChildren(...chips.map((chip, level) => {
      const index = this.config.chips.indexOf(chip);
      return h("span.chip.chip--stacked", {
        style: `--level:${level}`, dataset: { chip, colour: CHIP_COLOURS[index % CHIP_COLOURS.length] ?? "plaque" },
        "aria-hidden": "true",
      }, h("span.chip__face", {}, chipFace(chip)));
    }));
  }

  say(text, kind = "info") {
    if (!this.el) return;
    this.el.message.textContent = text;
    this.el.message.dataset.kind = kind;
  }
}

const root = document.getElementById("app");
const tableId = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
launch();
useLanguage(preferredLanguage(LANGUAGE_KEY)).catch(() => {}).finally(() => {
  if (!tableId) {
    root.replaceChildren(h("p.message", { dataset: { kind: "error" } }, `${t("live.no_table")} `,
      h("a", { href: "./#/" }, t("page.back_to_lobby"))));
    return;
  }
  const live = new LiveTable(root, new Api(), tableId);
  window.dealerpokerLive = live; // for the browser tests and the curious
  live.start().catch((error) => {
    root.replaceChildren(h("p.message", { dataset: { kind: "error" }, role: "alert" },
      t("live.cannot_join", { error: error.message })));
  });
});
