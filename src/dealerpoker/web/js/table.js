// One game's table: renders the server's round view and sends the player's intents.
// The page holds no rules: fields, limits, chips and paytables come from GET /api/games,
// legal decisions, stakes, cards and results from the round view.

import { ApiError, newIdempotencyKey } from "./api.js";
import { fillCards } from "./cards.js";
import { closedByRequirement, dependants } from "./betting.js";
import { actionTitle, fieldTitle, gameTitle, h } from "./dom.js";
import { FeltPointer } from "./felt-pointer.js";
import { fly, play, settleFlight, soundSwitch } from "./motion.js";
import { t } from "./i18n.js";
import { errorText, handName, languageSwitch } from "./locale.js";
import { chipFace, fewestChips, formatMoney, moneyFormat, stackFor } from "./money.js";
import { bonusText, historyList, limitSign, replayView, rulesPanel, settlementTable } from "./panels.js";
import { Responsible } from "./responsible.js";
import { qualificationText, resultHeadline, sideFields } from "./result.js";
import { nextDealLine } from "./verify.js";

// Keys for the decisions (F/B/C/R); "call" is the engine's alias of "raise".
const DECISION_KEYS = { f: ["fold"], b: ["bet"], c: ["check", "call"], r: ["raise", "call"] };
// Buttons left to right: giving up first, then the free option, then the ones that cost.
const ACTION_ORDER = ["fold", "check", "bet", "raise", "call"];
const CHIP_COLOURS = ["white", "red", "blue", "green", "black", "purple", "orange", "pink", "brown"];
const HOLE_CARDS = 2;
const BOARD_CARDS = 5;

function sum(values) {
  return values.reduce((a, b) => a + b, 0);
}

export class Table {
  constructor(root, api, game) {
    this.root = root;
    this.api = api;
    this.game = game;
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
    this.refusals = new Map(); // field -> what clears its red border: "closed", "deal" or "change"
    this.onKey = (event) => this.handleKey(event);
    this.rg = new Responsible(api, { idle: () => this.phase !== "playing" && !this.busy });
  }

  get phase() {
    if (!this.round) return "betting";
    return this.round.status === "open" ? "playing" : "settled";
  }

  field(name) {
    return this.game.fields.find((f) => f.name === name);
  }

  // ---------------------------------------------------------------- building the page

  async start() {
    this.build();
    document.addEventListener("keydown", this.onKey);
    this.render();
    await this.resync({ quiet: true });
    await this.rg.refresh();
  }

  destroy() {
    document.removeEventListener("keydown", this.onKey);
    this.pointer?.destroy();
    this.rg.destroy();
  }

