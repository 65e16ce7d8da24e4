"""Public evaluator API: ``evaluate`` (scalar) and ``evaluate_batch`` (numpy arrays).

>>> from dealerpoker.evaluator import evaluate
>>> hand = evaluate("Kh Kd Ks 3c 3d 9s 2h")
>>> hand.name, hand.category.slug
('Full House, Kings over Threes', 'full-house')
>>> evaluate("As 2d 3h 4c 5s Kd Qd").name
'Straight, Five high'
>>> evaluate("As Ks Qs Js Ts") == evaluate("Ah Kh Qh Jh Th")
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import total_ordering
from itertools import combinations

from dealerpoker.cards import Card, Rank, ensure_unique, format_cards, parse_cards
from dealerpoker.errors import InvalidCardError, InvalidHandError
from dealerpoker.evaluator.categories import (
    CATEGORY_SHIFT,
    HandCategory,
    category_of,
    ranks_of,
)


@total_ordering
@dataclass(frozen=True, slots=True, eq=False)
class HandValue:
    """The value of a poker hand. Ordered and compared by ``value`` alone."""

    value: int
    best_five: tuple[Card, ...]

    @property
    def category(self) -> HandCategory:
        return category_of(self.value)

    @property
    def name(self) -> str:
        return describe(self.value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.value == other.value

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.value < other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __str__(self) -> str:
        return f"{self.name} ({format_cards(self.best_five)})"


def describe(value: int) -> str:
    """A human name for a hand value, e.g. ``"Flush, Ace high"``."""
    category = category_of(value)
    r = [Rank(x) for x in ranks_of(value)]
    if category is HandCategory.ROYAL_FLUSH:
        return "Royal Flush"
    if category is HandCategory.STRAIGHT_FLUSH:
        return f"Straight Flush, {r[0].singular} high"
    if category is HandCategory.FOUR_OF_A_KIND:
        return f"Four of a Kind, {r[0].plural}"
    if category is HandCategory.FULL_HOUSE:
        return f"Full House, {r[0].plural} over {r[1].plural}"
    if category is HandCategory.FLUSH:
        return f"Flush, {r[0].singular} high"
    if category is HandCategory.STRAIGHT:
        return f"Straight, {r[0].singular} high"
    if category is HandCategory.THREE_OF_A_KIND:
        return f"Three of a Kind, {r[0].plural}"
    if category is HandCategory.TWO_PAIR:
        return f"Two Pair, {r[0].plural} and {r[1].plural}"
    if category is HandCategory.ONE_PAIR:
        return f"Pair of {r[0].plural}"
    return f"High Card, {r[0].singular}"


def _five_card_value(cards: tuple[Card, ...]) -> int:
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


def _as_cards(cards: str | Iterable[Card]) -> tuple[Card, ...]:
    if isinstance(cards, str):
        return parse_cards(cards)
    result = tuple(cards)
    for card in result:
        if not isinstance(card, Card):
            raise InvalidCardError(f"not a Card: {card!r}")
    ensure_unique(result)
    return result


def evaluate(cards: str | Iterable[Card]) -> HandValue:
    """Evaluate 5, 6 or 7 cards: the best five-card hand they make."""
    hand = _as_cards(cards)
    if not 5 <= len(hand) <= 7:
        raise InvalidHandError(f"a hand needs 5, 6 or 7 cards, got {len(hand)}")
    best_value, best_five = -1, hand[:5]
    for five in combinations(hand, 5):
        value = _five_card_value(five)
        if value > best_value:
            best_value, best_five = value, five
    ordered = tuple(sorted(best_five, key=lambda c: (c.rank, c.suit), reverse=True))
    return HandValue(best_value, ordered)
