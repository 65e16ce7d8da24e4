"""Lookup tables of the fast evaluator, built with numpy at import (about 50 ms of CPU).

The design (used by :mod:`dealerpoker.evaluator.kernels` and :mod:`.exhaustive`):

* Every card ``c = rank * 4 + suit`` has a 64-bit additive key ``CARD_KEYS[c]`` with three fields:

  - bits 0..15, the *low* key: ``SUM_KEYS[rank]`` for Two..Eight, else 0;
  - bits 16..29, the *high* key: ``SUM_KEYS[rank - 7]`` for Nine..Ace, else 0;
  - bits 32..47: four 4-bit suit counters.

  ``SUM_KEYS`` are chosen like Kenneth Shackleton's SKPokerEval rank keys (greedy, smallest
  first) so that sums over any multiset of at most seven of them (each at most four times, of any
  size) are all distinct (the tests re-check this by enumeration). So the low key names the
  multiset of low ranks and the high key the multiset of high ranks of a hand.
* The sum of a hand's keys plus ``SUIT_BIAS`` (3 in every suit counter) has bit 3 of a suit's
  counter set exactly when that suit holds five or more cards: ``total & FLUSH_CHECK``.
* No flush: a *minimal* perfect hash of the rank multiset with two small direct tables::

      slot = HIGH_BASE_n[high key] + LOW_INDEX[low key]

  ``LOW_INDEX`` numbers the low multisets of each size; ``HIGH_BASE_n`` is where the block of a
  high multiset starts in ``RANK_VALUES_n`` (its block holds one slot per low multiset of the
  remaining size). ``RANK_VALUES_n`` has exactly one slot per rank multiset of ``n`` cards
  (6,175 / 18,395 / 49,205 for n = 5 / 6 / 7) holding its best hand value.
* Flush: the ranks of the flush suit as a 13-bit mask index ``FLUSH_VALUES`` (the best flush or
  straight flush among them). In seven cards a flush excludes quads and full houses (with five
  suited cards they would need eight cards), so the flush value is the hand's value.

Values follow :mod:`dealerpoker.evaluator.categories`. They are computed without per-hand Python:
five-card values from the shape of each multiset, then 6- and 7-card values as the best over
dropping one card (looked up through the same hash).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from dealerpoker.evaluator.categories import CATEGORY_SHIFT

#: Additive keys with distinct sums over all multisets of <= 7 items (each <= 4 times), of any
#: size: each key is the smallest that keeps the sums distinct (greedy, as SKPokerEval's rank keys).
SUM_KEYS: tuple[int, ...] = (1, 5, 24, 112, 521, 2247, 9244)
#: Ranks below this (Two..Eight) form the low key, the others (Nine..Ace) the high key.
LOW_RANKS = 7
LOW_FIELD_BITS = 16
LOW_FIELD = (1 << LOW_FIELD_BITS) - 1
HIGH_FIELD = (1 << 14) - 1
SUIT_SHIFT = 32
SUIT_BIAS = 0x3333 << SUIT_SHIFT
FLUSH_CHECK = 0x8888 << SUIT_SHIFT
RANK_MASKS = 1 << 13

_STRAIGHT, _FLUSH, _STRAIGHT_FLUSH = 4, 5, 8

I8 = npt.NDArray[np.int8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]


def count_vectors(width: int, sizes: tuple[int, ...]) -> I8:
    """All count vectors of ``width`` ranks (each count 0..4) whose total is in ``sizes``,
    ordered by total first (each rank's count added in turn, 0 to 4; the totals kept beside)."""
    rows, totals = np.zeros((1, 0), dtype=np.int8), np.zeros(1, dtype=np.int64)
    for _rank in range(width):
        counts = np.repeat(np.arange(5, dtype=np.int8), len(rows))
        rows = np.hstack([np.tile(rows, (5, 1)), counts[:, None]])
        totals = np.tile(totals, 5) + counts
        kept = totals <= max(sizes)
        rows, totals = rows[kept], totals[kept]
    kept = np.isin(totals, sizes)
    return rows[kept][np.argsort(totals[kept], kind="stable")]


def _sum_keys(counts: I8) -> I64:
    keys = np.array(SUM_KEYS[: counts.shape[1]], dtype=np.int64)
    return np.asarray(counts.astype(np.int64) @ keys, dtype=np.int64)


def _card_keys() -> I64:
    ranks, suits = np.arange(52) >> 2, np.arange(52) & 3
    low_keys = np.array(SUM_KEYS + (0,) * 6, dtype=np.int64)
    high_keys = np.array((0,) * 7 + SUM_KEYS[:6], dtype=np.int64)
    keys = low_keys[ranks] + (high_keys[ranks] << LOW_FIELD_BITS)
    return np.asarray(keys + (np.int64(1) << (SUIT_SHIFT + 4 * suits)), dtype=np.int64)


def _straight_tops() -> I32:
    """``tops[mask]`` = top rank of the straight a 5-rank mask forms, else -1 (wheel: 3)."""
    tops = np.full(RANK_MASKS, -1, dtype=np.int32)
    for top in range(4, 13):
        tops[0b11111 << (top - 4)] = top
    tops[(1 << 12) | 0b1111] = 3
    return tops


def _pack(ranks: I64, present: npt.NDArray[np.bool_]) -> I64:
    """Pack up to five ranks per row, most significant first, absent ones 0."""
    shifts = np.array([16, 12, 8, 4, 0], dtype=np.int64)[: ranks.shape[1]]
    return np.asarray((np.where(present, ranks, 0) << shifts).sum(axis=1), dtype=np.int64)


def _five_card_rank_values(counts: I8, tops: I32) -> I64:
    """Values of five-card rank multisets (no flush): groups by (count, rank), or a straight."""
    ranks = np.arange(13, dtype=np.int64)
    order_key = np.where(counts > 0, counts.astype(np.int64) * 16 + ranks, -1)
    order = np.argsort(-order_key, axis=1, kind="stable")[:, :5]
    group_counts = np.take_along_axis(counts, order, axis=1).astype(np.int64)
    c1, c2 = group_counts[:, 0], group_counts[:, 1]
    category = np.select(
        [c1 == 4, (c1 == 3) & (c2 == 2), c1 == 3, (c1 == 2) & (c2 == 2), c1 == 2],
        [7, 6, 3, 2, 1],
        default=0,
    ).astype(np.int64)
    values = category << CATEGORY_SHIFT | _pack(order.astype(np.int64), group_counts > 0)
    masks = ((counts > 0).astype(np.int64) << ranks).sum(axis=1)
    top = tops[np.where(c1 == 1, masks, 0)].astype(np.int64)
    straight = (np.int64(_STRAIGHT) << CATEGORY_SHIFT) | (top << 16)
    return np.asarray(np.where(top >= 0, straight, values), dtype=np.int64)


def _low_index() -> tuple[npt.NDArray[np.int16], I64]:
    """``LOW_INDEX[key]``: the number of a low multiset among those of its size; and how many
    low multisets each size 0..7 has."""
    low = count_vectors(LOW_RANKS, tuple(range(8)))
    sizes = low.sum(axis=1)
    per_size = np.bincount(sizes, minlength=8).astype(np.int64)
    first_of_size = np.concatenate([[0], np.cumsum(per_size)[:-1]])
    index = np.full(int(_sum_keys(low).max()) + 1, -1, dtype=np.int16)  # int16: half the cache
    index[_sum_keys(low)] = np.arange(len(low)) - first_of_size[sizes]
    return index, per_size


def _high_bases(low_per_size: I64) -> tuple[I32, I32, I32]:
    """``HIGH_BASE_n[key]`` for n = 5, 6, 7: the start of a high multiset's block (or -1)."""
    high = count_vectors(13 - LOW_RANKS, tuple(range(8)))
    keys, sizes = _sum_keys(high), high.sum(axis=1).astype(np.int64)
    bases = []
    for n in (5, 6, 7):
        block = np.where(sizes <= n, low_per_size[np.clip(n - sizes, 0, 7)], 0)
        base = np.full(int(keys.max()) + 1, -1, dtype=np.int32)
        base[keys] = np.where(sizes <= n, np.cumsum(block) - block, -1)
        bases.append(base)
    return bases[0], bases[1], bases[2]


def _split_keys(counts: I8) -> tuple[I64, I64]:
    return _sum_keys(counts[:, :LOW_RANKS]), _sum_keys(counts[:, LOW_RANKS:])


def _build_rank_values(tops: I32) -> list[I32]:
    """Per hand size 5, 6, 7: the best value of the rank multiset in each slot."""
    values: list[I32] = []
    every = count_vectors(13, (5, 6, 7))  # once: by total first, so each size is a slice
    sizes = every.sum(axis=1)
    for n in (5, 6, 7):
        counts = every[sizes == n]
        low, high = _split_keys(counts)
        table = np.full(len(counts), -1, dtype=np.int32)
        slots = HIGH_BASES[n - 5][high] + LOW_INDEX[low]
        if n == 5:
            table[slots] = _five_card_rank_values(counts, tops)
        else:  # best of n cards = best over dropping one card
            best = np.zeros(len(counts), dtype=np.int64)
            for rank in range(13):
                has = counts[:, rank] > 0
                sub_low = low[has] - (SUM_KEYS[rank] if rank < LOW_RANKS else 0)
                sub_high = high[has] - (SUM_KEYS[rank - LOW_RANKS] if rank >= LOW_RANKS else 0)
                sub = HIGH_BASES[n - 6][sub_high] + LOW_INDEX[sub_low]
                best[has] = np.maximum(best[has], values[-1][sub])
            table[slots] = best
        values.append(table)
    return values


def _build_flush_values(tops: I32) -> I32:
    """Best flush / straight flush among the ranks of a mask with >= 5 bits (others 0)."""
    masks = np.arange(RANK_MASKS, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(13)) & 1
    popcount = bits.sum(axis=1)
    values = np.zeros(RANK_MASKS, dtype=np.int64)
    five = masks[popcount == 5]
    # the five set ranks of each mask in descending order
    descending = np.argsort(-(bits[popcount == 5] * (np.arange(13) + 1)), axis=1, kind="stable")[:, :5]
    flush = (np.int64(_FLUSH) << CATEGORY_SHIFT) | _pack(descending.astype(np.int64), descending >= 0)
    top = tops[five].astype(np.int64)
    straight_flush = (np.int64(_STRAIGHT_FLUSH) << CATEGORY_SHIFT) | (top << 16)
    values[five] = np.where(top >= 0, straight_flush, flush)
    for n in range(6, 14):  # best of n suited ranks = best over dropping one
        chosen = masks[popcount == n]
        best = np.zeros(len(chosen), dtype=np.int64)
        for rank in range(13):
            has = (chosen >> rank) & 1 == 1
            best[has] = np.maximum(best[has], values[chosen[has] & ~(1 << rank)])
        values[chosen] = best
    return np.asarray(values, dtype=np.int32)


_TOPS = _straight_tops()
CARD_KEYS: I64 = _card_keys()
LOW_INDEX, _LOW_PER_SIZE = _low_index()
HIGH_BASES = _high_bases(_LOW_PER_SIZE)
HIGH_BASE_5, HIGH_BASE_6, HIGH_BASE_7 = HIGH_BASES
RANK_VALUES_5, RANK_VALUES_6, RANK_VALUES_7 = _build_rank_values(_TOPS)
FLUSH_VALUES: I32 = _build_flush_values(_TOPS)
_ALL: tuple[npt.NDArray[np.generic], ...] = (CARD_KEYS, LOW_INDEX, *HIGH_BASES, FLUSH_VALUES)
for _table in (*_ALL, RANK_VALUES_5, RANK_VALUES_6, RANK_VALUES_7):
    _table.setflags(write=False)