  build() {
    const game = this.game;
    this.el = {};
    const meter = (id, label) => h("div.meter", {},
      h("span.meter__label", { id: `${id}-label` }, label),
      (this.el[id] = h("output.meter__value", { id, "aria-labelledby": `${id}-label` }, "—")));
    this.el.message = h("p.message", { id: "message", role: "status", "aria-live": "polite" });
    this.el.nextDeal = nextDealLine(this.api);
    this.el.dealer = h("div.cards", { id: "dealer-cards", "aria-label": t("play.dealer_cards") });
    this.el.board = h("div.cards", { id: "board-cards", "aria-label": t("play.board_cards") });
    this.el.player = h("div.cards", { id: "player-cards", "aria-label": t("play.your_cards") });
    this.el.dealerHand = h("p.hand-name", { id: "dealer-hand" });
    this.el.playerHand = h("p.hand-name", { id: "player-hand" });
    this.el.bonus = h("p.bonus-result", { id: "bonus-result", hidden: true });
    this.el.spots = h("div.spots", { id: "spots" });
    this.el.decisionSpots = h("div.spots.spots--decisions", { id: "decision-spots" });
    this.el.result = h("div.result", { id: "result", hidden: true, role: "region", "aria-label": t("play.result") });
    this.el.tray = h("div.chip-tray", { id: "chip-tray", role: "radiogroup", "aria-label": t("play.chips") });
    this.el.controls = h("div.controls", { id: "controls" });
    this.el.rulesPanel = h("aside.panel", { id: "rules-panel", hidden: true, "aria-label": t("play.rules") });
    this.el.historyPanel = h("aside.panel", { id: "history-panel", hidden: true, "aria-label": t("play.history") });
    this.el.limitsPanel = h("aside.panel", { id: "limits-panel", hidden: true, "aria-label": t("rg.limits_title") });

    for (const field of game.fields) this.el.spots.append(this.spotFor(field));
    game.chips.forEach((chip, index) => this.el.tray.append(h("button.chip", {
      type: "button", role: "radio", "aria-checked": "false",
      "aria-label": t("play.chip_key", { amount: formatMoney(chip), key: index + 1 }),
      title: t("play.chip_key", { amount: formatMoney(chip), key: index + 1 }),
      dataset: { chip, colour: CHIP_COLOURS[index % CHIP_COLOURS.length] },
      onclick: () => this.selectChip(index),
    }, h("span.chip__face", {}, chipFace(chip)))));

    this.root.replaceChildren(h(`section.table.table--${game.id}`, { dataset: { game: game.id } },
      h("header.hud", {},
        h("a.btn.btn--ghost", { href: "#/", id: "lobby-link" }, t("btn.lobby")),
        h("h1.hud__title", {}, gameTitle(game)),
        h("div.meters", {}, meter("balance", t("meter.balance")), meter("total-bet", t("meter.total_bet")), meter("last-win", t("meter.last_win"))),
        h("div.hud__buttons", {},
          h("button.btn.btn--ghost", { type: "button", id: "rules-button", onclick: () => this.togglePanel("rules") },
            t("btn.rules")),
          h("button.btn.btn--ghost", { type: "button", id: "history-button", onclick: () => this.togglePanel("history") },
            t("btn.history")),
          h("button.btn.btn--ghost", { type: "button", id: "limits-button", onclick: () => this.togglePanel("limits") },
            t("btn.limits")),
          soundSwitch(),
          languageSwitch())),
      this.el.message,
      this.el.nextDeal,
      h("div.felt", {},
        h("div.zone.zone--dealer", {}, h("h2.zone__title", {}, t("zone.dealer")), this.el.dealer, this.el.dealerHand),
        h("div.zone.zone--board", {}, h("h2.zone__title", {}, t("zone.board")), this.el.board),
        h("div.zone.zone--player", {}, h("h2.zone__title", {}, t("zone.you")), this.el.player, this.el.playerHand, this.el.bonus),
        h("div.zone.zone--bets", {}, h("h2.zone__title", {}, t("zone.bets")),
          h("div.bets-row", {}, this.el.spots, this.el.decisionSpots)),
        this.el.result),
      h("div.rail", {}, this.el.controls, this.el.tray),
      h("p.table-help", { id: "table-help" }, t(FeltPointer.helpKey(game.id))),
      this.el.rulesPanel,
      this.el.historyPanel,
      this.el.limitsPanel));
    this.pointer = new FeltPointer({
      table: this.root.querySelector(".table"), game: game.id,
      open: () => this.phase === "betting" && !this.busy,
      chip: () => this.el.tray.children[this.selected] ?? null,
      drawStack: (name, container) => this.drawStack(container, this.pending[name] ?? 0),
      remove: (name) => this.removeStack(name),
      say: (text) => this.message(text),
    });
  }

  spotFor(field) {
    const tip = h("span.spot__tip", { role: "tooltip", id: `tip-${field.name}` }, fieldTitle(field.name));
    const spot = h("button.spot", {
      type: "button", dataset: { field: field.name }, "aria-describedby": `tip-${field.name}`,
      "aria-label": t("spot.field", { field: fieldTitle(field.name) }),
      onclick: (event) => {
        if (event.ctrlKey || event.metaKey) this.removeLastChip(field.name);
        else if (!this.pointer.lift(field.name, event)) this.placeChip(field.name);
      },
      oncontextmenu: (event) => {
        event.preventDefault();
        if (event.ctrlKey) this.removeLastChip(field.name);
        else this.removeLowestChip(field.name);
      },
    }, h("span.spot__name", {}, fieldTitle(field.name)), h("span.stack", {}), tip);
    const sign = limitSign(this.game, field.name, field.min, field.max);
    return h("div.spot-wrap", { dataset: { spot: field.name } }, spot, sign);
  }

