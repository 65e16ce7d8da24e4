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
  player are serialised by row locks or by statements that write only rows still as read. The
  connections are in autocommit for SQLAlchemy, and a unit of work is asyncpg's own transaction
  (BEGIN and COMMIT on the asyncpg connection), so that ``execute`` (SQLAlchemy) and
  ``rows``/``run`` (asyncpg itself) are in the same one.

**Connections are bounded** (PostgreSQL): a process holds at most ``pool_size`` connections in
SQLAlchemy's pool (units of work, reads) and ``pool_size`` in asyncpg's own pool
(:meth:`Database.acquire`: the solo round store's one-statement steps), opened on demand and kept.
When more players are busy than there are connections they queue for one, first come first
served (a queue of our own in front of each pool: theirs let a newcomer take a connection ahead
of those waiting), at most ``pool_timeout`` seconds, then are answered 503 (:class:`DatabaseBusyError`). A
connection per request beyond the pool (what an unbounded pool does) costs PostgreSQL a backend
process and asyncpg its type introspection each time, and at a few hundred players exceeds
``max_connections`` (``benchmarks/RESULTS.md``, "Concurrency"). A few connections each
committing also share PostgreSQL's WAL flushes (group commit): more connections than the machine
has cores to run them only wait on each other's locks and flushes.

A unit of work hands out a :class:`Connection`: ``await connection.execute(statement)`` on both
databases (:class:`SQLiteConnection`, :class:`PostgresConnection`), and for the hot path (a round
step, the ledger) ``rows`` and ``run``: the statement is compiled once and run on the driver's
connection itself (``sqlite3``, asyncpg), as SQLAlchemy's execution of a statement (a context, a
result object, events; on asyncpg a greenlet hop too) cost several times what the driver spends
running it: it made a solo round cost 3x the server CPU on SQLite, and a seamless round on
PostgreSQL more than 1.3x (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol, TypeVar

import asyncpg
from sqlalchemy import Connection as SyncConnection
from sqlalchemy import CursorResult, Executable, Table, bindparam, create_engine, event, select
from sqlalchemy.engine import Dialect, Engine, make_url
from sqlalchemy.exc import ArgumentError, IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from dealerpoker.errors import DealerPokerError
from dealerpoker.games.currency import DEFAULT_CURRENCY
from dealerpoker.server import bulk, schema
from dealerpoker.server.settings import SettingsError

T = TypeVar("T")
_LOCK_ACCOUNT = select(schema.accounts.c.id).where(schema.accounts.c.id == bindparam("lock_account")) \
    .with_for_update()
_DRIVERS = {"sqlite": "sqlite+pysqlite", "postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg"}
#: Drivers a URL may name explicitly (older ones are served by the server's choice).
_ACCEPTED = {"sqlite+pysqlite", "sqlite+aiosqlite", "sqlite+inline", "postgresql+asyncpg"}
_HINT = "use sqlite:///FILE or postgresql://USER@HOST:PORT/DB"
DEFAULT_POOL_SIZE = 10
"""Connections per pool and process (``serve --database-pool``): enough to keep two cores and
PostgreSQL busy; four processes stay within PostgreSQL's default ``max_connections`` (100)."""
DEFAULT_POOL_TIMEOUT = 30.0
"""How long a request waits for a free connection before it is answered 503 (SQLAlchemy's own
default: 10 s turned away players of a 2,000-seat table all signing in at once on a busy machine)."""


class DatabaseBusyError(DealerPokerError):
    """Every database connection of the process stayed busy for the pool's timeout: the request
    changed nothing and may be sent again (503, ``Retry-After``)."""

    code = "busy"
    status = 503

    def __init__(self, waited: float) -> None:
        super().__init__(f"the server is busy: no database connection came free within {waited:g} s; "
                         "nothing was done, try again")

    def details(self) -> dict[str, Any]:
        return {"retry_after": 1}


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
Values = Mapping[str, Any]


class Connection(Protocol):
    """The statements of one unit of work (SQLAlchemy Core), awaited on either database.

    ``execute`` and ``scalar`` are SQLAlchemy's own (any statement, its ``Result``). ``rows`` and
    ``run`` are the hot path's (a round step, the ledger): the statement with these parameter
    names is compiled once and, on SQLite, run straight on the ``sqlite3`` connection.
    """

    @property
    def dialect(self) -> Dialect: ...

    async def execute(self, statement: Executable, parameters: Any = None) -> Result: ...

    async def scalar(self, statement: Executable, parameters: Any = None) -> Any: ...

    async def rows(self, statement: Executable, values: Values) -> list[dict[str, Any]]:
        """Every row of a query, as column -> value (bound parameters: no ``IN`` lists)."""

    async def one(self, statement: Executable, values: Values) -> dict[str, Any] | None:
        """The first row of ``rows``, or None."""

    async def run(self, statement: Executable, values: Values | Sequence[Values]) -> int:
        """Execute an INSERT, UPDATE or DELETE once, or once per mapping; the rows it changed."""

    async def insert_many(self, table: Table, rows: Sequence[Values], *,
                          replacing: tuple[str, ...] = ()) -> None:
        """INSERT the rows (each with the same columns), in order: one statement on PostgreSQL
        (``bulk``). ``replacing``: a unique key's columns; a row whose key is stored replaces the
        stored row's other columns (each key once in ``rows``)."""

    async def update_many(self, table: Table, keys: tuple[str, ...], rows: Sequence[Values], *,
                          adding: tuple[str, ...] = ()) -> None:
        """UPDATE the row each mapping names by its ``keys`` columns (each row once) with its other
        columns' values, added to the stored value for the ``adding`` columns: one statement on
        PostgreSQL (``bulk``)."""


class SQLiteConnection:
    """The process's SQLite connection behind the awaitable :class:`Connection` calls: each
    statement runs at once on the calling (event-loop) thread."""

    __slots__ = ("compiler", "driver", "sync")

    def __init__(self, sync: SyncConnection, compiler: _Compiler) -> None:
        self.sync = sync
        self.driver: Any = sync.connection.driver_connection  # the sqlite3 connection
        self.compiler = compiler

    @property
    def dialect(self) -> Dialect:
        return self.sync.dialect

    async def execute(self, statement: Executable, parameters: Any = None) -> Result:
        return self.sync.execute(statement, parameters)

    async def scalar(self, statement: Executable, parameters: Any = None) -> Any:
        return self.sync.scalar(statement, parameters)

    async def rows(self, statement: Executable, values: Values) -> list[dict[str, Any]]:
        query = self.compiler.query(statement, tuple(values))
        found = self.driver.execute(query.sql, query.arguments(values)).fetchall()
        return [dict(zip(query.columns, row, strict=True)) for row in found]

    async def one(self, statement: Executable, values: Values) -> dict[str, Any] | None:
        found = await self.rows(statement, values)
        return found[0] if found else None

    async def run(self, statement: Executable, values: Values | Sequence[Values]) -> int:
        try:
            if isinstance(values, Mapping):
                query = self.compiler.query(statement, tuple(values))
                return int(self.driver.execute(query.sql, query.arguments(values)).rowcount)
            if not values:
                return 0
            query = self.compiler.query(statement, tuple(values[0]), many=True)
            return int(self.driver.executemany(query.sql, [query.arguments(row) for row in values]).rowcount)
        except sqlite3.IntegrityError as error:  # as SQLAlchemy raises it, and the PostgreSQL side
            raise IntegrityError(query.sql, values, error) from error

    async def insert_many(self, table: Table, rows: Sequence[Values], *,
                          replacing: tuple[str, ...] = ()) -> None:
        if rows:
            await self.run(bulk.insert_statement(table, tuple(rows[0]), replacing), rows)

    async def update_many(self, table: Table, keys: tuple[str, ...], rows: Sequence[Values], *,
                          adding: tuple[str, ...] = ()) -> None:
        if rows:
            statement = bulk.update_statement(table, keys, tuple(rows[0]), adding)
            await self.run(statement, bulk.by_parameter(rows))


class PostgresConnection:
    """SQLAlchemy's ``AsyncConnection`` (asyncpg) behind ``execute`` and ``scalar``; ``rows``,
    ``one`` and ``run`` compiled once and run on the asyncpg connection itself, in the same
    transaction: SQLAlchemy's execution of a statement (a greenlet hop, a context, a result)
    cost several times asyncpg's own work, as on SQLite (``benchmarks/RESULTS.md``, "Seamless
    wallet"). The unit of work's transaction is asyncpg's (``Database.transaction``): SQLAlchemy's
    connection is in autocommit and begins none of its own."""

    __slots__ = ("compiler", "connection", "driver")

    def __init__(self, connection: AsyncConnection, compiler: _Compiler, driver: Any) -> None:
        self.connection = connection
        self.compiler = compiler
        self.driver = driver  # the asyncpg connection under ``connection``

    @property
    def dialect(self) -> Dialect:
        return self.connection.dialect

    async def execute(self, statement: Executable, parameters: Any = None) -> Result:
        return await self.connection.execute(statement, parameters)

    async def scalar(self, statement: Executable, parameters: Any = None) -> Any:
        return await self.connection.scalar(statement, parameters)

    async def rows(self, statement: Executable, values: Values) -> list[dict[str, Any]]:
        query = self.compiler.query(statement, tuple(values))
        try:
            found = await self.driver.fetch(query.sql, *query.arguments(values))
        except asyncpg.IntegrityConstraintViolationError as error:
            raise IntegrityError(query.sql, dict(values), error) from error
        return [dict(zip(query.columns, row, strict=True)) for row in found]

    async def one(self, statement: Executable, values: Values) -> dict[str, Any] | None:
        found = await self.rows(statement, values)
        return found[0] if found else None

    async def run(self, statement: Executable, values: Values | Sequence[Values]) -> int:
        try:
            if isinstance(values, Mapping):
                query = self.compiler.query(statement, tuple(values))
                status = await self.driver.execute(query.sql, *query.arguments(values))
                return int(status.rsplit(" ", 1)[-1])  # "UPDATE 1", "INSERT 0 1"
            if not values:
                return 0
            query = self.compiler.query(statement, tuple(values[0]), many=True)
            await self.driver.executemany(query.sql, [query.arguments(row) for row in values])
        except asyncpg.IntegrityConstraintViolationError as error:
            raise IntegrityError(query.sql, values, error) from error
        return -1  # a batch's count is not reported (nor was it by SQLAlchemy on asyncpg)

    async def insert_many(self, table: Table, rows: Sequence[Values], *,
                          replacing: tuple[str, ...] = ()) -> None:
        if rows:
            names = tuple(rows[0])
            await self._arrays(bulk.postgres_insert(table, names, replacing), names, rows)

    async def update_many(self, table: Table, keys: tuple[str, ...], rows: Sequence[Values], *,
                          adding: tuple[str, ...] = ()) -> None:
        if rows:
            names = tuple(rows[0])
            await self._arrays(bulk.postgres_update(table, keys, names, adding), names, rows)

    async def _arrays(self, sql: str, names: tuple[str, ...], rows: Sequence[Values]) -> None:
        """``sql`` with one array per column of ``names``, the rows' values in order."""
        try:
            await self.driver.execute(sql, *([row[name] for row in rows] for name in names))
        except asyncpg.IntegrityConstraintViolationError as error:
            raise IntegrityError(sql, rows[0], error) from error


class Database:
    """One engine and the units of work the services run in."""

    def __init__(self, url: str, *, pool_size: int = DEFAULT_POOL_SIZE,
                 pool_timeout: float = DEFAULT_POOL_TIMEOUT) -> None:
        self.url = driver_url(url)
        parsed = make_url(self.url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        if isinstance(pool_size, bool) or not isinstance(pool_size, int) or pool_size < 1:
            raise SettingsError(f"database pool size: expected an integer >= 1, got {pool_size!r}")
        if not pool_timeout > 0:
            raise SettingsError(f"database pool timeout: expected > 0 seconds, got {pool_timeout!r}")
        self.pool_size = pool_size
        self.pool_timeout = pool_timeout
        self._pool: asyncpg.Pool | None = None
        self._pool_opening: asyncio.Lock | None = None
        # The queues in front of the pools: first come, first served. The pools' own queues are
        # not fair: a connection released is taken by whoever asks next, ahead of those waiting,
        # and one who waited and lost goes to the back (at 256 players some waited 8 s, p99).
        self._units_queue = asyncio.Semaphore(pool_size)
        self._statements_queue = asyncio.Semaphore(pool_size)
        self._sqlite: Engine | None = None
        self._sqlite_connection: SyncConnection | None = None
        self._postgres: AsyncEngine | None = None
        self._postgres_reads: AsyncEngine | None = None
        if self.is_sqlite:
            wal = parsed.database not in (None, "", ":memory:")
            # One connection for the process (the pool may hand it to another thread's event
            # loop: tests run apps on a portal thread; it is only ever used by one task at a time).
            self._sqlite = create_engine(self.url, poolclass=StaticPool,
                                         connect_args={"check_same_thread": False})
            _configure_sqlite(self._sqlite, wal=wal)
        else:
            # Bounded: no overflow connections (each would be opened for one request and closed).
            self._postgres = create_async_engine(self.url, pool_size=pool_size, max_overflow=0,
                                                 pool_timeout=pool_timeout)
            # Reads only (``reading``): the same pool in autocommit, one round trip per statement
            # instead of BEGIN, the statement and COMMIT. Under READ COMMITTED each statement of
            # a transaction saw its own snapshot anyway, so a read sees nothing different.
            self._postgres_reads = self._postgres.execution_options(isolation_level="AUTOCOMMIT")
        engine: Any = self._sqlite if self._sqlite is not None else self._postgres
        self._compiler = _Compiler(engine.dialect)
        # SQLite has one writer: the lock keeps units of work from queueing inside SQLite.
        self.lock = asyncio.Lock()

    async def migrate(self, *, default_currency: str = DEFAULT_CURRENCY) -> None:
        """Bring the schema to the newest Alembic revision shipped in the package.

        ``default_currency`` is the currency of accounts and rounds stored before currencies
        were recorded (migration 0006): the deployment's default currency.
        """
        await self.run_sync(lambda connection: _upgrade_to_head(connection, default_currency))

    async def run_sync(self, function: Callable[[SyncConnection], T]) -> T:
        """``function(connection)`` on a synchronous SQLAlchemy connection, in one transaction
        (Alembic's migrations; on PostgreSQL through SQLAlchemy's bridge to asyncpg)."""
        if self._postgres is not None:
            async with self._postgres.begin() as connection:
                return await connection.run_sync(function)
        async with self.lock:
            with self._sqlite_unit().begin():
                return function(self._sqlite_unit())

    @asynccontextmanager
    async def transaction(self, *, lock_account: str | None = None) -> AsyncIterator[Connection]:
        """One unit of work: commits on success, rolls back on any exception.

        ``lock_account`` serialises concurrent writers of that account (PostgreSQL row lock;
        SQLite is serialised as a whole).
        """
        if self._postgres_reads is not None:
            # SQLAlchemy's connection in autocommit, the transaction asyncpg's: one transaction
            # for ``execute`` (SQLAlchemy) and ``rows``/``run`` (asyncpg) alike.
            async with self._connect() as connection:
                raw: Any = (await connection.get_raw_connection()).driver_connection
                unit = PostgresConnection(connection, self._compiler, raw)
                try:
                    transaction = raw.transaction()
                    await transaction.start()
                    try:
                        if lock_account is not None:
                            await unit.rows(_LOCK_ACCOUNT, {"lock_account": lock_account})
                        yield unit
                    except BaseException:
                        with contextlib.suppress(Exception):  # else the connection is dropped below
                            await transaction.rollback()
                        raise
                    await transaction.commit()
                finally:
                    if raw.is_closed() or raw.is_in_transaction():  # cancelled mid-statement
                        await connection.invalidate()  # not back to the pool in a transaction
            return
        async with self.lock:
            sync = self._sqlite_unit()
            driver: Any = sync.connection.driver_connection
            # BEGIN on the driver: SQLAlchemy's own transaction costs more than a round step's
            # statements; it joins this one if the work uses ``execute`` (see ``_on_begin``).
            driver.execute("BEGIN IMMEDIATE")
            try:
                yield SQLiteConnection(sync, self._compiler)
            except BaseException:
                (sync if sync.in_transaction() else driver).rollback()
                raise
            (sync if sync.in_transaction() else driver).commit()

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[Connection]:
        """Reads only, outside any transaction: each statement sees the last commit (on SQLite
        ``rows`` only; on PostgreSQL an autocommit connection)."""
        if self._postgres_reads is not None:
            async with self._connect() as connection:
                driver = (await connection.get_raw_connection()).driver_connection
                yield PostgresConnection(connection, self._compiler, driver)
            return
        async with self.lock:
            sync = self._sqlite_unit()
            try:
                yield SQLiteConnection(sync, self._compiler)
            finally:
                if sync.in_transaction():  # ``execute`` began one: it wrote nothing
                    sync.rollback()

    def autocommit(self) -> AbstractAsyncContextManager[Connection]:
        """Statements outside any transaction, each committed on its own as it returns (``rows``
        and ``run``): for a write that needs no other beside it, such as a seamless bet's row,
        committed before its call is sent (no BEGIN and COMMIT: two round trips fewer on
        PostgreSQL). The same connections as ``reading``."""
        return self.reading()

    @asynccontextmanager
    async def _connect(self) -> AsyncIterator[AsyncConnection]:
        """A connection of SQLAlchemy's pool (autocommit), waited for at most ``pool_timeout``."""
        assert self._postgres_reads is not None
        async with self._queued(self._units_queue):
            connection = self._postgres_reads.connect()
            try:
                await connection.start()
            except PoolTimeoutError:
                raise DatabaseBusyError(self.pool_timeout) from None
            try:
                yield connection
            finally:
                await asyncio.shield(connection.close())

    @asynccontextmanager
    async def _queued(self, queue: asyncio.Semaphore) -> AsyncIterator[None]:
        """A place among the pool's ``pool_size`` users, waited for in turn at most ``pool_timeout``."""
        try:
            async with asyncio.timeout(self.pool_timeout):
                await queue.acquire()
        except TimeoutError:
            raise DatabaseBusyError(self.pool_timeout) from None
        try:
            yield
        finally:
            queue.release()

    @asynccontextmanager
    async def acquire(self) -> AsyncIterator[Any]:
        """An asyncpg connection of the process's pool (PostgreSQL), for statements sent to asyncpg
        itself, each committed on its own unless the caller begins a transaction. Waits at most
        ``pool_timeout`` for a free one (then :class:`DatabaseBusyError`). A connection left in
        a transaction (cancelled mid-statement) is rolled back or closed by the pool, never
        handed out so."""
        async with self._queued(self._statements_queue):
            pool = self._pool if self._pool is not None else await self._open_pool()
            try:
                connection = await pool.acquire(timeout=self.pool_timeout)
            except TimeoutError:
                raise DatabaseBusyError(self.pool_timeout) from None
            try:
                yield connection
            finally:
                await pool.release(connection)

    async def _open_pool(self) -> asyncpg.Pool:
        if self._pool_opening is None:
            self._pool_opening = asyncio.Lock()
        async with self._pool_opening:
            if self._pool is None:
                parsed = make_url(self.url)
                self._pool = await asyncpg.create_pool(
                    user=parsed.username, password=parsed.password, host=parsed.host, port=parsed.port,
                    database=parsed.database, min_size=0, max_size=self.pool_size,
                    # Our statements change no session state: asyncpg's default reset on every
                    # release (advisory locks, cursors, LISTEN, settings) would be a round trip
                    # per statement for nothing. An open transaction is still rolled back.
                    reset=_keep_session)
            return self._pool

    def _sqlite_unit(self) -> SyncConnection:
        """The process's SQLite connection (kept open: a checkout per unit of work would cost
        more than the statements of a round step)."""
        assert self._sqlite is not None
        if self._sqlite_connection is None or self._sqlite_connection.invalidated \
                or self._sqlite_connection.closed:
            self._sqlite_connection = self._sqlite.connect()
        return self._sqlite_connection

    async def dispose(self) -> None:
        if self._sqlite is not None:
            if self._sqlite_connection is not None:
                self._sqlite_connection.close()
                self._sqlite_connection = None
            self._sqlite.dispose()
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
        if self._postgres is not None:
            await self._postgres.dispose()


async def _keep_session(_connection: Any) -> None:
    """asyncpg's pool ``reset``: nothing beyond the rollback of an open transaction it does itself."""


@dataclass(frozen=True, slots=True)
class _Query:
    """A statement compiled for SQLite: SQL text, its parameters in order, its columns."""

    sql: str
    parameters: tuple[str, ...]
    columns: tuple[str, ...]

    def arguments(self, values: Values) -> list[Any]:
        return [values[name] for name in self.parameters]


class _Compiler:
    """Compiles each (statement, parameter names) once (SQLAlchemy's dialect does the work)."""

    def __init__(self, dialect: Dialect | None) -> None:
        self.dialect = dialect
        self._cache: dict[tuple[int, tuple[str, ...], bool], tuple[Executable, _Query]] = {}

    def query(self, statement: Executable, names: tuple[str, ...], *, many: bool = False) -> _Query:
        key = (id(statement), names, many)
        found = self._cache.get(key)
        if found is not None and found[0] is statement:
            return found[1]
        # ``column_keys``: an INSERT or UPDATE sets exactly the columns named in the parameters;
        # ``for_executemany``: no implicit RETURNING of generated keys for a batch insert.
        compiled: Any = statement.compile(dialect=self.dialect, column_keys=list(names),  # type: ignore[attr-defined]
                                          for_executemany=many)
        exported = getattr(statement, "exported_columns", ())
        query = _Query(str(compiled), tuple(compiled.positiontup or ()),
                       tuple(str(column.key) for column in exported))
        self._cache[key] = (statement, query)  # keeps the statement alive, so its id stays unique
        return query


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
        if not connection.connection.driver_connection.in_transaction:  # type: ignore[union-attr]
            connection.exec_driver_sql("BEGIN IMMEDIATE")


def alembic_config(connection: SyncConnection, default_currency: str = DEFAULT_CURRENCY) -> Any:
    """Alembic's configuration for the migrations shipped in the package, on ``connection``
    (``default_currency``: that of accounts and rounds stored before migration 0006)."""
    from alembic.config import Config

    config = Config()
    location = resources.files("dealerpoker.server").joinpath("migrations")
    config.set_main_option("script_location", str(location))
    config.attributes["connection"] = connection
    config.attributes["default_currency"] = default_currency
    return config


def _upgrade_to_head(connection: SyncConnection, default_currency: str) -> None:
    from alembic import command

    command.upgrade(alembic_config(connection, default_currency), "head")
