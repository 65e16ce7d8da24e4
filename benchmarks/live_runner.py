"""One live table's runner alone: N players bet, the deal, N decisions, a whole round, in memory.

What the table's owner process spends on its own work for a round, without sockets, Redis or a
database (``MemoryStore``; a publisher that serialises the messages as the real ones do, in
stamped batches, and drops the texts): the part of a live round that grows with the players at
the table. Before the round's seats were a ``SeatMap`` it grew as n². Every player bets the
ante and the Bonus, then plays one of three ways (bet every street; bet the flop, then check;
fold), as a crowd does: a few distinct ways among thousands of players.

    .venv/bin/python benchmarks/live_runner.py --players 4000 10000

Prints seconds per phase for each count (best of ``--repeat`` fresh runs): the bets, the deal
(commit and the players' messages), the players' decisions at the three points, and closing
the three points (their stakes, the next street and the messages; the last one's reveal, the
settlement's commit and its messages).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Mapping
from typing import Any

from dealerpoker.games import get_game
from dealerpoker.server.garbage import collect_less_often
from dealerpoker.server.live.cluster import player_lines
from dealerpoker.server.live.hub import serialise, stamped_batches
from dealerpoker.server.live.ports import MemoryStore
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.tables.config import parse_tables

TABLE = ('[[tables]]\nid = "t"\ngame = "texas-bonus"\nbetting_seconds = 15\n'
         'decision_seconds = 10\npause_seconds = 4')


class Serialised:
    """Serialises as the owner of a table among several processes does (``hub.stamped_batches``:
    the texts for its own sockets and the lines for the others), then drops them."""

    async def to_table(self, table_id: str, message: dict[str, Any]) -> None:
        serialise(message, time.time())

    async def to_players(self, table_id: str, messages: Mapping[str, dict[str, Any]],
                         balances: Mapping[str, int] | None = None) -> None:
        if balances is None:  # a runner from before balances were given apart: they are in the messages
            batches = stamped_batches(messages.items(), time.time)
        else:
            batches = stamped_batches(messages.items(), time.time, balances)
        for batch in batches:
            _texts = batch.texts() if hasattr(batch, "texts") else batch  # the owner's own sockets'
            player_lines(batch)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


PHASES = ("bets", "deal", "decisions", "points closed and the settlement told")
#: What each kind of player does at preflop, flop and turn (a fold ends their round).
WAYS = (("bet", "bet", "bet"), ("bet", "bet", "check"), ("fold",))


async def one_round(players: int) -> tuple[float, ...]:
    table = parse_tables(TABLE)[0]
    names = [f"p{number}" for number in range(players)]
    clock = Clock()
    store = MemoryStore(dict.fromkeys(names, 10**9))
    runner = TableRunner(table, get_game("texas-bonus", table.rules), store, Serialised(), clock=clock,
                         watchers=lambda: players, new_seed=lambda: "ab" * 32, flush_delay=0.0)
    await runner.resume()
    await runner.advance()
    start = time.perf_counter()
    await asyncio.gather(*(runner.bet(name, {"ante": 100, "bonus": 100}) for name in names))
    bets = time.perf_counter() - start
    clock.now = 1015.0
    start = time.perf_counter()
    await runner.advance()
    deal = time.perf_counter() - start
    decisions = closing = 0.0
    for street in range(3):  # everyone decides, so each point closes at once
        start = time.perf_counter()
        ways = ((name, WAYS[number % 3]) for number, name in enumerate(names))
        await asyncio.gather(*(runner.decide(name, way[street]) for name, way in ways if street < len(way)))
        decisions += time.perf_counter() - start
        start = time.perf_counter()
        await runner.advance()
        closing += time.perf_counter() - start
    assert runner.round is not None and str(runner.round.phase) == "pause", "the last point closed settles"
    return bets, deal, decisions, closing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[1000, 4000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    collect_less_often()  # as a ``serve`` process does before it serves
    print("| players | " + " | ".join(f"{phase}, s" for phase in PHASES) + " |")
    print("|---|" + "---|" * len(PHASES))
    for players in args.players:
        runs = [asyncio.run(one_round(players)) for _ in range(args.repeat)]
        best = [min(run[phase] for run in runs) for phase in range(len(PHASES))]
        print(f"| {players:,} | " + " | ".join(f"{value:.3f}" for value in best) + " |", flush=True)


if __name__ == "__main__":
    main()
