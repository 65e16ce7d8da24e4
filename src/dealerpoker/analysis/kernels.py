"""The solver's numba kernels: per-board holding statistics, then the two games' flop passes.

Stage 1 (:func:`board_stats`), once per canonical five-card board: value every holding
(``board_holding_values``), sort the values once, and walk the sorted list keeping, per card,
how many holdings containing that card are strictly lower. Inclusion-exclusion then gives each
holding ``{a, b}`` its wins / ties / losses against every dealer holding that shares no card
with it: ``lower(a,b) = lower(all) - lower(containing a) - lower(containing b)`` (the holding
itself is the only one containing both, and it is not lower than itself). The same walk counts
dealer holdings below the Casino Hold'em qualifier. Results are packed per (board, pair):
``wins | losses << 10 | not_qualifying << 20`` and ``category | qualifies << 4``.

Stage 2, once per canonical flop: every turn/river completion is looked up as (canonical board,
suit permutation), the packed counts are gathered for each holding and summed up the tree:
rivers -> turn decision (Texas river bet) -> flop decision (Texas turn bet, Casino raise).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from dealerpoker.analysis.evaluation import board_holding_values, cards_value, category_of_value

I64 = npt.NDArray[np.int64]
U32 = npt.NDArray[np.uint32]
U8 = npt.NDArray[np.uint8]
I32 = npt.NDArray[np.int32]

TEXAS_K = 21   # per (flop, class) sums, see texas_flops
CASINO_K = 28  # per flop sums, see casino_flops
STRATEGY_CLASSES = 40  # flop hand category (0..9) x draw (none, flush, straight, both)


@njit(cache=True, parallel=True)
def board_stats(boards: I64, start: int, stop: int, n_cards: int, rank: I64, suit: I64,
                qualifier: int, packed: U32, category: U8) -> None:
    """Fill rows ``start..stop`` of ``packed`` / ``category`` (see the module doc)."""
    n_pairs = n_cards * (n_cards - 1) // 2
    n_rem = n_cards - 5
    m = n_rem * (n_rem - 1) // 2
    dealers = (n_cards - 7) * (n_cards - 8) // 2
    n_blocks = min(stop - start, 256)
    for block in prange(n_blocks):
        values = np.empty(n_pairs, dtype=np.int64)
        counts = np.zeros(13, dtype=np.int64)
        memo = np.empty(169, dtype=np.int64)
        keys = np.empty(m, dtype=np.int64)
        hold_a = np.empty(m, dtype=np.int64)
        hold_b = np.empty(m, dtype=np.int64)
        wins = np.empty(m, dtype=np.int64)
        ties = np.empty(m, dtype=np.int64)
        lower = np.zeros(n_cards, dtype=np.int64)
        group = np.zeros(n_cards, dtype=np.int64)
        lower_q = np.zeros(n_cards, dtype=np.int64)
        lo = start + (stop - start) * block // n_blocks
        hi = start + (stop - start) * (block + 1) // n_blocks
        for row in range(lo, hi):
            board = boards[row]
            board_holding_values(board, n_cards, rank, suit, values, counts, memo)
            k = 0
            for b in range(n_cards):
                for a in range(b):
                    v = values[b * (b - 1) // 2 + a]
                    if v >= 0:
                        hold_a[k] = a
                        hold_b[k] = b
                        keys[k] = v * 2048 + k
                        k += 1
            keys.sort()
            lower[:] = 0
            below_q = -1
            i = 0
            while i < m:
                v = keys[i] >> 11
                if below_q < 0 and v >= qualifier:
                    below_q = i
                    lower_q[:] = lower
                j = i
                while j < m and keys[j] >> 11 == v:
                    h = keys[j] & 2047
                    group[hold_a[h]] += 1
                    group[hold_b[h]] += 1
                    j += 1
                for u in range(i, j):
                    h = keys[u] & 2047
                    a, b = hold_a[h], hold_b[h]
                    wins[h] = i - lower[a] - lower[b]
                    ties[h] = (j - i) - group[a] - group[b] + 1
                for u in range(i, j):
                    h = keys[u] & 2047
                    a, b = hold_a[h], hold_b[h]
                    group[a] = 0
                    group[b] = 0
                    lower[a] += 1
                    lower[b] += 1
                i = j
            if below_q < 0:
                below_q = m
                lower_q[:] = lower
            for h in range(m):
                a, b = hold_a[h], hold_b[h]
                p = b * (b - 1) // 2 + a
                v = values[p]
                qualifies = v >= qualifier
                not_q = below_q - lower_q[a] - lower_q[b] + (0 if qualifies else 1)
                losses = dealers - wins[h] - ties[h]
                packed[row, p] = np.uint32(wins[h] | (losses << 10) | (not_q << 20))
                category[row, p] = np.uint8(category_of_value(v) | (16 if qualifies else 0))


@njit(cache=True)
def _cards_off_flop(flop: I64, n_cards: int, n_rem: int) -> I64:
    """The deck's cards that are not on the flop, ascending."""
    rem = np.empty(n_rem, dtype=np.int64)
    k = 0
    for c in range(n_cards):
        if c != flop[0] and c != flop[1] and c != flop[2]:
            rem[k] = c
            k += 1
    return rem