  // ---------------------------------------------------------------- rendering

  render() {
    const phase = this.phase;
    const round = this.round;
    this.root.querySelector(".table").dataset.phase = phase;
    this.el.balance.textContent = this.balance === null ? "—" : formatMoney(this.balance);
    const bets = phase === "betting" ? this.pending : round.bets ?? {};
    this.el["total-bet"].textContent = formatMoney(sum(Object.values(bets)));
    this.el["last-win"].textContent = formatMoney(this.lastWin);
    // Only once the table has its session: a second session started here would race it.
    if (this.api.token) this.el.nextDeal.show(round);

    [...this.el.tray.children].forEach((chip, index) => {
      const selected = index === this.selected;
      chip.classList.toggle("is-selected", selected);
      chip.setAttribute("aria-checked", String(selected));
    });

    for (const wrap of this.el.spots.children) {
      const name = wrap.dataset.spot;
      this.drawStack(wrap.querySelector(".stack"), bets[name] ?? 0);
      const amount = bets[name] ?? 0;
      wrap.querySelector(".spot__tip").textContent =
        amount ? `${fieldTitle(name)}: ${formatMoney(amount)}` : fieldTitle(name);
      wrap.querySelector(".spot").classList.toggle("is-open", phase === "betting" && this.closedReason(name) === null);
    }
    this.el.decisionSpots.replaceChildren(...Object.keys(bets)
      .filter((name) => !this.openingFields.includes(name) && bets[name] > 0)
      .map((name) => {
        const stack = h("span.stack", {});
        this.drawStack(stack, bets[name]);
        return h("div.spot-wrap", { dataset: { spot: name } },
          h("div.spot.spot--decision", { "aria-label": `${fieldTitle(name)}: ${formatMoney(bets[name])}` },
            h("span.spot__name", {}, fieldTitle(name)), stack,
            h("span.spot__tip", { role: "tooltip" }, `${fieldTitle(name)}: ${formatMoney(bets[name])}`)));
      }));

    if (phase === "betting") {
      // Before the deal: the outlines printed on the felt where the cards will land.
      const outlines = (count) => Array.from({ length: count }, () => h("span.card-slot", { "aria-hidden": "true" }));
      this.el.dealer.replaceChildren(...outlines(HOLE_CARDS));
      this.el.board.replaceChildren(...outlines(BOARD_CARDS));
      this.el.player.replaceChildren(...outlines(HOLE_CARDS));
    } else {
      fillCards(this.el.dealer, round.dealer_cards ?? [], HOLE_CARDS);
      fillCards(this.el.board, round.board ?? [], BOARD_CARDS);
      fillCards(this.el.player, round.player_cards ?? [], HOLE_CARDS);
    }
    const settlement = round?.settlement ?? null;
    const playerHand = settlement?.player_hand ?? round?.player_hand ?? null;
    this.el.playerHand.textContent = handName(playerHand);
    this.el.dealerHand.textContent = handName(settlement?.dealer_hand);
    this.renderBonus(round?.bonus ?? null);
    this.renderResult(settlement);
    this.renderControls(phase);
    this.renderRefusals();
    this.pointer.refresh();
  }

  /** A refused field keeps its red border until its problem is fixed. */
  renderRefusals() {
    for (const [name, kind] of this.refusals) {
      const fixed = (kind === "closed" && this.closedReason(name) === null)
        || (kind === "deal" && this.checkBets(this.pending)?.[0] !== name)
        || this.phase !== "betting";
      if (fixed) this.refusals.delete(name);
    }
    for (const spot of this.el.spots.querySelectorAll(".spot")) {
      spot.classList.toggle("is-refused", this.refusals.has(spot.dataset.field));
    }
  }

  /** The bets changed: a refusal of a chip too many (max, balance) is behind the player. */
  betsChanged() {
    for (const [name, kind] of this.refusals) if (kind === "change") this.refusals.delete(name);
  }

