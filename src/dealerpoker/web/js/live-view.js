// The live table's view: builds the felt once from the table's settings, then redraws it from the
// table's and the player's last messages; the countdown ring ticks ten times a second.
// Mixed into LiveTable (live-table.js); `this` is the table.

import { fillCards } from "./cards.js";
import { FeltPointer } from "./felt-pointer.js";
import { fitFelt } from "./fit.js";
import { followPointer, removeButton, wireField } from "./gestures.js";
import { drawStack as drawChips, markSelected, trayChip } from "./chips.js";
import { actionTitle, fieldTitle, h, orderActions, setAttr, setText } from "./dom.js";
import { t } from "./i18n.js";
import { jackpotLine, jackpotMeter, jackpotSwitch, markSwitch } from "./jackpot.js";
import { handName, languageSwitch } from "./locale.js";
import { formatMoney, sum } from "./money.js";
import { soundSwitch } from "./motion.js";
import { bonusText, limitSign } from "./panels.js";
import { fillResult, markWinningCards, sideFields } from "./result.js";
import { dealingTitle, studioNote, studioVideo } from "./studio.js";

const PHASE_TITLES = {
  idle: "live.phase.idle", betting: "live.phase.betting", closed: "live.phase.closed", dealing: "live.phase.dealing",
  decision: "live.phase.decision", showdown: "live.phase.showdown", pause: "live.phase.pause", unknown: "live.phase.unknown",
};
const RING_LENGTH = 2 * Math.PI * 40;
const RING_STEPS = 250;
const BANNER_MS = 2000; // how long NO MORE BETS shows at least once the window closed

