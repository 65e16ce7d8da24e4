"""The Alembic migrations create exactly ``schema.metadata``, and migration 0008 rewrites solo
rounds' txids to the one scheme (``ledger``) so old rounds still read and verify."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, insert, select
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database
from tests.support.dealing import find_server_seed, wanted
from tests.support.migrated import made_by, migrating_for_real, upgrade_to_head

from dealerpoker.fairness import ALGORITHM_VERSION
from dealerpoker.fairness.verify import verify_record
from dealerpoker.games import get_game
from dealerpoker.games.currency import house_account
from dealerpoker.server import db, ledger
from dealerpoker.server.accounts import create_player
from dealerpoker.server.db import Database, alembic_config
from dealerpoker.server.dealing import Deal, committed_deal
from dealerpoker.server.fairness import round_record, store_rules_document
from dealerpoker.server.rounds import plan
from dealerpoker.server.schema import ledger_entries, metadata, rounds

AT = "2026-01-01T00:00:00.000000Z"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'migrations.db'}"
        return
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    with fresh_database("migrations") as fresh:
        yield fresh


def differences(connection: Connection) -> list[Any]:
    return list(compare_metadata(MigrationContext.configure(connection), metadata))


def test_the_migrations_create_exactly_the_schema(url: str) -> None:
    async def scenario() -> list[Any]:
        database = Database(url)
        try:
            with migrating_for_real():
                await database.migrate()
            return await database.run_sync(differences)
        finally:
            await database.dispose()

    assert asyncio.run(scenario()) == []


@pytest.mark.parametrize("currency", ["EUR", "JPY"])
def test_a_new_sqlite_database_the_tests_copy_is_what_the_migrations_make(tmp_path: Path,
                                                                          currency: str) -> None:
    """tests/support/migrated.py copies a migrated schema into the tests' new SQLite databases:
    the same statements, in the same order, and the same rows, as migrating step by step."""
    async def made(name: str, *, for_real: bool) -> Any:
        database = Database(f"sqlite:///{tmp_path / name}")
        try:
            if for_real:
                with migrating_for_real():
                    await database.migrate(default_currency=currency)
            else:
                await database.migrate(default_currency=currency)
            return await database.run_sync(made_by)
        finally:
            await database.dispose()

    assert db._upgrade_to_head is upgrade_to_head  # tests/conftest.py installed the copying
    real, copied = asyncio.run(made("real.db", for_real=True)), asyncio.run(made("copied.db", for_real=False))
    assert len(real.statements) > 40 and any("CREATE TRIGGER" in sql for sql in real.statements)
    assert ("accounts", ("id", "kind", "balance", "created_at", "currency"),
            ((f"house:{currency}", "house", 0, "1970-01-01T00:00:00.000000Z", currency),)) in real.rows
    assert copied == real


def test_old_solo_txids_are_rewritten_and_the_round_still_verifies(url: str) -> None:
    game = get_game("texas-bonus")

    async def scenario() -> tuple[list[str], dict[str, Any], list[str]]:
        database = Database(url)
        try:
            await database.run_sync(lambda c: command.upgrade(alembic_config(c), "0007"))
            async with database.transaction() as connection:
                player = (await create_player(connection, starting_balance=1_000, at=AT)).player_id
                await store_rules_document(connection, game, AT)
                round_id = await _old_round(connection, game, player)
            await database.migrate()
            async with database.transaction() as connection:
                new = await _txids(connection, round_id)
                row = (await connection.execute(select(rounds).where(rounds.c.id == round_id))).one()
                record = await round_record(connection, row, {game.name: game})
            await database.run_sync(lambda c: command.downgrade(alembic_config(c), "0007"))
            async with database.transaction() as connection:
                assert await _txids(connection, round_id) == [t.format(r=round_id) for t in _OLD]
            return new, record, [round_id, player]
        finally:
            await database.dispose()

    new, record, (round_id, player) = asyncio.run(scenario())
    assert new == [f"{round_id}:{player}:{m}" for m in ("bets", "bonus", "preflop", "flop", "turn", "settle")]
    assert [action["txid"] for action in record["actions"]] == new[2:5]
    failed = [finding for finding in verify_record(record) if not finding.ok]
    assert failed == []


_OLD = ["{r}:0", "{r}:0:return", "{r}:1", "{r}:2", "{r}:3", "{r}:3:return"]


def _old_style_round(game: Any, player: str, round_id: str,
                     deal: Deal) -> tuple[dict[str, Any], Any, list[Any]]:
    """A Texas round (ante and Bonus, then every bet) planned to its settlement: its row, last step
    and money transfers."""
    planned = plan.opening(game, round_id=round_id, player_id=player, currency="EUR",
                           bets={"ante": 100, "bonus": 100}, deal=deal, client_seed="seed", nonce=0,
                           idempotency_key=None, rules_fingerprint=game.rules.fingerprint(), at=AT)
    transfers = list(planned.money.transfers)
    row = {**planned.columns}
    for action in ("bet", "bet", "bet"):
        step = plan.next_step(game, row, action, source="player", at=AT)
        transfers += step.money.transfers
        row.update(step.columns)
    return row, step, transfers


async def _old_round(connection: Any, game: Any, player: str) -> str:
    """A settled Texas round with a won Bonus, stored as before migration 0008: its ledger under
    the old txids ``{round}:{step}`` and ``{round}:{step}:return``."""
    round_id = "r_old"

    def every_moment_moves_money(deck: tuple[int, ...]) -> bool:  # the Bonus wins, the settlement returns
        *_, transfers = _old_style_round(game, player, round_id, Deal(list(deck), ALGORITHM_VERSION, "", ""))
        return all(t.amount for t in transfers)

    found = find_server_seed("seed", 0, wanted(where=every_moment_moves_money))
    deal = committed_deal(found.server_seed, "seed", 0)
    row, step, transfers = _old_style_round(game, player, round_id, deal)
    old = dict(zip(_NEW_MOMENTS, (t.format(r=round_id) for t in _OLD), strict=True))
    await connection.execute(insert(rounds).values(**row, view=step.render(
        1_000 + sum(t.amount for t in transfers))))
    for transfer in transfers:
        moment = transfer.txid.rsplit(":", 1)[1]
        await ledger.post(connection, [ledger.Transfer(old[moment], player, transfer.amount, moment)],
                          house=house_account("EUR"), at=AT, round_id=round_id, new=True)
    return round_id


_NEW_MOMENTS = ("bets", "bonus", "preflop", "flop", "turn", "settle")


async def _txids(connection: Any, round_id: str) -> list[str]:
    found = await connection.execute(
        select(ledger_entries.c.txid).where(ledger_entries.c.round_id == round_id)
        .where(ledger_entries.c.account_id != house_account("EUR")).order_by(ledger_entries.c.id))
    return [str(txid) for (txid,) in found]
