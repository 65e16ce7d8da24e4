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

from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
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


def five_card_class_counts(deck: DeckSpec = FULL_DECK) -> npt.NDArray[np.int64]:
    """Five-card hands by class: category 0..9, and one pair also as 10 + the pair's rank."""
    from dealerpoker.analysis.kernels import five_card_class_counts as count  # numba
    from dealerpoker.analysis.symmetry import _all_combos

    total = comb(deck.size, 5)
    return count(_all_combos(deck.size, 5, total), np.ones(total, dtype=np.int64), deck.rank_array(),
                 deck.suit_array())


def five_card_counts(deck: DeckSpec = FULL_DECK) -> tuple[dict[HandCategory, int], dict[int, int]]:
    """Five-card hands of the deck by category, and one-pair hands by the pair's rank."""
    counts = five_card_class_counts(deck)
    return ({HandCategory(c): int(counts[c]) for c in range(10)},
            {r: int(counts[10 + r]) for r in range(13)})


def aa_house_edge_settled_on_fold(rules: CasinoHoldemRules, deck: DeckSpec = FULL_DECK) -> Fraction:
    """The AA bet's house edge when it is settled whatever the player does (fold rule off)."""
    return aa_edge_from_counts(rules, five_card_class_counts(deck), deck)


def aa_edge_from_counts(rules: CasinoHoldemRules, counts: npt.NDArray[np.int64],
                        deck: DeckSpec = FULL_DECK) -> Fraction:
    """As :func:`aa_house_edge_settled_on_fold`, from :func:`five_card_class_counts`."""
    by_category = {HandCategory(c): int(counts[c]) for c in range(10)}
    pairs_by_rank = {r: int(counts[10 + r]) for r in range(13)}
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