export const liveView = {
  /** The countdown's label: a decision is named by the bet it decides (as the solo spots are). */
  phaseTitle() {
    const { phase, point } = this.state;
    if (phase === "dealing") return dealingTitle(this.state);
    if (phase !== "decision") return PHASE_TITLES[phase] ? t(PHASE_TITLES[phase]) : phase;
    const bet = this.config.decision_bets?.[point];
    return bet ? t("live.decide_bet", { field: fieldTitle(bet) }) : t("live.decide_point", { point });
  },

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
    // The jackpot bet where the table offers it: the switch beside CLEAR and REBET, the bet on the seat.
    this.el.jackpot = jackpotSwitch(this.jackpotOffer, this.jackpot, () => this.jackpotChanged());
    this.el.jackpotSlot = h("span.jackpot-slot", {}, this.el.jackpot);
    this.el.jackpotSeat = h("p.jackpot-seat", { id: "jackpot-seat", hidden: true });
    this.el.tray = h("div.chip-tray", { id: "chip-tray", role: "radiogroup", "aria-label": t("play.chips") });
    config.chips.forEach((chip, index) => this.el.tray.append(trayChip(config.chips, index, {
      label: t("play.chip", { amount: formatMoney(chip) }), onclick: () => { this.selected = index; this.render(); },
    })));
    for (const [name, limit] of Object.entries(config.limits)) {
      if (!this.game || this.game.fields.some((f) => f.name === name)) this.el.spots.append(this.spotFor(name, limit));
    }
    this.el.clear = h("button.btn.btn--ghost", { type: "button", id: "clear", onclick: () => this.clearBets() }, t("btn.clear"));
    this.el.rebet = h("button.btn.btn--action", { type: "button", id: "rebet", onclick: () => this.rebet(),
      "aria-keyshortcuts": "R", title: t("play.key", { key: "R" }) }, t("btn.rebet"));
    this.el.help = h("p.table-help", { id: "table-help" });

    this.el.felt = h("div.felt", { dataset: { title: config.title } },
      h("div.zone.zone--dealer", {}, h("h2.zone__title", {}, t("zone.dealer")), this.el.dealer, this.el.dealerHand),
      h("div.zone.zone--board", {}, h("h2.zone__title", {}, t("zone.board")), this.el.board),
      h("div.zone.zone--player", {}, h("h2.zone__title", {}, t("live.player_hand_shared")), this.el.player,
        this.el.playerHand, this.el.bonus),
      h("div.zone.zone--bets", {}, h("h2.zone__title", {}, t("live.your_bets")),
        h("div.bets-row", {}, this.el.spots, this.el.decisionSpots), this.el.jackpotSeat, this.el.timeout),
      h("div.result-slot", {}, this.el.result));
    const feltBox = h("div.felt-box", {}, studioVideo(config), this.el.felt);
    this.root.replaceChildren(h(`section.table.table--${config.game}.live`, { dataset: { game: config.game, table: config.id } },
      h("div.stage", {},
        h("header.hud", {},
          h("a.btn.btn--ghost", { href: "./#/", id: "lobby-link", title: t("btn.lobby") }, t("btn.lobby")),
          h("h1.hud__title", {}, config.title),
          h("div.meters", {}, meter("balance", t("meter.balance")), meter("total-bet", t("meter.total_bet")),
            meter("last-win", t("meter.last_win")), meter("players", t("live.players")),
            this.jackpotOffer ? jackpotMeter() : null),
          h("div.hud__buttons", {},
            h("button.btn.btn--ghost", { type: "button", id: "rules-button", title: t("btn.rules"), onclick: () => this.toggleRules() },
              t("btn.rules")),
            h("button.btn.btn--ghost", { type: "button", id: "live-history-button", title: t("live.my_rounds_button"),
              onclick: () => this.toggleHistory() }, t("live.my_rounds_button")),
            h("button.btn.btn--ghost", { type: "button", id: "limits-button", title: t("btn.limits"), onclick: () => this.toggleLimits() },
              t("btn.limits")),
            h("button.btn.btn--ghost", { type: "button", id: "fairness-button", title: t("btn.fairness"),
              onclick: () => this.toggleFairness() }, t("btn.fairness")),
            soundSwitch(),
            languageSwitch())),
        h("div.status.live__status", {}, this.el.ring, h("div.live__phases", {}, this.el.phase, this.el.banner), this.el.message),
        this.buildLiveFreeRounds(),
        this.hint?.el ?? null,
        feltBox,
        h("div.rail", {}, h("div.controls", {}, this.el.decisions, this.el.jackpotSlot, this.el.clear, this.el.rebet), this.el.tray)),
      this.el.help,
      (this.el.fairness = h("aside.panel", { id: "fairness-panel", hidden: true, "aria-label": t("fair.panel_title") },
        h("div.panel__bar", {}, h("button.btn.btn--small.panel__close", { type: "button",
          onclick: () => { this.el.fairness.hidden = true; } }, t("btn.close"))),
        h("h2", {}, t("fair.panel_title")), h("p", {}, t("fair.panel_intro_live")), this.el.fair)),
      this.el.rules,
      this.el.history,
      (this.el.limits = h("aside.panel", { id: "limits-panel", hidden: true, "aria-label": t("rg.limits_title") }))));
    this.fit = fitFelt(feltBox, this.el.felt);
    const table = this.root.querySelector(".table");
    this.unfollow = followPointer(table, this.el.help, { mouse: FeltPointer.helpKey(config.game), touch: "help.bets_touch" });
    this.pointer = new FeltPointer({
      table, game: config.game,
      open: () => this.betting() && !this.wrongCurrency,
      chip: () => this.el.tray.children[this.selected] ?? null,
      drawStack: (name, container) => this.drawStack(container, this.bets[name] ?? 0),
      remove: (name) => this.removeAll(name),
      say: (text) => this.say(text, "info"),
    });
  },

  spotFor(name, limit) {
    const tip = h("span.spot__tip", { role: "tooltip" }, fieldTitle(name));
    const spot = h("button.spot", {
      type: "button", dataset: { field: name }, "aria-label": t("spot.field", { field: fieldTitle(name) }),
    }, h("span.spot__name", {}, fieldTitle(name)), h("span.stack", {}), tip);
    wireField(spot, {
      add: () => this.addChip(name),
      removeLast: () => this.removeLast(name),
      removeLowest: () => this.removeLowest(name),
      removeAll: () => this.removeAll(name),
      lift: (event) => this.pointer?.lift(name, event) ?? false,
    });
    const sign = limitSign(this.game ?? { fields: [] }, name, limit.min, limit.max);
    return h("div.spot-wrap", { dataset: { spot: name } }, spot,
      h("div.spot__under", {}, sign, removeButton(name, () => this.removeLast(name))));
  },

  tick() {
    if (!this.el) return;
    const deadline = this.state.deadline;
    const total = this.state.phase === "betting" ? this.config.betting_seconds
      : this.state.phase === "decision" ? this.config.decision_seconds
        : this.state.phase === "pause" ? this.config.pause_seconds
          : this.state.phase === "dealing" ? this.config.deal_seconds ?? 0 : 0;
    const left = this.deadlineLeft();
    const fraction = typeof deadline === "number" && total ? Math.min(1, left / total) : 0;
    // Ten times a second, but only what changed is written (the ring in 250 steps, about a unit of
    // its 100x100 box each; empty and full exactly): a page whose timer stands still, or moves
    // slowly, draws no new frame.
    const shown = Math.round(fraction * RING_STEPS) / RING_STEPS;
    setAttr(this.el.ringBar, "stroke-dashoffset", String(RING_LENGTH * (1 - shown)));
    setText(this.el.ringText, typeof deadline === "number" ? String(Math.ceil(left)) : "");
    setAttr(this.el.ring, "data-urgent", String(left > 0 && left <= 3));
    setAttr(this.el.ring, "aria-label", t("live.seconds_left", { count: Math.ceil(left) }));
  },

  render() {
    const state = this.state;
    const seat = this.seat;
    const table = this.root.querySelector(".table");
    table.dataset.phase = state.phase;
    table.dataset.round = state.round ?? "";
    this.el.phase.textContent = this.phaseTitle();
    // "No more bets" while the window closes and the hand is dealt up to its first decision, not
    // over the decisions that follow (they are bets: the Flop bet, the raise). decision_bets lists
    // the decision points in order.
    // An RNG table deals at once: the banner then stays BANNER_MS after the window closed.
    const firstPoint = Object.keys(this.config.decision_bets ?? {})[0];
    if (this.renderedPhase === "betting" && state.phase !== "betting") {
      this.bannerUntil = performance.now() + BANNER_MS;
      setTimeout(() => this.render(), BANNER_MS + 50);
    }
    this.renderedPhase = state.phase;
    this.el.banner.hidden = !(state.phase === "closed" || (state.phase === "dealing" && state.point === firstPoint)
      || (state.phase !== "betting" && performance.now() < (this.bannerUntil ?? 0)));
    this.el.balance.textContent = this.balance === null ? "—"
      : formatMoney(this.balance, this.playerCurrency ? { currency: this.playerCurrency } : {});
    this.el.players.textContent = String(state.players ?? "—");
    this.el["total-bet"].textContent = formatMoney(this.pendingBets ? sum(Object.values(this.pendingBets))
      : seat?.total_stake ?? sum(Object.values(seat?.bets ?? {})));
    this.el["last-win"].textContent = formatMoney(this.lastWin);
    markSelected(this.el.tray, this.selected);
    // A fold takes the main bets' chips off the table (side bets wait for their own result).
    const sides = sideFields(this.game?.fields);
    // While bets are open, the chips clicked and not yet confirmed are drawn too (none is lost).
    const placed = state.phase === "betting" ? this.bets : seat?.bets ?? {};
    const bets = this.folded() && !seat?.settlement
      ? Object.fromEntries(Object.entries(seat?.bets ?? {}).filter(([name]) => sides.has(name))) : placed;
    this.drawFreeRounds();
    this.el.timeout.hidden = !this.timeoutNote;
    this.el.timeout.textContent = this.timeoutNote ?? "";
    for (const wrap of this.el.spots.children) {
      const name = wrap.dataset.spot;
      this.drawStack(wrap.querySelector(".stack"), bets[name] ?? 0);
      wrap.querySelector(".spot__tip").textContent =
        bets[name] ? t("bet.placed", { field: fieldTitle(name), amount: formatMoney(bets[name]) }) : fieldTitle(name);
      wrap.querySelector(".spot").classList.toggle("is-open", state.phase === "betting");
      wrap.querySelector(".spot__remove").classList.toggle("is-empty", !(state.phase === "betting" && bets[name] > 0));
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
    this.el.rebet.hidden = state.phase !== "betting" || !this.lastBets;
    this.el.jackpotSlot.hidden = state.phase !== "betting";
    markSwitch(this.el.jackpot, this.jackpot.on);
    const jackpot = seat?.jackpot;
    this.el.jackpotSeat.hidden = !jackpot;
    this.el.jackpotSeat.classList.toggle("is-win", jackpot?.status === "won");
    if (jackpot) {
      this.el.jackpotSeat.textContent = jackpotLine(seat) ?? t("live.jackpot_placed", { stake: formatMoney(jackpot.stake) });
    }
    this.pointer?.refresh();

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

    const actions = orderActions(seat?.legal_actions);
    this.el.decisions.replaceChildren(...actions.map((action) => h(`button.btn.btn--action.btn--${action}`, {
      type: "button", dataset: { action }, onclick: () => this.send({ type: "decide", action }),
    }, actionTitle(action), seat.action_stakes?.[action] ? ` ${formatMoney(seat.action_stakes[action])}` : "")));
    // The hint for this seat's open decision (once per decision: the round and the steps taken).
    this.hint?.show(seat?.legal_actions?.length && !seat.pending
      ? { id: state.round, status: "open", legal_actions: seat.legal_actions, steps: seat.steps } : null);
    if (seat?.pending) this.el.decisions.append(h("span", { id: "pending" }, t("live.you_chose", { action: actionTitle(seat.pending) })));

    this.el.result.hidden = !settlement;
    if (settlement) {
      fillResult(this.el.result, settlement, sides, {
        amount: h("p.result__amount.money", { id: "result-net", dataset: { net: settlement.net } },
          formatMoney(settlement.net, { signed: true })),
        extra: this.recordUrl ? [h("button.btn.btn--small", {
          type: "button", id: "verify-round",
          onclick: () => { this.el.rules.hidden = true; this.el.history.hidden = false; this.openRecord({ record: this.recordUrl }); },
        }, t("live.verify_round"))] : [],
      });
    } else {
      markWinningCards(this.el.felt, null);
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
    this.fit();
  },

  drawStack(container, amount) {
    drawChips(container, amount, this.config.chips);
  },
};
