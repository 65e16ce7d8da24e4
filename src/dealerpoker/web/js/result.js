// How a settled round is told, solo and live alike: a headline that agrees with the money (the main
// bets' outcome, then each side bet's own result) and the dealer's qualification (Casino Hold'em).

import { fieldTitle, h } from "./dom.js";
import { t } from "./i18n.js";
import { handName } from "./locale.js";
import { formatMoney } from "./money.js";
import { settlementTable } from "./panels.js";

/** The optional opening fields (Bonus, AA): side bets settled on their own paytable. */
export function sideFields(fields) {
  return new Set((fields ?? []).filter((f) => f.optional).map((f) => f.name));
}

function sideResult(line) {
  const field = fieldTitle(line.field);
  if (line.net > 0) return t("result.side_wins", { field, amount: formatMoney(line.net) });
  if (line.net < 0) return t("result.side_lost", { field });
  return t("result.side_returned", { field });
}

/**
 * "You win", "Dealer wins", "Push — bets returned", "You folded" when only the main bets were
 * staked; with a side bet each part is said: "Push on the main bets; AA lost",
 * "You lose the hand; AA wins 80.00".
 */
export function resultHeadline(settlement, sides) {
  const outcome = settlement.outcome;
  if (outcome === "misdeal") return t("result.misdeal");
  const side = (settlement.lines ?? []).filter((line) => sides.has(line.field) && line.stake > 0);
  if (!side.length) {
    return t({ win: "result.win", lose: "result.lose", tie: "result.tie", fold: "result.fold" }[outcome] ?? outcome);
  }
  const main = t({ win: "result.main_win", lose: "result.main_lose", tie: "result.main_tie", fold: "result.fold" }[outcome]
    ?? outcome);
  return [main, ...side.map(sideResult)].join("; ");
}

/** "Dealer qualifies with a Pair of Sixes" / "Dealer does not qualify" (null where the game has no
 * qualification, or the round ended before the reveal). */
export function qualificationText(settlement) {
  if (settlement?.dealer_qualifies === true) {
    return t("result.dealer_qualifies", { hand: handName(settlement.dealer_hand) });
  }
  if (settlement?.dealer_qualifies === false) return t("result.dealer_not_qualifies");
  return null;
}

const RANKS = "23456789TJQKA";

/** A hand's ranks by importance (the pair before its kickers), as hands of one name are compared. */
function ranksByWeight(hand) {
  const counts = new Map();
  for (const card of hand?.best_five ?? []) counts.set(card[0], (counts.get(card[0]) ?? 0) + 1);
  return [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || RANKS.indexOf(b) - RANKS.indexOf(a));
}

/**
 * "Pair of Queens, Ace kicker": the winner's hand with the card that decided it, when both hands
 * have the same name (null otherwise, or when nothing tells them apart: a push).
 */
export function kickerName(winner, loser) {
  if (!winner?.best_five || !loser?.best_five || handName(winner) !== handName(loser)) return null;
  const ours = ranksByWeight(winner);
  const theirs = ranksByWeight(loser);
  const at = ours.findIndex((rank, index) => rank !== theirs[index]);
  if (at < 0) return null;
  return t("result.kicker", { hand: handName(winner), rank: t(`rank.${ours[at]}_one`) });
}

/** The hands' line of a settled round: each hand named, the deciding kicker where there is one. */
export function handsLine(settlement) {
  const player = settlement.player_hand;
  const dealer = settlement.dealer_hand;
  if (!player?.name && !dealer?.name) return null;
  const won = settlement.outcome === "win";
  const lost = settlement.outcome === "lose" && settlement.dealer_qualifies !== false;
  const playerText = (won && kickerName(player, dealer)) || handName(player);
  const dealerText = (lost && kickerName(dealer, player)) || handName(dealer);
  return [player?.name ? t("result.your_hand", { hand: playerText }) : null,
    dealer?.name ? t("result.dealer_hand", { hand: dealerText }) : null].filter(Boolean).join(" · ");
}

/** "WIN €70.00" / "LOSS €35.00" / "PUSH": the round in one glance, and its kind (for its colour). */
export function verdict(settlement) {
  const net = settlement.net;
  if (net > 0) return { kind: "win", text: t("result.verdict_win", { amount: formatMoney(net) }) };
  if (net < 0) return { kind: "loss", text: t("result.verdict_loss", { amount: formatMoney(-net) }) };
  return { kind: "push", text: t("result.verdict_push") };
}

/** The five cards that made the winning hand, lit on the felt (none on a push or a fold). */
export function markWinningCards(felt, settlement) {
  const hand = settlement?.outcome === "win" ? settlement.player_hand
    : settlement?.outcome === "lose" && settlement.dealer_qualifies !== false ? settlement.dealer_hand : null;
  const best = new Set(hand?.best_five ?? []);
  const owner = settlement?.outcome === "win" ? "player" : "dealer";
  for (const card of felt.querySelectorAll(".card")) {
    const zone = card.closest("#board-cards") ? "board" : card.closest("#player-cards") ? "player" : "dealer";
    card.classList.toggle("is-best", best.has(card.dataset.card) && (zone === "board" || zone === owner));
  }
  felt.classList.toggle("has-best", best.size > 0);
}

/**
 * The result panel's content, solo and live alike: the verdict in large type, the headline, the
 * money (`amount`, the page's own line), the hands with the deciding kicker, the dealer's
 * qualification, and the bets' lines behind DETAILS (they open over the felt, so the panel keeps
 * its size and the layout does not move). `extra`: the page's own buttons (live: verify).
 */
export function fillResult(panel, settlement, sides, { amount, extra = [] } = {}) {
  const { kind, text } = verdict(settlement);
  const qualification = qualificationText(settlement);
  const hands = handsLine(settlement);
  const details = h("details.result__details", {},
    h("summary.btn.btn--small", { id: "result-details" }, t("result.details")), settlementTable(settlement));
  panel.replaceChildren(...[
    h("p.result__verdict", { id: "result-verdict", dataset: { kind } }, text),
    h("p.result__headline", { id: "result-headline" }, resultHeadline(settlement, sides)),
    amount,
    hands ? h("p.result__note.result__hands", { id: "result-hands" }, hands) : null,
    qualification ? h("p.result__note.result__qualification", { id: "dealer-qualification" }, qualification) : null,
    h("div.result__buttons", {}, details, ...extra)].filter(Boolean));
  panel.dataset.kind = kind;
  panel.classList.toggle("is-win", kind === "win");
  const felt = panel.closest(".felt");
  if (felt) markWinningCards(felt, settlement);
}
