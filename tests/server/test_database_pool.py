"""The database's connections are a bounded pool: players beyond it queue for a connection (never
a new one per request), and one who waits past the pool's timeout is answered 503, changing
nothing. PostgreSQL tests skip without ``DEALERPOKER_TEST_POSTGRES_URL``."""

from __future__ import annotations

import asyncio
import json

import pytest
from sqlalchemy import text
from tests.support.databases import NO_POSTGRES, POSTGRES_URL
from tests.support.waiting import loop_turns

from dealerpoker.server.db import Database, DatabaseBusyError
from dealerpoker.server.edge.errors import domain_error_response
from dealerpoker.server.settings import Settings, SettingsError

needs_postgres = pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES)


@needs_postgres
def test_many_players_share_the_pool_connections() -> None:
    """64 concurrent statements on a pool of 3: each one runs, on one of 3 backends."""
    assert POSTGRES_URL

    async def run() -> set[int]:
        database = Database(POSTGRES_URL, pool_size=3, pool_timeout=30)
        try:
            async def one() -> int:
                async with database.acquire() as connection:
                    return int(await connection.fetchval("SELECT pg_backend_pid() FROM pg_sleep(0.005)"))

            async def unit() -> int:
                async with database.transaction() as connection:
                    return int(await connection.scalar(text("SELECT pg_backend_pid() FROM pg_sleep(0.005)")))

            found = await asyncio.gather(*(one() for _ in range(64)), *(unit() for _ in range(64)))
            return set(found)
        finally:
            await database.dispose()

    backends = asyncio.run(run())
    assert 1 <= len(backends) <= 6, backends  # at most 3 per pool (asyncpg's and SQLAlchemy's)


@needs_postgres
@pytest.mark.parametrize("way", ["acquire", "transaction"])
def test_a_player_who_waits_past_the_timeout_is_told_the_server_is_busy(way: str) -> None:
    assert POSTGRES_URL

    async def run() -> None:
        database = Database(POSTGRES_URL, pool_size=2, pool_timeout=0.3)

        def take() -> object:
            return database.acquire() if way == "acquire" else database.transaction()

        try:
            held = [take(), take()]
            for context in held:
                await context.__aenter__()  # type: ignore[attr-defined]
            loop = asyncio.get_running_loop()
            began = loop.time()
            with pytest.raises(DatabaseBusyError, match=r"no database connection came free within 0\.3 s"):
                async with take():  # type: ignore[attr-defined]
                    pass
            assert loop.time() - began >= 0.29  # it queued for the timeout, then gave up
            waiting = asyncio.create_task(_use(take()))
            await loop_turns()  # it asks, and queues: none is free
            await held[0].__aexit__(None, None, None)  # type: ignore[attr-defined]
            assert await asyncio.wait_for(waiting, 5) == 1  # the queued player got the freed one
            await held[1].__aexit__(None, None, None)  # type: ignore[attr-defined]
        finally:
            await database.dispose()

    asyncio.run(run())


async def _use(context: object) -> int:
    async with context as connection:  # type: ignore[attr-defined]
        if hasattr(connection, "fetchval"):
            return int(await connection.fetchval("SELECT 1"))
        return int(await connection.scalar(text("SELECT 1")))


def test_busy_is_a_503_with_retry_after() -> None:
    response = domain_error_response(DatabaseBusyError(10))
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "1"
    body = json.loads(bytes(response.body))
    assert body["error"] == "busy" and "try again" in body["message"]


def test_the_pool_is_a_setting() -> None:
    settings = Settings.from_env({"DEALERPOKER_DATABASE_POOL_SIZE": "24",
                                  "DEALERPOKER_DATABASE_POOL_TIMEOUT": "2.5"})
    assert (settings.database_pool_size, settings.database_pool_timeout_seconds) == (24, 2.5)
    with pytest.raises(SettingsError, match="database_pool_size: expected an integer >= 1, got 0"):
        Settings(database_pool_size=0)
    with pytest.raises(SettingsError, match="database_pool_timeout_seconds: expected > 0"):
        Settings(database_pool_timeout_seconds=0)
    with pytest.raises(SettingsError, match="database pool size"):
        Database("sqlite:///:memory:", pool_size=0)