  drawStack(container, amount) {
    const chips = stackFor(amount, this.game.chips);
    container.style.setProperty("--n", String(Math.max(1, chips.length - 1)));
    container.replaceChildren(...chips.map((chip, level) => {
      const index = this.game.chips.indexOf(chip);
      return h("span.chip.chip--stacked", {
        style: `--level:${level}`, dataset: { chip, colour: CHIP_COLOURS[index % CHIP_COLOURS.length] ?? "plaque" },
        "aria-hidden": "true",
      }, h("span.chip__face", {}, chipFace(chip)));
    }));
    container.dataset.amount = String(amount);
  }

  renderBonus(bonus) {
    if (!bonus) {
      this.el.bonus.hidden = true;
      return;
    }
    const { text, won } = bonusText(bonus, this.game);
    this.el.bonus.textContent = text;
    this.el.bonus.classList.toggle("is-win", won);
    this.el.bonus.hidden = false;
  }

  renderResult(settlement) {
    if (!settlement) {
      this.el.result.hidden = true;
      this.el.result.replaceChildren();
      return;
    }
    const headline = resultHeadline(settlement, sideFields(this.game.fields));
    const qualification = qualificationText(settlement);
    const net = settlement.net;
    this.el.result.replaceChildren(...[
      h("p.result__headline", { id: "result-headline" }, headline),
      h("p.result__amount", { id: "result-amount" },
        t("result.returned", { returned: formatMoney(settlement.total_returned), stake: formatMoney(settlement.total_stake),
          net: formatMoney(net, { signed: true }) })),
      qualification ? h("p.result__note.result__qualification", { id: "dealer-qualification" }, qualification) : null,
      settlement.dealer_hand?.name ? h("p.result__note", {}, t("result.dealer_hand", { hand: handName(settlement.dealer_hand) })) : null,
      settlement.player_hand?.name ? h("p.result__note", {}, t("result.your_hand", { hand: handName(settlement.player_hand) })) : null,
      settlementTable(settlement)].filter(Boolean));
    this.el.result.classList.toggle("is-win", net > 0);
    this.el.result.hidden = false;
  }

  renderControls(phase) {
    const button = (id, label, onclick, extra = {}) => h("button.btn.btn--action", {
      type: "button", id, onclick, disabled: this.busy, ...extra,
    }, label);
    const controls = [];
    if (phase === "betting") {
      controls.push(button("clear", t("btn.clear"), () => this.clear(), { disabled: this.busy || !sum(Object.values(this.pending)) }));
      controls.push(button("deal", t("btn.deal"), () => this.deal(), { "aria-keyshortcuts": "Enter", class: "btn btn--action btn--primary" }));
      if (this.lastBets) controls.push(button("rebet", t("btn.rebet"), () => this.rebet()));
    } else if (phase === "playing") {
      const order = (a) => { const i = ACTION_ORDER.indexOf(a); return i < 0 ? ACTION_ORDER.length : i; };
      for (const action of [...(this.round.legal_actions ?? [])].sort((a, b) => order(a) - order(b))) {
        const stake = this.round.action_stakes?.[action];
        const key = Object.entries(DECISION_KEYS).find(([, actions]) => actions.includes(action))?.[0];
        controls.push(button(`action-${action}`, `${actionTitle(action)}${stake ? ` ${formatMoney(stake)}` : ""}`,
          () => this.act(action), {
            dataset: { action },
            class: `btn btn--action btn--decision btn--${action}`,
            "aria-keyshortcuts": key ? key.toUpperCase() : undefined,
            title: key ? t("play.key", { key: key.toUpperCase() }) : undefined,
          }));
      }
    } else {
      controls.push(button("new-game", t("btn.new_game"), () => this.newGame(), { class: "btn btn--action btn--primary" }));
      controls.push(button("rebet", t("btn.rebet"), () => this.rebet()));
    }
    this.el.controls.replaceChildren(...controls);
  }

  message(text, kind = "info") {
    this.el.message.textContent = text;
    this.el.message.dataset.kind = kind;
    this.el.message.setAttribute("role", kind === "error" ? "alert" : "status");
    if (kind === "error" && this.lastError === "connection") {
      this.el.message.append(" ", h("button.btn.btn--small", { type: "button", id: "reconnect", onclick: () => this.resync() },
        t("btn.reconnect")));
    }
  }

