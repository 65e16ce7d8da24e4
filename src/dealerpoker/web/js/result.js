// How a settled round is told, solo and live alike: a headline that agrees with the money (the main
// bets' outcome, then each side bet's own result) and the dealer's qualification (Casino Hold'em).

import { fieldTitle } from "./dom.js";
import { t } from "./i18n.js";
import { handName } from "./locale.js";
import { formatMoney } from "./money.js";

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
