"""Board-centric hand evaluation (numba), the solver's inner loop.

On a fixed five-card board a holding's *non-flush* value depends only on its two ranks, so
each board needs at most 91 rank-count evaluations; flushes come from a 8,192-entry table of
suit masks. Values are on the scale of ``docs/CONTRACTS.md`` §2 (``category << 20 | ranks``).
Tests compare every function here with the reference ``dealerpoker.evaluator.evaluate``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from dealerpoker.evaluator.categories import CATEGORY_SHIFT, ROYAL_FLUSH_VALUE

ROYAL = ROYAL_FLUSH_VALUE


def _straight_tops() -> npt.NDArray[np.int64]:
    tops = np.full(8192, -1, dtype=np.int64)
    for mask in range(8192):
        for top in range(12, 3, -1):
            need = 0x1F << (top - 4)
            if mask & need == need:
                tops[mask] = top
                break
        else:
            if mask & 0x100F == 0x100F:  # A-2-3-4-5, the wheel: Five high
                tops[mask] = 3
    return tops


STRAIGHT_TOP = _straight_tops()
POPCOUNT = np.array([bin(m).count("1") for m in range(8192)], dtype=np.int64)


def _flush_values() -> npt.NDArray[np.int64]:
    values = np.zeros(8192, dtype=np.int64)
    for mask in range(8192):
        if POPCOUNT[mask] < 5:
            continue
        if STRAIGHT_TOP[mask] >= 0:
            values[mask] = (8 << CATEGORY_SHIFT) | (int(STRAIGHT_TOP[mask]) << 16)
            continue
        value, shift = 5 << CATEGORY_SHIFT, 16
        for rank in range(12, -1, -1):
            if mask >> rank & 1 and shift >= 0:
                value |= rank << shift
                shift -= 4
        values[mask] = value
    return values


FLUSH_VALUE = _flush_values()


@njit(cache=True)
def _kickers(counts: npt.NDArray[np.int64], skip1: int, skip2: int, n: int, shift: int) -> int:
    """The ``n`` highest present ranks other than ``skip1``/``skip2``, packed from ``shift`` down."""
    value = 0
    for rank in range(12, -1, -1):
        if n == 0:
            break
        if counts[rank] > 0 and rank != skip1 and rank != skip2:
            value |= rank << shift
            shift -= 4
            n -= 1
    return value


@njit(cache=True)
def rank_value(counts: npt.NDArray[np.int64]) -> int:
    """Best non-flush value of 5 to 7 cards given as 13 rank counts."""
    mask = 0
    quad = trip1 = trip2 = pair1 = pair2 = -1
    for rank in range(12, -1, -1):
        c = counts[rank]
        if c == 0:
            continue
        mask |= 1 << rank
        if c == 4:
            if quad < 0:
                quad = rank
        elif c == 3:
            if trip1 < 0:
                trip1 = rank
            elif trip2 < 0:
                trip2 = rank
        elif c == 2:
            if pair1 < 0:
                pair1 = rank
            elif pair2 < 0:
                pair2 = rank
    if quad >= 0:
        return (7 << 20) | (quad << 16) | _kickers(counts, quad, -1, 1, 12)
    if trip1 >= 0:
        other = max(trip2, pair1)
        if other >= 0:
            return (6 << 20) | (trip1 << 16) | (other << 12)
    top = STRAIGHT_TOP[mask]
    if top >= 0:
        return int((4 << 20) | (top << 16))
    if trip1 >= 0:
        return (3 << 20) | (trip1 << 16) | _kickers(counts, trip1, -1, 2, 12)
    if pair2 >= 0:
        return (2 << 20) | (pair1 << 16) | (pair2 << 12) | _kickers(counts, pair1, pair2, 1, 8)
    if pair1 >= 0:
        return (1 << 20) | (pair1 << 16) | _kickers(counts, pair1, -1, 3, 12)
    return _kickers(counts, -1, -1, 5, 16)


@njit(cache=True)
def cards_value(cards: npt.NDArray[np.int64], n: int, rank: npt.NDArray[np.int64],
                suit: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]) -> int:
    """Value of the first ``n`` (5..7) local cards; ``counts`` is 13 zeros of scratch."""
    m0 = m1 = m2 = m3 = 0
    for i in range(n):
        r = rank[cards[i]]
        counts[r] += 1
        s = suit[cards[i]]
        if s == 0:
            m0 |= 1 << r
        elif s == 1:
            m1 |= 1 << r
        elif s == 2:
            m2 |= 1 << r
        else:
            m3 |= 1 << r
    value = rank_value(counts)
    for i in range(n):
        counts[rank[cards[i]]] = 0
    for m in (m0, m1, m2, m3):
        if POPCOUNT[m] >= 5 and FLUSH_VALUE[m] > value:
            value = FLUSH_VALUE[m]
    return value


@njit(cache=True)
def category_of_value(value: int) -> int:
    """0..8 from the value, 9 for the royal flush."""
    if value == ROYAL:
        return 9
    return int(value >> 20)


@njit(cache=True)
def board_holding_values(board: npt.NDArray[np.int64], n_cards: int, rank: npt.NDArray[np.int64],
                         suit: npt.NDArray[np.int64], out: npt.NDArray[np.int64],
                         counts: npt.NDArray[np.int64], memo: npt.NDArray[np.int64]) -> None:
    """Write the value of every holding (pair of cards off the 5-card board) to ``out[pair]``.

    Pairs touching the board get -1. ``counts`` (13) and ``memo`` (13*13) are scratch.
    """
    suit_mask = np.zeros(4, dtype=np.int64)
    on_board = np.zeros(n_cards, dtype=np.bool_)
    for i in range(5):
        c = board[i]
        on_board[c] = True
        counts[rank[c]] += 1
        suit_mask[suit[c]] |= 1 << rank[c]
    flush_suit = -1
    for s in range(4):
        if POPCOUNT[suit_mask[s]] >= 3:
            flush_suit = s
    memo[:] = -1
    for b in range(n_cards):
        for a in range(b):
            p = b * (b - 1) // 2 + a
            if on_board[a] or on_board[b]:
                out[p] = -1
                continue
            ra, rb = rank[a], rank[b]
            key = ra * 13 + rb
            value = memo[key]
            if value < 0:
                counts[ra] += 1
                counts[rb] += 1
                value = rank_value(counts)
                counts[ra] -= 1
                counts[rb] -= 1
                memo[key] = value
                memo[rb * 13 + ra] = value
            if flush_suit >= 0:
                m = suit_mask[flush_suit]
                if suit[a] == flush_suit:
                    m |= 1 << ra
                if suit[b] == flush_suit:
                    m |= 1 << rb
                if POPCOUNT[m] >= 5 and FLUSH_VALUE[m] > value:
                    value = FLUSH_VALUE[m]
            out[p] = value
    for i in range(5):
        counts[rank[board[i]]] -= 1
