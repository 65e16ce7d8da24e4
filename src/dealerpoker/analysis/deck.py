"""The deck an analysis runs on: the full 52 cards, or a reduced deck for cross-checks.

The solver works on *local* card numbers ``0 .. n-1`` (ordered like the global indices of
``docs/CONTRACTS.md`` §1, rank-major); :class:`DeckSpec` maps them to global ranks, suits and
card indices. A reduced deck (fewer ranks, fewer suits) keeps the real hand ranking, so a
brute-force enumerator can check the fast solver exactly on it.

>>> FULL_DECK.size, FULL_DECK.pairs
(52, 1326)
>>> small = DeckSpec(ranks=(0, 1, 2, 3, 4, 12), suits=3)
>>> small.size, [small.global_index(c) for c in range(4)]
(18, [0, 1, 2, 4])
>>> DeckSpec.parse(small.key()) == small
True
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
import numpy.typing as npt

from dealerpoker.cards import RANK_CHARS, SUIT_CHARS
from dealerpoker.errors import InvalidHandError


@dataclass(frozen=True, slots=True)
class DeckSpec:
    """Which ranks (global 0 = Two .. 12 = Ace) and how many suits (first ``suits`` of c d h s)."""

    ranks: tuple[int, ...] = tuple(range(13))
    suits: int = 4

    def __post_init__(self) -> None:
        if list(self.ranks) != sorted(set(self.ranks)) or not all(0 <= r <= 12 for r in self.ranks):
            raise ValueError(f"deck ranks must be distinct, ascending, 0..12: {self.ranks}")
        if not 1 <= self.suits <= 4:
            raise ValueError(f"deck suits must be 1..4, got {self.suits}")
        if self.size < 9:
            raise ValueError("a deck needs at least 9 cards for one round")

    @property
    def size(self) -> int:
        return len(self.ranks) * self.suits

    @property
    def pairs(self) -> int:
        return comb(self.size, 2)

    @property
    def is_full(self) -> bool:
        return self.size == 52

    def global_index(self, local: int) -> int:
        return self.ranks[local // self.suits] * 4 + local % self.suits

    def local_index(self, global_index: int) -> int:
        rank, suit = divmod(global_index, 4)
        if rank not in self.ranks or suit >= self.suits:
            raise InvalidHandError(f"card {RANK_CHARS[rank]}{SUIT_CHARS[suit]} is not in this deck")
        return self.ranks.index(rank) * self.suits + suit

    def rank_array(self) -> npt.NDArray[np.int64]:
        """Global rank of each local card."""
        return np.array([self.ranks[c // self.suits] for c in range(self.size)], dtype=np.int64)

    def suit_array(self) -> npt.NDArray[np.int64]:
        return np.array([c % self.suits for c in range(self.size)], dtype=np.int64)

    def global_array(self) -> npt.NDArray[np.int64]:
        return np.array([self.global_index(c) for c in range(self.size)], dtype=np.int64)

    def key(self) -> str:
        return "".join(RANK_CHARS[r] for r in self.ranks) + f"x{self.suits}"

    @classmethod
    def parse(cls, text: str) -> DeckSpec:
        """The inverse of :meth:`key`: ``"23456Ax3"`` is 2 3 4 5 6 A in three suits."""
        ranks, _, suits = text.strip().upper().partition("X")
        try:
            return cls(tuple(RANK_CHARS.index(r) for r in ranks), int(suits))
        except ValueError as error:
            raise InvalidHandError(f"deck {text!r}: expected ranks then x and a suit count, "
                                   f"e.g. 23456789TJQKAx4 or 23456Ax3 ({error})") from None


FULL_DECK = DeckSpec()
# 2-6 and the ace in three suits (18 cards): every deal of it can be enumerated, and it still has
# straights (wheel and six-high), flushes, the 4s qualifier and aces, so the solver is checked
# against brute force on it (tests/analysis) and its kernels compiled on it (scripts/).
SMALL_DECK = DeckSpec(ranks=(0, 1, 2, 3, 4, 12), suits=3)


def pair_index(a: int, b: int) -> int:
    """Index of the unordered pair of local cards ``{a, b}`` (colex order)."""
    if a > b:
        a, b = b, a
    return b * (b - 1) // 2 + a
