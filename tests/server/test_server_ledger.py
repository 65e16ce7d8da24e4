"""The ledger: double entry, idempotent txids, no negative player balance, invariants audited."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from dealerpoker.errors import InsufficientFundsError
from dealerpoker.games.currency import house_account
from dealerpoker.server import ledger
from dealerpoker.server.accounts import create_player
from dealerpoker.server.db import Database
from dealerpoker.server.schema import ledger_entries

HOUSE = house_account("EUR")

AT = "2026-01-01T00:00:00.000000Z"


def on_database(url: str, body: Callable[[Database], Awaitable[Any]]) -> Any:
    async def run() -> Any:
        database = Database(url)
        try:
            await database.migrate()
            return await body(database)
        finally:
            await database.dispose()

    return asyncio.run(run())


def test_transfers_are_double_entry_idempotent_and_audited(database_url: str) -> None:
    async def body(database: Database) -> None:
        async with database.transaction() as connection:
            alice = (await create_player(connection, starting_balance=1_000, at=AT)).player_id
        async with database.transaction(lock_account=alice) as connection:
            assert await ledger.post_transfer(connection, "t:1", alice, HOUSE, 300, at=AT)
            assert not await ledger.post_transfer(connection, "t:1", alice, HOUSE, 300, at=AT)  # retry
            assert await ledger.balance_of(connection, alice) == 700
            entries = (await connection.execute(
                select(ledger_entries.c.account_id, ledger_entries.c.amount)
                .where(ledger_entries.c.txid == "t:1"))).all()
            assert sorted(map(tuple, entries)) == sorted([(alice, -300), (HOUSE, 300)])
        async with database.transaction() as connection:
            report = await ledger.audit(connection)
            assert report.ok and report.total_of_balances == 0

    on_database(database_url, body)


def test_a_player_balance_never_goes_negative(database_url: str) -> None:
    async def body(database: Database) -> None:
        async with database.transaction() as connection:
            house_before = await ledger.balance_of(connection, HOUSE)
            assert house_before is not None
            bob = (await create_player(connection, starting_balance=100, at=AT)).player_id
        with pytest.raises(InsufficientFundsError) as refused:
            async with database.transaction(lock_account=bob) as connection:
                await ledger.post_transfer(connection, "t:big", bob, HOUSE, 101, at=AT)
        assert refused.value.balance == 100 and refused.value.needed == 101
        async with database.transaction() as connection:
            assert await ledger.balance_of(connection, bob) == 100
            assert not await ledger.is_posted(connection, "t:big")
            # The house is the casino's side: it funded bob and may go below zero.
            assert await ledger.balance_of(connection, HOUSE) == house_before - 100

    on_database(database_url, body)


def test_audit_detects_a_tampered_ledger() -> None:
    """The invariant checks can fail: change one entry and the audit names the damage."""

    async def body(database: Database) -> None:
        async with database.transaction() as connection:
            carol = (await create_player(connection, starting_balance=500, at=AT)).player_id
            await connection.execute(ledger_entries.update()
                                     .where(ledger_entries.c.account_id == carol).values(amount=499))
            report = await ledger.audit(connection)
        assert not report.ok
        assert report.unbalanced_txids == (f"session:{carol}",)
        assert report.mismatched_accounts == (carol,)
        assert report.total_of_balances == 0  # the stored balance still says 500

    on_database("sqlite://", body)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 400), st.booleans()), max_size=30))
def test_money_is_conserved_whatever_the_transfers(moves: list[tuple[int, int, bool]]) -> None:
    async def body(database: Database) -> None:
        async with database.transaction() as connection:
            people = [(await create_player(connection, starting_balance=300, at=AT)).player_id
                      for _ in range(3)]
        for number, (who, amount, to_house) in enumerate(moves):
            source, target = (people[who], HOUSE) if to_house else (HOUSE, people[who])
            try:
                async with database.transaction(lock_account=people[who]) as connection:
                    await ledger.post_transfer(connection, f"m:{number}", source, target, amount, at=AT)
            except InsufficientFundsError:
                pass
        async with database.transaction() as connection:
            report = await ledger.audit(connection)
            assert report.ok, report
            count = await connection.scalar(select(func.count()).select_from(ledger_entries))
            assert count is not None and count % 2 == 0

    on_database("sqlite://", body)
