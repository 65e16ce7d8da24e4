"""Rules documents are stored once, even by processes starting at the same moment.

``serve --workers N`` starts its workers together and each stores its live tables' rules
documents at start-up: two inserts of one fingerprint must not make a worker fail to start.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select, text
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database
from tests.support.waiting import until_async

from dealerpoker.games import AnyGame, get_game
from dealerpoker.server.db import Database
from dealerpoker.server.fairness import store_rules_document
from dealerpoker.server.schema import rules_documents


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES)
def test_two_transactions_storing_the_same_rules_document_both_succeed() -> None:
    game = get_game("casino-holdem")

    async def scenario(url: str) -> int:
        database = Database(url)
        try:
            await database.migrate()
            async with database.transaction() as first:
                await store_rules_document(first, game, "2026-11-29T00:00:00Z")
                # The second sees no committed row yet, so it inserts too: it waits for the first
                # and, once that commits, must leave the document as it is rather than fail.
                second = asyncio.create_task(_store_in_own_transaction(database, game))
                await until_async(lambda: _waiting_on_a_lock(database), "the second transaction waits")
                assert not second.done()
            await second
            async with database.transaction() as connection:
                return int(await connection.scalar(select(func.count()).select_from(rules_documents)
                                                   .where(rules_documents.c.fingerprint
                                                          == game.rules.fingerprint())) or 0)
        finally:
            await database.dispose()

    with fresh_database("rules") as url:
        assert asyncio.run(scenario(url)) == 1


async def _store_in_own_transaction(database: Database, game: AnyGame) -> None:
    async with database.transaction() as connection:
        await store_rules_document(connection, game, "2026-11-29T00:00:01Z")


def test_storing_a_rules_document_again_changes_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    game = get_game("texas-bonus")

    async def scenario() -> list[tuple[str, str]]:
        database = Database(f"sqlite:///{tmp_path}/rules.db")
        try:
            await database.migrate()
            for at in ("2026-11-29T00:00:00Z", "2026-11-30T00:00:00Z"):
                async with database.transaction() as connection:
                    await store_rules_document(connection, game, at)
            async with database.transaction() as connection:
                query = select(rules_documents.c.fingerprint, rules_documents.c.created_at)
                return [(str(f), str(c)) for f, c in await connection.execute(query)]
        finally:
            await database.dispose()

    assert asyncio.run(scenario()) == [(game.rules.fingerprint(), "2026-11-29T00:00:00Z")]


async def _waiting_on_a_lock(database: Database) -> bool:
    """Whether a session of this database now waits for a lock another transaction holds."""
    async with database.transaction() as connection:
        waiting = await connection.scalar(text(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock'"))
    return bool(waiting)
