"""Walking up the decision tree: card sets' colex numbers, stabilisers and orbits, local cards.

Stage 2 gathers stage 1's results up the decision tree, each board looked up as (canonical board,
suit permutation). Texas: per canonical turn, the sums over rivers (:func:`texas_turns`: the
river decision), then per canonical flop over turns (:func:`texas_flops`); Casino: per canonical
turn over rivers (:func:`casino_turns`), per holding and final category, then added to the
turn's flops (:func:`casino_scatter`, :func:`casino_fold`). Both turn passes start from
:func:`river_orbits`. A canonical
board's *stabiliser* (the suit permutations that map it to itself) is used too: only one
completion per orbit under it is visited, weighted by the orbit's size, and the per-holding sums
are then averaged over the stabiliser's images of each holding (exact: every image sees the same
completions).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

I64 = npt.NDArray[np.int64]


@njit(cache=True)
def stabiliser(cards: I64, card_perm: I64, out: I64) -> int:
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
def orbit_size(t: int, r: int, card_perm: I64, group: I64, n_group: int) -> int:
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


@njit(cache=True)
def local_cards(board: I64, canonical: I64, card_perm: I64, perm: int, n_cards: int,
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
def cards_off_flop(flop: I64, n_cards: int, n_rem: int) -> I64:
    """The deck's cards that are not on the flop, ascending."""
    rem = np.empty(n_rem, dtype=np.int64)
    k = 0
    for c in range(n_cards):
        if c != flop[0] and c != flop[1] and c != flop[2]:
            rem[k] = c
            k += 1
    return rem


@njit(cache=True)
def board_index(flop: I64, t: int, r: int, binom: I64) -> int:
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
def index_with(cards: I64, extra: int, binom: I64) -> int:
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
def river_orbits(four: I64, n_cards: int, binom: I64, river_id: npt.NDArray[np.int32],
                 river_perm: npt.NDArray[np.int8], river_cards: I64,
                 card_perm: I64) -> tuple[I64, int, int, I64, I64, I64, I64]:
    """Where both games' turn passes start: the sorted turn ``four``'s stabiliser (``group``,
    ``n_group``) and its rivers, one per orbit under it. For the ``k``-th of the ``n_rivers``:
    its orbit's size, its canonical river board's row, and the cards off the board (``off[k]``,
    ascending) with their local numbers on the canonical board (``local[k]``)."""
    group = np.empty(card_perm.shape[0], dtype=np.int64)
    n_group = stabiliser(four, card_perm, group)
    sizes = np.empty(n_cards, dtype=np.int64)
    rows = np.empty(n_cards, dtype=np.int64)
    off = np.empty((n_cards, n_cards - 5), dtype=np.int64)
    local = np.empty((n_cards, n_cards - 5), dtype=np.int64)
    board = np.empty(5, dtype=np.int64)
    board[:4] = four
    k = 0
    for r in range(n_cards):
        if r == four[0] or r == four[1] or r == four[2] or r == four[3]:
            continue
        size = orbit_size(r, -1, card_perm, group, n_group)
        if size == 0:
            continue
        index = index_with(four, r, binom)
        row = river_id[index]
        board[4] = r
        local_cards(board, river_cards[row], card_perm, river_perm[index], n_cards, off[k], local[k])
        sizes[k], rows[k] = size, row
        k += 1
    return group, n_group, k, sizes, rows, off, local
