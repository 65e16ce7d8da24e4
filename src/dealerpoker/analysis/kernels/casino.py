"""Casino Hold'em up the tree: per canonical flop over (turn, river), the deals of each flop
situation by the player's final category and the dealer's standing; the situations' classes."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from dealerpoker.analysis.evaluation import cards_value, category_of_value
from dealerpoker.analysis.kernels.board import CATEGORY_OF_CODE, QUALIFIES
from dealerpoker.analysis.kernels.tree import (
    board_index,
    cards_off_flop,
    local_cards,
    orbit_size,
    pair_numbers,
    stabiliser,
)

I64 = npt.NDArray[np.int64]
U16 = npt.NDArray[np.uint16]
U8 = npt.NDArray[np.uint8]
I32 = npt.NDArray[np.int32]

CASINO_K = 21  # per (flop, holding) counts, see casino_flops
STRATEGY_CLASSES = 40  # flop hand category (0..9) x draw (none, flush, straight, both)


@njit(cache=True, parallel=True)
def casino_flops(flops: I64, n_cards: int, binom: I64, river_id: I32,
                 river_perm: npt.NDArray[np.int8],
                 river_cards: I64, card_perm: I64, pair_perm: I32, word: U16, low: U8, below_card: U16,
                 below_all: I32, counts: I32) -> None:
    """Casino Hold'em: per canonical flop ``f`` and local holding ``h`` (the pairs off the flop in
    ascending pair number), the deals over every turn, river and dealer holding:
    ``counts[c, f, h]`` dealer not qualifying with the player's final category ``c`` (0..9),
    ``counts[10 + c, f, h]`` dealer qualifying and beaten by category ``c``, ``counts[20, f, h]``
    lost (a qualifying dealer strictly better). The rest are ties."""
    n_pairs = n_cards * (n_cards - 1) // 2
    n_rem = n_cards - 3
    dealers = (n_cards - 7) * (n_cards - 8) // 2
    pair_of = pair_numbers(n_cards)
    for f in prange(len(flops)):
        flop = flops[f]
        group = np.empty(card_perm.shape[0], dtype=np.int64)
        n_group = stabiliser(flop, card_perm, group)
        rem = cards_off_flop(flop, n_cards, n_rem)
        # int32: at most 1,176 (turn, river) x 990 dealers x 24 (orbit size) per entry.
        acc = np.zeros((n_pairs, 21), dtype=np.int32)
        board = np.empty(5, dtype=np.int64)
        off = np.empty(n_cards - 5, dtype=np.int64)
        local = np.empty(n_cards - 5, dtype=np.int64)
        below_of = np.empty(n_cards - 5, dtype=np.int64)
        board[:3] = flop
        for ti in range(n_rem):
            t = rem[ti]
            for ri in range(ti + 1, n_rem):
                r = rem[ri]
                size = orbit_size(t, r, card_perm, group, n_group)
                if size == 0:
                    continue
                index = board_index(flop, t, r, binom)
                row = river_id[index]
                board[3], board[4] = t, r
                n_off = local_cards(board, river_cards[row], card_perm, river_perm[index], n_cards,
                                     off, local)
                words, lows = word[row], low[row]
                for k in range(n_off):
                    below_of[k] = np.int64(below_card[row, local[k]])
                below = np.int64(below_all[row])
                for j in range(n_off):
                    b = off[j]
                    pairs_j = pair_of[local[j]]
                    base = b * (b - 1) // 2
                    below_b = below + 1 - below_of[j]
                    for i in range(j):
                        h = pairs_j[local[i]]
                        s = np.int64(words[h])
                        code = (s >> 10) & 15
                        cat = CATEGORY_OF_CODE[code]
                        q = QUALIFIES[code]
                        not_q = below_b - below_of[i] - q
                        lo = (s >> 14) << 8 | np.int64(lows[h])
                        row_p = acc[base + off[i]]
                        row_p[cat] += size * not_q
                        row_p[10 + cat] += size * q * ((s & 1023) - not_q)
                        row_p[20] += size * (q * lo + (1 - q) * (dealers - not_q))
        total = np.zeros(21, dtype=np.int64)
        for bi in range(n_rem):
            b = rem[bi]
            for ai in range(bi):
                p = b * (b - 1) // 2 + rem[ai]
                total[:] = 0
                for g in range(n_group):
                    image = pair_perm[group[g], p]
                    for x in range(21):
                        total[x] += acc[image, x]
                h = bi * (bi - 1) // 2 + ai
                for x in range(21):
                    counts[x, f, h] = np.int32(total[x] // n_group)


@njit(cache=True)
def flop_situation_class(a: int, b: int, flop: I64, rank: I64, suit: I64,
                         counts: I64) -> tuple[int, int]:
    """(strategy class, five-card value) of the player's two cards plus the flop."""
    cards = np.empty(5, dtype=np.int64)
    cards[0], cards[1], cards[2], cards[3], cards[4] = a, b, flop[0], flop[1], flop[2]
    value = cards_value(cards, 5, rank, suit, counts)
    cat = category_of_value(value)
    suit_count = np.zeros(4, dtype=np.int64)
    mask = 0
    for i in range(5):
        suit_count[suit[cards[i]]] += 1
        mask |= 1 << rank[cards[i]]
    draw = 0
    if cat < 5 and suit_count.max() == 4:
        draw |= 1
    if cat < 4:
        four = 0
        for low in range(9):
            window = (mask >> low) & 31
            ones = 0
            for bit in range(5):
                ones += (window >> bit) & 1
            if ones >= 4:
                four = 1
        wheel_bits = 0
        for bit in (0, 1, 2, 3, 12):
            wheel_bits += (mask >> bit) & 1
        if wheel_bits >= 4:
            four = 1
        if four:
            draw |= 2
    return cat * 4 + draw, value


@njit(cache=True, parallel=True)
def situation_classes(flops: I64, n_cards: int, rank: I64, suit: I64,
                      strategy: npt.NDArray[np.int8], aa: npt.NDArray[np.int8]) -> None:
    """Per canonical flop and local holding: the strategy class (flop category x draw) and the
    five-card class of hole cards + flop (category, one pair as 10 + the pair's rank)."""
    n_rem = n_cards - 3
    for f in prange(len(flops)):
        flop = flops[f]
        rem = cards_off_flop(flop, n_cards, n_rem)
        counts = np.zeros(13, dtype=np.int64)
        for bi in range(n_rem):
            for ai in range(bi):
                cls, value = flop_situation_class(rem[ai], rem[bi], flop, rank, suit, counts)
                cat = category_of_value(value)
                h = bi * (bi - 1) // 2 + ai
                strategy[f, h] = cls
                aa[f, h] = 10 + ((value >> 16) & 15) if cat == 1 else cat


@njit(cache=True)
def five_card_class_counts(combos: I64, weight: I64, rank: I64, suit: I64) -> I64:
    """Five-card hands by category (0..9) and, for one pair, by pair rank (10..22): each row of
    ``combos`` counted ``weight`` times (all boards with weight 1, or the canonical boards with
    the number of boards each stands for)."""
    counts = np.zeros(23, dtype=np.int64)
    scratch = np.zeros(13, dtype=np.int64)
    for row in range(combos.shape[0]):
        value = cards_value(combos[row], 5, rank, suit, scratch)
        cat = category_of_value(value)
        counts[cat] += weight[row]
        if cat == 1:
            counts[10 + ((value >> 16) & 15)] += weight[row]
    return counts
