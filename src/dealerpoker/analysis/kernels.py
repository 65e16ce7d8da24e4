"""The solver's numba kernels: per-board holding statistics, then the games' passes up the tree.

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

Stage 2 gathers those words up the decision tree, each board looked up as (canonical board,
suit permutation). Texas: per canonical turn, the sums over rivers (:func:`texas_turns`: the
river decision), then per canonical flop over turns (:func:`texas_flops`); Casino: per canonical
flop over (turn, river) (:func:`casino_flops`), per holding and final category. A canonical
board's *stabiliser* (the suit permutations that map it to itself) is used too: only one
completion per orbit under it is visited, weighted by the orbit's size, and the per-holding sums
are then averaged over the stabiliser's images of each holding (exact: every image sees the same
completions).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from dealerpoker.analysis.evaluation import FLUSH_VALUE, POPCOUNT, cards_value, category_of_value, rank_value

I64 = npt.NDArray[np.int64]
U32 = npt.NDArray[np.uint32]
U16 = npt.NDArray[np.uint16]
U8 = npt.NDArray[np.uint8]
I32 = npt.NDArray[np.int32]

TEXAS_K = 21   # per (flop, class) sums, see texas_flops
BELOW_QUALIFIER = 10  # the code of a pair below the Casino qualifier (see the module doc)
CATEGORY_OF_CODE = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 0, 0, 0, 0, 0], dtype=np.int64)
QUALIFIES = np.array([0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], dtype=np.int64)
CASINO_K = 21  # per (flop, holding) counts, see casino_flops
STRATEGY_CLASSES = 40  # flop hand category (0..9) x draw (none, flush, straight, both)


@njit(cache=True)
def _holding_groups(board: I64, off: I64, rank: I64, suit: I64, counts: I64, memo: I64,
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
    for i in range(5):
        counts[rank[board[i]]] += 1
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
            counts[ra] += 1
            counts[rb] += 1
            value = rank_value(counts)
            counts[ra] -= 1
            counts[rb] -= 1
            memo[ra * 13 + rb] = memo[rb * 13 + ra] = value
            candidates[n_candidates] = value << 9 | (ra * 13 + rb)  # value, then where it goes
            n_candidates += 1
    for i in range(5):
        counts[rank[board[i]]] -= 1
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
        counts = np.zeros(13, dtype=np.int64)
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
            n_groups = _holding_groups(board, off, rank, suit, counts, memo, flush_memo, candidates,
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


@njit(cache=True)
def _pair_numbers(n_cards: int) -> I64:
    """``[x, y]``: the number of the pair of local cards ``{x, y}`` (a lookup, not a branch)."""
    table = np.zeros((n_cards, n_cards), dtype=np.int64)
    for y in range(n_cards):
        for x in range(y):
            table[x, y] = table[y, x] = y * (y - 1) // 2 + x
    return table


@njit(cache=True)
def _stabiliser(cards: I64, card_perm: I64, out: I64) -> int:
    """The suit permutations (indices into ``card_perm``) that map the set ``cards`` to itself."""
    count = 0
    for p in range(card_perm.shape[0]):
        inside = True
        for i in range(len(cards)):
            image = card_perm[p, cards[i]]
            found = False
            for j in range(len(cards)):
                if cards[j] == image:
                    found = True
            if not found:
                inside = False
        if inside:
            out[count] = p
            count += 1
    return count


@njit(cache=True)
def _local_cards(board: I64, canonical: I64, card_perm: I64, perm: int, n_cards: int,
                 off: I64, local: I64) -> int:
    """The cards off ``board`` (ascending) and their local numbers on ``canonical``, the board's
    image under ``perm``; returns their count."""
    k = 0
    for c in range(n_cards):
        on = False
        for i in range(5):
            if board[i] == c:
                on = True
        if on:
            continue
        image = card_perm[perm, c]
        below = 0
        for i in range(5):
            if canonical[i] < image:
                below += 1
        off[k] = c
        local[k] = image - below
        k += 1
    return k


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
def _index_with(cards: I64, extra: int, binom: I64) -> int:
    """Colex number of the sorted ``cards`` (3 or 4) plus the card ``extra``."""
    index = 0
    pos = 0
    placed = False
    for i in range(len(cards)):
        if not placed and extra < cards[i]:
            index += binom[extra, pos + 1]
            pos += 1
            placed = True
        index += binom[cards[i], pos + 1]
        pos += 1
    if not placed:
        index += binom[extra, len(cards) + 1]
    return index


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



@njit(cache=True)
def _orbit_size(t: int, r: int, card_perm: I64, group: I64, n_group: int) -> int:
    """Size of the orbit of the card set ``{t, r}`` (``r = -1``: the card ``t``) under ``group``,
    or 0 when the set is not its orbit's smallest member (pair number, or card)."""
    own = t if r < 0 else max(t, r) * (max(t, r) - 1) // 2 + min(t, r)
    same = 0
    for g in range(n_group):
        t2 = card_perm[group[g], t]
        if r < 0:
            image = t2
        else:
            r2 = card_perm[group[g], r]
            image = max(t2, r2) * (max(t2, r2) - 1) // 2 + min(t2, r2)
        if image < own:
            return 0
        if image == own:
            same += 1
    return n_group // same


