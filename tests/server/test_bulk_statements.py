"""Batches of rows in one statement (``server.bulk``; on PostgreSQL arrays through ``unnest``):
what they write is what a statement per row would write, on both databases."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from tests.server.test_server_ledger import AT, HOUSE, on_database

from dealerpoker.server import ledger
from dealerpoker.server.accounts import create_player
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.schema import accounts, ledger_entries, live_pending, live_seats


async def _players(database: Database, count: int, balance: int) -> list[str]:
    async with database.transaction() as connection:
        return [(await create_player(connection, starting_balance=balance, at=AT)).player_id
                for _ in range(count)]


async def _balances(connection: Connection, players: list[str]) -> dict[str, int]:
    found = await connection.execute(
        select(accounts.c.id, accounts.c.balance).where(accounts.c.id.in_(players)))
    return {str(player): int(balance) for player, balance in found}


def test_rows_inserted_in_one_batch_keep_their_order_and_their_nulls(database_url: str) -> None:
    async def body(database: Database) -> None:
        (bob,) = await _players(database, 1, 1_000)
        mark = secrets.token_hex(4)
        rows: list[dict[str, Any]] = [
            {"txid": f"{mark}:{n // 2}", "account_id": account, "amount": amount,
             "round_id": None if n else "r", "memo": "m", "created_at": AT}
            # Balanced, and nobody's balance moves: the session's database is audited by other tests.
            for n, (account, amount) in enumerate([(bob, 5), (HOUSE, -5), (bob, -5), (HOUSE, 5)])]
        async with database.transaction() as connection:
            await connection.insert_many(ledger_entries, [])  # nothing to write: no statement
            await connection.insert_many(ledger_entries, rows)
            found = (await connection.execute(
                select(ledger_entries.c.txid, ledger_entries.c.account_id, ledger_entries.c.amount,
                       ledger_entries.c.round_id)
                .where(ledger_entries.c.txid.startswith(mark)).order_by(ledger_entries.c.id))).all()
        assert [tuple(row) for row in found] == [(r["txid"], r["account_id"], r["amount"], r["round_id"])
                                                 for r in rows]

    on_database(database_url, body)


def test_a_batch_that_breaks_a_constraint_raises_and_its_unit_of_work_writes_nothing(
        database_url: str) -> None:
    async def body(database: Database) -> None:
        (alice,) = await _players(database, 1, 1_000)
        mark = secrets.token_hex(4)
        row = {"txid": mark, "account_id": alice, "amount": 1, "round_id": None, "memo": "m",
               "created_at": AT}
        with pytest.raises(IntegrityError):
            async with database.transaction() as connection:
                # The same (txid, account) twice.
                await connection.insert_many(ledger_entries, [row, {**row, "amount": 2}])
        async with database.transaction() as connection:
            assert (await connection.execute(
                select(ledger_entries.c.id).where(ledger_entries.c.txid == mark))).first() is None

    on_database(database_url, body)


def test_rows_updated_in_one_batch_by_a_composite_key_set_or_add(database_url: str) -> None:
    async def body(database: Database) -> None:
        players = await _players(database, 3, 1_000)
        table = f"t-{secrets.token_hex(3)}"
        seat = {"table_id": table, "number": 1, "bets": "{}", "steps": "[]", "total_stake": 100,
                "total_returned": None, "updated_at": AT}
        async with database.transaction() as connection:
            await connection.insert_many(live_seats, [{**seat, "player_id": p} for p in players])
            # Only the first two, by (table, number, player): the third keeps its row.
            await connection.update_many(live_seats, ("table_id", "number", "player_id"), [
                {**seat, "player_id": p, "steps": f'["{p}"]', "total_returned": n}
                for n, p in enumerate(players[:2])])
            key = ("table_id", "number", "player_id")
            await connection.update_many(live_seats, key, [
                {"table_id": table, "number": 1, "player_id": players[0], "total_stake": -30},
                {"table_id": table, "number": 1, "player_id": players[2], "total_stake": 25}],
                adding=("total_stake",))
            await connection.update_many(live_seats, key, [])  # nothing to write: no statement
            seats = (await connection.execute(
                select(live_seats.c.player_id, live_seats.c.steps, live_seats.c.total_returned,
                       live_seats.c.total_stake)
                .where(live_seats.c.table_id == table))).all()
        assert sorted(tuple(row) for row in seats) == sorted(
            [(players[0], f'["{players[0]}"]', 0, 70), (players[1], f'["{players[1]}"]', 1, 100),
             (players[2], "[]", None, 125)])

    on_database(database_url, body)


def test_a_table_wide_posting_beyond_one_key_list_moves_every_balance_once(database_url: str) -> None:
    """More players than one ``IN (...)`` list holds (SQLite reads them in chunks; PostgreSQL
    locks them with one array): every stake and credit posted, the ledger balanced, and a stake
    one of them cannot cover refused for them all, before anything is written."""
    async def body(database: Database) -> None:
        players = await _players(database, 1_500, 1_000)
        round_id = f"big-{secrets.token_hex(3)}"
        moves = [ledger.Transfer(f"{round_id}:{p}:bets", p, -100 - n % 7, "bets")
                 for n, p in enumerate(players)]
        short = [ledger.Transfer(f"{round_id}:{p}:more", p, -1_000, "more") for p in players[:3]]
        async with database.transaction() as connection:
            with pytest.raises(ledger.UncoveredStakesError) as refused:
                await ledger.post(connection, moves + short, house=HOUSE, at=AT, round_id=round_id)
            assert set(refused.value.players) == set(players[:3])
            moved = await ledger.post(connection, moves, house=HOUSE, at=AT, round_id=round_id)
            again = await ledger.post(connection, moves, house=HOUSE, at=AT, round_id=round_id)  # a retry
            balances = await _balances(connection, players)
        assert again == {}
        assert moved == balances == {p: 1_000 - 100 - n % 7 for n, p in enumerate(players)}
        async with database.transaction() as connection:
            assert (await ledger.audit(connection)).ok

    on_database(database_url, body)


def test_rows_inserted_with_replacing_replace_the_stored_rows_of_their_key(database_url: str) -> None:
    async def body(database: Database) -> None:
        table = f"t-{secrets.token_hex(3)}"
        key = ("table_id", "number", "player_id", "step")

        def pending(player: str, value: str) -> dict[str, Any]:
            return {"table_id": table, "number": 1, "player_id": player, "step": "flop", "value": value,
                    "updated_at": AT}

        async with database.transaction() as connection:
            for batch in ([pending("a", "check"), pending("b", "bet")],
                          [pending("b", "check"), pending("c", "bet")]):
                await connection.insert_many(live_pending, batch, replacing=key)
            found = (await connection.execute(select(live_pending.c.player_id, live_pending.c.value)
                                              .where(live_pending.c.table_id == table))).all()
        assert sorted(tuple(row) for row in found) == [("a", "check"), ("b", "check"), ("c", "bet")]

    on_database(database_url, body)
