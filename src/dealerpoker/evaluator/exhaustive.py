"""Exhaustive enumeration of every 5-card or 7-card hand, with category and value counts.

All 133,784,560 seven-card hands are visited by nested loops over ``c0 < c1 < ... < c6`` that
carry the partial hand key (and the partial per-suit rank bits) from one level to the next, so the
innermost step is one addition, a flush check and one table slot to count. The loops count hands
per *table slot* (a rank multiset, or the suited ranks of a flush); the slot counts become value
and category counts afterwards, with the tables' values.

>>> counts = count_categories(5)
>>> counts[HandCategory.ROYAL_FLUSH], counts[HandCategory.HIGH_CARD], sum(counts.values())
(4, 1302540, 2598960)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from dealerpoker.errors import InvalidHandError
from dealerpoker.evaluator import kernels, tables
from dealerpoker.evaluator.categories import HandCategory, category_of

__all__ = ["count_categories", "count_values"]

CARD_KEYS = tables.CARD_KEYS
SUIT_BIAS = kernels.SUIT_BIAS
FLUSH_CHECK = kernels.FLUSH_CHECK
#: Per card: bit ``16 * suit + rank``; OR-ed over a hand, ``>> 16 * suit`` gives a suit's ranks.
SUIT_RANK_BITS = np.array([1 << (16 * (c & 3) + (c >> 2)) for c in range(52)], dtype=np.int64)
SUIT_RANK_BITS.setflags(write=False)
ONE_PER_SUIT = np.int64(0x1111 << tables.SUIT_SHIFT)


@njit(cache=True, inline="always")
def _count(key: np.int64, bits: np.int64, rank_slots: npt.NDArray[np.int64],
           flush_masks: npt.NDArray[np.int64], seven: bool) -> None:  # fmt: skip
    suit = kernels.flush_suit(key)
    if suit >= 0:
        flush_masks[(bits >> (16 * suit)) & 0x1FFF] += 1
    elif seven:
        rank_slots[kernels._slot(kernels.HIGH_BASE_7, key)] += 1
    else:
        rank_slots[kernels._slot(kernels.HIGH_BASE_5, key)] += 1


@njit(cache=True, inline="always")
def _last_card7(key6: np.int64, bits6: np.int64, c5: int, rank_slots: npt.NDArray[np.int64],
                flush_masks: npt.NDArray[np.int64]) -> None:  # fmt: skip
    """Count the hands of six given cards (``key6``, ``bits6``) plus each card above ``c5``."""
    if (key6 + ONE_PER_SUIT) & FLUSH_CHECK:  # some suit has four: a seventh card may flush
        for c6 in range(c5 + 1, 52):
            _count(key6 + CARD_KEYS[c6], bits6 | SUIT_RANK_BITS[c6], rank_slots, flush_masks, True)
        return
    # No flush possible: the cards of one rank all make the same rank multiset, one slot.
    rank_slots[kernels._slot(kernels.HIGH_BASE_7, key6 + CARD_KEYS[c5 + 1])] += 3 - (c5 & 3)
    for first in range((c5 >> 2) * 4 + 4, 52, 4):
        rank_slots[kernels._slot(kernels.HIGH_BASE_7, key6 + CARD_KEYS[first])] += 4


@njit(cache=True)
def _enumerate7(rank_slots: npt.NDArray[np.int64], flush_masks: npt.NDArray[np.int64]) -> None:
    for c0 in range(46):
        k0, b0 = SUIT_BIAS + CARD_KEYS[c0], SUIT_RANK_BITS[c0]
        for c1 in range(c0 + 1, 47):
            k1, b1 = k0 + CARD_KEYS[c1], b0 | SUIT_RANK_BITS[c1]
            for c2 in range(c1 + 1, 48):
                k2, b2 = k1 + CARD_KEYS[c2], b1 | SUIT_RANK_BITS[c2]
                for c3 in range(c2 + 1, 49):
                    k3, b3 = k2 + CARD_KEYS[c3], b2 | SUIT_RANK_BITS[c3]
                    for c4 in range(c3 + 1, 50):
                        k4, b4 = k3 + CARD_KEYS[c4], b3 | SUIT_RANK_BITS[c4]
                        for c5 in range(c4 + 1, 51):
                            k5, b5 = k4 + CARD_KEYS[c5], b4 | SUIT_RANK_BITS[c5]
                            _last_card7(k5, b5, c5, rank_slots, flush_masks)


@njit(cache=True)
def _enumerate5(rank_slots: npt.NDArray[np.int64], flush_masks: npt.NDArray[np.int64]) -> None:
    for c0 in range(48):
        k0, b0 = SUIT_BIAS + CARD_KEYS[c0], SUIT_RANK_BITS[c0]
        for c1 in range(c0 + 1, 49):
            k1, b1 = k0 + CARD_KEYS[c1], b0 | SUIT_RANK_BITS[c1]
            for c2 in range(c1 + 1, 50):
                k2, b2 = k1 + CARD_KEYS[c2], b1 | SUIT_RANK_BITS[c2]
                for c3 in range(c2 + 1, 51):
                    k3, b3 = k2 + CARD_KEYS[c3], b2 | SUIT_RANK_BITS[c3]
                    for c4 in range(c3 + 1, 52):
                        _count(k3 + CARD_KEYS[c4], b3 | SUIT_RANK_BITS[c4], rank_slots, flush_masks, False)


def count_values(cards: int) -> dict[int, int]:
    """How many of all ``cards``-card hands (5 or 7) have each hand value, by enumeration."""
    if cards not in (5, 7):
        raise InvalidHandError(f"exhaustive enumeration covers 5 or 7 cards, got {cards}")
    rank_values = tables.RANK_VALUES_7 if cards == 7 else tables.RANK_VALUES_5
    rank_slots = np.zeros(len(rank_values), dtype=np.int64)
    flush_masks = np.zeros(len(tables.FLUSH_VALUES), dtype=np.int64)
    (_enumerate7 if cards == 7 else _enumerate5)(rank_slots, flush_masks)
    values = np.concatenate([rank_values, tables.FLUSH_VALUES])
    counts = np.concatenate([rank_slots, flush_masks])
    distinct, where = np.unique(values[counts > 0], return_inverse=True)
    totals = np.zeros(len(distinct), dtype=np.int64)
    np.add.at(totals, where, counts[counts > 0])
    return dict(zip(distinct.tolist(), totals.tolist(), strict=True))


def count_categories(cards: int) -> dict[HandCategory, int]:
    """How many of all ``cards``-card hands (5 or 7) fall in each category (royal flush apart)."""
    counts = dict.fromkeys(HandCategory, 0)
    for value, count in count_values(cards).items():
        counts[category_of(value)] += count
    return counts
