"""One live round on a fake clock against the real SQL store, for the audit-record tests:
alice bets pre-flop then checks by default, bob folds by the timer, carol's bet is refused."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dealerpoker.fairness.verify import verify_record
from dealerpoker.games import get_game
from dealerpoker.server.accounts import NewPlayer, create_player
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Database
from dealerpoker.server.live.audit import LiveRecords, live_records_between, store_table_rules
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.server.live.sqlstore import SqlStore
from dealerpoker.tables.config import TableConfig, parse_tables

SEED = "cd" * 32
START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC).timestamp()
TABLE = """
[[tables]]
id = "audit-t"
game = "texas-bonus"
betting_seconds = 15
decision_seconds = 10
pause_seconds = 4
"""


class FakeClock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now

    def iso(self, offset: float) -> str:
        return timestamp(datetime.fromtimestamp(START + offset, UTC))


class Quiet:
    async def to_table(self, table_id: str, message: dict[str, Any]) -> None:
        pass

    async def to_players(self, table_id: str, messages: Any, balances: Any = None) -> None:
        pass


def failures(record: dict[str, Any]) -> list[str]:
    return [str(f) for f in verify_record(record) if not f.ok]


async def texas_round(url: str, table: TableConfig, clock: FakeClock,
                       seed: str = SEED) -> dict[str, NewPlayer]:
    """One round: alice bets pre-flop (at +20) then checks by default, bob folds by the timer,
    carol's bet is refused at the close (she cannot cover it)."""
    database = Database(url)
    await database.migrate()
    try:
        await store_table_rules(database, [table], clock.iso(0))
        players = {}
        async with database.transaction() as connection:
            for name, balance in (("alice", 10_000), ("bob", 10_000), ("carol", 150)):
                players[name] = await create_player(connection, starting_balance=balance, at=clock.iso(0),
                                                    id_factory=lambda name=name: f"p_{name}")
        ids = {name: player.player_id for name, player in players.items()}
        store = SqlStore(database, lambda: timestamp(datetime.fromtimestamp(clock(), UTC)))
        runner = TableRunner(table, get_game(table.game, table.rules), store, Quiet(), clock=clock,
                             watchers=lambda: 1, new_seed=lambda: seed)
        await runner.advance()  # opens round 1 at +0
        await runner.bet(ids["alice"], {"ante": 100, "bonus": 100})
        await runner.bet(ids["bob"], {"ante": 500})
        await runner.bet(ids["carol"], {"ante": 100})
        async with database.transaction() as connection:  # carol spends her money elsewhere
            from sqlalchemy import update

            from dealerpoker.server.schema import accounts
            await connection.execute(update(accounts).where(accounts.c.id == ids["carol"]).values(balance=50))
        clock.now = START + 15
        await runner.advance()  # no more bets at +15, deal: pre-flop until +25
        clock.now = START + 20
        await runner.decide(ids["alice"], "bet")
        for offset in (25, 35, 45):
            clock.now = START + offset
            await runner.advance()
        assert runner.round is not None and str(runner.round.phase) == "pause"
        return players
    finally:
        await database.dispose()


def play(tmp_path: Path) -> tuple[str, dict[str, str], FakeClock, TableConfig]:
    url, players, clock, table = play_players(tmp_path)
    return url, {name: player.player_id for name, player in players.items()}, clock, table


def play_players(tmp_path: Path) -> tuple[str, dict[str, NewPlayer], FakeClock, TableConfig]:
    url = f"sqlite:///{tmp_path}/live.db"
    table = parse_tables(TABLE)[0]
    clock = FakeClock()
    return url, asyncio.run(texas_round(url, table, clock)), clock, table


async def whole_records(url: str) -> list[dict[str, Any]]:
    database = Database(url)
    try:
        async with database.transaction() as connection:
            return [r async for r in live_records_between(connection, "2026-11-29", "2026-11-30")]
    finally:
        await database.dispose()


async def player_record(url: str, player: str) -> dict[str, Any]:
    database = Database(url)
    try:
        return await LiveRecords(database).player_record(player, "audit-t", 1)
    finally:
        await database.dispose()
