# mypy: disable-error-code="no-any-return"
# (the kernels return elements of numpy tables, which mypy types as Any)
"""numba kernels of the evaluator, for other ``@njit`` code too (e.g. the analysis layer).

Callable from numba code (card indices ``rank * 4 + suit``, values on the scale of
:mod:`dealerpoker.evaluator.categories`, the same as ``evaluate(...).value``):

* ``eval5(c0, ..., c4)``, ``eval6(c0, ..., c5)``, ``eval7(c0, ..., c6) -> int32``;
* incremental use: ``key = SUIT_BIAS + hand_key(c0) + hand_key(c1) + ...`` (any order; carry
  partial sums through nested loops), then ``value_from_key7(key, c0, ..., c6)`` (the cards are
  only read when the hand holds a flush);
* its two halves: ``flush_suit(key)`` (-1 if none), ``rank_value7(key)`` when there is no flush,
  else ``flush_value(mask)`` with the 13-bit rank mask of that suit's cards;
* ``eval_rows(cards, out)`` / ``eval_rows_checked(cards, out)`` over an (n, 5|6|7) int8 array.

The design (additive card keys, a flush check on 4-bit suit counters, a minimal perfect hash of
the rank multiset through two small direct tables, a 13-bit mask table for flushes) is described in
:mod:`dealerpoker.evaluator.tables`. The tables are module-level globals: numba freezes them into
the compiled code as constants, which a probe measured 3-7x faster than passing them as arguments.
(So numba's on-disk cache, keyed on each kernel's own source file, keeps the old tables if only
``tables.py`` changes: clear ``__pycache__`` after changing the tables; the tests would catch it.)

The kernels do not validate: the public wrappers in :mod:`dealerpoker.evaluator.api` do.

>>> from dealerpoker.cards.encoding import indices_from_text
>>> int(eval7(*indices_from_text("Kh Kd Ks 3c 3d 9s 2h"))) == (6 << 20 | 11 << 16 | 1 << 12)
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from dealerpoker.evaluator import tables

CARD_KEYS = tables.CARD_KEYS
LOW_INDEX = tables.LOW_INDEX
HIGH_BASE_5 = tables.HIGH_BASE_5
HIGH_BASE_6 = tables.HIGH_BASE_6
HIGH_BASE_7 = tables.HIGH_BASE_7
RANK_VALUES_5 = tables.RANK_VALUES_5
RANK_VALUES_6 = tables.RANK_VALUES_6
RANK_VALUES_7 = tables.RANK_VALUES_7
FLUSH_VALUES = tables.FLUSH_VALUES
SUIT_BIAS = np.int64(tables.SUIT_BIAS)
FLUSH_CHECK = np.int64(tables.FLUSH_CHECK)
SUIT_SHIFT = tables.SUIT_SHIFT
LOW_FIELD = np.int64(tables.LOW_FIELD)
HIGH_FIELD = np.int64(tables.HIGH_FIELD)
LOW_FIELD_BITS = tables.LOW_FIELD_BITS
#: A card's bit, by its index read as an unsigned byte; bit 63 for anything outside 0..51.
CARD_BITS = np.array([1 << i for i in range(52)] + [1 << 63] * 204, dtype=np.uint64)
CARD_BITS.setflags(write=False)
# 64-bit constants keep the arithmetic 64-bit when cards come as int8 (plain Python, no JIT)
ONE, ZERO = np.int64(1), np.int64(0)

__all__ = [
    "eval5",
    "eval6",
    "eval7",
    "flush_suit",
    "flush_value",
    "hand_key",
    "rank_value5",
    "rank_value6",
    "rank_value7",
    "value_from_key7",
]


@njit(cache=True, inline="always")
def _at(index: int | np.integer[Any]) -> np.uint64:
    # Unsigned indices spare numba's negative-index wraparound on every table lookup.
    return np.uint64(index)


@njit(cache=True, inline="always")
def hand_key(card: int) -> np.int64:
    """The additive key of one card; a hand's key is ``SUIT_BIAS`` plus the sum of its cards'."""
    return CARD_KEYS[_at(card)]


@njit(cache=True, inline="always")
def flush_suit(key: np.int64) -> int:
    """The suit holding five or more cards of a hand key, or -1."""
    check = key & FLUSH_CHECK
    if check == 0:
        return -1
    for suit in range(4):
        if (check >> (SUIT_SHIFT + 4 * suit + 3)) & 1:
            return suit
    return -1


@njit(cache=True, inline="always")
def flush_value(ranks_mask: int | np.int64) -> np.int32:
    """The best flush or straight flush among the ranks in a 13-bit mask with >= 5 bits."""
    return FLUSH_VALUES[_at(ranks_mask)]


@njit(cache=True, inline="always")
def _slot(high_base: npt.NDArray[np.int32], key: np.int64) -> np.uint64:
    return _at(high_base[_at((key >> LOW_FIELD_BITS) & HIGH_FIELD)] + LOW_INDEX[_at(key & LOW_FIELD)])


@njit(cache=True, inline="always")
def rank_value5(key: np.int64) -> np.int32:
    return RANK_VALUES_5[_slot(HIGH_BASE_5, key)]


@njit(cache=True, inline="always")
def rank_value6(key: np.int64) -> np.int32:
    return RANK_VALUES_6[_slot(HIGH_BASE_6, key)]


@njit(cache=True, inline="always")
def rank_value7(key: np.int64) -> np.int32:
    """The best value of a 7-card hand key that holds no flush."""
    return RANK_VALUES_7[_slot(HIGH_BASE_7, key)]


@njit(cache=True, inline="always")
def _suited(card: int, suit: int) -> np.int64:
    return (ONE << (card >> 2)) if (card & 3) == suit else ZERO


@njit(cache=True, inline="always")
def value_from_key7(key: np.int64, c0: int, c1: int, c2: int, c3: int, c4: int, c5: int, c6: int) -> np.int32:
    """The value of seven cards from their hand key (the cards are read only for a flush)."""
    suit = flush_suit(key)
    if suit < 0:
        return rank_value7(key)
    mask = (_suited(c0, suit) | _suited(c1, suit) | _suited(c2, suit) | _suited(c3, suit)
            | _suited(c4, suit) | _suited(c5, suit) | _suited(c6, suit))  # fmt: skip
    return flush_value(mask)


@njit(cache=True)
def eval7(c0: int, c1: int, c2: int, c3: int, c4: int, c5: int, c6: int) -> np.int32:
    """The value of the best five of seven cards (distinct indices 0..51, not checked)."""
    key = (SUIT_BIAS + hand_key(c0) + hand_key(c1) + hand_key(c2) + hand_key(c3) + hand_key(c4)
           + hand_key(c5) + hand_key(c6))  # fmt: skip
    return value_from_key7(key, c0, c1, c2, c3, c4, c5, c6)


@njit(cache=True)
def eval6(c0: int, c1: int, c2: int, c3: int, c4: int, c5: int) -> np.int32:
    """The value of the best five of six cards (distinct indices 0..51, not checked)."""
    key = (SUIT_BIAS + hand_key(c0) + hand_key(c1) + hand_key(c2) + hand_key(c3) + hand_key(c4)
           + hand_key(c5))  # fmt: skip
    suit = flush_suit(key)
    if suit < 0:
        return rank_value6(key)
    mask = (_suited(c0, suit) | _suited(c1, suit) | _suited(c2, suit) | _suited(c3, suit)
            | _suited(c4, suit) | _suited(c5, suit))  # fmt: skip
    return flush_value(mask)


@njit(cache=True)
def eval5(c0: int, c1: int, c2: int, c3: int, c4: int) -> np.int32:
    """The value of five cards (distinct indices 0..51, not checked)."""
    key = SUIT_BIAS + hand_key(c0) + hand_key(c1) + hand_key(c2) + hand_key(c3) + hand_key(c4)
    if key & FLUSH_CHECK == 0:
        return rank_value5(key)
    return flush_value((ONE << (c0 >> 2)) | (ONE << (c1 >> 2)) | (ONE << (c2 >> 2)) | (ONE << (c3 >> 2))
                       | (ONE << (c4 >> 2)))  # fmt: skip


@njit(cache=True)
def eval_rows(cards: npt.NDArray[np.int8], out: npt.NDArray[np.int32]) -> None:
    """``out[i]`` = value of row ``i`` of an (n, 5|6|7) array of valid card indices."""
    width = cards.shape[1]
    if width == 7:
        for i in range(cards.shape[0]):
            out[i] = eval7(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4], cards[i, 5],
                           cards[i, 6])  # fmt: skip
    elif width == 6:
        for i in range(cards.shape[0]):
            out[i] = eval6(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4], cards[i, 5])
    else:
        for i in range(cards.shape[0]):
            out[i] = eval5(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4])


@njit(cache=True, inline="always")
def _card_bit(card: int) -> np.uint64:
    return CARD_BITS[np.uint8(card)]  # int8 -1 is 255 as unsigned


@njit(cache=True)
def eval_rows_checked(cards: npt.NDArray[np.int8], out: npt.NDArray[np.int32]) -> int:
    """Like :func:`eval_rows`, but first checks each row: returns the first row holding a
    repeated card or an index outside 0..51 (rows before it are evaluated), or -1."""
    width = cards.shape[1]
    if width == 7:  # unrolled: the common case, and the one the benchmark times
        for i in range(cards.shape[0]):
            c0, c1, c2, c3, c4, c5, c6 = (cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4],
                                          cards[i, 5], cards[i, 6])  # fmt: skip
            b0, b1, b2, b3 = _card_bit(c0), _card_bit(c1), _card_bit(c2), _card_bit(c3)
            b4, b5, b6 = _card_bit(c4), _card_bit(c5), _card_bit(c6)
            union = b0 | b1 | b2 | b3 | b4 | b5 | b6
            if b0 + b1 + b2 + b3 + b4 + b5 + b6 != union or union >> np.uint64(52):
                return i
            out[i] = eval7(c0, c1, c2, c3, c4, c5, c6)
        return -1
    for i in range(cards.shape[0]):
        union = np.uint64(0)
        total = np.uint64(0)
        for j in range(width):
            bit = _card_bit(cards[i, j])
            union |= bit
            total += bit
        # distinct cards: the sum of their bits has no carries, so it equals their union
        if total != union or union >> np.uint64(52):
            return i
        if width == 6:
            out[i] = eval6(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4], cards[i, 5])
        else:
            out[i] = eval5(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4])
    return -1
