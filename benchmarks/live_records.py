"""Audit records of a big live round: read back, verified, and a player's own part.

Plays one texas-bonus round with N seated players through the real table runner and SQL store
(SQLite in a temporary directory, an injected clock: no waiting), each with random bets and
random decisions, then times:

- reading the whole round's record back from the database (every seat, every ledger entry, as
  ``dealerpoker export`` does);
- ``verify_record`` on it (commitment, deck, reveals, client seed from every seat's bets, and
  every seat replayed, re-settled and checked against its ledger transfers);
- one player's part (``GET /api/tables/{id}/rounds/{n}/record``) and their history page;
- the last decision point and the settlement (two commits; the settlement now also stores
  each seat's settlement lines).

    .venv/bin/python benchmarks/live_records.py                  # 2,000 players
    .venv/bin/python benchmarks/live_records.py --players 500 --no-write
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _results import machine, write_section
from dealerpoker.fairness.verify import verify_record
from dealerpoker.games import get_game
from dealerpoker.server.accounts import create_player
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Database
from dealerpoker.server.live.audit import LiveRecords, live_records_between, store_table_rules
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.server.live.sqlstore import SqlStore
from dealerpoker.tables.config import parse_tables

TABLE = """
[[tables]]
id = "bench"
game = "texas-bonus"
betting_seconds = 15
decision_seconds = 10
pause_seconds = 4
"""


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 12, tzinfo=UTC).timestamp()

    def __call__(self) -> float:
        return self.now


class Quiet:
    async def to_table(self, table_id: str, message: dict[str, Any]) -> None:
        pass

    async def to_players(self, table_id: str, messages: Any, balances: Any = None) -> None:
        pass


async def measure(players: int, directory: str, rng: random.Random) -> dict[str, float]:
    table = parse_tables(TABLE)[0]
    clock = Clock()
    database = Database(f"sqlite:///{directory}/records.db")
    await database.migrate()
    figures: dict[str, float] = {}
    try:
        at = timestamp(datetime.fromtimestamp(clock(), UTC))
        await store_table_rules(database, [table], at)
        ids = []
        async with database.transaction() as connection:
            for _ in range(players):
                ids.append((await create_player(connection, starting_balance=1_000_000, at=at)).player_id)
        store = SqlStore(database, lambda: timestamp(datetime.fromtimestamp(clock(), UTC)))
        runner = TableRunner(table, get_game(table.game, table.rules), store, Quiet(), clock=clock,
                             watchers=lambda: 1)
        await runner.advance()
        for player in ids:
            bets = {"ante": rng.choice((100, 200, 500))}
            if rng.random() < 0.5:
                bets["bonus"] = 100
            await runner.bet(player, bets)
        clock.now += 15
        await runner.advance()
        while runner.round is not None and str(runner.round.phase) == "decision":
            for seat in runner.round.at_point():
                if rng.random() < 0.8:
                    await runner.decide(seat.player_id, rng.choice(runner.game.legal_actions(seat.state)))
            clock.now += 10
            started = time.perf_counter()
            await runner.advance()
            if runner.round is not None and str(runner.round.phase) == "pause":
                figures["last decision + settlement commits s"] = time.perf_counter() - started
        started = time.perf_counter()
        async with database.transaction() as connection:
            (record,) = [r async for r in live_records_between(connection, "2026-11-29", "2026-11-30")]
        figures["read whole record s"] = time.perf_counter() - started
        figures["record MB"] = len(json.dumps(record, separators=(",", ":"))) / 1e6
        started = time.perf_counter()
        findings = verify_record(record)
        figures["verify s"] = time.perf_counter() - started
        bad = [str(f) for f in findings if not f.ok]
        assert not bad, bad[:5]
        records = LiveRecords(database)
        started = time.perf_counter()
        mine = await records.player_record(ids[0], "bench", 1)
        figures["player part ms"] = 1000 * (time.perf_counter() - started)
        assert all(f.ok for f in verify_record(mine))
        started = time.perf_counter()
        await records.history(ids[0], limit=20, before=None)
        figures["history ms"] = 1000 * (time.perf_counter() - started)
    finally:
        await database.dispose()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        figures = asyncio.run(measure(args.players, directory, random.Random(args.seed)))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    rows = "\n".join(f"| {name} | {value:,.3f} |" for name, value in figures.items())
    command = f".venv/bin/python benchmarks/live_records.py --players {args.players}"
    body = f"""Measured {machine()} with `{command}`;
load average at the end {load} (a shared machine: pessimistic figures, to be rerun idle).

One texas-bonus round, {args.players:,} seats with random bets and decisions, SQLite; whole
record = every seat and ledger entry (`dealerpoker export`), verified with every seat replayed.

| measure | value |
|---|---:|
{rows}
"""
    print(body)
    if not args.no_write:
        write_section("Live round records", body)


if __name__ == "__main__":
    main()
