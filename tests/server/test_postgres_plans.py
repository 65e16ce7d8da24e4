"""PostgreSQL's plans of the rounds' hot statements read only the rows they are about.

asyncpg prepares every statement, and after five runs PostgreSQL may keep one generic plan for
it, chosen without the parameters' values and, until the tables are first analyzed, without
statistics. Such plans read far more than their rows: the seamless step's lookup of its bets
took the index then kept on every row's status (``status, next_attempt_at``) and read every bet
in flight (a cost growing with the players), and the player's read for a deal took the player's
index and read every round they ever played. Each test asks PostgreSQL for the generic plan
(``plan_cache_mode``) of the statement as the store sends it, on a new database and on one
whose tables hold rows but were not analyzed yet (a new deployment's, or a benchmark's, first
minutes: a plan made then is kept until autovacuum first analyzes the table), and checks which
index finds the rows.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import pytest
from sqlalchemy.dialects import postgresql
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database, run_apart

from dealerpoker.server.db import Database
from dealerpoker.server.operators import outbox, transactions
from dealerpoker.server.operators.postgres import Arguments
from dealerpoker.server.rounds import postgres as store

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def new_database() -> Iterator[str]:
    """A database with no rows."""
    with _migrated() as url:
        yield url


@pytest.fixture(scope="module")
def played_database() -> Iterator[str]:
    """A database with rows as after a while of play (not analyzed either)."""
    with _migrated() as url:
        run_apart(_fill(url))
        yield url


@pytest.fixture(params=["new", "played"])
def database_url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue(f"{request.param}_database"))


@contextmanager
def _migrated() -> Iterator[str]:
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    with fresh_database("plans") as url:
        async def migrate() -> None:
            database = Database(url)
            try:
                await database.migrate()
            finally:
                await database.dispose()

        run_apart(migrate())
        yield url


async def _fill(url: str) -> None:
    """Rows as after a while of play, not analyzed: 256 players' 20,000 rounds, half of them
    with an idempotency key, and 10,000 wallet transactions, 300 of them bets in flight."""
    async with _connection(url) as connection:
        await connection.execute(
            "INSERT INTO accounts (id, kind, balance, created_at, currency) "
            "SELECT 'p' || g, 'player', 0, 'x', 'EUR' FROM generate_series(1, 256) g")
        await connection.execute(
            "INSERT INTO rounds (id, player_id, game, rules_version, rules_fingerprint, status, phase, "
            "idempotency_key, bets, deck, algorithm, steps, view, total_stake, total_returned, created_at, "
            "updated_at, currency) "
            "SELECT 'r' || g, 'p' || (g % 256 + 1), 'casino-holdem', 'v', 'f', 'settled', 'settled', "
            "CASE WHEN g % 2 = 0 THEN 'k' || g END, '{}', '[]', 'a', '[]', '{}', 0, 0, 'x', 'x', 'EUR' "
            "FROM generate_series(1, 20000) g")
        for status, count in (("confirmed", 5000), ("sending", 300), ("done", 4700)):
            await connection.execute(
                "INSERT INTO wallet_transactions (transaction_id, operator_id, player_id, currency, kind, "
                "amount, round_id, game, round_closed, txid, status, attempts, created_at, updated_at) "
                f"SELECT '{status}-' || g, 'op', 'p' || (g % 256 + 1), 'EUR', 'bet', 100, 'r' || g, "
                f"'casino-holdem', 0, 't' || g, '{status}', 0, 'x', 'x' FROM generate_series(1, {count}) g")


@asynccontextmanager
async def _connection(url: str) -> AsyncIterator[Any]:
    database = Database(url)
    try:
        async with database.acquire() as connection:
            yield connection
    finally:
        await database.dispose()


def generic_plan(url: str, statement: str, parameters: int) -> dict[str, Any]:
    """The generic plan PostgreSQL keeps for ``statement`` (its ``parameters`` all unknown)."""
    async def run() -> dict[str, Any]:
        async with _connection(url) as connection:
            await connection.execute("SET plan_cache_mode = force_generic_plan")
            await connection.execute(f"PREPARE hot AS {statement}")
            try:
                nulls = ", ".join(["NULL"] * parameters)
                found = await connection.fetchval(f"EXPLAIN (FORMAT JSON) EXECUTE hot({nulls})")
            finally:
                await connection.execute("DEALLOCATE hot")
                await connection.execute("RESET plan_cache_mode")
        return dict(json.loads(found)[0]["Plan"])

    return run_apart(run())


def reads(plan: dict[str, Any], table: str) -> list[tuple[str, str]]:
    """How ``plan`` reads ``table``: (index, index condition) per read, ``("", "")`` for a
    sequential scan; a bitmap scan's reads are its index scans'."""
    if plan.get("Relation Name") == table and plan["Node Type"] != "ModifyTable":  # not a write
        if plan["Node Type"] == "Bitmap Heap Scan":
            return [(child["Index Name"], child["Index Cond"]) for child in _nodes(plan)
                    if child["Node Type"] == "Bitmap Index Scan"]
        return [(plan.get("Index Name", ""), plan.get("Index Cond", ""))]
    return [found for child in plan.get("Plans", []) for found in reads(child, table)]


def _nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [plan, *(node for child in plan.get("Plans", []) for node in _nodes(child))]


@pytest.mark.parametrize("bets", [1, 2])
@pytest.mark.parametrize("statement", [store._seamless_open, store._seamless_step], ids=["open", "step"])
def test_a_seamless_step_finds_its_bets_by_their_keys_whatever_is_in_flight(
        database_url: str, statement: Callable[[int], tuple[str, Arguments]], bets: int) -> None:
    sql, arguments = statement(bets)
    found = reads(generic_plan(database_url, sql, len(arguments.names)), "wallet_transactions")
    assert found, "the statement reads its bets"
    for index, condition in found:
        assert index == "wallet_transactions_pkey" and "transaction_id" in condition, found


@pytest.mark.parametrize("statement", [transactions.CONFIRM, outbox._CLAIM], ids=["confirm", "claim"])
def test_a_wallet_transaction_changed_by_its_key_and_status_is_found_by_its_key(
        database_url: str, statement: Any) -> None:
    sql, parameters = compiled(statement)
    found = reads(generic_plan(database_url, sql, parameters), "wallet_transactions")
    assert [index for index, _ in found] == ["wallet_transactions_pkey"], found


def test_the_outbox_reads_only_the_rows_owed(played_database: str) -> None:
    sql, parameters = compiled(outbox.DUE)
    found = reads(generic_plan(played_database, sql, parameters), "wallet_transactions")
    assert [index for index, _ in found] == ["ix_wallet_transactions_due"], found


def compiled(statement: Any) -> tuple[str, int]:
    """A SQLAlchemy statement as sent to PostgreSQL, and its number of parameters."""
    found = statement.compile(dialect=postgresql.asyncpg.dialect())
    return str(found), len(found.positiontup)


def test_a_deal_without_an_idempotency_key_reads_no_round(database_url: str) -> None:
    assert reads(generic_plan(database_url, store._PLAYER_WITHOUT_KEY, 1), "rounds") == []


def test_a_deal_with_an_idempotency_key_finds_its_round_by_the_key(played_database: str) -> None:
    """On tables with rows. (With none, PostgreSQL's plan takes the player's index, as cheap
    then: it is made again once autovacuum first analyzes the table.)"""
    found = reads(generic_plan(played_database, store._PLAYER_WITH_KEY, 2), "rounds")
    assert [index for index, _ in found] == ["uq_rounds_player_idempotency"], found
    assert "idempotency_key" in found[0][1], found