  refuse(field, text, kind = "change") {
    this.lastError = "refused";
    this.message(text, "error");
    if (field) this.refusals.set(field, kind);
    const spot = field && this.el.spots.querySelector(`[data-field="${field}"]`);
    if (spot) {
      spot.classList.remove("is-refused");
      void spot.offsetWidth; // restart the shake animation
      spot.classList.add("is-refused");
    }
  }

  // ---------------------------------------------------------------- chips on the felt

  selectChip(index) {
    if (index < 0 || index >= this.game.chips.length) return;
    this.selected = index;
    this.render();
  }

  /** Why `name` takes no chip now (null when it is open), in words for the player. */
  closedReason(name) {
    if (this.phase === "playing") return t("bet.closed_playing");
    if (this.phase === "settled") return t("bet.closed_settled");
    return closedByRequirement(this.field(name), this.pending);
  }

  placeChip(name) {
    if (this.busy) return;
    const reason = this.closedReason(name);
    if (reason) return this.refuse(name, reason, this.phase === "betting" ? "closed" : "change");
    const chip = this.game.chips[this.selected];
    const field = this.field(name);
    const amount = (this.pending[name] ?? 0) + chip;
    if (amount > field.max) {
      return this.refuse(name, t("bet.over_max_chip", { field: fieldTitle(name), max: formatMoney(field.max),
        chip: formatMoney(chip), amount: formatMoney(amount) }));
    }
    const total = sum(Object.values(this.pending)) + chip;
    if (this.balance !== null && total > this.balance) {
      return this.refuse(name, t("bet.over_balance", { total: formatMoney(total), balance: formatMoney(this.balance) }));
    }
    this.pending[name] = amount;
    (this.placed[name] ??= []).push(chip);
    this.betsChanged();
    this.message(t("bet.placed", { field: fieldTitle(name), amount: formatMoney(amount) }));
    this.render();
    const tray = this.el.tray.children[this.selected];
    const chips = this.el.spots.querySelectorAll(`[data-spot="${name}"] .stack .chip`);
    fly(tray, chips[chips.length - 1], [tray]);
    play("chip");
  }

  setAmount(name, amount, history) {
    if (amount > 0) {
      this.pending[name] = amount;
      this.placed[name] = history;
    } else {
      delete this.pending[name];
      delete this.placed[name];
    }
    this.betsChanged();
    // A field that needs this one (Bonus/AA needs the Ante) cannot stay without it.
    const orphans = dependants(this.game.fields, name).filter((f) => this.pending[f.name] && !amount);
    for (const orphan of orphans) this.setAmount(orphan.name, 0, []);
    const note = orphans.length
      ? ` ${t("bet.orphans_returned", { fields: orphans.map((f) => fieldTitle(f.name)).join(", "), field: fieldTitle(name) })}` : "";
    this.message(`${t("bet.placed", { field: fieldTitle(name), amount: formatMoney(amount) })}${note}`);
    this.render();
  }

  /** Right-click: take the lowest chip off the stack. */
  removeLowestChip(name) {
    if (this.busy || this.phase !== "betting") return;
    const amount = this.pending[name] ?? 0;
    if (!amount) return this.refuse(name, t("bet.nothing_to_remove", { field: fieldTitle(name) }));
    const stack = fewestChips(amount, this.game.chips) ?? [amount];
    const lowest = stack[stack.length - 1];
    const history = [...(this.placed[name] ?? [])];
    const at = history.lastIndexOf(lowest);
    if (at >= 0) history.splice(at, 1);
    const rest = amount - lowest;
    this.setAmount(name, rest, at >= 0 ? history : [...(fewestChips(rest, this.game.chips) ?? [])]);
  }

  /** Ctrl+click: take back the chips chip by chip, the last one placed first. */
  removeLastChip(name) {
    if (this.busy || this.phase !== "betting") return;
    const amount = this.pending[name] ?? 0;
    if (!amount) return this.refuse(name, t("bet.nothing_to_remove", { field: fieldTitle(name) }));
    const history = [...(this.placed[name] ?? [])];
    const chip = history.length ? history.pop() : (fewestChips(amount, this.game.chips) ?? [amount]).at(-1);
    this.setAmount(name, amount - chip, history);
  }

