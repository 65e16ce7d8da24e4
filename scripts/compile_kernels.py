"""Compile the numba kernels into their on-disk caches (``__pycache__``, ``cache=True``) once.

``make test`` runs this beside the linters and the type check, before pytest's workers start: on
a fresh clone each worker otherwise compiled the same kernels when it first met them, about 55 s
of a core each for the exact solver alone. Each kernel is compiled for the argument types the
code gives it, by calling the public entry points on small inputs (the reduced deck the analysis
tests use); a kernel this misses is compiled where it is first used, as before.
"""

from __future__ import annotations

import time

import numpy as np

from dealerpoker.analysis.deck import SMALL_DECK as SMALL
from dealerpoker.analysis.exact import Solver
from dealerpoker.analysis.jackpot import jackpot_figures, simulate_jackpot
from dealerpoker.analysis.rtp import solver_tables
from dealerpoker.analysis.simulate import simulate
from dealerpoker.evaluator.api import categorize_batch, evaluate_batch
from dealerpoker.games.jackpot import load_jackpot
from dealerpoker.games.rules import load_rules


def main() -> None:
    began = time.monotonic()
    solver = Solver(SMALL)
    for game, side in (("texas-bonus", "bonus"), ("casino-holdem", "aa")):
        rules = load_rules(game)
        analysis = solver.texas(rules) if game == "texas-bonus" else solver.casino(rules)
        simulate(rules, 1_000, seed=1, bets={"ante": 1, side: 1}, deck=SMALL, strategy="optimal",
                 tables=solver_tables(solver, analysis.tables))
    jackpot = load_jackpot()
    jackpot_figures(jackpot, deck=SMALL)
    simulate_jackpot(jackpot, 1_000, 1_000, 1)
    for size in (5, 6, 7):
        categorize_batch(evaluate_batch(np.arange(size, dtype=np.int64).reshape(1, size)))
    print(f"numba kernels compiled or found in their caches in {time.monotonic() - began:.1f} s")


if __name__ == "__main__":
    main()
