"""The hot path's SQL: SQLAlchemy Core statements, compiled once per dialect and parameter set,
run straight on the driver's connection (``sqlite3`` or asyncpg) in a transaction of its own.

Why: SQLAlchemy's async execution path (a greenlet hop, an execution context, a result object
per statement) costs about 0.1-0.3 ms of CPU per statement, several times what SQLite or
PostgreSQL spend running the small indexed statements of a round step, and a step runs six.
The statements stay SQLAlchemy Core (one definition for both databases, compiled by
SQLAlchemy's dialects); only their execution skips the engine layer. The columns they touch
are strings and integers, which both drivers return as Python ``str`` and ``int`` without
any type processing.

``Database.direct()`` opens such a transaction; everything else uses
``Database.transaction()`` and the usual ``AsyncConnection``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.engine import Dialect
from sqlalchemy.sql.elements import ClauseElement


@dataclass(frozen=True, slots=True)
class Query:
    """A statement compiled for one dialect: SQL text, its parameters in order, its columns."""

    sql: str
    parameters: tuple[str, ...]
    columns: tuple[str, ...]

    def arguments(self, values: Mapping[str, Any]) -> list[Any]:
        return [values[name] for name in self.parameters]


class Compiler:
    """Compiles each (statement, parameter names) once for the database's dialect."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self._cache: dict[tuple[int, tuple[str, ...], bool], tuple[ClauseElement, Query]] = {}

    def query(self, statement: ClauseElement, names: tuple[str, ...], *, many: bool = False) -> Query:
        key = (id(statement), names, many)
        found = self._cache.get(key)
        if found is not None and found[0] is statement:
            return found[1]
        # ``column_keys``: an INSERT or UPDATE sets exactly the columns named in the parameters;
        # ``for_executemany``: no implicit RETURNING of generated keys for a batch insert.
        compiled: Any = statement.compile(dialect=self.dialect, column_keys=list(names),
                                          for_executemany=many)
        order = compiled.positiontup
        if order is None:
            raise ValueError(f"{self.dialect.name}: expected a positional parameter style")
        exported = getattr(statement, "exported_columns", ())
        query = Query(str(compiled), tuple(order), tuple(str(column.key) for column in exported))
        self._cache[key] = (statement, query)  # keeps the statement alive, so its id stays unique
        return query


class DirectConnection(Protocol):
    """The statements of one transaction, run on the driver's connection."""

    async def one(self, statement: ClauseElement, values: Mapping[str, Any]) -> dict[str, Any] | None:
        """The first row (column name -> value), or None."""
        ...

    async def run(self, statement: ClauseElement, values: Mapping[str, Any]) -> None: ...

    async def run_many(self, statement: ClauseElement, rows: Sequence[Mapping[str, Any]]) -> None: ...


class SQLiteDirect:
    """``sqlite3``: each call runs at once on the calling thread (see ``sqlite_inline``)."""

    def __init__(self, connection: Any, compiler: Compiler) -> None:
        self.connection = connection
        self.compiler = compiler

    async def one(self, statement: ClauseElement, values: Mapping[str, Any]) -> dict[str, Any] | None:
        query = self.compiler.query(statement, tuple(values))
        row = self.connection.execute(query.sql, query.arguments(values)).fetchone()
        return None if row is None else dict(zip(query.columns, row, strict=True))

    async def run(self, statement: ClauseElement, values: Mapping[str, Any]) -> None:
        query = self.compiler.query(statement, tuple(values))
        self.connection.execute(query.sql, query.arguments(values))

    async def run_many(self, statement: ClauseElement, rows: Sequence[Mapping[str, Any]]) -> None:
        query = self.compiler.query(statement, tuple(rows[0]), many=True)
        self.connection.executemany(query.sql, [query.arguments(row) for row in rows])


class AsyncpgDirect:
    """asyncpg: its own prepared-statement cache makes repeated statements cheap."""

    def __init__(self, connection: Any, compiler: Compiler) -> None:
        self.connection = connection
        self.compiler = compiler

    async def one(self, statement: ClauseElement, values: Mapping[str, Any]) -> dict[str, Any] | None:
        query = self.compiler.query(statement, tuple(values))
        row = await self.connection.fetchrow(query.sql, *query.arguments(values))
        return None if row is None else dict(zip(query.columns, row, strict=True))

    async def run(self, statement: ClauseElement, values: Mapping[str, Any]) -> None:
        query = self.compiler.query(statement, tuple(values))
        await self.connection.execute(query.sql, *query.arguments(values))

    async def run_many(self, statement: ClauseElement, rows: Sequence[Mapping[str, Any]]) -> None:
        query = self.compiler.query(statement, tuple(rows[0]), many=True)
        await self.connection.executemany(query.sql, [query.arguments(row) for row in rows])

    async def value(self, sql: str, arguments: Sequence[Any]) -> Any:
        """The first column of the first row of a PostgreSQL statement (``pgsteps``)."""
        return await self.connection.fetchval(sql, *arguments)
