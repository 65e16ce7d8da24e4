"""Stage 1 of the enumeration: per canonical five-card board, every holding's standing.

Stage 1 (:func:`board_stats`), once per canonical five-card board. A card off the board has a
*type*: its rank, and whether it is of the board's flush suit (a suit with three or more cards
on the board). Two holdings of the same pair of types have the same value, so the board has at
most 351 distinct holdings to value (usually about 90), against 1,081 holdings of two cards.
Sort the type pairs by value and walk the groups of equal value from the lowest, keeping per
card type how many holdings containing one card of that type are strictly lower (every card of
a type is in as many holdings of each type pair). Inclusion-exclusion then gives each holding
``{a, b}`` its wins / ties / losses against every dealer holding that shares no card with it:
``lower(a,b) = lower(all) - lower(containing a) - lower(containing b)`` (the holding itself is
the only one containing both, and it is not lower than itself). The same walk counts dealer
holdings below the Casino Hold'em qualifier, per card. Every holding's result is its type pair's,
so a board keeps one table of its type pairs (the types present numbered 0..m-1 in ascending
order, the pair ``a <= b`` at ``b * (b + 1) // 2 + a``: at most 351 entries, 170 on average,
against 1,081 holdings; 91 MB for the full deck's 134,459 boards, not 436 MB) and each off-board
card's type number (by local card: the deck's cards off the board, ascending). An entry is
``wins | code << 10 | losses << 14`` (uint32), where ``code`` is the player's final category
(0..9), or 10 for a pair below the Casino qualifier (:data:`CATEGORY_OF_CODE`,
:data:`QUALIFIES`).
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
U32 = npt.NDArray[np.uint32]
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
def _card_types(board: I64, off: I64, rank: I64, suit: I64, card_type: I64, left: I64,
                suit_mask: I64) -> int:
    """Each off-board card's *type* (``card_type``: rank x 2, + 1 in the board's flush suit), the
    off-board cards of each type (``left``) and the board's rank mask per suit (``suit_mask``);
    returns the flush suit (a suit with three or more board cards), or -1."""
    suit_mask[:] = 0
    for i in range(5):
        suit_mask[suit[board[i]]] |= 1 << rank[board[i]]
    flush_suit = -1
    for s in range(4):
        if POPCOUNT[suit_mask[s]] >= 3:
            flush_suit = s
    left[:] = 0
    for k in range(len(off)):
        t = 2 * rank[off[k]] + (1 if suit[off[k]] == flush_suit else 0)
        card_type[k] = t
        left[t] += 1
    return flush_suit


@njit(cache=True)
def _off_cards(board: I64, n_cards: int, off: I64) -> None:
    k = 0
    for c in range(n_cards):
        if c != board[0] and c != board[1] and c != board[2] and c != board[3] and c != board[4]:
            off[k] = c
            k += 1


@njit(cache=True, parallel=True)
def type_counts(boards: I64, n_cards: int, rank: I64, suit: I64) -> I64:
    """Per board, how many card types the cards off it have (its table's side, see
    :func:`board_stats`)."""
    counts = np.empty(len(boards), dtype=np.int64)
    n_blocks = min(len(boards), 256)
    for block in prange(n_blocks):
        off = np.empty(n_cards - 5, dtype=np.int64)
        card_type = np.empty(n_cards - 5, dtype=np.int64)
        left = np.zeros(26, dtype=np.int64)
        suit_mask = np.zeros(4, dtype=np.int64)
        for row in range(len(boards) * block // n_blocks, len(boards) * (block + 1) // n_blocks):
            _off_cards(boards[row], n_cards, off)
            _card_types(boards[row], off, rank, suit, card_type, left, suit_mask)
            present = 0
            for t in range(26):
                if left[t] > 0:
                    present += 1
            counts[row] = present
    return counts


@njit(cache=True)
def _type_pair_values(board: I64, off: I64, rank: I64, suit: I64, card_type: I64, left: I64,
                      keys: I64) -> int:
    """The cards' types (see :func:`_card_types`) and ``keys``: one ``value << 10 | ta * 26 + tb``
    per type pair ``ta <= tb`` that some holding has, sorted; returns their number.

    Two holdings of the same types have the same value: off the flush suit a holding's value
    depends on its two ranks only, and a flush on which of its ranks are in the flush suit."""
    suit_mask = np.empty(4, dtype=np.int64)
    flush_suit = _card_types(board, off, rank, suit, card_type, left, suit_mask)
    low_key = high_key = 0
    for i in range(5):
        low_key += LOW_KEY[rank[board[i]]]
        high_key += HIGH_KEY[rank[board[i]]]
    n_keys = 0
    for tb in range(26):
        if left[tb] == 0:
            continue
        rb = tb >> 1
        for ta in range(tb + 1):
            if left[ta] == 0 or (ta == tb and left[ta] < 2):
                continue
            ra = ta >> 1
            base = HIGH_BASE_7[high_key + HIGH_KEY[ra] + HIGH_KEY[rb]]
            value = np.int64(RANK_VALUES_7[base + LOW_INDEX[low_key + LOW_KEY[ra] + LOW_KEY[rb]]])
            if flush_suit >= 0:
                mask = suit_mask[flush_suit]
                if ta & 1:
                    mask |= 1 << ra
                if tb & 1:
                    mask |= 1 << rb
                if POPCOUNT[mask] >= 5 and FLUSH_VALUE[mask] > value:
                    value = FLUSH_VALUE[mask]
            keys[n_keys] = value << 10 | (ta * 26 + tb)
            n_keys += 1
    _sort_by_value(keys, n_keys)
    return n_keys


@njit(cache=True)
def _sort_by_value(keys: I64, n: int) -> None:
    """``keys[:n]`` in ascending order of ``key >> 10`` (the hand value; pairs of equal value in
    any order): a radix sort, a byte at a time, about twice as fast as a comparison sort on a
    board's few hundred keys."""
    top = 0
    for i in range(n):
        top = max(top, keys[i] >> 10)
    src = keys
    dst = np.empty(n, dtype=np.int64)
    count = np.empty(256, dtype=np.int64)
    shift = 10
    passes = 0
    while (top >> (shift - 10)) > 0:
        count[:] = 0
        for i in range(n):
            count[(src[i] >> shift) & 255] += 1
        total = 0
        for d in range(256):
            c = count[d]
            count[d] = total
            total += c
        for i in range(n):
            d = (src[i] >> shift) & 255
            dst[count[d]] = src[i]
            count[d] += 1
        src, dst = dst, src
        shift += 8
        passes += 1
    if passes % 2:  # the last pass wrote the scratch array
        keys[:n] = src[:n]


