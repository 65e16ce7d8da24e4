"""The seats of a live round, changed one player at a time without copying every seat.

A ``LiveRound`` is immutable: each bet and each decision makes a new round. With its seats in a
plain dict, every change copied all of them, so a table of n players spent O(n²) on one betting
window (``benchmarks/live_runner.py``: 10,000 bets took the table's owner 3.0 s; 0.76 s with
this). ``SeatMap`` keeps the seats as a shared base that is never changed and a small dict of the
changes since; a change copies the changes only, and folds them into a new base once they
outgrow the square root of the base. One change costs O(√n) amortised.

It behaves as a read-only dict in everything the round's code asks of it: lookups, length,
equality with any mapping, and the order of a dict built the same way (a new player comes last,
a changed seat keeps its place, a removed one leaves and comes back last). A library's
persistent map (``immutables``, a HAMT) would iterate in hash order, which varies between
processes: the seats' order goes into the round's audit record, which must not.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from math import isqrt
from typing import Generic, TypeVar

V = TypeVar("V")

FOLD_AT_LEAST = 32  # changes kept aside before a fold, at any size (small tables fold rarely too)


class SeatMap(Mapping[str, V], Generic[V]):
    __slots__ = ("_base", "_changes")

    def __init__(self, seats: Mapping[str, V] | None = None) -> None:
        self._base: dict[str, V] = dict(seats or {})
        self._changes: dict[str, V] = {}

    @classmethod
    def _sharing(cls, base: dict[str, V], changes: dict[str, V]) -> SeatMap[V]:
        made = cls.__new__(cls)
        made._base, made._changes = base, changes
        return made

    @classmethod
    def of(cls, seats: Mapping[str, V]) -> SeatMap[V]:
        """``seats`` as a SeatMap (itself, when it is one already: nothing is copied)."""
        return seats if isinstance(seats, SeatMap) else cls(seats)

    def set(self, key: str, value: V) -> SeatMap[V]:
        """A map with ``key`` set to ``value`` (a new key comes last); this one is unchanged."""
        changes = {**self._changes, key: value}
        if len(changes) > max(FOLD_AT_LEAST, isqrt(len(self._base))):
            return SeatMap({**self._base, **changes})
        return SeatMap._sharing(self._base, changes)

    def without(self, key: str) -> SeatMap[V]:
        """A map without ``key`` (rare: a player withdrawing their bets), folded at once."""
        if key not in self:
            return self
        return SeatMap({k: v for k, v in self.items() if k != key})

    def __getitem__(self, key: str) -> V:
        changes = self._changes
        return changes[key] if key in changes else self._base[key]

    def __contains__(self, key: object) -> bool:
        return key in self._changes or key in self._base

    def __len__(self) -> int:
        return len(self._base) + sum(1 for key in self._changes if key not in self._base)

    def __iter__(self) -> Iterator[str]:
        yield from self._base
        yield from (key for key in self._changes if key not in self._base)

    def __repr__(self) -> str:
        return f"SeatMap({dict(self.items())!r})"
