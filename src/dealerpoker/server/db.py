"""The database: URL -> async engine, migrations, and the unit of work.

Writes are serialised per player: on PostgreSQL by a row lock (``SELECT ... FOR UPDATE``) on the
player's account, on SQLite by a single writer (an in-process lock plus ``BEGIN IMMEDIATE``,
which also serialises several processes sharing one file).

Drivers: asyncpg for PostgreSQL; for SQLite the standard ``sqlite3`` module run on the event-loop
thread (``sqlite+inline``, see ``sqlite_inline``) rather than aiosqlite's thread per connection,
which costs more than the statements themselves (a ``sqlite+aiosqlite://`` URL gets it too).

Two kinds of unit of work: ``transaction()`` hands out a SQLAlchemy ``AsyncConnection`` (every
query but the hot path), ``direct()`` runs precompiled statements on the driver's connection
(a round's steps; see ``direct``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from importlib import resources
from typing import Any

from sqlalchemy import event, select
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import PoolProxiedConnection, StaticPool
from sqlalchemy.util.concurrency import greenlet_spawn

from dealerpoker.games.currency import DEFAULT_CURRENCY
from dealerpoker.server import schema, sqlite_inline
from dealerpoker.server.direct import AsyncpgDirect, Compiler, DirectConnection, SQLiteDirect
from dealerpoker.server.settings import SettingsError

_DRIVERS = {"sqlite": f"sqlite+{sqlite_inline.DRIVER}", "postgresql": "postgresql+asyncpg",
            "postgres": "postgresql+asyncpg"}
#: Drivers a URL may name explicitly.
_ACCEPTED = {f"sqlite+{sqlite_inline.DRIVER}", "sqlite+aiosqlite", "postgresql+asyncpg"}


def async_url(url: str) -> str:
    """The async driver URL for a plain database URL (the server chooses the driver).

    >>> async_url("sqlite:///data/casino.db")
    'sqlite+inline:///data/casino.db'
    >>> async_url("sqlite+aiosqlite:///data/casino.db")  # the server chooses the driver
    'sqlite+inline:///data/casino.db'
    >>> async_url("postgresql://postgres@127.0.0.1:5432/casino")
    'postgresql+asyncpg://postgres@127.0.0.1:5432/casino'
    >>> async_url("mysql://x")
    Traceback (most recent call last):
    ...
    dealerpoker.server.settings.SettingsError: database URL 'mysql://x': unsupported (use sqlite:///FILE or postgresql://USER@HOST:PORT/DB)
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise SettingsError(f"database URL {url!r}: not a URL (use sqlite:///FILE or "
                            "postgresql://USER@HOST:PORT/DB)") from None
    backend = parsed.get_backend_name()
    driver = _DRIVERS.get(backend)
    if driver is None or (parsed.drivername != backend and parsed.drivername not in _ACCEPTED):
        raise SettingsError(f"database URL {url!r}: unsupported (use sqlite:///FILE or "
                            "postgresql://USER@HOST:PORT/DB)")
    return parsed.set(drivername=driver).render_as_string(hide_password=False)


def is_sqlite(url: str) -> bool:
    """Whether a database URL names SQLite (one writer at a time).

    >>> is_sqlite("sqlite:///casino.db"), is_sqlite("postgresql://postgres@127.0.0.1:5432/casino")
    (True, False)
    """
    return make_url(async_url(url)).get_backend_name() == "sqlite"


class Database:
    """One engine and the transactions the services run in."""

    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        self.url = async_url(url)
        parsed = make_url(self.url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        self.in_memory = self.is_sqlite and parsed.database in (None, "", ":memory:")
        kwargs: dict[str, Any] = {}
        if self.in_memory:
            kwargs["poolclass"] = StaticPool
        elif not self.is_sqlite:
            kwargs.update(pool_size=pool_size, max_overflow=pool_size)
        self.engine: AsyncEngine = create_async_engine(self.url, **kwargs)
        # SQLite has one writer: an in-process lock keeps requests from queueing inside SQLite.
        self._lock: asyncio.Lock | None = asyncio.Lock() if self.is_sqlite else None
        if self.is_sqlite:
            _configure_sqlite(self.engine, wal=not self.in_memory)
        self._compiler = Compiler(self.engine.dialect)
        self._direct_idle: list[PoolProxiedConnection] = []
        self._direct_keep = 1 if self.is_sqlite else pool_size

    async def migrate(self, *, default_currency: str = DEFAULT_CURRENCY) -> None:
        """Bring the schema to the newest Alembic revision shipped in the package.

        ``default_currency`` is the currency of accounts and rounds stored before currencies
        were recorded (migration 0006): the deployment's default currency.
        """
        async with self.engine.begin() as connection:
            await connection.run_sync(_upgrade_to_head, default_currency)

    @asynccontextmanager
    async def transaction(self, *, lock_account: str | None = None) -> AsyncIterator[AsyncConnection]:
        """One unit of work: commits on success, rolls back on any exception.

        ``lock_account`` serialises concurrent writers of that account (PostgreSQL row lock;
        SQLite is serialised as a whole).
        """
        async with self._lock if self._lock is not None else nullcontext(), \
                self.engine.begin() as connection:
            if lock_account is not None and not self.is_sqlite:
                await connection.execute(
                    select(schema.accounts.c.id)
                    .where(schema.accounts.c.id == lock_account)
                    .with_for_update()
                )
            yield connection

    @asynccontextmanager
    async def direct(self) -> AsyncIterator[DirectConnection]:
        """A unit of work on the driver's own connection, for the hot path's precompiled
        statements (see ``direct``): commits on success, rolls back on any exception.

        Serialised like ``transaction``: SQLite has one writer (the in-process lock and
        ``BEGIN IMMEDIATE``); on PostgreSQL the statements lock what they change
        (``ledger.balance_for_update``).
        """
        async with self._lock if self._lock is not None else nullcontext():
            raw = await self._checkout()
            reusable = False
            try:
                driver: Any = raw.driver_connection
                if self.is_sqlite:
                    connection = driver._conn  # the sqlite3 connection under sqlite_inline
                    connection.execute("BEGIN IMMEDIATE")
                    try:
                        yield SQLiteDirect(connection, self._compiler)
                    except BaseException:
                        connection.rollback()
                        reusable = True
                        raise
                    connection.commit()
                else:
                    transaction = driver.transaction()
                    await transaction.start()
                    try:
                        yield AsyncpgDirect(driver, self._compiler)
                    except BaseException:
                        await transaction.rollback()
                        reusable = True
                        raise
                    await transaction.commit()
                reusable = True
            finally:
                await self._release(raw, reusable)  # given up if its commit or rollback failed

    @asynccontextmanager
    async def autocommit(self) -> AsyncIterator[AsyncpgDirect | None]:
        """PostgreSQL: the driver's connection outside any transaction, each statement committed
        on its own (a round step's read and its single writing statement, see ``pgsteps``).
        None on SQLite, whose steps always take ``direct``."""
        if self.is_sqlite:
            yield None
            return
        raw = await self._checkout()
        driver: Any = raw.driver_connection
        reusable = False
        try:
            yield AsyncpgDirect(driver, self._compiler)
            reusable = True
        except Exception:
            # An error between statements or of one (which PostgreSQL rolled back on its own)
            # leaves the connection as it was; a cancelled or broken one is given up.
            reusable = not driver.is_closed() and not driver.is_in_transaction()
            raise
        finally:
            await self._release(raw, reusable)

    async def _checkout(self) -> PoolProxiedConnection:
        return self._direct_idle.pop() if self._direct_idle else await self.engine.raw_connection()

    async def _release(self, raw: PoolProxiedConnection, reusable: bool) -> None:
        """Keep a driver connection for the next unit of work (a checkout from SQLAlchemy's pool
        and back costs about as much CPU as a whole round step), or give up a broken one."""
        if reusable and len(self._direct_idle) < self._direct_keep:
            self._direct_idle.append(raw)
        elif reusable:
            await greenlet_spawn(raw.close)
        else:
            await greenlet_spawn(raw.invalidate)

    async def dispose(self) -> None:
        while self._direct_idle:
            await greenlet_spawn(self._direct_idle.pop().close)
        await self.engine.dispose()


def _configure_sqlite(engine: AsyncEngine, *, wal: bool) -> None:
    # pysqlite/aiosqlite's own transaction handling is off; we send BEGIN IMMEDIATE ourselves so
    # a transaction takes the write lock at its start (the SQLAlchemy-documented recipe).
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if wal:
            cursor.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives a killed process (not a power loss of the last commits).
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def _upgrade_to_head(connection: Connection, default_currency: str) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    location = resources.files("dealerpoker.server").joinpath("migrations")
    config.set_main_option("script_location", str(location))
    config.attributes["connection"] = connection
    config.attributes["default_currency"] = default_currency
    command.upgrade(config, "head")