@njit(cache=True, parallel=True)
def board_stats(boards: I64, start: int, stop: int, n_cards: int, rank: I64, suit: I64,
                qualifier: int, table: U32, table_at: I64, card_type_id: U8, below_card: U16,
                below_all: I32) -> None:
    """Rows ``start..stop``: the board's table of type pairs and its cards' type ids (see the
    module doc), and the holdings below the Casino qualifier: ``below_all[row]`` in all,
    ``below_card[row, c]`` those containing local card ``c``.

    The walk up the values goes by type pair (see :func:`_type_pair_values`: at most 351, against
    1,081 holdings), its per-card counters kept per card type: every card of a type is in as many
    holdings of each type pair."""
    n_off = n_cards - 5
    dealers = (n_cards - 7) * (n_cards - 8) // 2
    n_blocks = min(stop - start, 256)
    for block in prange(n_blocks):
        keys = np.empty(351, dtype=np.int64)
        card_type = np.empty(n_off, dtype=np.int64)
        left = np.zeros(26, dtype=np.int64)
        lower = np.zeros(26, dtype=np.int64)   # per card of a type: its holdings strictly lower
        in_group = np.zeros(26, dtype=np.int64)  # ... and those in the current group of equal value
        lower_q = np.zeros(26, dtype=np.int64)
        type_id = np.zeros(26, dtype=np.int64)
        off = np.empty(n_off, dtype=np.int64)
        lo_row = start + (stop - start) * block // n_blocks
        hi_row = start + (stop - start) * (block + 1) // n_blocks
        for row in range(lo_row, hi_row):
            board = boards[row]
            _off_cards(board, n_cards, off)
            n_keys = _type_pair_values(board, off, rank, suit, card_type, left, keys)
            n_types = 0
            for t in range(26):  # the types present, numbered in ascending order
                if left[t] > 0:
                    type_id[t] = n_types
                    n_types += 1
            at = table_at[row]
            lower[:] = 0
            below = 0
            below_q = -1
            first = 0
            while first < n_keys:
                value = keys[first] >> 10
                last = first
                size = 0
                while last < n_keys and keys[last] >> 10 == value:
                    pair = keys[last] & 1023
                    ta, tb = pair // 26, pair % 26
                    if ta == tb:
                        size += left[ta] * (left[ta] - 1) // 2
                        in_group[ta] += left[ta] - 1
                    else:
                        size += left[ta] * left[tb]
                        in_group[ta] += left[tb]
                        in_group[tb] += left[ta]
                    last += 1
                if below_q < 0 and value >= qualifier:
                    below_q = below
                    lower_q[:] = lower
                code = category_of_value(value)
                if code == 1 and value < qualifier:
                    code = BELOW_QUALIFIER
                for u in range(first, last):
                    pair = keys[u] & 1023
                    ta, tb = pair // 26, pair % 26
                    wins = below - lower[ta] - lower[tb]
                    ties = size - in_group[ta] - in_group[tb] + 1
                    losses = dealers - wins - ties
                    ia, ib = type_id[ta], type_id[tb]  # ia <= ib
                    table[at + ib * (ib + 1) // 2 + ia] = np.uint32(wins | (code << 10) | (losses << 14))
                for u in range(first, last):
                    pair = keys[u] & 1023
                    ta, tb = pair // 26, pair % 26
                    lower[ta] += in_group[ta]
                    in_group[ta] = 0
                    lower[tb] += in_group[tb]  # nothing more when tb == ta
                    in_group[tb] = 0
                below += size
                first = last
            if below_q < 0:
                below_q = below
                lower_q[:] = lower
            below_all[row] = below_q
            for j in range(n_off):
                below_card[row, j] = np.uint16(lower_q[card_type[j]])
                card_type_id[row, j] = np.uint8(type_id[card_type[j]])
