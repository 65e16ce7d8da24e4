"""What each opening bet is expected to return and how widely, per unit staked, for the back
office's reports: the measured result of many rounds is compared with the exact expectation and
the range chance leaves around it.

Per field of an ``analyze --json`` document (``analysis_document``):

* the ante stands for the whole main game (the ante and every bet its decisions add: flop,
  turn, river or raise), as in the analysis: its house edge and the variance of the main game's
  net per unit of ante, both exact, under the analysis' strategy;
* the side bet (the Texas Bonus, the Casino AA bet): its exact house edge from the document, and
  the variance of its net per unit from its pay lines (the Bonus: the two-card combinations; the
  AA bet: the five-card hands by category, counted once per process, taking the bet as settled on
  a fold: the fold rule moves the mean, which the document has exactly, and the spread little).

>>> moments = Moments(Fraction(1, 50), Fraction(4))
>>> moments.edge, moments.variance
(Fraction(1, 50), Fraction(4, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb
from typing import Any

from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games.rules import CasinoHoldemRules, Rules

MAIN_FIELD = "ante"


@dataclass(frozen=True, slots=True)
class Moments:
    """A bet's house edge and the variance of its net, both per unit staked on it."""

    edge: Fraction
    variance: Fraction


def bet_moments(rules: Rules, document: dict[str, Any]) -> dict[str, Moments]:
    """Field -> its moments: the ante (standing for the main game) and the game's side bet."""
    exact = document["rules"]["exact"]
    found = {MAIN_FIELD: Moments(Fraction(exact["house_edge"]), Fraction(exact["variance"]))}
    if rules.game == "texas-bonus":
        bonus = document["side_bets"]["bonus"]
        found["bonus"] = Moments(Fraction(bonus["exact"]), _bonus_variance(bonus, Fraction(bonus["exact"])))
    else:
        assert isinstance(rules, CasinoHoldemRules)
        aa = document["side_bets"]["aa"]
        edge = Fraction(aa["exact_settled_on_fold"] if aa["settles_on_fold"] else aa["exact_lost_on_fold"])
        found["aa"] = Moments(edge, _aa_second_moment(rules) - edge**2)
    return found


def _bonus_variance(bonus: dict[str, Any], edge: Fraction) -> Fraction:
    """E[net²] - E[net]² of the Bonus from its pay lines (a line with a probability, the both-aces
    line, replaces part of the Ace-Ace line's win)."""
    total = int(bonus["total_combinations"])
    second = Fraction(0)
    winners = Fraction(0)
    aces = next((line["pays"] for line in bonus["lines"] if "combinations" in line and line["pays"]
                 and line["line"].startswith("Ace - Ace")), None)
    for line in bonus["lines"]:
        if "combinations" in line:
            p = Fraction(int(line["combinations"]), total)
            second += p * line["pays"] ** 2
            winners += p
        else:  # player and dealer both A-A: pays more than the Ace-Ace line alone
            p = Fraction(line["probability"]).limit_denominator(10**12)
            second += p * (line["pays"] ** 2 - (aces or 0) ** 2)
    second += 1 - winners  # every other hand loses the unit
    return second - edge**2


@cache
def _class_counts() -> tuple[tuple[int, ...], tuple[int, ...]]:
    from dealerpoker.analysis.sidebets import five_card_counts

    by_category, pairs = five_card_counts()
    return tuple(by_category[HandCategory(c)] for c in range(10)), tuple(pairs[r] for r in range(13))


def _aa_second_moment(rules: CasinoHoldemRules) -> Fraction:
    by_category, pairs = _class_counts()
    total = comb(52, 5)
    second = Fraction(0)
    winners = 0
    for category, count in enumerate(by_category):
        pays = rules.aa_paytable.get(HandCategory(category))
        if pays is None:
            continue
        if HandCategory(category) is HandCategory.ONE_PAIR:
            count = sum(c for r, c in enumerate(pairs) if r >= int(rules.aa_min_pair_rank))
        second += Fraction(count * pays**2, total)
        winners += count
    return second + Fraction(total - winners, total)
