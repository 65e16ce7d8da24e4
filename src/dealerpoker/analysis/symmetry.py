"""Suit isomorphism: every k-card board is a suit permutation of one *canonical* board.

For each k (3, 4, 5) we enumerate all ``C(n, k)`` boards once, map each to its canonical image
(suits relabelled by their rank masks, largest first: one pass over the cards, no search over
the 24 permutations), and keep: the canonical boards, how many boards
each stands for (its weight), and for every board the id of its canonical board and the
permutation that carries it there. A holding ``h`` on board ``B`` has the same prospects as
``perm(h)`` on ``canonical(B)``, so per-board work is done on canonical boards only
(134,459 of the 2,598,960 five-card boards, 16,432 four-card, 1,755 flops).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations
from math import comb
from typing import Any

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


@njit(cache=True)
def _unrank(index: int, k: int, n: int, binom: I64, out: I64) -> None:
    """The ``k`` cards (ascending) of the board with colex number ``index``."""
    for i in range(k - 1, -1, -1):
        c = i
        while c + 1 < n and binom[c + 1, i + 1] <= index:
            c += 1
        out[i] = c
        index -= binom[c, i + 1]


@njit(cache=True)
def _unrank_all(indices: I64, k: int, n: int, binom: I64) -> I64:
    cards = np.empty((len(indices), k), dtype=np.int64)
    for row in range(len(indices)):
        _unrank(indices[row], k, n, binom, cards[row])
    return cards


@njit(cache=True, parallel=True)
def _canonicalise(n: int, k: int, suits: int, binom: I64,
                  perm_code: I64) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int8]]:
    """For every ``k``-card board by colex number: its canonical board's number and the suit
    permutation (an index into ``_card_permutations``) that carries it there.

    The canonical board relabels suits by their rank masks, largest mask first: boards that
    differ by a suit permutation have the same masks in some order, so the same relabelling.
    """
    total = binom[n, k]
    canon = np.empty(total, dtype=np.int32)  # C(52, 5) < 2**31; 24 permutations
    perm_of = np.empty(total, dtype=np.int8)
    chunks = 64
    for chunk in prange(chunks):
        first, last = total * chunk // chunks, total * (chunk + 1) // chunks
        if first >= last:
            continue
        cards = np.empty(k, dtype=np.int64)
        mapped = np.empty(k, dtype=np.int64)
        masks = np.empty(suits, dtype=np.int64)
        order = np.empty(suits, dtype=np.int64)
        new_suit = np.empty(suits, dtype=np.int64)
        _unrank(first, k, n, binom, cards)
        for index in range(first, last):
            masks[:] = 0
            for i in range(k):
                masks[cards[i] % suits] |= 1 << (cards[i] // suits)
            for s in range(suits):  # insertion sort of the suits, largest mask first
                j = s
                while j > 0 and masks[order[j - 1]] < masks[s]:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = s
            code = 0
            for position in range(suits):
                new_suit[order[position]] = position
            for s in range(suits):
                code = code * suits + new_suit[s]
            for i in range(k):  # relabel, then insertion sort (k <= 5)
                card = (cards[i] // suits) * suits + new_suit[cards[i] % suits]
                j = i
                while j > 0 and mapped[j - 1] > card:
                    mapped[j] = mapped[j - 1]
                    j -= 1
                mapped[j] = card
            idx = 0
            for i in range(k):
                idx += binom[mapped[i], i + 1]
            canon[index] = idx
            perm_of[index] = np.int8(perm_code[code])
            i = 0  # next board in colex order
            while i < k - 1 and cards[i] + 1 == cards[i + 1]:
                i += 1
            cards[i] += 1
            for j in range(i):
                cards[j] = j
    return canon, perm_of


@dataclass(frozen=True)
class BoardClasses:
    """Canonical k-card boards of a deck and the map from every board to them."""

    k: int
    cards: I64        # (m, k) canonical boards, ascending local cards
    weight: I64       # (m,) boards each canonical board stands for
    id_of: npt.NDArray[Any]    # (C(n,k),) by colex index: canonical id (int32 for k = 5)
    perm_of: npt.NDArray[Any]  # (C(n,k),) by colex index: the suit permutation carrying the
    #                                   board to it (int8 for k = 5)


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


def _permutation_codes(suits: int) -> I64:
    """``code -> index`` of each suit permutation (``code`` = its images as base-``suits`` digits)."""
    table = np.full(suits**suits, -1, dtype=np.int64)
    for index, perm in enumerate(permutations(range(suits))):
        code = 0
        for image in perm:
            code = code * suits + image
        table[code] = index
    return table


@njit(cache=True)
def _number_classes(canon: npt.NDArray[np.int32]) -> tuple[I64, I64]:
    """In place, each board's canonical board's number -> its canonical board's id (canonical
    boards numbered in colex order); returns the canonical boards' numbers and weights."""
    id_by_index = np.empty(len(canon), dtype=np.int32)
    count = 0
    for index in range(len(canon)):
        if canon[index] == index:
            id_by_index[index] = count
            count += 1
    numbers = np.empty(count, dtype=np.int64)
    weight = np.zeros(count, dtype=np.int64)
    for index in range(len(canon)):
        if canon[index] == index:
            numbers[id_by_index[index]] = index
        canon[index] = id_by_index[canon[index]]
        weight[canon[index]] += 1
    return numbers, weight


def board_classes(k: int, card_perm: I64, binom: I64, suits: int) -> BoardClasses:
    n = card_perm.shape[1]
    id_of, perm_of = _canonicalise(n, k, suits, binom, _permutation_codes(suits))
    numbers, weight = _number_classes(id_of)
    cards = _unrank_all(numbers, k, n, binom)
    if k == 5:  # 2.6 million boards: the narrowest types that hold them (30 MB less)
        return BoardClasses(k, cards, weight, id_of, perm_of)
    return BoardClasses(k, cards, weight, id_of.astype(np.int64), perm_of.astype(np.int64))


def build_symmetry(deck: DeckSpec) -> Symmetry:
    binom = binomial_table(deck.size)
    card_perm = _card_permutations(deck)
    return Symmetry(deck, binom, card_perm, _pair_permutations(card_perm).astype(np.int32),
                    board_classes(3, card_perm, binom, deck.suits),
                    board_classes(4, card_perm, binom, deck.suits),
                    board_classes(5, card_perm, binom, deck.suits))
