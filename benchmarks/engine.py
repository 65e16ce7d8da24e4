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


def rounds_per_second(name: str, rounds: int, seed: int) -> float:
    game = get_game(name)
    rng = random.Random(seed)
    deck = list(range(52))
    ante = game.rules.limits["ante"].min
    side = game.opening_fields[1]
    started = time.perf_counter()
    for _ in range(rounds):
        rng.shuffle(deck)
        state = game.start({"ante": ante, side: ante}, deck)
        while not state.is_settled:
            state, _ = game.apply(state, rng.choice(game.legal_actions(state)))
    return rounds / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    args = parser.parse_args()
    rows = ["| game | rounds | rounds/s |", "|---|---:|---:|"]
    for name in ("texas-bonus", "casino-holdem"):
        rate = rounds_per_second(name, args.rounds, seed=2026)
        rows.append(f"| {name} | {args.rounds:,} | {rate:,.0f} |")
        print(rows[-1])
    body = "\n".join([
        f"Measured {machine()} with `.venv/bin/python benchmarks/engine.py --rounds {args.rounds}`.",
        "Whole rounds through the pure engine (random legal decisions, scalar evaluator). The machine",
        "is shared by several helpers at once, so these figures are pessimistic.",
        "",
        *rows,
    ])
    write_section("Engine", body)


if __name__ == "__main__":
    main()
