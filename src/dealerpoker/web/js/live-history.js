// "My rounds" at a live table: the player's settled live rounds (GET /api/live-rounds) and, for
// each, their part of the round's audit record (GET /api/tables/{id}/rounds/{n}/record) as a
// replay -- every reveal with the cards shown and when, the player's decisions with their time
// and source -- with the same in-browser check (WebCrypto) as a solo round's replay.

import { fillCards } from "./cards.js";
import { actionTitle, gameTitle, h } from "./dom.js";
import { has, t } from "./i18n.js";
import { formatMoney } from "./money.js";
import { historyEntry, settlementTable } from "./panels.js";
import { fairnessCheck, signedLoader } from "./verify.js";

export const REVEAL_TITLES = {
  preflop: "live.reveal.preflop", flop: "live.reveal.flop", turn: "live.reveal.turn", showdown: "live.reveal.showdown",
};
// Why the timer chose for a player (the record's "reason"), and where a studio card went.
export const TIMER_REASONS = { timeout: "live.timer_reason.timeout", unpaid: "live.timer_reason.unpaid" };
const PLACES = { player: "dealer.place.player", dealer: "dealer.place.dealer", board: "dealer.place.board" };

function named(table, slug) {
  return table[slug] ? t(table[slug]) : String(slug ?? "");
}

function pointTitle(point) {
  return has(`phase.${point}`) ? t(`phase.${point}`) : point;
}

function title(game) {
  return gameTitle({ id: game, title: game });
}

function clock(iso) {
  return typeof iso === "string" ? iso.slice(11, 19) : "";
}

function signed(amount) {
  return formatMoney(amount, { signed: true });
}

/** The list of the player's live rounds; `onOpen(round)` opens one. */
export function liveRoundsList(rounds, onOpen) {
  if (!rounds.length) return h("p.empty", {}, t("live.rounds_empty"));
  return h("ol.history", {}, rounds.map((round) => h("li", {},
    h("button.btn.btn--link", { type: "button", dataset: { liveRound: round.round_id }, onclick: () => onOpen(round) },
      historyEntry({ when: round.settled_at, game: round.game, settlement: round.settlement, net: round.net })))));
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
  const prev = h("button.btn", { type: "button", onclick: () => { index -= 1; show(); } }, t("replay.prev"));
  const next = h("button.btn", { type: "button", onclick: () => { index += 1; show(); } }, t("replay.next"));
  function show() {
    const frame = frames[index];
    fillCards(cards.dealer, frame.dealer, 2, { small: true });
    fillCards(cards.board, frame.board, 5, { small: true });
    fillCards(cards.player, frame.player, 2, { small: true });
    const what = REVEAL_TITLES[frame.reveal.event] ? t(REVEAL_TITLES[frame.reveal.event]) : frame.reveal.event;
    caption.textContent = t("live.replay_step", { step: index + 1, count: frames.length, what, time: clock(frame.reveal.at) });
    prev.disabled = index === 0;
    next.disabled = index >= frames.length - 1;
  }
  const actions = h("ol.replay__steps", {}, (seat.actions ?? []).map((action, k) => h("li", { dataset: { step: k } },
    `${pointTitle(action.point)}: ${actionTitle(action.action)}`,
    action.stake ? ` — ${t("replay.stake", { amount: formatMoney(action.stake) })}` : "",
    ` (${action.source === "player" ? t("live.action_you", { time: clock(action.at) })
      : t("live.action_timer", { reason: named(TIMER_REASONS, action.reason), time: clock(action.at) })})`)));
  const view = h("div.replay", { dataset: { replayRound: record.round_id } },
    h("p", {}, t("live.record_line", {
      game: title(record.game), table: record.table?.id, number: record.table?.number, opened: clock(record.opened_at),
      closed: clock(record.betting_closed_at), settled: clock(record.settled_at),
    })),
    h("div.replay__table", {},
      h("span.replay__label", {}, t("zone.dealer")), cards.dealer,
      h("span.replay__label", {}, t("zone.board")), cards.board,
      h("span.replay__label", {}, t("live.player_hand")), cards.player),
    caption,
    h("div.replay__nav", {}, prev, next),
    actions,
    seat.settlement ? settlementTable(seat.settlement) : null,
    record.dealing === "studio" ? studioCards(record)
      : fairnessCheck({ ...record, id: record.round_id }, { signed: api ? signedLoader(api, record) : null }));
  if (frames.length) show();
  else caption.textContent = t("live.no_reveals");
  return view;
}

/** A studio round's card reports (no seeds to check): each card, to whom, when, what read it. */
function studioCards(record) {
  const misdeal = record.misdeal;
  return h("div.replay__fair", { dataset: { studio: record.round_id } },
    h("p", {}, t("live.studio_cards")),
    h("ol.replay__cards", {}, (record.cards ?? []).map((report) => h("li", {
      dataset: { card: report.card, voided: String(Boolean(report.voided_at)) },
    }, t("live.studio_card", { card: report.card, to: named(PLACES, report.to), time: clock(report.at), source: report.source }),
    report.voided_at ? ` — ${t("live.studio_voided", { time: clock(report.voided_at) })}` : ""))),
    // The record's reason is English free text (the dealer's own words): kept as the line's title.
    misdeal ? h("p", { dataset: { misdeal: misdeal.by }, title: misdeal.reason },
      t(misdeal.by === "timer" ? "live.studio_misdeal_timer" : "live.studio_misdeal_dealer", { time: clock(misdeal.at) }))
      : null,
    h("p", {}, t("live.studio_verify")));
}
