// The solo table's view: builds the felt once and redraws it from the table's state (the round
// the server sent, the chips not yet dealt). Mixed into Table (table.js); `this` is the table.

import { emit } from "./embed.js";
import { fillCards } from "./cards.js";
import { drawStack as drawChips, markSelected, trayChip } from "./chips.js";
import { DECISION_KEYS, actionTitle, fieldTitle, gameTitle, h, keepAmounts, orderActions } from "./dom.js";
import { FeltPointer } from "./felt-pointer.js";
import { fitFelt } from "./fit.js";
import { followPointer, removeButton, wireField } from "./gestures.js";
import { jackpotMeter, jackpotSwitch, soloOffer } from "./jackpot.js";
import { soundSwitch } from "./motion.js";
import { t } from "./i18n.js";
import { handName, languageSwitch } from "./locale.js";
import { formatMoney, sum } from "./money.js";
import { bonusText, limitSign } from "./panels.js";
import { fillResult, markWinningCards, sideFields } from "./result.js";
import { nextDealLine } from "./verify.js";

const HOLE_CARDS = 2;
const BOARD_CARDS = 5;

export const tableView = {
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
    this.el.fairnessPanel = h("aside.panel", { id: "fairness-panel", hidden: true, "aria-label": t("fair.panel_title") },
      this.el.nextDeal);

    for (const field of game.fields) this.el.spots.append(this.spotFor(field));
    game.chips.forEach((chip, index) => {
      const label = t("play.chip_key", { amount: formatMoney(chip), key: index + 1 });
      this.el.tray.append(trayChip(game.chips, index, { label, title: label, onclick: () => this.selectChip(index) }));
    });

    this.el.felt = h("div.felt", { dataset: { title: gameTitle(game) } },
      h("div.zone.zone--dealer", {}, h("h2.zone__title", {}, t("zone.dealer")), this.el.dealer, this.el.dealerHand),
      h("div.zone.zone--board", {}, h("h2.zone__title", {}, t("zone.board")), this.el.board),
      h("div.zone.zone--player", {}, h("h2.zone__title", {}, t("zone.you")), this.el.player, this.el.playerHand, this.el.bonus),
      h("div.zone.zone--bets", {}, h("h2.zone__title", {}, t("zone.bets")),
        h("div.bets-row", {}, this.el.spots, this.el.decisionSpots)),
      h("div.result-slot", {}, this.el.result));
    const feltBox = h("div.felt-box", {}, this.el.felt);
    this.root.replaceChildren(h(`section.table.table--${game.id}`, { dataset: { game: game.id } },
      h("div.stage", {},
        h("header.hud", {},
          h("a.btn.btn--ghost", { href: "#/", id: "lobby-link", title: t("btn.lobby") }, t("btn.lobby")),
          h("h1.hud__title", {}, gameTitle(game)),
          h("div.meters", {}, meter("balance", t("meter.balance")), meter("total-bet", t("meter.total_bet")), meter("last-win", t("meter.last_win")),
            jackpotMeter()),
          h("div.hud__buttons", {},
            jackpotSwitch(soloOffer(this.api), this.jackpot),
            h("button.btn.btn--ghost", { type: "button", id: "rules-button", title: t("btn.rules"), onclick: () => this.togglePanel("rules") },
              t("btn.rules")),
            h("button.btn.btn--ghost", { type: "button", id: "history-button", title: t("btn.history"), onclick: () => this.togglePanel("history") },
              t("btn.history")),
            h("button.btn.btn--ghost", { type: "button", id: "limits-button", title: t("btn.limits"), onclick: () => this.togglePanel("limits") },
              t("btn.limits")),
            h("button.btn.btn--ghost", { type: "button", id: "fairness-button", title: t("btn.fairness"),
              onclick: () => this.togglePanel("fairness") }, t("btn.fairness")),
            soundSwitch(),
            languageSwitch())),
        h("div.status", {}, this.el.message, this.buildFreeRounds()),
        this.hint?.el ?? null,
        feltBox,
        h("div.rail", {}, this.el.controls, this.el.tray)),
      (this.el.help = h("p.table-help", { id: "table-help" })),
      this.el.fairnessPanel,
      this.el.rulesPanel,
      this.el.historyPanel,
      this.el.limitsPanel));
    this.fit = fitFelt(feltBox, this.el.felt);
    this.unfollow = followPointer(this.root.querySelector(".table"), this.el.help,
      { mouse: FeltPointer.helpKey(game.id), touch: "help.bets_touch" });
    this.pointer = new FeltPointer({
      table: this.root.querySelector(".table"), game: game.id,
      open: () => this.phase === "betting" && !this.busy,
      chip: () => this.el.tray.children[this.selected] ?? null,
      drawStack: (name, container) => this.drawStack(container, this.pending[name] ?? 0),
      remove: (name) => this.removeStack(name),
      say: (text) => this.message(text),
    });
  },

  spotFor(field) {
    const tip = h("span.spot__tip", { role: "tooltip", id: `tip-${field.name}` }, fieldTitle(field.name));
    const spot = h("button.spot", {
      type: "button", dataset: { field: field.name }, "aria-describedby": `tip-${field.name}`,
      "aria-label": t("spot.field", { field: fieldTitle(field.name) }),
    }, h("span.spot__name", {}, fieldTitle(field.name)), h("span.stack", {}), tip);
    wireField(spot, {
      add: () => this.placeChip(field.name),
      removeLast: () => this.removeLastChip(field.name),
      removeLowest: () => this.removeLowestChip(field.name),
      removeAll: () => this.removeStack(field.name),
      lift: (event) => this.pointer.lift(field.name, event),
    });
    const sign = limitSign(this.game, field.name, field.min, field.max);
    return h("div.spot-wrap", { dataset: { spot: field.name } }, spot,
      h("div.spot__under", {}, sign, removeButton(field.name, () => this.removeLastChip(field.name))));
  },

  // ---------------------------------------------------------------- rendering

  render() {
    const phase = this.phase;
    const round = this.round;
    this.root.querySelector(".table").dataset.phase = phase;
    this.el.balance.textContent = this.balance === null ? "—" : formatMoney(this.balance);
    // A fold takes the main bets' chips off the felt, as at the live table (a side bet stays for its result).
    const folded = (round?.steps ?? []).some((step) => step.action === "fold");
    const sides = sideFields(this.game.fields);
    const bets = phase === "betting" ? this.pending
      : Object.fromEntries(Object.entries(round.bets ?? {}).filter(([name]) => !folded || sides.has(name)));
    this.el["total-bet"].textContent = formatMoney(sum(Object.values(phase === "betting" ? this.pending : round.bets ?? {})));
    this.el["last-win"].textContent = formatMoney(this.lastWin);
    this.drawFreeRounds();
    // Only once the table has its session: a second session started here would race it.
    if (this.api.token) this.el.nextDeal.show(round);

    markSelected(this.el.tray, this.selected);

    for (const wrap of this.el.spots.children) {
      const name = wrap.dataset.spot;
      this.drawStack(wrap.querySelector(".stack"), bets[name] ?? 0);
      const amount = bets[name] ?? 0;
      wrap.querySelector(".spot__tip").textContent =
        amount ? `${fieldTitle(name)}: ${formatMoney(amount)}` : fieldTitle(name);
      wrap.querySelector(".spot").classList.toggle("is-open", phase === "betting" && this.closedReason(name) === null);
      wrap.querySelector(".spot__remove").classList.toggle("is-empty", !(phase === "betting" && amount > 0));
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
    this.hint?.show(round);
    this.renderRefusals();
    this.pointer.refresh();
    this.fit();
  },

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
  },

  drawStack(container, amount) {
    drawChips(container, amount, this.game.chips);
  },

  renderBonus(bonus) {
    if (!bonus) {
      this.el.bonus.hidden = true;
      return;
    }
    const { text, won } = bonusText(bonus, this.game);
    this.el.bonus.textContent = text;
    this.el.bonus.classList.toggle("is-win", won);
    this.el.bonus.hidden = false;
  },

  renderResult(settlement) {
    if (!settlement) {
      this.el.result.hidden = true;
      this.el.result.replaceChildren();
      markWinningCards(this.el.felt, null);
      return;
    }
    const amounts = { returned: formatMoney(settlement.total_returned), stake: formatMoney(settlement.total_stake),
      net: formatMoney(settlement.net, { signed: true }) };
    fillResult(this.el.result, settlement, sideFields(this.game.fields), {
      amount: h("p.result__amount", { id: "result-amount" }, ...keepAmounts(t("result.returned", amounts), Object.values(amounts))),
    });
    this.el.result.hidden = false;
  },

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
      for (const action of orderActions(this.round.legal_actions)) {
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
  },

  message(text, kind = "info") {
    if (kind === "error") emit("error", { code: this.lastError ?? "refused", message: text });
    this.el.message.textContent = text;
    this.el.message.dataset.kind = kind;
    this.el.message.setAttribute("role", kind === "error" ? "alert" : "status");
    if (kind === "error" && this.lastError === "connection") {
      this.el.message.append(" ", h("button.btn.btn--small", { type: "button", id: "reconnect", onclick: () => this.resync() },
        t("btn.reconnect")));
    }
  },

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
  },
};