@njit(cache=True, parallel=True)
def texas_turns(turns: I64, n_cards: int, binom: I64, river_id: I32, river_perm: npt.NDArray[np.int8],
                river_cards: I64, card_perm: I64, pair_perm: I32, word: U16, low: U8,
                qualifier_category: int, sums: U16, river_bet: npt.NDArray[np.int8]) -> None:
    """Per canonical turn and holding: ``sums[turn, pair]`` = wins, losses, and wins with the
    ante paying, summed over every river and dealer holding; ``river_bet`` = wins > losses."""
    n_pairs = n_cards * (n_cards - 1) // 2
    n_rem = n_cards - 4
    pair_of = _pair_numbers(n_cards)
    for row_t in prange(len(turns)):
        four = turns[row_t]
        group = np.empty(card_perm.shape[0], dtype=np.int64)
        n_group = _stabiliser(four, card_perm, group)
        rem = np.empty(n_rem, dtype=np.int64)
        k = 0
        for c in range(n_cards):
            if c != four[0] and c != four[1] and c != four[2] and c != four[3]:
                rem[k] = c
                k += 1
        acc = np.zeros((n_pairs, 3), dtype=np.int64)
        board = np.empty(5, dtype=np.int64)
        off = np.empty(n_cards - 5, dtype=np.int64)
        local = np.empty(n_cards - 5, dtype=np.int64)
        for ri in range(n_rem):
            r = rem[ri]
            size = _orbit_size(r, -1, card_perm, group, n_group)
            if size == 0:
                continue
            index = _index_with(four, r, binom)
            row = river_id[index]
            board[:4] = four
            board[4] = r
            n_off = _local_cards(board, river_cards[row], card_perm, river_perm[index], n_cards, off, local)
            for j in range(n_off):
                b, lb = off[j], local[j]
                for i in range(j):
                    h = pair_of[local[i], lb]
                    s = np.int64(word[row, h])
                    w = s & 1023
                    p = b * (b - 1) // 2 + off[i]
                    acc[p, 0] += size * w
                    acc[p, 1] += size * ((s >> 14) << 8 | np.int64(low[row, h]))
                    if CATEGORY_OF_CODE[(s >> 10) & 15] >= qualifier_category:
                        acc[p, 2] += size * w
        for j in range(n_rem):
            for i in range(j):
                p = rem[j] * (rem[j] - 1) // 2 + rem[i]
                total = np.zeros(3, dtype=np.int64)
                for g in range(n_group):
                    image = pair_perm[group[g], p]
                    total += acc[image]
                for x in range(3):
                    sums[row_t, p, x] = np.uint16(total[x] // n_group)
                river_bet[row_t, p] = 1 if total[0] > total[1] else 0


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
        n_group = _stabiliser(flop, card_perm, group)
        rem = _cards_off_flop(flop, n_cards, n_rem)
        acc = np.zeros((n_pairs, 7), dtype=np.int64)  # A_W, A_L, A_Wq, B_W, B_L, B_Wq, n_y
        for ti in range(n_rem):
            t = rem[ti]
            size = _orbit_size(t, -1, card_perm, group, n_group)
            if size == 0:
                continue
            index = _index_with(flop, t, binom)
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
                    sw, sl = np.int64(sums[row, q, 0]), np.int64(sums[row, q, 1])
                    swq = np.int64(sums[row, q, 2])
                    acc[p, 0] += size * sw
                    acc[p, 1] += size * sl
                    acc[p, 2] += size * swq
                    if sw > sl:
                        acc[p, 3] += size * sw
                        acc[p, 4] += size * sl
                        acc[p, 5] += size * swq
                        acc[p, 6] += size
        total = np.zeros(7, dtype=np.int64)
        for bi in range(n_rem):
            b = rem[bi]
            for ai in range(bi):
                p = b * (b - 1) // 2 + rem[ai]
                total[:] = 0
                for g in range(n_group):
                    total += acc[pair_perm[group[g], p]]
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
    pair_of = _pair_numbers(n_cards)
    for f in prange(len(flops)):
        flop = flops[f]
        group = np.empty(card_perm.shape[0], dtype=np.int64)
        n_group = _stabiliser(flop, card_perm, group)
        rem = _cards_off_flop(flop, n_cards, n_rem)
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
                size = _orbit_size(t, r, card_perm, group, n_group)
                if size == 0:
                    continue
                index = _board_index(flop, t, r, binom)
                row = river_id[index]
                board[3], board[4] = t, r
                n_off = _local_cards(board, river_cards[row], card_perm, river_perm[index], n_cards,
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
def five_card_class_counts(combos: I64, rank: I64, suit: I64) -> I64:
    """Counts of five-card hands by category (0..9) and, for one pair, by pair rank (10..22)."""
    counts = np.zeros(23, dtype=np.int64)
    scratch = np.zeros(13, dtype=np.int64)
    for row in range(combos.shape[0]):
        value = cards_value(combos[row], 5, rank, suit, scratch)
        cat = category_of_value(value)
        counts[cat] += 1
        if cat == 1:
            counts[10 + ((value >> 16) & 15)] += 1
    return counts


@njit(cache=True, parallel=True)
def situation_classes(flops: I64, n_cards: int, rank: I64, suit: I64,
                      strategy: npt.NDArray[np.int8], aa: npt.NDArray[np.int8]) -> None:
    """Per canonical flop and local holding: the strategy class (flop category x draw) and the
    five-card class of hole cards + flop (category, one pair as 10 + the pair's rank)."""
    n_rem = n_cards - 3
    for f in prange(len(flops)):
        flop = flops[f]
        rem = _cards_off_flop(flop, n_cards, n_rem)
        counts = np.zeros(13, dtype=np.int64)
        for bi in range(n_rem):
            for ai in range(bi):
                cls, value = flop_situation_class(rem[ai], rem[bi], flop, rank, suit, counts)
                cat = category_of_value(value)
                h = bi * (bi - 1) // 2 + ai
                strategy[f, h] = cls
                aa[f, h] = 10 + ((value >> 16) & 15) if cat == 1 else cat
