"""One live table's runner alone: N players bet, the deal, N decisions, in memory.

What the table's owner process spends on its own work for a betting window and a decision
point, without sockets, Redis or a database (``MemoryStore``, a publisher that drops the
messages): the part of a live round that grows with the players at the table and that no
other process can share. Before the round's seats were a ``SeatMap`` it grew as n².

    .venv/bin/python benchmarks/live_runner.py --players 4000 10000

Prints seconds per phase for each count (best of ``--repeat`` fresh runs).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Mapping
from typing import Any

from dealerpoker.games import get_game
from dealerpoker.server.live.ports import MemoryStore
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.tables.config import parse_tables

TABLE = ('[[tables]]\nid = "t"\ngame = "texas-bonus"\nbetting_seconds = 15\n'
         'decision_seconds = 10\npause_seconds = 4')


class Dropped:
    async def to_table(self, table_id: str, message: dict[str, Any]) -> None:
        return None

    async def to_players(self, table_id: str, messages: Mapping[str, dict[str, Any]]) -> None:
        return None


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def one_round(players: int) -> tuple[float, float, float]:
    table = parse_tables(TABLE)[0]
    names = [f"p{number}" for number in range(players)]
    clock = Clock()
    store = MemoryStore(dict.fromkeys(names, 10**9))
    runner = TableRunner(table, get_game("texas-bonus", table.rules), store, Dropped(), clock=clock,
                         watchers=lambda: players, new_seed=lambda: "ab" * 32, flush_delay=0.0)
    await runner.resume()
    await runner.advance()
    start = time.perf_counter()
    await asyncio.gather(*(runner.bet(name, {"ante": 100}) for name in names))
    bets = time.perf_counter() - start
    clock.now = 1015.0
    start = time.perf_counter()
    await runner.advance()
    deal = time.perf_counter() - start
    start = time.perf_counter()
    await asyncio.gather(*(runner.decide(name, "bet") for name in names))
    return bets, deal, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[1000, 4000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| players | bets, s | deal, s | decisions, s |\n|---|---|---|---|")
    for players in args.players:
        runs = [asyncio.run(one_round(players)) for _ in range(args.repeat)]
        best = [min(run[phase] for run in runs) for phase in range(3)]
        print(f"| {players:,} | {best[0]:.3f} | {best[1]:.3f} | {best[2]:.3f} |", flush=True)


if __name__ == "__main__":
    main()
