"""Walking up the decision tree: card sets' colex numbers, stabilisers and orbits, river classes.

Stage 2 gathers stage 1's results up the decision tree, each board looked up as (canonical board,
suit permutation). Texas: per canonical turn, the sums over rivers (:func:`texas_turns`: the
river decision), then per canonical flop over turns (:func:`texas_flops`); Casino: per canonical
turn over rivers (:func:`casino_turns`), per holding and final category, then added to the
turn's flops (:func:`casino_scatter`, :func:`casino_fold`). Both turn passes visit the rivers by
class (:func:`river_classes`: the rivers of one rank that cannot make a flush are worth the
same, so a turn's 48 rivers are 13 to 26 classes). Per canonical flop, its *stabiliser* (the
suit permutations that map it to itself) is used: only one turn per orbit under it is visited,
weighted by the orbit's size, and the per-holding sums are then averaged over the stabiliser's
images of each holding (exact: every image sees the same completions).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit, uint64

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
def river_classes(four: I64, n_cards: int, binom: I64, river_id: npt.NDArray[np.int32],
                  river_perm: npt.NDArray[np.int8], river_cards: I64, card_perm: I64, rank: I64,
                  suit: I64) -> tuple[I64, int, I64, I64, I64, I64]:
    """Where both games' turn passes start: the rivers of the sorted turn ``four`` in classes
    that give every holding the same standing. A river of a suit with at most one card on the
    turn cannot make a flush suit (three of a suit on the board) nor a flush in it, so every
    such river of one rank is worth the same to every holding of the same card types (swap the
    two rivers: each card keeps its rank and whether it is of the flush suit); a river of a
    suit with two or more cards on the turn is a class of its own.

    Returns ``rem`` (the cards off the turn, ascending), the number of classes, per class its
    size and canonical river board's row (of its first river), and per class and card of
    ``rem`` (``[class, k]``): the card's local number on that board, or -1 for the river
    itself; and per card of ``rem`` its class."""
    n_rem = n_cards - 4
    rem = np.empty(n_rem, dtype=np.int64)
    on_turn = np.zeros(4, dtype=np.int64)
    for i in range(4):
        on_turn[suit[four[i]]] += 1
    k = 0
    for c in range(n_cards):
        if c != four[0] and c != four[1] and c != four[2] and c != four[3]:
            rem[k] = c
            k += 1
    class_of_key = np.full(13 * 5, -1, dtype=np.int64)
    class_of = np.empty(n_rem, dtype=np.int64)
    sizes = np.zeros(n_rem, dtype=np.int64)
    first = np.empty(n_rem, dtype=np.int64)
    n_classes = 0
    for k in range(n_rem):
        c = rem[k]
        key = rank[c] if on_turn[suit[c]] <= 1 else 13 * (1 + suit[c]) + rank[c]
        if class_of_key[key] < 0:
            class_of_key[key] = n_classes
            first[n_classes] = k
            n_classes += 1
        class_of[k] = class_of_key[key]
        sizes[class_of[k]] += 1
    rows = np.empty(n_classes, dtype=np.int64)
    local = np.empty((n_classes, n_rem), dtype=np.int64)
    for x in range(n_classes):
        r = rem[first[x]]
        index = index_with(four, r, binom)
        row = river_id[index]
        rows[x] = row
        canonical = river_cards[row]
        perm = river_perm[index]
        for k in range(n_rem):
            if rem[k] == r:
                local[x, k] = -1
                continue
            image = card_perm[perm, rem[k]]
            below = 0
            for i in range(5):
                if canonical[i] < image:
                    below += 1
            local[x, k] = image - below
    return rem, n_classes, sizes[:n_classes], rows, local, class_of


@njit(cache=True, inline="always")
def class_card_types(x: int, row: int, local: I64, class_of: I64, type_id: npt.NDArray[np.uint8],
                     tid: npt.NDArray[np.uint64]) -> int:
    """The card types (see :func:`dealerpoker.analysis.kernels.board.board_stats`) of the cards
    off the turn on the river board of class ``x`` (``row``, ``local``: from
    :func:`river_classes`): ``tid[k]`` for card ``k``; the river itself takes its classmates'
    type (it stands for them). Returns the number of types on that board."""
    n_types = 0
    first = -1
    for k in range(len(local)):
        if local[k] < 0:
            first = k
            continue
        t = type_id[row, local[k]]
        tid[k] = uint64(t)
        n_types = max(n_types, t + 1)
    tid[first] = 0
    for k in range(len(local)):
        if k != first and class_of[k] == x:
            tid[first] = tid[k]
    return n_types
