// The recall of the player's last rounds a jurisdiction requires (its `recall_rounds`; the strip's
// button, js/jurisdiction.js): each round step by step -- the bets, the cards each step or street
// revealed, every decision and who made it (the player, or the timer and why), what was staked
// and paid. A solo table recalls solo rounds (their replays), a live table live rounds (the
// player's part of each round's record).

import { actionTitle, fieldTitle, h } from "./dom.js";
import { t } from "./i18n.js";
import { REVEAL_TITLES, TIMER_REASONS } from "./live-history.js";
import { formatTime } from "./locale.js";
import { formatMoney } from "./money.js";
import { settlementTable } from "./panels.js";

const SOURCE_KEYS = { player: "juris.source.player", timer: "juris.source.timer" };

function cards(list) {
  return (list ?? []).join(" ");
}

/** One round of the recall: its bets, and every step with the cards it revealed, who decided, what it staked and paid. */
function recallRound(replay) {
  const frames = replay.frames ?? [];
  const last = frames[frames.length - 1] ?? {};
  let shownBoard = 0;
  const steps = frames.map((frame) => {
    const step = frame.step ?? {};
    const board = frame.board ?? [];
    const revealed = board.slice(shownBoard);
    shownBoard = board.length;
    const dealer = frame.status === "settled" || step === frames[frames.length - 1]?.step ? frame.dealer_cards : null;
    return h("li.juris-step", { dataset: { step: step.step } },
      h("span.juris-step__action", {}, t("juris.step", { step: step.step, action: actionTitle(step.action ?? "") })),
      " ", h("span.juris-step__source", {}, SOURCE_KEYS[step.source] ? t(SOURCE_KEYS[step.source]) : step.source),
      step.step === 0 ? h("span.juris-step__cards", {}, " ", t("juris.your_cards", { cards: cards(frame.player_cards) })) : null,
      revealed.length ? h("span.juris-step__cards", {}, " ", t("juris.board", { cards: cards(revealed) })) : null,
      dealer?.length ? h("span.juris-step__cards", {}, " ", t("juris.dealer", { cards: cards(dealer) })) : null,
      " ", h("span.juris-step__money", {}, t("juris.step_money", {
        stake: formatMoney(step.stake ?? 0), returned: formatMoney(step.returned ?? 0) })));
  });
  const net = last.settlement?.net;
  return h("li.juris-round", { dataset: { round: replay.id } },
    h("details", {},
      h("summary", {}, t("juris.round", { id: replay.id, time: formatTime(frames[0]?.step?.at ?? "") }),
        net === undefined || net === null ? "" : ` · ${formatMoney(net, { signed: true })}`),
      h("ol.juris-steps", {}, steps)));
}

async function soloRecall(api, count) {
  const { rounds = [] } = await api.call("GET", `/api/rounds?limit=${count}`);
  const replays = await Promise.all(rounds.map((round) => api.call("GET", `/api/rounds/${encodeURIComponent(round.id)}/replay`)));
  return replays.map(recallRound);
}

async function liveRecall(api, count) {
  const { rounds = [] } = await api.call("GET", `/api/live-rounds?limit=${count}`);
  const records = await Promise.all(rounds.map((round) => api.call("GET", round.record)));
  return records.map(recallLiveRound);
}

function amounts(bets) {
  return Object.entries(bets ?? {}).filter(([, amount]) => amount > 0)
    .map(([field, amount]) => `${fieldTitle(field)} ${formatMoney(amount)}`).join(", ");
}

/** Who decided a live step: the player, or the timer and why (its time ran out, the stake was not paid). */
function liveSource(action) {
  const time = (action.at ?? "").slice(11, 19);
  if (action.source === "player") return t("live.action_you", { time });
  const reason = TIMER_REASONS[action.reason] ? t(TIMER_REASONS[action.reason]) : action.reason ?? "";
  return t("live.action_timer", { reason, time });
}

/** One live round of the recall (the player's part of its record): the bets, the cards each
 * street revealed with the player's decision there and who made it, then what the round paid. */
function recallLiveRound(record) {
  const seat = record.seats?.[0] ?? {};
  const actions = seat.actions ?? [];
  const steps = [h("li.juris-step", { dataset: { step: "bets" } }, t("juris.bets", { bets: amounts(seat.bets) }))];
  for (const reveal of record.reveals ?? []) {
    const shown = reveal.cards ?? {};
    steps.push(h("li.juris-step", { dataset: { step: `reveal:${reveal.event}` } },
      h("span.juris-step__action", {}, REVEAL_TITLES[reveal.event] ? t(REVEAL_TITLES[reveal.event]) : reveal.event),
      shown.player?.length ? h("span.juris-step__cards", {}, " ", t("juris.your_cards", { cards: cards(shown.player) })) : null,
      shown.board?.length ? h("span.juris-step__cards", {}, " ", t("juris.board", { cards: cards(shown.board) })) : null,
      shown.dealer?.length ? h("span.juris-step__cards", {}, " ", t("juris.dealer", { cards: cards(shown.dealer) })) : null));
    for (const action of actions.filter((a) => a.point === reveal.event)) {
      steps.push(h("li.juris-step", { dataset: { step: `action:${action.point}`, source: action.source } },
        h("span.juris-step__action", {}, actionTitle(action.action ?? "")),
        action.stake ? ` ${t("replay.stake", { amount: formatMoney(action.stake) })}` : "",
        " ", h("span.juris-step__source", {}, `(${liveSource(action)})`)));
    }
  }
  const settlement = seat.settlement;
  steps.push(h("li.juris-step", { dataset: { step: "paid" } },
    h("span.juris-step__money", {}, t("juris.step_money", {
      stake: formatMoney(seat.total_stake ?? 0), returned: formatMoney(seat.total_returned ?? 0) })),
    settlement ? settlementTable(settlement) : null));
  const net = settlement?.net ?? (seat.total_returned ?? 0) - (seat.total_stake ?? 0);
  return h("li.juris-round", { dataset: { round: record.round_id } },
    h("details", {},
      h("summary", {}, t("juris.round", { id: record.round_id, time: formatTime(record.settled_at ?? "") }),
        ` · ${formatMoney(net, { signed: true })}`),
      h("ol.juris-steps", {}, steps)));
}

/** The dialog recalling the player's last `count` rounds, every step of each. */
export async function openRecall(api, kind, count) {
  document.getElementById("juris-recall")?.remove();
  const list = h("ol.juris-rounds", { id: "juris-rounds" });
  const dialog = h("dialog.juris-recall", { id: "juris-recall", "aria-labelledby": "juris-recall-title" },
    h("h2", { id: "juris-recall-title" }, t("juris.recall", { count })),
    list,
    h("button.btn", { type: "button", id: "juris-recall-close", onclick: () => dialog.close() }, t("btn.close")));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  try {
    const items = kind === "live" ? await liveRecall(api, count) : await soloRecall(api, count);
    list.replaceChildren(...(items.length ? items : [h("li", {}, t("history.empty"))]));
  } catch {
    list.replaceChildren(h("li", {}, t("page.connection_lost")));
  }
}
