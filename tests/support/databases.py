"""Databases for tests: a PostgreSQL database of a test's own (created, then dropped with FORCE,
so runs side by side never share tables; needs ``DEALERPOKER_TEST_POSTGRES_URL``, the admin
connection), and the ledger audit of any database by its URL (e.g. after a server was killed)."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

POSTGRES_URL = os.environ.get("DEALERPOKER_TEST_POSTGRES_URL")
NO_POSTGRES = "PostgreSQL: DEALERPOKER_TEST_POSTGRES_URL is not set"
REDIS_URL = os.environ.get("DEALERPOKER_TEST_REDIS_URL")
NO_REDIS = "Redis: DEALERPOKER_TEST_REDIS_URL is not set"


def run_apart(work: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(work)`` on a thread of its own: a session fixture can be set up first after a
    browser test, while Playwright's synchronous API marks this thread as running its event loop
    (where ``asyncio.run`` refuses; tests/support/browser.py)."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, work).result()


async def _admin(url: str, statement: str) -> None:
    import asyncpg
    from sqlalchemy.engine import make_url

    from dealerpoker.server.db import driver_url

    parsed = make_url(driver_url(url))
    connection = await asyncpg.connect(user=parsed.username, password=parsed.password, host=parsed.host,
                                       port=parsed.port, database=parsed.database)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@contextmanager
def fresh_database(label: str) -> Iterator[str]:
    """The URL of a new database ``dp_{label}_{random}`` on the test server, dropped afterwards."""
    from sqlalchemy.engine import make_url

    assert POSTGRES_URL, NO_POSTGRES
    name = f"dp_{label}_{secrets.token_hex(6)}"
    run_apart(_admin(POSTGRES_URL, f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        run_apart(_admin(POSTGRES_URL, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def audit(database_url: str) -> Any:
    """``ledger.audit_database`` of the database at ``database_url`` (its own engine, disposed
    after): the product's audit, in one snapshot. A killed server's last commit may still be
    landing in PostgreSQL when the test audits; statements each with its own snapshot could see
    a transfer's one side and not the other."""
    from dealerpoker.server import ledger
    from dealerpoker.server.db import Database

    async def run() -> Any:
        database = Database(database_url)
        try:
            return await ledger.audit_database(database)
        finally:
            await database.dispose()

    return run_apart(run())


def entries_of(database_url: str, account_ids: list[str]) -> dict[str, list[tuple[str, int]]]:
    """Each account's ledger entries ``(txid, amount)``, in the order written, read by URL (e.g.
    after a server was killed, or beside running ones)."""
    from sqlalchemy import select

    from dealerpoker.server.db import Database
    from dealerpoker.server.schema import ledger_entries

    async def run() -> dict[str, list[tuple[str, int]]]:
        database = Database(database_url)
        try:
            async with database.reading() as connection:
                rows = await connection.execute(
                    select(ledger_entries.c.account_id, ledger_entries.c.txid, ledger_entries.c.amount)
                    .where(ledger_entries.c.account_id.in_(account_ids)).order_by(ledger_entries.c.id))
                found: dict[str, list[tuple[str, int]]] = {account: [] for account in account_ids}
                for account, txid, amount in rows:
                    found[str(account)].append((str(txid), int(amount)))
                return found
        finally:
            await database.dispose()

    return run_apart(run())


@contextmanager
def fresh_database_beside_redis(label: str) -> Iterator[str]:
    """``fresh_database`` for tests of several ``serve`` processes, which also need Redis: the test
    is skipped, saying which is missing, without either."""
    import pytest

    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    if not REDIS_URL:
        pytest.skip(NO_REDIS)
    with fresh_database(label) as url:
        yield url
