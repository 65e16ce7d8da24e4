// "My rounds" at a live table: the player's settled live rounds (GET /api/live-rounds) and, for
// each, their part of the round's audit record (GET /api/tables/{id}/rounds/{n}/record) as a
// replay -- every reveal with the cards shown and when, the player's decisions with their time
// and source -- with the same in-browser check (WebCrypto) as a solo round's replay.

import { fillCards } from "./cards.js";
import { actionTitle, h } from "./dom.js";
import { formatMoney } from "./money.js";
import { settlementTable } from "./panels.js";
import { fairnessCheck, signedLoader } from "./verify.js";

const GAME_TITLES = { "texas-bonus": "Texas Bonus", "casino-holdem": "Casino Hold'em" };
const REVEAL_TITLES = { preflop: "Your cards", flop: "The flop", turn: "The turn", showdown: "Showdown" };

function clock(iso) {
  return typeof iso === "string" ? iso.slice(11, 19) : "";
}

function signed(amount) {
  return `${amount > 0 ? "+" : ""}${formatMoney(amount)}`;
}

/** The list of the player's live rounds; `onOpen(round)` opens one. */
export function liveRoundsList(rounds, onOpen) {
  if (!rounds.length) return h("p.empty", {}, "No live rounds settled yet.");
  return h("ol.history", {}, rounds.map((round) => h("li", {},
    h("button.btn.btn--link", { type: "button", dataset: { liveRound: round.round_id }, onclick: () => onOpen(round) },
      `Round ${round.round_id}`,
      h("span.history__summary", {},
        `${GAME_TITLES[round.game] ?? round.game} · bet ${formatMoney(round.total_stake)} · ${signed(round.net)}`)))));
}

/** A live round's record (the player's part) step by step, reveal by reveal, with the check. */
export function liveReplayView(record, api = null) {
  const seat = record.seats?.[0] ?? {};
  const reveals = record.reveals ?? [];
  const shown = { player: [], board: [], dealer: [] };
  const frames = reveals.map((reveal) => {
    for (const [place, cards] of Object.entries(reveal.cards ?? {})) shown[place] = [...shown[place], ...cards];
    return { reveal, player: [...shown.player], board: [...shown.board], dealer: [...shown.dealer] };
  });
  const cards = {
    dealer: h("div.cards.cards--small", { dataset: { replay: "dealer" } }),
    board: h("div.cards.cards--small", { dataset: { replay: "board" } }),
    player: h("div.cards.cards--small", { dataset: { replay: "player" } }),
  };
  const caption = h("p.replay__step", { "aria-live": "polite" });
  let index = 0;
  const prev = h("button.btn", { type: "button", onclick: () => { index -= 1; show(); } }, "◀ PREV STEP");
  const next = h("button.btn", { type: "button", onclick: () => { index += 1; show(); } }, "NEXT STEP ▶");
  function show() {
    const frame = frames[index];
    fillCards(cards.dealer, frame.dealer, 2, { small: true });
    fillCards(cards.board, frame.board, 5, { small: true });
    fillCards(cards.player, frame.player, 2, { small: true });
    caption.textContent = `Step ${index + 1} of ${frames.length}: `
      + `${REVEAL_TITLES[frame.reveal.event] ?? frame.reveal.event} at ${clock(frame.reveal.at)} UTC`;
    prev.disabled = index === 0;
    next.disabled = index >= frames.length - 1;
  }
  const actions = h("ol.replay__steps", {}, (seat.actions ?? []).map((action, k) => h("li", { dataset: { step: k } },
    `${action.point}: ${actionTitle(action.action)}`,
    action.stake ? ` — stake ${formatMoney(action.stake)}` : "",
    action.source === "player" ? ` (you, ${clock(action.at)})` : ` (timer: ${action.reason}, ${clock(action.at)})`)));
  const view = h("div.replay", { dataset: { replayRound: record.round_id } },
    h("p", {}, `${GAME_TITLES[record.game] ?? record.game} at table ${record.table?.id}, round ${record.table?.number}`
      + ` · opened ${clock(record.opened_at)}, no more bets ${clock(record.betting_closed_at)},`
      + ` settled ${clock(record.settled_at)} UTC`),
    h("div.replay__table", {},
      h("span.replay__label", {}, "Dealer"), cards.dealer,
      h("span.replay__label", {}, "Board"), cards.board,
      h("span.replay__label", {}, "Player hand"), cards.player),
    caption,
    h("div.replay__nav", {}, prev, next),
    actions,
    seat.settlement ? settlementTable(seat.settlement) : null,
    record.dealing === "studio" ? studioCards(record)
      : fairnessCheck({ ...record, id: record.round_id }, { signed: api ? signedLoader(api, record) : null }));
  if (frames.length) show();
  else caption.textContent = "This round has no recorded reveals.";
  return view;
}

/** A studio round's card reports (no seeds to check): each card, to whom, when, what read it. */
function studioCards(record) {
  const misdeal = record.misdeal;
  return h("div.replay__fair", { dataset: { studio: record.round_id } },
    h("p", {}, "Cards dealt by the studio: no seed to check. Every card the dealer's reader reported:"),
    h("ol.replay__cards", {}, (record.cards ?? []).map((report) => h("li", {
      dataset: { card: report.card, voided: String(Boolean(report.voided_at)) },
    }, `${report.card} to the ${report.to} at ${clock(report.at)} (${report.source})`,
    report.voided_at ? ` — voided at ${clock(report.voided_at)} (misread)` : ""))),
    misdeal ? h("p", { dataset: { misdeal: misdeal.by } },
      `Misdeal called by the ${misdeal.by} at ${clock(misdeal.at)} UTC: ${misdeal.reason}.`) : null,
    h("p", {}, "dealerpoker verify --round-file checks them against the reveals, the settlement and the ledger."));
}

/** The "My rounds" panel: the list of the player's live rounds, and one round's record. */
export class LiveRoundsPanel {
  constructor(panel, api) {
    this.panel = panel;
    this.api = api;
  }

  async toggle() {
    if (!this.panel.hidden) {
      this.panel.hidden = true;
      return;
    }
    for (const other of document.querySelectorAll(".panel")) other.hidden = true;
    await this.show();
  }

  bar() {
    return h("div.panel__bar", {},
      h("button.btn.btn--small.panel__close", { type: "button", onclick: () => { this.panel.hidden = true; } },
        "CLOSE ✕"));
  }

  async show() {
    const panel = this.panel;
    panel.replaceChildren(this.bar(), h("h2", {}, "My live rounds"), h("p", {}, "Loading…"));
    panel.hidden = false;
    try {
      const { rounds } = await this.api.call("GET", "/api/live-rounds?limit=20");
      panel.replaceChildren(this.bar(), h("h2", {}, "My live rounds"), liveRoundsList(rounds, (round) => this.openRecord(round)));
    } catch (error) {
      panel.replaceChildren(this.bar(), h("h2", {}, "My live rounds"), h("p.message", { dataset: { kind: "error" } }, error.message));
    }
  }

  async openRecord(round) {
    const panel = this.panel;
    panel.hidden = false;
    const back = h("button.btn.btn--small", { type: "button", onclick: () => this.show() }, "◀ ALL ROUNDS");
    try {
      const record = await this.api.call("GET", round.record);
      panel.replaceChildren(this.bar(), h("h2", {}, `Round ${record.round_id}`), back, liveReplayView(record, this.api));
    } catch (error) {
      panel.replaceChildren(this.bar(), h("h2", {}, "Round"), back, h("p.message", { dataset: { kind: "error" } }, error.message));
    }
  }
}
