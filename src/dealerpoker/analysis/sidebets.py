"""Side bets settled on the player's first cards: the Texas Bonus and the Casino AA bet.

Both are countable by hand: the Bonus on the 1,326 two-card hands (6 per pair, 4 per suited
and 12 per offsuit class); the AA bet on the 2,598,960 five-card hands (two hole cards plus
the flop) by category. The AA bet's return when a fold loses it depends on the raise strategy
and comes from the exact solver (:mod:`dealerpoker.analysis.exact`).
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
from dealerpoker.analysis.evaluation import cards_value, category_of_value
from dealerpoker.analysis.symmetry import _all_combos
from dealerpoker.cards import RANK_CHARS
from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games.rules import CasinoHoldemRules, TexasBonusRules


def _class_combos(name: str, suits: int) -> int:
    if len(name) == 2:
        return comb(suits, 2)
    return suits if name[2] == "s" else suits * (suits - 1)


def bonus_side_bet(rules: TexasBonusRules, deck: DeckSpec = FULL_DECK) -> dict[str, Any]:
    """The Bonus bet's return per unit for the configured paytable, with its exact counts."""
    hands = comb(deck.size, 2)
    net = 0
    lines = []
    paid = 0
    aces_present = 12 in deck.ranks
    for line in rules.bonus_paytable:
        combos = sum(_class_combos(h, deck.suits) for h in line.hands
                     if all(RANK_CHARS.index(ch) in deck.ranks for ch in h[:2]))
        lines.append({"line": line.name, "pays": line.pays, "combinations": combos})
        paid += combos
        net += combos * line.pays
    net -= hands - paid
    expected = Fraction(net, hands)
    if rules.both_aces_pays and aces_present:
        aa_line = next((line.pays for line in rules.bonus_paytable if "AA" in line.hands), None)
        base = -1 if aa_line is None else aa_line
        if rules.both_aces_pays > base:
            # Player A-A, dealer the two other aces: C(s-2, 2) of the C(n-2, 2) dealer hands.
            both = Fraction(comb(deck.suits, 2), hands) * Fraction(comb(deck.suits - 2, 2),
                                                                  comb(deck.size - 2, 2))
            expected += both * (rules.both_aces_pays - base)
            lines.append({"line": "player and dealer both A-A", "pays": rules.both_aces_pays,
                          "probability": float(both)})
    return {"bonus": {"house_edge": float(-expected), "exact": str(-expected),
                      "total_combinations": hands, "lines": lines}}


@njit(cache=True)
def _five_card_counts(combos: npt.NDArray[np.int64], rank: npt.NDArray[np.int64],
                      suit: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Counts of five-card hands by category (0..9) and, for one pair, by pair rank (10..22)."""
    counts = np.zeros(23, dtype=np.int64)
    scratch = np.zeros(13, dtype=np.int64)
    for row in range(combos.shape[0]):
        value = cards_value(combos[row], 5, rank, suit, scratch)
        cat = category_of_value(value)
        counts[cat] += 1
        if cat == 1:
            counts[10 + ((value >> 16) & 15)] += 1
    return counts


def five_card_counts(deck: DeckSpec = FULL_DECK) -> tuple[dict[HandCategory, int], dict[int, int]]:
    """Five-card hands of the deck by category, and one-pair hands by the pair's rank."""
    combos = _all_combos(deck.size, 5, comb(deck.size, 5))
    counts = _five_card_counts(combos, deck.rank_array(), deck.suit_array())
    return ({HandCategory(c): int(counts[c]) for c in range(10)},
            {r: int(counts[10 + r]) for r in range(13)})


def aa_house_edge_settled_on_fold(rules: CasinoHoldemRules, deck: DeckSpec = FULL_DECK) -> Fraction:
    """The AA bet's house edge when it is settled whatever the player does (fold rule off)."""
    by_category, pairs_by_rank = five_card_counts(deck)
    total = comb(deck.size, 5)
    net = 0
    winners = 0
    for category, count in by_category.items():
        pays = rules.aa_paytable.get(category)
        if pays is None:
            continue
        if category is HandCategory.ONE_PAIR:
            count = sum(c for r, c in pairs_by_rank.items() if r >= int(rules.aa_min_pair_rank))
        net += count * pays
        winners += count
    net -= total - winners
    return -Fraction(net, total)
