"""Stage 1 of the enumeration: per canonical five-card board, every holding's standing.

Stage 1 (:func:`board_stats`), once per canonical five-card board: value every holding of two
cards off the board, rank the values (a counting sort over the few distinct values: a holding's
non-flush value depends only on its two ranks), and walk the groups of equal value from the
lowest, keeping per card how many holdings containing that card are strictly lower.
Inclusion-exclusion then gives each holding ``{a, b}`` its wins / ties / losses against every
dealer holding that shares no card with it: ``lower(a,b) = lower(all) - lower(containing a) -
lower(containing b)`` (the holding itself is the only one containing both, and it is not lower
than itself). The same walk counts dealer holdings below the Casino Hold'em qualifier, per card.
Per (board, holding) three bytes (the table holds 145 million): ``word = wins | code << 10 |
(losses >> 8) << 14`` and ``low = losses & 255``, where ``code`` is the player's final category
(0..9), or 10 for a pair below the Casino qualifier (:data:`CATEGORY_OF_CODE`,
:data:`QUALIFIES`); holdings are numbered by their *local* cards (the deck's cards off the
board, ascending).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from dealerpoker.analysis.evaluation import FLUSH_VALUE, POPCOUNT, category_of_value
from dealerpoker.evaluator import tables

I64 = npt.NDArray[np.int64]
U16 = npt.NDArray[np.uint16]
U8 = npt.NDArray[np.uint8]
I32 = npt.NDArray[np.int32]

BELOW_QUALIFIER = 10  # the code of a pair below the Casino qualifier (see the module doc)
CATEGORY_OF_CODE = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 0, 0, 0, 0, 0], dtype=np.int64)
QUALIFIES = np.array([0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], dtype=np.int64)
# A rank multiset's best non-flush value by the evaluator's perfect hash (one look-up, not a walk
# over the ranks): the sum of its ranks' low keys and high keys names it.
LOW_KEY = np.array([tables.SUM_KEYS[r] if r < tables.LOW_RANKS else 0 for r in range(13)], dtype=np.int64)
HIGH_KEY = np.array([tables.SUM_KEYS[r - tables.LOW_RANKS] if r >= tables.LOW_RANKS else 0
                     for r in range(13)], dtype=np.int64)
HIGH_BASE_7 = tables.HIGH_BASE_7.copy()
LOW_INDEX = tables.LOW_INDEX.copy()
RANK_VALUES_7 = tables.RANK_VALUES_7.copy()


@njit(cache=True)
def _holding_groups(board: I64, off: I64, rank: I64, suit: I64, memo: I64,
                    flush_memo: I64, candidates: I64, group: I64, group_value: I64,
                    scratch: I64) -> int:
    """``group[h]``: the dense rank (0 = lowest) of local holding ``h``'s value on ``board``;
    ``group_value[g]`` the value of rank ``g``; returns the number of ranks.

    A holding's value is the better of its rank-pair value (``memo``, per pair of ranks) and
    its flush value (``flush_memo``, per pair of flush-suit ranks, 13 = a card of another suit);
    both tables are filled per rank pair, not per holding, then turned into ranks."""
    n_off = len(off)
    suit_mask = scratch[0:4]
    left = scratch[4:17]  # cards of each rank off the board
    flush_ranks = scratch[17:31]
    suit_mask[:] = 0
    left[:] = 0
    low_key = high_key = 0
    for i in range(5):
        low_key += LOW_KEY[rank[board[i]]]
        high_key += HIGH_KEY[rank[board[i]]]
        suit_mask[suit[board[i]]] |= 1 << rank[board[i]]
    for k in range(n_off):
        left[rank[off[k]]] += 1
    flush_suit = -1
    for s in range(4):
        if POPCOUNT[suit_mask[s]] >= 3:
            flush_suit = s
    memo[:] = -1
    flush_memo[:] = -1
    n_candidates = 0
    for rb in range(13):
        for ra in range(rb + 1):
            if left[ra] == 0 or left[rb] == 0 or (ra == rb and left[ra] < 2):
                continue
            base = HIGH_BASE_7[high_key + HIGH_KEY[ra] + HIGH_KEY[rb]]
            value = np.int64(RANK_VALUES_7[base + LOW_INDEX[low_key + LOW_KEY[ra] + LOW_KEY[rb]]])
            memo[ra * 13 + rb] = memo[rb * 13 + ra] = value
            candidates[n_candidates] = value << 9 | (ra * 13 + rb)  # value, then where it goes
            n_candidates += 1
    n_flush = 0
    if flush_suit >= 0:
        for k in range(n_off):
            if suit[off[k]] == flush_suit:
                flush_ranks[n_flush] = rank[off[k]]
                n_flush += 1
        flush_ranks[n_flush] = 13  # "a card of another suit"
        for y in range(n_flush + 1):
            for x in range(y + 1):
                fa, fb = flush_ranks[x], flush_ranks[y]
                if x == y and fa != 13:
                    continue
                mask = suit_mask[flush_suit]
                if fa < 13:
                    mask |= 1 << fa
                if fb < 13:
                    mask |= 1 << fb
                if POPCOUNT[mask] >= 5:
                    flush_memo[fa * 14 + fb] = flush_memo[fb * 14 + fa] = FLUSH_VALUE[mask]
                    candidates[n_candidates] = FLUSH_VALUE[mask] << 9 | (256 + fa * 14 + fb)
                    n_candidates += 1
    candidates[:n_candidates].sort()
    n_groups = 0
    for i in range(n_candidates):  # values -> dense ranks, written where each value came from
        value, where = candidates[i] >> 9, candidates[i] & 511
        if n_groups == 0 or value != group_value[n_groups - 1]:
            group_value[n_groups] = value
            n_groups += 1
        if where < 256:
            memo[where] = memo[(where % 13) * 13 + where // 13] = n_groups - 1
        else:
            where -= 256
            flush_memo[where] = flush_memo[(where % 14) * 14 + where // 14] = n_groups - 1
    h = 0
    for j in range(n_off):
        b = off[j]
        row_b = rank[b] * 13
        flush_b = rank[b] if suit[b] == flush_suit else 13
        for i in range(j):
            a = off[i]
            flush_a = rank[a] if suit[a] == flush_suit else 13
            group[h] = max(memo[row_b + rank[a]], flush_memo[flush_a * 14 + flush_b])
            h += 1
    return n_groups


@njit(cache=True, parallel=True)
def board_stats(boards: I64, start: int, stop: int, n_cards: int, rank: I64, suit: I64,
                qualifier: int, word: U16, low: U8, below_card: U16, below_all: I32) -> None:
    """Rows ``start..stop``: ``word`` and ``low`` per holding (see the module doc), and the
    holdings below the Casino qualifier: ``below_all[row]`` in all, ``below_card[row, c]`` those
    containing local card ``c``."""
    n_off = n_cards - 5
    m = n_off * (n_off - 1) // 2
    dealers = (n_cards - 7) * (n_cards - 8) // 2
    hold_i = np.empty(m, dtype=np.int64)
    hold_j = np.empty(m, dtype=np.int64)
    for j in range(n_off):
        for i in range(j):
            hold_i[j * (j - 1) // 2 + i] = i
            hold_j[j * (j - 1) // 2 + i] = j
    n_blocks = min(stop - start, 256)
    for block in prange(n_blocks):
        memo = np.empty(169, dtype=np.int64)
        flush_memo = np.empty(196, dtype=np.int64)
        candidates = np.empty(169 + 196, dtype=np.int64)
        group_value = np.empty(169 + 196, dtype=np.int64)
        group = np.empty(m, dtype=np.int64)
        first = np.empty(169 + 197, dtype=np.int64)
        order = np.empty(m, dtype=np.int64)
        off = np.empty(n_off, dtype=np.int64)
        lower = np.zeros(n_off, dtype=np.int64)
        in_group = np.zeros(n_off, dtype=np.int64)
        lower_q = np.zeros(n_off, dtype=np.int64)
        scratch = np.zeros(32, dtype=np.int64)
        lo_row = start + (stop - start) * block // n_blocks
        hi_row = start + (stop - start) * (block + 1) // n_blocks
        for row in range(lo_row, hi_row):
            board = boards[row]
            k = 0
            for c in range(n_cards):
                if c != board[0] and c != board[1] and c != board[2] and c != board[3] and c != board[4]:
                    off[k] = c
                    k += 1
            n_groups = _holding_groups(board, off, rank, suit, memo, flush_memo, candidates,
                                       group, group_value, scratch)
            first[: n_groups + 1] = 0  # counting sort of the holdings by rank
            for h in range(m):
                first[group[h] + 1] += 1
            for g in range(n_groups):
                first[g + 1] += first[g]
            for h in range(m):
                g = group[h]
                order[first[g]] = h
                first[g] += 1
            lower[:] = 0
            below = 0
            below_q = -1
            for g in range(n_groups):
                size = first[g] - below
                if size == 0:
                    continue
                if below_q < 0 and group_value[g] >= qualifier:
                    below_q = below
                    lower_q[:] = lower
                for u in range(below, below + size):
                    h = order[u]
                    in_group[hold_i[h]] += 1
                    in_group[hold_j[h]] += 1
                code = category_of_value(group_value[g])
                if code == 1 and group_value[g] < qualifier:
                    code = BELOW_QUALIFIER
                for u in range(below, below + size):
                    h = order[u]
                    i, j = hold_i[h], hold_j[h]
                    wins = below - lower[i] - lower[j]
                    ties = size - in_group[i] - in_group[j] + 1
                    losses = dealers - wins - ties
                    word[row, h] = np.uint16(wins | (code << 10) | ((losses >> 8) << 14))
                    low[row, h] = np.uint8(losses & 255)
                for u in range(below, below + size):
                    h = order[u]
                    i, j = hold_i[h], hold_j[h]
                    in_group[i] = 0
                    in_group[j] = 0
                    lower[i] += 1
                    lower[j] += 1
                below += size
            if below_q < 0:
                below_q = below
                lower_q[:] = lower
            below_all[row] = below_q
            for c in range(n_off):
                below_card[row, c] = np.uint16(lower_q[c])
