"""The garbage collector of a ``serve`` process, tuned for thousands of open sockets.

CPython's collector stops the process for a full collection, which walks every object the
process holds. With 4,000 players at one live table that is about 1.1 million objects, and the
default thresholds ``(700, 10, 10)`` ran a full collection every 3 to 5 seconds, each a pause of
650 to 740 ms (measured on 2026-12-05 with a ``gc.callbacks`` probe in
``benchmarks/live.py --players 4000``). A table event stamped just before such a pause reached
every player 0.7 s late, which alone broke the 500 ms delivery target.

A young collection every 50,000 allocations instead of every 700 lets the short-lived objects of
a message (its dicts, futures and frames) die before they are examined, so few reach the old
generation and full collections become rare: the same benchmark ran two rounds with none. What
was built before serving (modules, the app, its tables) is frozen out of every collection.
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 10)
"""``gc.set_threshold``'s: allocations per young collection, young collections per middle one,
middle ones per full one (CPython also waits until a quarter of the old objects are new)."""


def collect_less_often() -> None:
    """Once the app is built and before it serves: what exists now is never collected again (it
    lives as long as the process), and collections come less often (``THRESHOLDS``)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
