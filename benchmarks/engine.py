"""Engine throughput: whole rounds (start, every decision, settlement) per second, per game.

    .venv/bin/python benchmarks/engine.py [--rounds 20000]

Decks come from a seeded ``random.Random`` (reproducible); decisions are random legal actions.
This is the pure Python engine with the scalar evaluator: the server's per-round cost, not a
simulator's (simulations use the numba kernels). Writes the "Engine" section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import random
import time

from _results import machine, write_section
from dealerpoker.games import get_game


def rounds_per_second(name: str, rounds: int, seed: int) -> tuple[float, float]:
    """Rounds per second of wall-clock time and of this process's CPU time."""
    game = get_game(name)
    rng = random.Random(seed)
    deck = list(range(52))
    ante = game.rules.limits["ante"].min
    side = game.opening_fields[1]
    started, cpu_started = time.perf_counter(), time.process_time()
    for _ in range(rounds):
        rng.shuffle(deck)
        state = game.start({"ante": ante, side: ante}, deck)
        while not state.is_settled:
            state, _ = game.apply(state, rng.choice(game.legal_actions(state)))
    return rounds / (time.perf_counter() - started), rounds / (time.process_time() - cpu_started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    args = parser.parse_args()
    rows = ["| game | rounds | rounds/s (wall) | rounds/s (CPU) |", "|---|---:|---:|---:|"]
    for name in ("texas-bonus", "casino-holdem"):
        wall, cpu = rounds_per_second(name, args.rounds, seed=2026)
        rows.append(f"| {name} | {args.rounds:,} | {wall:,.0f} | {cpu:,.0f} |")
        print(rows[-1])
    body = "\n".join([
        f"Measured {machine()} with `.venv/bin/python benchmarks/engine.py --rounds {args.rounds}`.",
        "Whole rounds through the pure engine (random legal decisions, scalar evaluator). The machine",
        "is shared by several helpers at once, so these figures are pessimistic (the wall-clock rate",
        "most; the CPU-time rate counts only this process's own time).",
        "",
        *rows,
    ])
    write_section("Engine", body)


if __name__ == "__main__":
    main()
