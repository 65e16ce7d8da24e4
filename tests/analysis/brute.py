"""An independent brute-force enumerator for reduced decks: every deal, literally.

It shares nothing with the fast solver but the deck description: its own evaluator (best of
the 21 five-card subsets, each valued the way the reference ``evaluate`` does), no suit
symmetry, no inclusion-exclusion, decisions taken by comparing the summed results of each
choice at each decision point, settlements written out clause by clause.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

I64 = npt.NDArray[np.int64]


@njit(cache=True)
def _eval5(ranks: I64, suits: I64, r: I64, counts: I64, order: I64) -> int:
    """The value of five cards; ``r``, ``counts`` and ``order`` are scratch space (5, 13 and 5
    long) that the caller lends, so that the millions of calls allocate nothing."""
    for i in range(5):  # r: the ranks, descending (insertion sort)
        j = i
        while j > 0 and r[j - 1] < ranks[i]:
            r[j] = r[j - 1]
            j -= 1
        r[j] = ranks[i]
    flush = True
    for i in range(1, 5):
        if suits[i] != suits[0]:
            flush = False
    counts[:] = 0
    for i in range(5):
        counts[r[i]] += 1
    distinct = 0
    for c in counts:
        if c > 0:
            distinct += 1
    top = -1
    if distinct == 5:
        if r[0] - r[4] == 4:
            top = r[0]
        elif r[0] == 12 and r[1] == 3 and r[2] == 2 and r[3] == 1 and r[4] == 0:
            top = 3
    # groups ordered by (count, rank) descending
    n = 0
    for count in range(4, 0, -1):
        for rank in range(12, -1, -1):
            if counts[rank] == count:
                order[n] = rank
                n += 1
    first, second = counts[order[0]], counts[order[1]] if n > 1 else 0
    if top >= 0 and flush:
        return (8 << 20) | (top << 16)
    if first == 4:
        cat = 7
    elif first == 3 and second == 2:
        cat = 6
    elif flush:
        value = 5 << 20
        for i in range(5):
            value |= r[i] << (16 - 4 * i)
        return value
    elif top >= 0:
        return (4 << 20) | (top << 16)
    elif first == 3:
        cat = 3
    elif first == 2 and second == 2:
        cat = 2
    elif first == 2:
        cat = 1
    else:
        value = 0
        for i in range(5):
            value |= r[i] << (16 - 4 * i)
        return value
    value = cat << 20
    for i in range(n):
        value |= order[i] << (16 - 4 * i)
    return value


@njit(cache=True)
def _eval_best(cards: I64, rank: I64, suit: I64) -> int:
    k = cards.shape[0]
    best = -1
    rs = np.empty(5, dtype=np.int64)
    ss = np.empty(5, dtype=np.int64)
    r = np.empty(5, dtype=np.int64)
    counts = np.empty(13, dtype=np.int64)
    order = np.empty(5, dtype=np.int64)
    idx = np.arange(5)
    while True:
        for i in range(5):
            rs[i] = rank[cards[idx[i]]]
            ss[i] = suit[cards[idx[i]]]
        v = _eval5(rs, ss, r, counts, order)
        if v > best:
            best = v
        i = 4
        while i >= 0 and idx[i] == k - 5 + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, 5):
            idx[j] = idx[j - 1] + 1
    return best


@njit(cache=True)
def _category(value: int) -> int:
    if value == (8 << 20) | (12 << 16):
        return 9
    return value >> 20


@njit(cache=True)
def _board_key(cards: I64, n: int) -> int:
    key = 0
    for i in range(5):
        key |= 1 << cards[i]
    return key


@njit(cache=True)
def _value_table(n: int, rank: I64, suit: I64, binom: I64) -> I64:
    """Seven-card value for every (five-card board by colex index, pair by colex index)."""
    boards = binom[n, 5]
    pairs = n * (n - 1) // 2
    table = np.full((boards, pairs), -1, dtype=np.int64)
    c = np.arange(5)
    seven = np.empty(7, dtype=np.int64)
    while True:
        index = 0
        for i in range(5):
            index += binom[c[i], i + 1]
            seven[i] = c[i]
        for b in range(n):
            for a in range(b):
                clash = False
                for i in range(5):
                    if c[i] == a or c[i] == b:
                        clash = True
                if clash:
                    continue
                seven[5], seven[6] = a, b
                table[index, b * (b - 1) // 2 + a] = _eval_best(seven, rank, suit)
        i = 4
        while i >= 0 and c[i] == n - 5 + i:
            i -= 1
        if i < 0:
            break
        c[i] += 1
        for j in range(i + 1, 5):
            c[j] = c[j - 1] + 1
    return table


@njit(cache=True)
def _index5(cards: I64, binom: I64) -> int:
    s = np.sort(cards)
    index = 0
    for i in range(5):
        index += binom[s[i], i + 1]
    return index


@njit(cache=True)
def _unused(used: npt.NDArray[np.bool_], free: I64) -> int:
    """Writes the cards not yet dealt into ``free``, ascending (each dealer holding is then
    a pair ``free[i] < free[j]``, once); returns how many."""
    left = 0
    for card in range(used.shape[0]):
        if not used[card]:
            free[left] = card
            left += 1
    return left


@njit(cache=True)
def _texas_net(x: int, y: int, outcome: int, player_category: int, qualifier: int) -> int:
    """Net of ante 1, flop 2, turn x, river y: outcome 1 win, 0 tie, -1 loss (the seed's clauses)."""
    if outcome == 0:
        return 0  # "If a game results in a draw, all bets are returned"
    if outcome < 0:
        return -(1 + 2 + x + y)
    ante = 1 if player_category >= qualifier else 0  # otherwise "the Ante bet will be a stand off"
    return ante + 2 + x + y


@njit(cache=True)
def _binomials(n: int) -> I64:
    binom = np.zeros((n + 1, 8), dtype=np.int64)
    for i in range(n + 1):
        binom[i, 0] = 1
        for k in range(1, 8):
            binom[i, k] = binom[i - 1, k - 1] + binom[i - 1, k] if i > 0 else 0
    return binom


@lru_cache(maxsize=4)
def _values_of(n: int, ranks: tuple[int, ...], suits: tuple[int, ...]) -> npt.NDArray[np.int32]:
    """The seven-card value table of one deck, built once per process: it depends on the deck
    alone, and each enumeration below reads it (building it takes seconds)."""
    table = _value_table(n, np.array(ranks, dtype=np.int64), np.array(suits, dtype=np.int64),
                         _binomials(n))
    return table.astype(np.int32)  # every value fits (below 1 << 24); half the memory to read


def value_table(deck: Any) -> npt.NDArray[np.int32]:
    return _values_of(deck.size, tuple(deck.rank_array().tolist()), tuple(deck.suit_array().tolist()))


@njit(cache=True)
def texas_brute(n: int, values: npt.NDArray[np.int32], qualifiers: I64, hand_class: I64) -> I64:
    """Per ante qualifier q (``qualifiers[q]``) and starting-hand class: [sum of net after a flop
    bet, sum of squares, turn bets, river bets]. One enumeration serves every qualifier: each
    dealer holding is classed (player wins, dealer wins, tie), which no qualifier changes; each
    qualifier then prices the classes by the clauses of ``_texas_net`` and decides each bet itself."""
    binom = _binomials(n)
    tables = qualifiers.shape[0]
    out = np.zeros((tables, 169, 4), dtype=np.int64)
    board = np.empty(5, dtype=np.int64)
    free = np.empty(n, dtype=np.int64)
    used = np.zeros(n, dtype=np.bool_)
    for b in range(n):
        for a in range(b):
            h = b * (b - 1) // 2 + a
            used[a] = used[b] = True
            for f2 in range(n):
                for f1 in range(f2):
                    for f0 in range(f1):
                        if used[f0] or used[f1] or used[f2]:
                            continue
                        used[f0] = used[f1] = used[f2] = True
                        turn_sum = np.zeros((tables, 2), dtype=np.int64)
                        turn_sq = np.zeros((tables, 2), dtype=np.int64)
                        river_bets = np.zeros((tables, 2), dtype=np.int64)
                        for t in range(n):
                            if used[t]:
                                continue
                            used[t] = True
                            sums = np.zeros((tables, 2, 2), dtype=np.int64)
                            squares = np.zeros((tables, 2, 2), dtype=np.int64)
                            for r in range(n):
                                if used[r]:
                                    continue
                                used[r] = True
                                board[0], board[1], board[2], board[3], board[4] = f0, f1, f2, t, r
                                row = _index5(board, binom)
                                pv = values[row, h]
                                pc = _category(pv)
                                won = lost = 0
                                left = _unused(used, free)
                                for j in range(left):
                                    for i in range(j):
                                        d0, d1 = free[i], free[j]
                                        dv = values[row, d1 * (d1 - 1) // 2 + d0]
                                        if pv > dv:
                                            won += 1
                                        elif pv < dv:
                                            lost += 1
                                        # else a tie: _texas_net returns 0, nothing to add
                                for q in range(tables):
                                    for x in range(2):
                                        for y in range(2):
                                            win = _texas_net(x, y, 1, pc, qualifiers[q])
                                            loss = _texas_net(x, y, -1, pc, qualifiers[q])
                                            sums[q, x, y] += won * win + lost * loss
                                            squares[q, x, y] += won * win * win + lost * loss * loss
                                used[r] = False
                            for q in range(tables):
                                for x in range(2):
                                    y = 1 if sums[q, x, 1] > sums[q, x, 0] else 0
                                    turn_sum[q, x] += sums[q, x, y]
                                    turn_sq[q, x] += squares[q, x, y]
                                    river_bets[q, x] += y
                            used[t] = False
                        c = hand_class[h]
                        for q in range(tables):
                            x = 1 if turn_sum[q, 1] > turn_sum[q, 0] else 0
                            out[q, c, 0] += turn_sum[q, x]
                            out[q, c, 1] += turn_sq[q, x]
                            out[q, c, 2] += x
                            out[q, c, 3] += river_bets[q, x]
                        used[f0] = used[f1] = used[f2] = False
            used[a] = used[b] = False
    return out


def texas_brute_of_each(qualifiers: Sequence[int], deck: Any, hand_class: I64) -> I64:
    """:func:`texas_brute` of ``deck`` for several ante qualifiers in one enumeration."""
    return texas_brute(deck.size, value_table(deck), np.array(qualifiers, dtype=np.int64), hand_class)


@njit(cache=True)
def casino_brute(n: int, values: npt.NDArray[np.int32], rank: I64, suit: I64, ante_pays: I64,
                 aa_pays: I64, aa_min: I64, qualifier_rank: int) -> I64:
    """Per paytable p (row p of ``ante_pays``, ``aa_pays``, ``aa_min``): [net, squares, raised,
    folded, AA net when a fold loses it, AA net when always settled]. One enumeration serves every
    paytable: each dealer holding is classed (no qualifier, player wins, dealer wins, push), which
    no paytable changes; each paytable then prices the classes and decides each raise itself."""
    binom = _binomials(n)
    tables = ante_pays.shape[0]
    out = np.zeros((tables, 6), dtype=np.int64)
    net_sum = np.zeros(tables, dtype=np.int64)
    net_sq = np.zeros(tables, dtype=np.int64)
    board = np.empty(5, dtype=np.int64)
    five = np.empty(5, dtype=np.int64)
    free = np.empty(n, dtype=np.int64)
    used = np.zeros(n, dtype=np.bool_)
    deals = binom[n - 5, 2] * binom[n - 7, 2]
    for b in range(n):
        for a in range(b):
            h = b * (b - 1) // 2 + a
            used[a] = used[b] = True
            for f2 in range(n):
                for f1 in range(f2):
                    for f0 in range(f1):
                        if used[f0] or used[f1] or used[f2]:
                            continue
                        used[f0] = used[f1] = used[f2] = True
                        net_sum[:] = 0
                        net_sq[:] = 0
                        for r in range(n):
                            for t in range(r):
                                if used[t] or used[r]:
                                    continue
                                used[t] = used[r] = True
                                board[0], board[1], board[2], board[3], board[4] = f0, f1, f2, t, r
                                row = _index5(board, binom)
                                pv = values[row, h]
                                unqualified = won = lost = 0
                                left = _unused(used, free)
                                for j in range(left):
                                    for i in range(j):
                                        d0, d1 = free[i], free[j]
                                        dv = values[row, d1 * (d1 - 1) // 2 + d0]
                                        dc = dv >> 20
                                        pair_rank = (dv >> 16) & 15
                                        qualifies = dc >= 2 or (dc == 1 and pair_rank >= qualifier_rank)
                                        if not qualifies:
                                            unqualified += 1   # ante by the paytable, raise returned
                                        elif pv > dv:
                                            won += 1           # ante by the paytable, raise 1:1
                                        elif pv < dv:
                                            lost += 1          # ante and raise lose: -3
                                        # else a push: 0
                                category = _category(pv)
                                for p in range(tables):
                                    pay = ante_pays[p, category]
                                    net_sum[p] += unqualified * pay + won * (pay + 2) - lost * 3
                                    net_sq[p] += (unqualified * pay * pay + won * (pay + 2) * (pay + 2)
                                                  + lost * 9)
                                used[t] = used[r] = False
                        five[0], five[1], five[2], five[3], five[4] = a, b, f0, f1, f2
                        v5 = _eval_best(five, rank, suit)
                        c5 = _category(v5)
                        for p in range(tables):
                            aa = aa_pays[p, c5]
                            if c5 == 1 and ((v5 >> 16) & 15) < aa_min[p]:
                                aa = -1
                            out[p, 5] += aa
                            if net_sum[p] > -deals:
                                out[p, 0] += net_sum[p]
                                out[p, 1] += net_sq[p]
                                out[p, 2] += 1
                                out[p, 4] += aa
                            else:
                                out[p, 0] -= deals
                                out[p, 1] += deals
                                out[p, 3] += 1
                                out[p, 4] -= 1
                        used[f0] = used[f1] = used[f2] = False
            used[a] = used[b] = False
    return out


def casino_brute_figures(rules: Any, deck: Any) -> dict[str, Any]:
    """The figures the solver reports for Casino Hold'em ``rules`` on ``deck``, by brute force:
    total deals, expected return and second moment per deal, raise frequency, AA bet edges."""
    return casino_brute_figures_of_each([rules], deck)[0]


def casino_brute_figures_of_each(rules: Sequence[Any], deck: Any) -> list[dict[str, Any]]:
    """:func:`casino_brute_figures` of several rules (one dealer qualifier) in one enumeration."""
    from dealerpoker.evaluator.categories import HandCategory

    (qualifier,) = {int(one.dealer_qualifier_rank) for one in rules}
    ante = np.array([[one.ante_paytable[HandCategory(c)] for c in range(10)] for one in rules],
                    dtype=np.int64)
    aa = np.array([[one.aa_paytable.get(HandCategory(c), -1) for c in range(10)] for one in rules],
                  dtype=np.int64)
    aa_min = np.array([int(one.aa_min_pair_rank) for one in rules], dtype=np.int64)
    n = deck.size
    found = casino_brute(n, value_table(deck), deck.rank_array(), deck.suit_array(), ante, aa, aa_min,
                         qualifier).tolist()
    situations = comb(n, 2) * comb(n - 2, 3)
    total = situations * comb(n - 5, 2) * comb(n - 7, 2)
    return [{"total": total, "expected_return": Fraction(net, total),
             "second_moment": Fraction(square, total), "play_frequency": Fraction(raised, raised + folded),
             "aa_lost_on_fold": -Fraction(aa_fold_rule, situations),
             "aa_settled_on_fold": -Fraction(aa_settled, situations)}
            for net, square, raised, folded, aa_fold_rule, aa_settled in found]


def assert_casino_equals_brute(fast: Any, expected: dict[str, Any]) -> None:
    assert fast.total_combinations == expected["total"]
    assert fast.expected_return == expected["expected_return"]
    assert fast.second_moment == expected["second_moment"]
    assert fast.play_frequency == expected["play_frequency"]
    assert fast.side_bets["aa"]["exact_lost_on_fold"] == str(expected["aa_lost_on_fold"])
    assert fast.side_bets["aa"]["exact_settled_on_fold"] == str(expected["aa_settled_on_fold"])
