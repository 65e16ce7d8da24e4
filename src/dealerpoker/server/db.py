"""The database: URL -> engine, migrations, and the unit of work (``transaction``).

Both databases are reached through SQLAlchemy Core, each with its natural driver:

* **SQLite**: the standard ``sqlite3`` module through SQLAlchemy's own (synchronous) ``pysqlite``
  dialect, called directly on the event loop. SQLite is an embedded library whose statements
  take microseconds on the small indexed rows the server touches: less than a hop to a helper
  thread would cost (``aiosqlite`` made a solo round cost 4.4x the server CPU, see
  ``benchmarks/RESULTS.md``). One connection serves the process; an in-process lock lets one
  unit of work run at a time and ``BEGIN IMMEDIATE`` takes SQLite's write lock at its start,
  which also serialises several processes sharing one file. A unit of work never waits on
  anything but its own statements, so blocking the loop for them is safe. WAL with
  ``synchronous=NORMAL``: every commit survives a killed process (``kill -9``); only an
  operating-system crash or power loss can lose the last commits before a checkpoint.
* **PostgreSQL**: asyncpg through SQLAlchemy's asyncio extension; concurrent writers of one
  player are serialised by row locks or by statements that write only rows still as read.

A unit of work hands out a :class:`Connection`: ``await connection.execute(statement)`` on both
databases (SQLAlchemy's ``AsyncConnection`` on PostgreSQL, :class:`SQLiteConnection` on SQLite).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any, Protocol, TypeVar

from sqlalchemy import Connection as SyncConnection
from sqlalchemy import CursorResult, Executable, create_engine, event, select
from sqlalchemy.engine import Dialect, Engine, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from dealerpoker.server import schema
from dealerpoker.server.settings import SettingsError

T = TypeVar("T")
_DRIVERS = {"sqlite": "sqlite+pysqlite", "postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg"}
#: Drivers a URL may name explicitly (older ones are served by the server's choice).
_ACCEPTED = {"sqlite+pysqlite", "sqlite+aiosqlite", "sqlite+inline", "postgresql+asyncpg"}
_HINT = "use sqlite:///FILE or postgresql://USER@HOST:PORT/DB"


def driver_url(url: str) -> str:
    """The URL with the driver the server uses for it (the server chooses the driver).

    >>> driver_url("sqlite:///data/casino.db")
    'sqlite+pysqlite:///data/casino.db'
    >>> driver_url("sqlite+aiosqlite:///data/casino.db")  # the server chooses the driver
    'sqlite+pysqlite:///data/casino.db'
    >>> driver_url("postgresql://postgres@127.0.0.1:5432/casino")
    'postgresql+asyncpg://postgres@127.0.0.1:5432/casino'
    >>> driver_url("mysql://x")
    Traceback (most recent call last):
    ...
    dealerpoker.server.settings.SettingsError: database URL 'mysql://x': unsupported (use sqlite:///FILE or postgresql://USER@HOST:PORT/DB)
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise SettingsError(f"database URL {url!r}: not a URL ({_HINT})") from None
    backend = parsed.get_backend_name()
    driver = _DRIVERS.get(backend)
    if driver is None or (parsed.drivername != backend and parsed.drivername not in _ACCEPTED):
        raise SettingsError(f"database URL {url!r}: unsupported ({_HINT})")
    return parsed.set(drivername=driver).render_as_string(hide_password=False)


def is_sqlite(url: str) -> bool:
    """Whether a database URL names SQLite (one writer at a time).

    >>> is_sqlite("sqlite:///casino.db"), is_sqlite("postgresql://postgres@127.0.0.1:5432/casino")
    (True, False)
    """
    return make_url(driver_url(url)).get_backend_name() == "sqlite"


Result = CursorResult[*tuple[Any, ...]]
"""What a statement gives back (rows, a row count)."""


class Connection(Protocol):
    """The statements of one unit of work (SQLAlchemy Core), awaited on either database."""

    @property
    def dialect(self) -> Dialect: ...

    async def execute(self, statement: Executable, parameters: Any = None) -> Result: ...

    async def scalar(self, statement: Executable, parameters: Any = None) -> Any: ...


class SQLiteConnection:
    """A synchronous SQLAlchemy connection to SQLite behind the awaitable :class:`Connection`
    calls: each statement runs at once on the calling (event-loop) thread."""

    __slots__ = ("sync",)

    def __init__(self, sync: SyncConnection) -> None:
        self.sync = sync

    @property
    def dialect(self) -> Dialect:
        return self.sync.dialect

    async def execute(self, statement: Executable, parameters: Any = None) -> Result:
        return self.sync.execute(statement, parameters)

    async def scalar(self, statement: Executable, parameters: Any = None) -> Any:
        return self.sync.scalar(statement, parameters)


class Database:
    """One engine and the units of work the services run in."""

    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        self.url = driver_url(url)
        parsed = make_url(self.url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        self.pool_size = pool_size
        self._sqlite: Engine | None = None
        self._postgres: AsyncEngine | None = None
        if self.is_sqlite:
            wal = parsed.database not in (None, "", ":memory:")
            # One connection for the process (the pool may hand it to another thread's event
            # loop: tests run apps on a portal thread; it is only ever used by one task at a time).
            self._sqlite = create_engine(self.url, poolclass=StaticPool,
                                         connect_args={"check_same_thread": False})
            _configure_sqlite(self._sqlite, wal=wal)
        else:
            self._postgres = create_async_engine(self.url, pool_size=pool_size, max_overflow=pool_size)
        # SQLite has one writer: the lock keeps units of work from queueing inside SQLite.
        self.lock = asyncio.Lock()

    async def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision shipped in the package."""
        await self.run_sync(_upgrade_to_head)

    async def run_sync(self, function: Callable[[SyncConnection], T]) -> T:
        """``function(connection)`` on a synchronous SQLAlchemy connection, in one transaction
        (Alembic's migrations; on PostgreSQL through SQLAlchemy's bridge to asyncpg)."""
        if self._sqlite is not None:
            async with self.lock:
                with self._sqlite.begin() as connection:
                    return function(connection)
        assert self._postgres is not None
        async with self._postgres.begin() as connection:
            return await connection.run_sync(function)

    @asynccontextmanager
    async def transaction(self, *, lock_account: str | None = None) -> AsyncIterator[Connection]:
        """One unit of work: commits on success, rolls back on any exception.

        ``lock_account`` serialises concurrent writers of that account (PostgreSQL row lock;
        SQLite is serialised as a whole).
        """
        if self._sqlite is not None:
            async with self.lock:
                with self._sqlite.begin() as sync:
                    yield SQLiteConnection(sync)
            return
        assert self._postgres is not None
        async with self._postgres.begin() as connection:
            if lock_account is not None:
                await connection.execute(select(schema.accounts.c.id)
                                         .where(schema.accounts.c.id == lock_account).with_for_update())
            yield connection

    async def dispose(self) -> None:
        if self._sqlite is not None:
            self._sqlite.dispose()
        if self._postgres is not None:
            await self._postgres.dispose()


def _configure_sqlite(engine: Engine, *, wal: bool) -> None:
    # pysqlite's own transaction handling is off; we send BEGIN IMMEDIATE ourselves so a
    # transaction takes the write lock at its start (the SQLAlchemy-documented recipe).
    @event.listens_for(engine, "connect")
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

    @event.listens_for(engine, "begin")
    def _on_begin(connection: SyncConnection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def alembic_config(connection: SyncConnection) -> Any:
    """Alembic's configuration for the migrations shipped in the package, on ``connection``."""
    from alembic.config import Config

    config = Config()
    location = resources.files("dealerpoker.server").joinpath("migrations")
    config.set_main_option("script_location", str(location))
    config.attributes["connection"] = connection
    return config


def _upgrade_to_head(connection: SyncConnection) -> None:
    from alembic import command

    command.upgrade(alembic_config(connection), "head")
