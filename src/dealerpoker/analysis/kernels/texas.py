"""Texas Hold'em Bonus up the tree: per canonical turn over rivers (the river decision), then per
canonical flop over turns (the turn decision and every figure's sums per starting-hand class)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit, prange, uint64

from dealerpoker.analysis.kernels.board import CATEGORY_OF_CODE
from dealerpoker.analysis.kernels.tree import (
    cards_off_flop,
    class_card_types,
    index_with,
    orbit_size,
    river_classes,
    stabiliser,
)

I64 = npt.NDArray[np.int64]
U16 = npt.NDArray[np.uint16]
U8 = npt.NDArray[np.uint8]
U32 = npt.NDArray[np.uint32]
I32 = npt.NDArray[np.int32]

TEXAS_K = 21   # per (flop, class) sums, see texas_flops


@njit(cache=True, parallel=True)
def texas_turns(turns: I64, n_cards: int, binom: I64, river_id: I32, river_perm: npt.NDArray[np.int8],
                river_cards: I64, card_perm: I64, rank: I64, suit: I64, table: U32, table_at: I64,
                type_id: U8, qualifier_category: int, sums: U16,
                river_bet: npt.NDArray[np.int8]) -> None:
    """Per canonical turn and holding: ``sums[turn, pair]`` = wins, losses, and wins with the
    ante paying, summed over every river and dealer holding; ``river_bet`` = wins > losses.
    The rivers go by class, as in :func:`dealerpoker.analysis.kernels.casino.casino_turns`."""
    n_rem = n_cards - 4
    for row_t in prange(len(turns)):
        rem, n_classes, class_size, rows, locals_, class_of = river_classes(
            turns[row_t], n_cards, binom, river_id, river_perm, river_cards, card_perm, rank, suit)
        acc = np.zeros(n_cards * (n_cards - 1) // 2 * 3, dtype=np.int32)  # <= 48 rivers x 990
        tid = np.empty(n_rem, dtype=np.uint64)
        at_of = np.empty(n_rem, dtype=np.uint64)
        for k in range(n_rem):
            at_of[k] = uint64(rem[k] * 3)
        # Per (type, type) of the river board (see kernels.board), both orders: what a holding of
        # those types adds to its wins, losses and wins with the ante paying, for one river.
        add_w = np.zeros(26 * 26, dtype=np.int32)
        add_l = np.zeros(26 * 26, dtype=np.int32)
        add_wq = np.zeros(26 * 26, dtype=np.int32)
        for x in range(n_classes):
            m, row, local = np.int32(class_size[x]), rows[x], locals_[x]
            words = table[table_at[row]:]
            n_types = class_card_types(x, row, local, class_of, type_id, tid)
            e = 0
            for tb in range(n_types):
                for ta in range(tb + 1):
                    s = np.int32(words[e])
                    e += 1
                    for u in (ta * 26 + tb, tb * 26 + ta):
                        add_w[u] = s & 1023
                        add_l[u] = s >> 14
                        add_wq[u] = (s & 1023) * (CATEGORY_OF_CODE[(s >> 10) & 15] >= qualifier_category)
            for j in range(n_rem):
                base = uint64(rem[j] * (rem[j] - 1) // 2 * 3)
                tj = tid[j] * uint64(26)
                for i in range(j):  # unsigned indices and no branch: the hottest loop of Texas
                    u = tj + tid[i]
                    at = base + at_of[i]
                    acc[at] += m * add_w[u]
                    acc[at + uint64(1)] += m * add_l[u]
                    acc[at + uint64(2)] += m * add_wq[u]
            for j in range(n_rem):  # a holding's cards are not rivers
                if class_of[j] != x:
                    continue
                for i in range(n_rem):
                    if i == j:
                        continue
                    u = tid[j] * uint64(26) + tid[i]
                    hi, lo = max(rem[i], rem[j]), min(rem[i], rem[j])
                    at = uint64((hi * (hi - 1) // 2 + lo) * 3)
                    acc[at] -= add_w[u]
                    acc[at + uint64(1)] -= add_l[u]
                    acc[at + uint64(2)] -= add_wq[u]
        for j in range(n_rem):
            for i in range(j):
                p = rem[j] * (rem[j] - 1) // 2 + rem[i]
                wins, losses = acc[p * 3], acc[p * 3 + 1]
                sums[row_t, p, 0] = np.uint16(wins)
                sums[row_t, p, 1] = np.uint16(losses)
                sums[row_t, p, 2] = np.uint16(acc[p * 3 + 2])
                river_bet[row_t, p] = 1 if wins > losses else 0


@njit(cache=True, parallel=True)
def texas_flops(flops: I64, n_cards: int, binom: I64, turn_id: I64, turn_perm: I64, card_perm: I64,
                pair_perm: I32, sums: U16, class_of_pair: I64, out: I64,
                flop_bet: npt.NDArray[np.int8], flop_ev: I64) -> None:
    """Texas Hold'em Bonus after the pre-flop bet, for every canonical flop.

    ``out[f, class]``: 0 sum of net results, 1 sum of squares, 2 situations (holding, flop),
    3 turn bets, 4 river bets (per turn situation), then for (turn bet x, river bet y) at
    ``5 + 4 * (2x + y)``: wins with the ante paying, wins with the ante pushing, losses,
    turn situations. ``flop_bet[f, pair]``: the turn decision; ``flop_ev`` its summed net.
    """
    n_pairs = n_cards * (n_cards - 1) // 2
    n_rem = n_cards - 3
    turns = n_cards - 5
    for f in prange(len(flops)):
        flop = flops[f]
        group = np.empty(card_perm.shape[0], dtype=np.int64)
        n_group = stabiliser(flop, card_perm, group)
        rem = cards_off_flop(flop, n_cards, n_rem)
        # A_W, A_L, A_Wq, B_W, B_L, B_Wq, n_y per pair; int32: at most 49 turns x 46 x 990.
        acc = np.zeros(n_pairs * 7, dtype=np.int32)
        for ti in range(n_rem):
            t = rem[ti]
            size = np.int32(orbit_size(t, -1, card_perm, group, n_group))
            if size == 0:
                continue
            index = index_with(flop, t, binom)
            row = turn_id[index]
            perm = pair_perm[turn_perm[index]]
            for bi in range(n_rem):
                if bi == ti:
                    continue
                b = rem[bi]
                for ai in range(bi):
                    if ai == ti:
                        continue
                    p = b * (b - 1) // 2 + rem[ai]
                    q = perm[p]
                    sw, sl = np.int32(sums[row, q, 0]), np.int32(sums[row, q, 1])
                    swq = np.int32(sums[row, q, 2])
                    at = uint64(p * 7)
                    acc[at] += size * sw
                    acc[at + uint64(1)] += size * sl
                    acc[at + uint64(2)] += size * swq
                    bet = size * np.int32(sw > sl)  # no branch: the river bet is a coin toss here
                    acc[at + uint64(3)] += bet * sw
                    acc[at + uint64(4)] += bet * sl
                    acc[at + uint64(5)] += bet * swq
                    acc[at + uint64(6)] += bet
        total = np.zeros(7, dtype=np.int64)
        for bi in range(n_rem):
            b = rem[bi]
            for ai in range(bi):
                p = b * (b - 1) // 2 + rem[ai]
                total[:] = 0
                for g in range(n_group):
                    image = pair_perm[group[g], p] * 7
                    for x in range(7):
                        total[x] += acc[image + x]
                aw, al, awq, bw, bl, bwq, ny = total // n_group
                cw, cl, cwq = aw - bw, al - bl, awq - bwq
                x = 1 if aw > al else 0
                net = 2 * aw + awq - 3 * al + x * (aw - al) + (bw - bl)
                square = (cw * (2 + x) ** 2 + bw * (3 + x) ** 2 + cwq * (5 + 2 * x) + bwq * (7 + 2 * x)
                          + cl * (3 + x) ** 2 + bl * (4 + x) ** 2)
                flop_bet[f, p] = x
                flop_ev[f, p] = net
                o = out[f, class_of_pair[p]]
                o[0] += net
                o[1] += square
                o[2] += 1
                o[3] += x
                o[4] += ny
                s0 = 5 + 8 * x
                o[s0] += cwq
                o[s0 + 1] += cw - cwq
                o[s0 + 2] += cl
                o[s0 + 3] += turns - ny
                o[s0 + 4] += bwq
                o[s0 + 5] += bw - bwq
                o[s0 + 6] += bl
                o[s0 + 7] += ny
