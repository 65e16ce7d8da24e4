"""SQLite for the async engine without a thread per connection: ``sqlite+inline://``.

aiosqlite runs every call (cursor, execute, fetch, close, commit) on a thread of its own and
hands the result back to the event loop: about 25 thread hops per request, which cost more CPU
than the SQL itself. SQLite is an embedded library whose statements take microseconds on the
small indexed rows the server touches, so this dialect runs them directly on the calling
(event-loop) thread: the same SQLAlchemy async API, the standard ``sqlite3`` module underneath.

Why blocking the loop is acceptable here: each transaction is short and the server keeps one
writer at a time anyway (``Database`` serialises SQLite transactions in-process and takes the
write lock with ``BEGIN IMMEDIATE``). Durability is SQLite's own: WAL with
``synchronous=NORMAL`` (set by ``Database``) keeps every commit across a killed process
(``kill -9``); only an operating-system crash or power loss can lose the last commits before
a checkpoint. Another process holding the write lock (a second ``serve`` on the same file) makes
``BEGIN IMMEDIATE`` wait up to ``busy_timeout`` on this thread.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_dbapi,
    SQLiteDialect_aiosqlite,
)
from sqlalchemy.util import parse_version_string

DRIVER = "inline"


class _Cursor:
    """An aiosqlite-style cursor whose coroutines finish at once (no thread)."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    async def __aenter__(self) -> _Cursor:
        return self

    async def execute(self, sql: str, parameters: Any = ()) -> _Cursor:
        self._cursor.execute(sql, parameters)
        return self

    async def executemany(self, sql: str, parameters: Any) -> _Cursor:
        self._cursor.executemany(sql, parameters)
        return self

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._cursor.fetchmany(self._cursor.arraysize if size is None else size)

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def nextset(self) -> None:
        return None

    async def setinputsizes(self, *sizes: Any) -> None:
        return None

    async def close(self) -> None:
        self._cursor.close()

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value


class _Connection:
    """An aiosqlite-style connection over a plain ``sqlite3`` connection."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._conn = connection
        self._connection: sqlite3.Connection | None = connection  # SQLAlchemy checks it is open

    def cursor(self) -> _Cursor:
        return _Cursor(self._conn.cursor())

    async def commit(self) -> None:
        self._conn.commit()

    async def rollback(self) -> None:
        self._conn.rollback()

    async def close(self) -> None:
        self._connection = None
        self._conn.close()

    @property
    def isolation_level(self) -> str | None:
        return self._conn.isolation_level

    @isolation_level.setter
    def isolation_level(self, value: Any) -> None:
        self._conn.isolation_level = value


class _AdaptedConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ()

    # aiosqlite's adapter queues these two on the driver's thread; here there is none.
    @property
    def isolation_level(self) -> str | None:
        value: str | None = self._connection.isolation_level
        return value

    @isolation_level.setter
    def isolation_level(self, value: str | None) -> None:
        self._connection.isolation_level = value

    def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._connection._conn.create_function(*args, **kwargs)


class _InlineDBAPI(AsyncAdapt_aiosqlite_dbapi):
    def __init__(self) -> None:
        # ``sqlite3`` plays aiosqlite's part too: it has the same exception classes.
        super().__init__(sqlite3, sqlite3)

    def connect(self, *args: Any, **kwargs: Any) -> _AdaptedConnection:
        kwargs.pop("async_creator_fn", None)
        # The pool may hand a connection to another thread's event loop (tests run apps on a
        # portal thread); it is only ever used by one task at a time.
        kwargs["check_same_thread"] = False
        connection: Any = _Connection(sqlite3.connect(*args, **kwargs))  # duck-types aiosqlite's
        return _AdaptedConnection(self, connection)


class SQLiteDialect_inline(SQLiteDialect_aiosqlite):
    driver = DRIVER
    supports_statement_cache = True
    supports_server_side_cursors = False
    has_terminate = False

    @classmethod
    def import_dbapi(cls) -> _InlineDBAPI:
        return _InlineDBAPI()

    def retrieve_dbapi_version(self, dbapi: Any) -> Any:
        return parse_version_string(sqlite3.sqlite_version)


registry.register(f"sqlite.{DRIVER}", __name__, "SQLiteDialect_inline")