  /** Right-click on a lifted stack: every chip of the field goes. */
  removeStack(name) {
    if (this.busy || this.phase !== "betting") return;
    this.setAmount(name, 0, []);
  }

  clear() {
    if (this.busy || this.phase !== "betting") return;
    this.pending = {};
    this.placed = {};
    this.betsChanged();
    this.message(t("bet.cleared"));
    this.render();
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
      // Once drawn: the round's chips go back to the player or to the dealer.
      setTimeout(() => settleFlight(this.el.spots.closest(".felt"), view.settlement,
        { player: this.el.balance, dealer: this.el.dealer }), 0);
    }
    if (typeof view.balance === "number") this.balance = view.balance;
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

  checkBets(bets) {
    const total = sum(Object.values(bets));
    for (const field of this.game.fields) {
      const amount = bets[field.name] ?? 0;
      const named = { field: fieldTitle(field.name), min: formatMoney(field.min), max: formatMoney(field.max) };
      if (!field.optional && !amount) return [field.name, t("bet.place_required", named)];
      if (amount && amount < field.min) return [field.name, t("bet.below_min", named)];
      if (amount > field.max) return [field.name, t("bet.above_max", named)];
    }
    if (this.balance !== null && total > this.balance) {
      return [null, t("bet.need_balance", { total: formatMoney(total), balance: formatMoney(this.balance) })];
    }
    return null;
  }

  async deal(bets = this.pending, { what = t("bet.deal_refused") } = {}) {
    if (this.busy || this.phase === "playing") return;
    const problem = this.checkBets(bets);
    if (problem) return this.refuse(problem[0], `${what}: ${problem[1]}`, "deal");
    this.dealKey ??= newIdempotencyKey();
    try {
      await this.request(async () => {
        const view = await this.api.deal(this.game.id, { ...bets }, this.dealKey);
        this.dealKey = null;
        this.pending = {};
        this.placed = {};
        this.showRound(view);
        this.message(view.status === "settled" ? t("play.settled") : t("play.dealt"));
        if (view.status === "settled") this.rg.refresh();
      });
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
        this.message(view.status === "settled" ? t("play.settled") : t("play.next_decision", { action: actionTitle(action) }));
        if (view.status === "settled") this.rg.refresh();
      });
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

  // ---------------------------------------------------------------- panels and keyboard

  /** The bar on top of a panel: switch to the other panel, or close (the panel covers the header). */
  panelBar(panel) {
    return h("div.panel__bar", {},
      h("button.btn.btn--small", { type: "button", dataset: { panelTab: "rules" }, onclick: () => this.showPanel("rules") },
        t("btn.rules")),
      h("button.btn.btn--small", { type: "button", dataset: { panelTab: "history" }, onclick: () => this.showPanel("history") },
        t("btn.history")),
      h("button.btn.btn--small", { type: "button", dataset: { panelTab: "limits" }, onclick: () => this.showPanel("limits") },
        t("btn.limits")),
      h("button.btn.btn--small.panel__close", { type: "button", onclick: () => { panel.hidden = true; } }, t("btn.close")));
  }

  panelOf(which) {
    return { rules: this.el.rulesPanel, history: this.el.historyPanel, limits: this.el.limitsPanel }[which];
  }

  async togglePanel(which) {
    const panel = this.panelOf(which);
    if (!panel.hidden) {
      panel.hidden = true;
      return;
    }
    await this.showPanel(which);
  }

  async showPanel(which) {
    const panel = this.panelOf(which);
    for (const other of ["rules", "history", "limits"]) if (other !== which) this.panelOf(other).hidden = true;
    const bar = this.panelBar(panel);
    if (which === "limits") {
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
  }

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
  }

  handleKey(event) {
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
    const key = event.key.toLowerCase();
    if (key === "escape") {
      this.el.rulesPanel.hidden = true;
      this.el.historyPanel.hidden = true;
      this.el.limitsPanel.hidden = true;
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
