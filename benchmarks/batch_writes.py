"""A live table's batch writes at N seats: one statement per batch against one per row.

The largest writes of a live round are its batches: a settlement's ledger postings (a balance
and two entries per seat that won something) and its seats' rows (inserted at the deal, updated
at each point and at the settlement). ``Connection.insert_many``/``update_many`` send a batch as
one statement over arrays on PostgreSQL (``server/bulk.py``); the peer here sends the same
statements once per row (asyncpg's ``executemany``: what the server did before), through the
same code otherwise (``ledger.post``, the same rows). On SQLite both are ``executemany``.

For each database: N players, then ``--repeat`` times each of: ``ledger.post`` of N credits
(a settlement), N seat rows inserted, the same N rows updated, each in its own unit of work;
the median wall time and the server process's CPU time of each.

    .venv/bin/python benchmarks/batch_writes.py --seats 10000 --postgres postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Table

from _processes import postgres_database
from _results import machine, write_section
from dealerpoker.games.currency import house_account
from dealerpoker.server import bulk, ledger
from dealerpoker.server.db import Database, PostgresConnection, Values
from dealerpoker.server.schema import accounts, live_seats

HOUSE = house_account("EUR")
AT = "2026-12-07T00:00:00.000000Z"


class PerRow:
    """A PostgreSQL connection whose batches are one statement per row (the peer)."""

    def __init__(self, connection: PostgresConnection) -> None:
        self._connection = connection

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)

    async def insert_many(self, table: Table, rows: Sequence[Values], *,
                          replacing: tuple[str, ...] = ()) -> None:
        if rows:
            await self._connection.run(bulk.insert_statement(table, tuple(rows[0]), replacing), rows)

    async def update_many(self, table: Table, keys: tuple[str, ...], rows: Sequence[Values], *,
                          adding: tuple[str, ...] = ()) -> None:
        if rows:
            statement = bulk.update_statement(table, keys, tuple(rows[0]), adding)
            await self._connection.run(statement, bulk.by_parameter(rows))


async def timed(database: Database, per_row: bool,
                work: Callable[[Any], Awaitable[Any]]) -> tuple[float, float]:
    began, cpu = time.perf_counter(), time.process_time()
    async with database.transaction() as connection:
        per_row = per_row and isinstance(connection, PostgresConnection)
        await work(PerRow(connection) if per_row else connection)
    return time.perf_counter() - began, time.process_time() - cpu


async def measure(url: str, seats: int, repeat: int) -> dict[str, dict[str, tuple[float, float]]]:
    database = Database(url)
    await database.migrate()
    players = [f"p_{secrets.token_hex(7)}" for _ in range(seats)]
    async with database.transaction() as connection:
        await connection.insert_many(accounts, [{"id": p, "kind": "player", "balance": 1_000_000,
                                                 "created_at": AT, "currency": "EUR"} for p in players])
    figures: dict[str, dict[str, list[tuple[float, float]]]] = {}
    methods = ("one statement per batch", "one statement per row") if not database.is_sqlite \
        else ("executemany",)
    for n in range(repeat):
        for method in methods:
            per_row = method == "one statement per row"
            mark = f"{n}-{int(per_row)}"
            credits = [ledger.Transfer(f"b{mark}:{p}:settle", p, 200, "settle") for p in players]
            rows = [{"table_id": f"bench-{mark}", "number": 1, "player_id": p, "bets": '{"ante":100}',
                     "steps": "[]", "total_stake": 100, "total_returned": None, "updated_at": AT,
                     "settlement": None, "promo": None, "jackpot": None} for p in players]
            settled = [{**row, "steps": json.dumps([{"point": "preflop", "action": "bet", "stake": 200}]),
                        "total_returned": 500, "settlement": '{"outcome":"win","net":300}'} for row in rows]
            work: dict[str, Callable[[Any], Awaitable[Any]]] = {
                "ledger.post, a credit per seat": lambda c, t=credits: ledger.post(  # type: ignore[misc]
                    c, t, house=HOUSE, at=AT, round_id="bench", new=True),
                "seat rows inserted": lambda c, r=rows: c.insert_many(live_seats, r),  # type: ignore[misc]
                "seat rows updated": lambda c, r=settled: c.update_many(  # type: ignore[misc]
                    live_seats, ("table_id", "number", "player_id"), r),
            }
            for what, call in work.items():
                runs = figures.setdefault(what, {}).setdefault(method, [])
                runs.append(await timed(database, per_row, call))
    await database.dispose()
    return {what: {method: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
                   for method, runs in by_method.items()} for what, by_method in figures.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seats", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--postgres", metavar="ADMIN_URL",
                        help="also on a scratch PostgreSQL database made there")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    lines = [f"Measured {machine()}; {args.seats:,} seats, median of {args.repeat} units of work each "
             "(wall time, and the CPU time of the server's process, ms).", "",
             "| database | write | method | wall ms | server CPU ms |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        targets = [("SQLite", f"sqlite:///{Path(tmp) / 'batch.db'}")]
        scratch = f"dealerpoker_batch_{secrets.token_hex(4)}"
        if args.postgres:
            postgres_database(args.postgres, "create", scratch)
            targets.append(("PostgreSQL", args.postgres.rsplit("/", 1)[0] + f"/{scratch}"))
        try:
            for name, url in targets:
                for what, by_method in asyncio.run(measure(url, args.seats, args.repeat)).items():
                    for method, (wall, cpu) in by_method.items():
                        lines.append(f"| {name} | {what} | {method} | {wall * 1000:.0f} | {cpu * 1000:.0f} |")
                        print(lines[-1], flush=True)
        finally:
            if args.postgres:
                postgres_database(args.postgres, "drop", scratch)
    command = " ".join(["benchmarks/batch_writes.py", *sys.argv[1:]]).replace(" --no-write", "")
    body = f"`.venv/bin/python {command}`\n\n" + "\n".join(lines)
    if not args.no_write:
        write_section("One statement per batch", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
