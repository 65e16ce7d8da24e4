"""Hand categories and the layout of an integer hand value.

A hand value is an ``int`` (``int32`` in arrays); higher is better and equal hands are equal::

    value = category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

``category`` is 0 (high card) .. 8 (straight flush; a royal flush is the top straight flush),
``r1..r5`` are the ranks (0 = Two .. 12 = Ace) that decide between hands of that category, most
significant first, unused ones 0: pair rank then kickers; high pair, low pair, kicker; trips
then kickers; the straight's top card (3 = Five for the wheel); full house trips then pair;
quads then kicker.
"""

from __future__ import annotations

from enum import IntEnum

CATEGORY_SHIFT = 20


class HandCategory(IntEnum):
    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def slug(self) -> str:
        """The wire/JSON name, e.g. ``"full-house"``."""
        return self.name.lower().replace("_", "-")

    @property
    def title(self) -> str:
        """The display name, e.g. ``"Full House"``."""
        return _TITLES[self]

    @classmethod
    def from_slug(cls, slug: str) -> HandCategory:
        for category in cls:
            if category.slug == slug:
                return category
        raise ValueError(f"unknown hand category {slug!r}")


_TITLES = {
    HandCategory.HIGH_CARD: "High Card",
    HandCategory.ONE_PAIR: "Pair",
    HandCategory.TWO_PAIR: "Two Pair",
    HandCategory.THREE_OF_A_KIND: "Three of a Kind",
    HandCategory.STRAIGHT: "Straight",
    HandCategory.FLUSH: "Flush",
    HandCategory.FULL_HOUSE: "Full House",
    HandCategory.FOUR_OF_A_KIND: "Four of a Kind",
    HandCategory.STRAIGHT_FLUSH: "Straight Flush",
    HandCategory.ROYAL_FLUSH: "Royal Flush",
}

#: The value of the royal flush (straight flush, Ace high); nothing is higher.
ROYAL_FLUSH_VALUE = (8 << CATEGORY_SHIFT) | (12 << 16)


def category_of(value: int) -> HandCategory:
    """The category of a hand value, with the royal flush told apart."""
    if value == ROYAL_FLUSH_VALUE:
        return HandCategory.ROYAL_FLUSH
    return HandCategory(value >> CATEGORY_SHIFT)


def ranks_of(value: int) -> tuple[int, int, int, int, int]:
    return (value >> 16 & 15, value >> 12 & 15, value >> 8 & 15, value >> 4 & 15, value & 15)