@njit(cache=True)
def _board_index(flop: I64, t: int, r: int, binom: I64) -> int:
    """Colex index of the sorted five cards ``flop + {t, r}`` (``t < r``)."""
    cards = np.empty(5, dtype=np.int64)
    i = j = 0
    extra = (t, r)
    for pos in range(5):
        if j >= 2 or (i < 3 and flop[i] < extra[j]):
            cards[pos] = flop[i]
            i += 1
        else:
            cards[pos] = extra[j]
            j += 1
    index = 0
    for pos in range(5):
        index += binom[cards[pos], pos + 1]
    return index


@njit(cache=True)
def _turn_index(flop: I64, t: int, binom: I64) -> int:
    index = 0
    pos = 0
    placed = False
    for i in range(3):
        if not placed and t < flop[i]:
            index += binom[t, pos + 1]
            pos += 1
            placed = True
        index += binom[flop[i], pos + 1]
        pos += 1
    if not placed:
        index += binom[t, 4]
    return index


@njit(cache=True, parallel=True)
def texas_flops(flops: I64, start: int, stop: int, n_cards: int, binom: I64, river_id: I64,
                river_perm: I64, turn_id: I64, turn_perm: I64, pair_perm: I32, packed: U32,
                category: U8, qualifier_category: int, class_of_pair: I64,
                out: I64, flop_bet: npt.NDArray[np.int8], river_bet: npt.NDArray[np.int8],
                flop_ev: I64) -> None:
    """Texas Hold'em Bonus after the pre-flop bet, for canonical flops ``start..stop``.

    ``out[f, class]``: 0 sum of net results, 1 sum of squares, 2 situations (holding, flop),
    3 turn bets, 4 river bets (per turn situation), then for (turn bet x, river bet y) at
    ``5 + 4 * (2x + y)``: wins with the ante paying, wins with the ante pushing, losses,
    turn situations. ``flop_bet[f, pair]`` / ``river_bet[turn id, pair]``: the decisions.
    """
    n_pairs = n_cards * (n_cards - 1) // 2
    n_rem = n_cards - 3
    dealers = (n_cards - 7) * (n_cards - 8) // 2
    for f in prange(start, stop):
        flop = flops[f]
        rem = _cards_off_flop(flop, n_cards, n_rem)
        acc = np.zeros((n_cards, n_pairs, 3), dtype=np.int32)  # <= 46 rivers x 990 dealers
        for ti in range(n_rem):
            t = rem[ti]
            for ri in range(ti + 1, n_rem):
                r = rem[ri]
                index = _board_index(flop, t, r, binom)
                row = river_id[index]
                perm = pair_perm[river_perm[index]]
                for bi in range(n_rem):
                    if bi == ti or bi == ri:  # noqa: SIM109 (numba loop)
                        continue
                    b = rem[bi]
                    for ai in range(bi):
                        if ai == ti or ai == ri:  # noqa: SIM109 (numba loop)
                            continue
                        p = b * (b - 1) // 2 + rem[ai]
                        q = perm[p]
                        s = packed[row, q]
                        w = np.int32(s & 1023)
                        lo = np.int32((s >> 10) & 1023)
                        wq = w if (category[row, q] & 15) >= qualifier_category else np.int32(0)
                        acc[t, p, 0] += w
                        acc[t, p, 1] += lo
                        acc[t, p, 2] += wq
                        acc[r, p, 0] += w
                        acc[r, p, 1] += lo
                        acc[r, p, 2] += wq
        total = np.zeros((n_pairs, 7), dtype=np.int64)  # A_W, A_L, A_Wq, B_W, B_L, B_Wq, n_y
        for ti in range(n_rem):
            t = rem[ti]
            index = _turn_index(flop, t, binom)
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
                    sw, sl, swq = np.int64(acc[t, p, 0]), np.int64(acc[t, p, 1]), np.int64(acc[t, p, 2])
                    total[p, 0] += sw
                    total[p, 1] += sl
                    total[p, 2] += swq
                    bet = sw > sl
                    river_bet[row, perm[p]] = 1 if bet else 0
                    if bet:
                        total[p, 3] += sw
                        total[p, 4] += sl
                        total[p, 5] += swq
                        total[p, 6] += 1
        turns = n_cards - 5
        for bi in range(n_rem):
            b = rem[bi]
            for ai in range(bi):
                p = b * (b - 1) // 2 + rem[ai]
                aw, al, awq, bw, bl, bwq, ny = total[p]
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
    _ = dealers


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
def casino_flops(flops: I64, start: int, stop: int, n_cards: int, binom: I64, river_id: I64,
                 river_perm: I64, pair_perm: I32, packed: U32, category: U8, rank: I64, suit: I64,
                 ante_pays: I64, aa_pays: I64, aa_min_pair: int, out: I64, by_class: I64,
                 raise_table: npt.NDArray[np.int8], raise_ev: I64) -> None:
    """Casino Hold'em for canonical flops ``start..stop``.

    ``out[f]``: 0 sum of net results (raised situations), 1 sum of squares, 2 raised
    situations, 3 folded situations, 4..13 dealer-not-qualifying deals by player category,
    14..23 qualifying deals the player beats by category, 24 deals lost, 25 AA net over raised
    situations, 26 AA-winning situations folded, 27 AA net over all situations.
    ``by_class[f, class]``: situations, raised. ``raise_ev[f, pair]``: sum of net results of
    raising over every turn, river and dealer holding.
    """
    n_pairs = n_cards * (n_cards - 1) // 2
    n_rem = n_cards - 3
    dealers = (n_cards - 7) * (n_cards - 8) // 2
    deals = (n_cards - 5) * (n_cards - 6) // 2 * dealers
    for f in prange(start, stop):
        flop = flops[f]
        rem = _cards_off_flop(flop, n_cards, n_rem)
        acc = np.zeros((n_pairs, 21), dtype=np.int64)
        for ti in range(n_rem):
            t = rem[ti]
            for ri in range(ti + 1, n_rem):
                r = rem[ri]
                index = _board_index(flop, t, r, binom)
                row = river_id[index]
                perm = pair_perm[river_perm[index]]
                for bi in range(n_rem):
                    if bi == ti or bi == ri:  # noqa: SIM109 (numba loop)
                        continue
                    b = rem[bi]
                    for ai in range(bi):
                        if ai == ti or ai == ri:  # noqa: SIM109 (numba loop)
                            continue
                        p = b * (b - 1) // 2 + rem[ai]
                        q = perm[p]
                        s = packed[row, q]
                        w = np.int64(s & 1023)
                        lo = np.int64((s >> 10) & 1023)
                        nq = np.int64(s >> 20)
                        cv = category[row, q]
                        cat = cv & 15
                        acc[p, cat] += nq
                        if cv >= 16:
                            acc[p, 10 + cat] += w - nq
                            acc[p, 20] += lo
                        else:
                            acc[p, 20] += dealers - nq
        counts = np.zeros(13, dtype=np.int64)
        o = out[f]
        for bi in range(n_rem):
            b = rem[bi]
            for ai in range(bi):
                a = rem[ai]
                p = b * (b - 1) // 2 + a
                net = -3 * acc[p, 20]
                square = 9 * acc[p, 20]
                for cat in range(10):
                    pay = ante_pays[cat]
                    net += acc[p, cat] * pay + acc[p, 10 + cat] * (pay + 2)
                    square += acc[p, cat] * pay * pay + acc[p, 10 + cat] * (pay + 2) * (pay + 2)
                raise_ev[f, p] = net
                raising = net > -deals
                raise_table[f, p] = 1 if raising else 0
                cls, value = flop_situation_class(a, b, flop, rank, suit, counts)
                by_class[f, cls, 0] += 1
                cat5 = category_of_value(value)
                aa_net = aa_pays[cat5]  # -1: no payout line for this category
                if cat5 == 1 and ((value >> 16) & 15) < aa_min_pair:
                    aa_net = -1
                o[27] += aa_net
                if raising:
                    by_class[f, cls, 1] += 1
                    o[0] += net
                    o[1] += square
                    o[2] += 1
                    for j in range(21):
                        o[4 + j] += acc[p, j]
                    o[25] += aa_net
                else:
                    o[3] += 1
                    if aa_net > 0:
                        o[26] += 1
