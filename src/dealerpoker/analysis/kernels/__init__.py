"""The solver's numba kernels: per-board holding statistics, then the games' passes up the tree.

The kernels by concern: :mod:`.board` (stage 1, per canonical river board), :mod:`.tree` (card
sets' numbers, stabilisers and orbits, shared by the passes), :mod:`.texas` and :mod:`.casino`
(stage 2, each game's pass up the tree). Numba caches each module's compiled code on disk
(``__pycache__``) and revalidates it by that module's own file only: after changing a helper
in :mod:`.tree`, delete the cached ``*.nbi``/``*.nbc`` files of its callers.
"""

import os

# The parallel kernels run on OpenMP (numba's default threading layer here), whose idle threads
# spin between and at the end of parallel loops. On a shared machine that burns CPU the working
# thread needs: `analyze texas-bonus --no-cache` took 9.9-11.7 s CPU spinning, 7.3-7.5 s passive,
# and no more wall time (benchmarks/RESULTS.md). Set before numba starts its thread pool (its
# first parallel call); a caller's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from dealerpoker.analysis.kernels.board import (
    BELOW_QUALIFIER,
    CATEGORY_OF_CODE,
    QUALIFIES,
    board_stats,
    type_counts,
)
from dealerpoker.analysis.kernels.casino import (
    CASINO_K,
    STRATEGY_CLASSES,
    casino_fold,
    casino_scatter,
    casino_turns,
    five_card_class_counts,
    flop_situation_class,
    situation_classes,
)
from dealerpoker.analysis.kernels.texas import TEXAS_K, texas_flops, texas_turns

__all__ = ["BELOW_QUALIFIER", "CASINO_K", "CATEGORY_OF_CODE", "QUALIFIES", "STRATEGY_CLASSES", "TEXAS_K",
           "board_stats", "casino_fold", "casino_scatter", "casino_turns",
           "five_card_class_counts", "flop_situation_class",
           "situation_classes", "texas_flops", "texas_turns", "type_counts"]
