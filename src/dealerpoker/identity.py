"""A value computed once per object, the object known by its identity.

The seats of a live table that played alike share one engine state, one view, one settlement
(``tables.table.SharedStates``): what is made from such an object is made once for all of them.
Equal is not enough to know them by (a state's equality compares its whole deck and history,
and a view is a dict, unhashable); the same object is, and costs a lookup. An object is known
by its ``id`` only while it lives, so it is held here for as long as its value is.

>>> lengths = ByIdentity(len)
>>> shared = [1, 2, 3]
>>> lengths(shared), lengths(shared), lengths([1, 2, 3])
(3, 3, 3)
>>> len(lengths)  # the two equal lists are two objects
2
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """``compute(key)`` once for each object given (while this lives, so does the object)."""

    def __init__(self, compute: Callable[[K], V]) -> None:
        self._compute = compute
        self._known: dict[int, tuple[K, V]] = {}

    def __call__(self, key: K) -> V:
        known = self._known.get(id(key))
        if known is None:
            known = self._known[id(key)] = (key, self._compute(key))
        return known[1]

    def __len__(self) -> int:
        return len(self._known)
