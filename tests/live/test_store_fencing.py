"""The live store on a real database (a SQLite file, and a PostgreSQL database of its own when
DEALERPOKER_TEST_POSTGRES_URL is set): lease tokens fence every commit and pending write, pending
bets/decisions are kept, and two owners of one table (two stores, as two processes) finish a
round once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests.live.conftest import FakeClock

from dealerpoker.games import get_game
from dealerpoker.games.currency import house_account
from dealerpoker.server import ledger
from dealerpoker.server.db import Database
from dealerpoker.server.live.ports import Pending, StaleLeaseError
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.server.live.sqlstore import SqlStore
from dealerpoker.server.schema import accounts, ledger_entries
from dealerpoker.tables import table as core
from dealerpoker.tables.config import parse_tables
from dealerpoker.tables.table import Phase

HOUSE = house_account("EUR")

AT = "2026-11-29T00:00:00.000000Z"


class Silent:
    async def to_table(self, table_id: str, message: dict[str, Any]) -> None:
        pass

    async def to_players(self, table_id: str, messages: Any, balances: Any = None) -> None:
        pass


async def _open(url: str, players: dict[str, int]) -> Database:
    database = Database(url)
    await database.migrate()
    async with database.transaction() as connection:
        for player, amount in players.items():
            await connection.execute(
                accounts.insert().values(id=player, kind="player", balance=0, created_at=AT,
                                          currency="EUR"))
            await ledger.post_transfer(connection, f"grant:{player}", HOUSE, player, amount, at=AT,
                                       memo="grant")
    return database


def _record(number: int, phase: str) -> dict[str, Any]:
    return {"table": "t", "number": number, "phase": phase, "point": None, "deadline": 1.0, "deck": None,
            "seats": {}, "fairness": {"server_seed": "ab" * 32, "commitment": "c", "algorithm": "a",
                                      "client_seed": None, "nonce": None}}


def test_claims_are_monotonic_and_a_stale_token_writes_nothing(served_database: str) -> None:
    async def scenario() -> None:
        database = await _open(served_database, {})
        first, second = SqlStore(database, lambda: AT), SqlStore(database, lambda: AT)
        try:
            assert await first.claim("t", None) == 1  # no Redis: the database's counter
            assert await first.claim("t", None) == 2
            assert await first.claim("t", 7) == 7
            await first.commit(_record(1, "betting"), fence=7, step="open", debits={}, credits={})
            await first.save_pending("t", [Pending(1, "p", "bets", '{"ante": 100}')], fence=7)
            assert await second.claim("t", 8) == 8  # another process takes the table over
            with pytest.raises(StaleLeaseError) as stale:
                await first.commit(_record(1, "closed"), fence=7, step="close", debits={}, credits={})
            assert (stale.value.token, stale.value.epoch) == (7, 8)
            with pytest.raises(StaleLeaseError):
                await first.save_pending("t", [Pending(1, "p", "bets", '{"ante": 500}')], fence=7)
            with pytest.raises(StaleLeaseError):
                await first.claim("t", 7)
            last = await second.last_round("t")
            assert last is not None and last["phase"] == "betting"
            assert await second.pending("t", 1) == [Pending(1, "p", "bets", '{"ante": 100}')]
            await second.save_pending("t", [Pending(1, "p", "bets", '{"ante": 300}'),
                                            Pending(1, "q", "bets", '{"ante": 100}')], fence=8)
            assert sorted((p.player_id, p.value) for p in await second.pending("t", 1)) == [
                ("p", '{"ante": 300}'), ("q", '{"ante": 100}')]
            # The next round's opening drops the earlier rounds' pending intents.
            await second.commit(_record(2, "betting"), fence=8, step="open", debits={}, credits={})
            assert await second.pending("t", 1) == []
        finally:
            await database.dispose()

    asyncio.run(scenario())


def test_two_owners_of_a_table_the_older_is_refused_and_the_round_is_settled_once(
        served_database: str) -> None:
    table = parse_tables('[[tables]]\nid = "t"\ngame = "casino-holdem"\nbetting_seconds = 15\n'
                         'decision_seconds = 10\npause_seconds = 4')[0]
    game = get_game(table.game, table.rules)

    async def scenario() -> None:
        database = await _open(served_database, {"p": 5_000, "q": 5_000})
        clock = FakeClock()
        try:
            old = TableRunner(table, game, SqlStore(database, lambda: AT), Silent(), clock=clock,
                              watchers=lambda: 1, flush_delay=0.0)
            await old.resume(lease=1)
            await old.advance()
            await old.bet("p", {"ante": 100})
            await old.bet("q", {"ante": 200})
            clock.now = 1015.0
            await old.advance()  # dealt; then the owner stalls, its lease runs out
            new = TableRunner(table, game, SqlStore(database, lambda: AT), Silent(), clock=clock,
                              watchers=lambda: 1, flush_delay=0.0)
            await new.resume(lease=2)
            assert new.round is not None and new.round.phase is Phase.DECISION
            await new.decide("p", "raise")
            with pytest.raises(core.LiveTableError):
                await old.decide("q", "raise")  # its pending write is refused: not acknowledged
            clock.now = 1025.0
            with pytest.raises(StaleLeaseError):
                await old.advance()
            await new.advance()
            assert new.round.phase is Phase.PAUSE
            returns = core.returns(new.round)
            async with database.transaction() as connection:
                audit = await ledger.audit(connection)
                rows = (await connection.execute(
                    ledger_entries.select().where(ledger_entries.c.round_id == "t/1",
                                                  ledger_entries.c.account_id != HOUSE))).all()
                balances = {p: await ledger.balance_of(connection, p) for p in ("p", "q")}
            assert audit.ok, audit
            txids = sorted(row.txid for row in rows)
            assert txids == sorted(["t/1:p:bets", "t/1:q:bets", "t/1:p:flop"]
                                   + [f"t/1:{p}:settle" for p, amount in returns.items() if amount > 0])
            assert balances == {"p": 5_000 - 300 + returns["p"], "q": 5_000 - 200}
            last = await SqlStore(database, lambda: AT).last_round("t")
            assert last is not None and last["seats"]["q"]["steps"][0]["source"] == "timeout"
        finally:
            await database.dispose()

    asyncio.run(scenario())
