"""Suit isomorphism: every k-card board is a suit permutation of one *canonical* board.

For each k (3, 4, 5) we enumerate all ``C(n, k)`` boards once, map each to the smallest
colex index among its suit-permuted images, and keep: the canonical boards, how many boards
each stands for (its weight), and for every board the id of its canonical board and the
permutation that carries it there. A holding ``h`` on board ``B`` has the same prospects as
``perm(h)`` on ``canonical(B)``, so per-board work is done on canonical boards only
(134,459 of the 2,598,960 five-card boards, 16,432 four-card, 1,755 flops).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations
from math import comb

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from dealerpoker.analysis.deck import DeckSpec

I64 = npt.NDArray[np.int64]


def binomial_table(n: int) -> I64:
    table = np.zeros((n + 1, 8), dtype=np.int64)
    for i in range(n + 1):
        for k in range(8):
            table[i, k] = comb(i, k)
    return table


@njit(cache=True)
def _all_combos(n: int, k: int, total: int) -> I64:
    combos = np.empty((total, k), dtype=np.int64)
    c = np.arange(k)
    row = 0
    while True:
        combos[row, :] = c
        row += 1
        i = k - 1
        while i >= 0 and c[i] == n - k + i:
            i -= 1
        if i < 0:
            break
        c[i] += 1
        for j in range(i + 1, k):
            c[j] = c[j - 1] + 1
    return combos


@njit(cache=True, parallel=True)
def _canonicalise(combos: I64, card_perm: I64, binom: I64) -> tuple[I64, I64, I64]:
    total, k = combos.shape
    n_perm = card_perm.shape[0]
    index = np.empty(total, dtype=np.int64)
    canon = np.empty(total, dtype=np.int64)
    perm_of = np.empty(total, dtype=np.int64)
    for row in prange(total):
        mapped = np.empty(8, dtype=np.int64)
        own = 0
        for i in range(k):
            own += binom[combos[row, i], i + 1]
        index[row] = own
        best, best_perm = own, 0
        for p in range(n_perm):
            for i in range(k):  # insertion sort: k <= 5, far cheaper than a sort call
                card = card_perm[p, combos[row, i]]
                j = i
                while j > 0 and mapped[j - 1] > card:
                    mapped[j] = mapped[j - 1]
                    j -= 1
                mapped[j] = card
            idx = 0
            for i in range(k):
                idx += binom[mapped[i], i + 1]
            if idx < best:
                best, best_perm = idx, p
        canon[row] = best
        perm_of[row] = best_perm
    return index, canon, perm_of


@dataclass(frozen=True)
class BoardClasses:
    """Canonical k-card boards of a deck and the map from every board to them."""

    k: int
    cards: I64        # (m, k) canonical boards, ascending local cards
    weight: I64       # (m,) boards each canonical board stands for
    id_of: I64        # (C(n,k),) by colex index: canonical id
    perm_of: I64      # (C(n,k),) by colex index: suit permutation carrying the board to it


@dataclass(frozen=True)
class Symmetry:
    deck: DeckSpec
    binom: I64
    card_perm: I64    # (P, n) card -> card under each suit permutation
    pair_perm: npt.NDArray[np.int32]  # (P, pairs) pair index -> pair index
    flops: BoardClasses
    turns: BoardClasses
    rivers: BoardClasses


def _card_permutations(deck: DeckSpec) -> I64:
    perms = list(permutations(range(deck.suits)))
    table = np.empty((len(perms), deck.size), dtype=np.int64)
    for p, perm in enumerate(perms):
        for card in range(deck.size):
            table[p, card] = (card // deck.suits) * deck.suits + perm[card % deck.suits]
    return table


def _pair_permutations(card_perm: I64) -> I64:
    n = card_perm.shape[1]
    b, a = np.triu_indices(n, 1)[1], np.triu_indices(n, 1)[0]
    order = np.argsort(b * (b - 1) // 2 + a)
    a, b = a[order], b[order]
    ma, mb = card_perm[:, a], card_perm[:, b]
    lo, hi = np.minimum(ma, mb), np.maximum(ma, mb)
    result: I64 = (hi * (hi - 1) // 2 + lo).astype(np.int64)
    return result


def board_classes(k: int, card_perm: I64, binom: I64) -> BoardClasses:
    n = card_perm.shape[1]
    combos = _all_combos(n, k, comb(n, k))
    index, canon, perm_of = _canonicalise(combos, card_perm, binom)
    order = np.argsort(index)
    combos, canon, perm_of = combos[order], canon[order], perm_of[order]
    canonical, id_of, weight = np.unique(canon, return_inverse=True, return_counts=True)
    return BoardClasses(k, combos[canonical], weight.astype(np.int64), id_of.astype(np.int64),
                        perm_of)


def build_symmetry(deck: DeckSpec) -> Symmetry:
    binom = binomial_table(deck.size)
    card_perm = _card_permutations(deck)
    return Symmetry(deck, binom, card_perm, _pair_permutations(card_perm).astype(np.int32),
                    board_classes(3, card_perm, binom), board_classes(4, card_perm, binom),
                    board_classes(5, card_perm, binom))
