"""The slow, obviously correct evaluator: the reference twin of the fast kernels.

It tries every five-card subset and scores each from its rank groups, exactly as the value layout
in ``dealerpoker.evaluator.categories`` describes. It shares no code or tables with the kernels.
"""

from __future__ import annotations

from itertools import combinations

from dealerpoker.cards import Card, Rank, Suit
from dealerpoker.evaluator.categories import CATEGORY_SHIFT


def five_card_value(cards: tuple[Card, ...]) -> int:
    ranks = sorted((int(c.rank) for c in cards), reverse=True)
    counts: dict[int, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    flush = len({c.suit for c in cards}) == 1
    straight_top = -1
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_top = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:
            straight_top = 3
    shape = [count for _, count in groups]
    if straight_top >= 0 and flush:
        category, kickers = 8, [straight_top]
    elif shape[0] == 4:
        category, kickers = 7, [groups[0][0], groups[1][0]]
    elif shape[:2] == [3, 2]:
        category, kickers = 6, [groups[0][0], groups[1][0]]
    elif flush:
        category, kickers = 5, ranks
    elif straight_top >= 0:
        category, kickers = 4, [straight_top]
    elif shape[0] == 3:
        category, kickers = 3, [rank for rank, _ in groups]
    elif shape[:2] == [2, 2]:
        category, kickers = 2, [rank for rank, _ in groups]
    elif shape[0] == 2:
        category, kickers = 1, [rank for rank, _ in groups]
    else:
        category, kickers = 0, ranks
    value = category << CATEGORY_SHIFT
    for position, rank in enumerate(kickers):
        value |= rank << (16 - 4 * position)
    return value


def reference_value(cards: tuple[Card, ...]) -> int:
    """The best value over all five-card subsets of 5, 6 or 7 cards."""
    return max(five_card_value(five) for five in combinations(cards, 5))


def reference_value_of_indices(indices: list[int] | tuple[int, ...]) -> int:
    """Same, from card indices ``rank * 4 + suit`` (decoded here, independently of the package)."""
    return reference_value(tuple(Card(Rank(i >> 2), Suit(i & 3)) for i in indices))


def reference_best_five(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """The first best five-card subset in ``combinations`` order, highest rank first."""
    best = max(combinations(cards, 5), key=five_card_value)  # max keeps the first of equals
    return tuple(sorted(best, key=lambda c: (c.rank, c.suit), reverse=True))
