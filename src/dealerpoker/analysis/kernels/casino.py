"""Casino Hold'em up the tree: the deals of each flop situation by the player's final category and
the dealer's standing, and the situations' classes.

Turn-centric: per canonical turn, the sums over rivers (:func:`casino_turns`, each river board
visited from its five turns, not from its ten flops as a per-flop pass over (turn, river) would),
added to the turn's four flops (:func:`casino_scatter`), then averaged over each flop's
stabiliser (:func:`casino_fold`)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit, prange, uint64

from dealerpoker.analysis.evaluation import cards_value, category_of_value
from dealerpoker.analysis.kernels.board import CATEGORY_OF_CODE, QUALIFIES
from dealerpoker.analysis.kernels.tree import (
    cards_off_flop,
    class_card_types,
    river_classes,
    stabiliser,
)

I64 = npt.NDArray[np.int64]
U16 = npt.NDArray[np.uint16]
U8 = npt.NDArray[np.uint8]
U32 = npt.NDArray[np.uint32]
I32 = npt.NDArray[np.int32]

CASINO_K = 21  # per (flop, holding) counts, see casino_turns
STRATEGY_CLASSES = 40  # flop hand category (0..9) x draw (none, flush, straight, both)


@njit(cache=True, parallel=True)
def casino_turns(turns: I64, n_cards: int, binom: I64, river_id: I32, river_perm: npt.NDArray[np.int8],
                 river_cards: I64, card_perm: I64, rank: I64, suit: I64, table: U32, table_at: I64,
                 type_id: U8, below_card: U16, below_all: I32, sums: U16) -> None:
    """Per canonical turn ``t`` and pair of cards ``p`` off it (global pair number), the deals
    over every river and dealer holding: ``sums[t, p, c]`` dealer not qualifying with the player's
    final category ``c`` (0..9), ``sums[t, p, 10 + c]`` dealer qualifying and beaten by category
    ``c``, ``sums[t, p, 20]`` lost; the rest are ties. At most 46 rivers x 990 dealers each.

    The rivers go by class (:func:`river_classes`): a class of ``m`` rivers adds ``m`` times its
    first river's standing to every holding, then takes it back once for each of the holding's
    cards that is one of those rivers."""
    n_rem = n_cards - 4
    dealers = (n_cards - 7) * (n_cards - 8) // 2
    for row_t in prange(len(turns)):
        rem, n_classes, class_size, rows, locals_, class_of = river_classes(
            turns[row_t], n_cards, binom, river_id, river_perm, river_cards, card_perm, rank, suit)
        # int32: at most 48 rivers x 990 dealers per entry.
        acc = np.zeros(n_cards * (n_cards - 1) // 2 * CASINO_K, dtype=np.int32)
        tid = np.empty(n_rem, dtype=np.uint64)
        at_of = np.empty(n_rem, dtype=np.uint64)
        for k in range(n_rem):
            at_of[k] = uint64(rem[k] * CASINO_K)
        below_type = np.zeros(26, dtype=np.int32)
        # Per (type, type) of the river board (see kernels.board), both orders: where the three
        # additions of a holding of those types go (among its 21 counts) and what one river adds.
        bin_a = np.zeros(26 * 26, dtype=np.uint64)
        bin_b = np.zeros(26 * 26, dtype=np.uint64)
        add_a = np.zeros(26 * 26, dtype=np.int32)
        add_b = np.zeros(26 * 26, dtype=np.int32)
        add_lost = np.zeros(26 * 26, dtype=np.int32)
        for x in range(n_classes):
            m, row, local = np.int32(class_size[x]), rows[x], locals_[x]
            words = table[table_at[row]:]
            n_types = class_card_types(x, row, local, class_of, type_id, tid)
            for k in range(n_rem):
                if local[k] >= 0:
                    below_type[tid[k]] = np.int32(below_card[row, local[k]])
            below = np.int32(below_all[row]) + 1
            e = 0
            for tb in range(n_types):
                for ta in range(tb + 1):
                    s = np.int32(words[e])
                    e += 1
                    code = (s >> 10) & 15
                    q = np.int32(QUALIFIES[code])
                    not_q = below - below_type[ta] - below_type[tb] - q
                    for u in (ta * 26 + tb, tb * 26 + ta):
                        bin_a[u] = uint64(CATEGORY_OF_CODE[code])
                        add_a[u] = not_q
                        bin_b[u] = uint64(10 + code)
                        add_b[u] = q * ((s & 1023) - not_q)
                        add_lost[u] = q * (s >> 14) + (1 - q) * (dealers - not_q)
            for j in range(n_rem):
                base = uint64(rem[j] * (rem[j] - 1) // 2 * CASINO_K)
                tj = tid[j] * uint64(26)
                for i in range(j):  # unsigned indices and no branch: the hottest loop of Casino
                    u = tj + tid[i]
                    at = base + at_of[i]
                    acc[at + bin_a[u]] += m * add_a[u]
                    acc[at + bin_b[u]] += m * add_b[u]
                    acc[at + uint64(20)] += m * add_lost[u]
            for j in range(n_rem):  # a holding's cards are not rivers
                if class_of[j] != x:
                    continue
                for i in range(n_rem):
                    if i == j:
                        continue
                    u = tid[j] * uint64(26) + tid[i]
                    hi, lo = max(rem[i], rem[j]), min(rem[i], rem[j])
                    at = uint64((hi * (hi - 1) // 2 + lo) * CASINO_K)
                    acc[at + bin_a[u]] -= add_a[u]
                    acc[at + bin_b[u]] -= add_b[u]
                    acc[at + uint64(20)] -= add_lost[u]
        for j in range(n_rem):
            for i in range(j):
                p = rem[j] * (rem[j] - 1) // 2 + rem[i]
                for x in range(CASINO_K):
                    sums[row_t, p, x] = np.uint16(acc[p * CASINO_K + x])


@njit(cache=True, parallel=True)
def casino_scatter(turns: I64, sums: U16, weight: I64, n_cards: int, binom: I64, flop_id: I64,
                   flop_perm: I64, flop_cards: I64, card_perm: I64, counts: I32) -> None:
    """Add each canonical turn's sums (:func:`casino_turns`) to the flops under it: for each of
    its four flops, ``counts[f, h, x] += weight x sums[t, p, x]``, ``f`` the flop's canonical
    flop and ``h`` the image of ``p`` there (as a local holding). Over all turns, a flop
    situation's entry summed over its images under the flop's stabiliser is ``2 x P`` times its
    count over (turn, river), ``P`` the number of suit permutations (see :func:`casino_fold`).
    The (turn, flop) additions are grouped by canonical flop and the groups split between the
    threads, so no two write the same entry (the turns of a batch reach a few hundred flops, a
    few of them often)."""
    n_items = 4 * len(turns)
    n_pairs, holdings = sums.shape[1], counts.shape[1]
    flat_counts, flat_sums = counts.reshape(counts.size), sums.reshape(sums.size)
    item_flop = np.empty(n_items, dtype=np.int64)
    item_index = np.empty(n_items, dtype=np.int64)
    for t in range(len(turns)):
        four = turns[t]
        for drop in range(4):
            index = 0
            k = 0
            for i in range(4):
                if i != drop:
                    k += 1
                    index += binom[four[i], k]
            item_flop[4 * t + drop] = flop_id[index]
            item_index[4 * t + drop] = index
    order = np.argsort(item_flop)
    group_start = np.empty(n_items + 1, dtype=np.int64)
    n_groups = 0
    for u in range(n_items):
        if u == 0 or item_flop[order[u]] != item_flop[order[u - 1]]:
            group_start[n_groups] = u
            n_groups += 1
    group_start[n_groups] = n_items
    for g in prange(n_groups):
        local = np.empty(n_cards, dtype=np.int64)
        rest = np.empty(n_cards - 4, dtype=np.int64)
        rest_local = np.empty(n_cards - 4, dtype=np.int64)
        f = item_flop[order[group_start[g]]]
        canonical = flop_cards[f]
        k = 0
        for c in range(n_cards):  # local numbers of the cards off the canonical flop
            if c != canonical[0] and c != canonical[1] and c != canonical[2]:
                local[c] = k
                k += 1
        for u in range(group_start[g], group_start[g + 1]):
            t = order[u] // 4
            four = turns[t]
            perm = flop_perm[item_index[order[u]]]
            w = np.int32(weight[t])
            n_rest = 0
            for c in range(n_cards):  # the cards off the turn, and their local numbers on f
                if c != four[0] and c != four[1] and c != four[2] and c != four[3]:
                    rest[n_rest] = c
                    rest_local[n_rest] = local[card_perm[perm, c]]
                    n_rest += 1
            into, add = uint64(f * holdings * CASINO_K), uint64(t * n_pairs * CASINO_K)
            for bi in range(n_rest):
                b, lb = rest[bi], rest_local[bi]
                src_b = add + uint64(((b * (b - 1)) >> 1) * CASINO_K)
                for ai in range(bi):
                    la = rest_local[ai]
                    image = ((lb * (lb - 1)) >> 1) + la if lb > la else ((la * (la - 1)) >> 1) + lb
                    dst = into + uint64(image * CASINO_K)
                    src = src_b + uint64(rest[ai] * CASINO_K)
                    for x in range(CASINO_K):  # a holding's counts are contiguous: vectorised
                        flat_counts[dst + uint64(x)] += w * np.int32(flat_sums[src + uint64(x)])


@njit(cache=True, parallel=True)
def casino_fold(flops: I64, n_cards: int, card_perm: I64, counts: I32) -> None:
    """In place: each flop situation's count, from :func:`casino_scatter`'s sums (the sum over the
    flop's stabiliser of the situation's images, divided by 2 x the number of suit permutations:
    each (turn, river) is counted from both of its cards, each turn board once per permutation)."""
    n_rem = n_cards - 3
    holdings = n_rem * (n_rem - 1) // 2
    scale = 2 * card_perm.shape[0]
    for f in prange(len(flops)):
        flop = flops[f]
        group = np.empty(card_perm.shape[0], dtype=np.int64)
        n_group = stabiliser(flop, card_perm, group)
        rem = cards_off_flop(flop, n_cards, n_rem)
        local = np.zeros(n_cards, dtype=np.int64)
        for k in range(n_rem):
            local[rem[k]] = k
        total = np.zeros((holdings, CASINO_K), dtype=np.int64)
        for g in range(n_group):
            perm = group[g]
            for bi in range(n_rem):
                lb = local[card_perm[perm, rem[bi]]]
                for ai in range(bi):
                    la = local[card_perm[perm, rem[ai]]]
                    image = lb * (lb - 1) // 2 + la if lb > la else la * (la - 1) // 2 + lb
                    h = bi * (bi - 1) // 2 + ai
                    for x in range(CASINO_K):
                        total[h, x] += counts[f, image, x]
        for h in range(holdings):
            for x in range(CASINO_K):
                counts[f, h, x] = np.int32(total[h, x] // scale)


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
