"""Many rows in one statement: the batches of a live table's steps (every seat's row, every
ledger entry and balance of a settlement: 10,000 each at the largest tables).

On PostgreSQL a batch is one statement over one array per column (``unnest``), not one
statement per row (asyncpg's ``executemany``, pipelined, was what the server sent before): at
10,000 seats a settlement's postings took 334 ms against 507 (74 ms of the server's CPU against
154), its seats' update 203 ms against 231 (``benchmarks/batch_writes.py``; ``benchmarks/RESULTS.md``,
"One statement per batch"). On SQLite the statements are calls into the library, not round
trips: a batch stays ``executemany``.

The statements are built once per table and set of columns (``functools.cache``): the
connections (``db``) run them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Executable, Table, and_, bindparam, insert, update
from sqlalchemy.dialects import postgresql, sqlite

_POSTGRES = postgresql.dialect()  # type: ignore[no-untyped-call]


def _quote(name: str) -> str:
    return str(_POSTGRES.identifier_preparer.quote(name))


def _arrays(table: Table, names: Sequence[str]) -> str:
    """``unnest`` of one array parameter per column, each cast to its column's type."""
    return ", ".join(f"${n}::{table.c[name].type.compile(dialect=_POSTGRES)}[]"
                     for n, name in enumerate(names, start=1))


@functools.cache
def postgres_insert(table: Table, names: tuple[str, ...], replacing: tuple[str, ...] = ()) -> str:
    """INSERT of the rows whose ``names`` columns come as arrays ($1 ... in that order), in the
    arrays' order (the serial ids of a ledger's entries follow it); with ``replacing`` (a unique
    key's columns), a row whose key is stored already has its other columns replaced."""
    columns = ", ".join(_quote(name) for name in names)
    statement = (f"INSERT INTO {_quote(table.name)} ({columns}) SELECT {columns} "
                 f"FROM unnest({_arrays(table, names)}) WITH ORDINALITY AS batch({columns}, batch_order) "
                 f"ORDER BY batch_order")
    if replacing:
        sets = ", ".join(f"{_quote(name)} = excluded.{_quote(name)}"
                         for name in names if name not in replacing)
        statement += f" ON CONFLICT ({', '.join(_quote(key) for key in replacing)}) DO UPDATE SET {sets}"
    return statement


@functools.cache
def postgres_update(table: Table, keys: tuple[str, ...], names: tuple[str, ...],
                    adding: tuple[str, ...]) -> str:
    """UPDATE of the row named by each element of the ``keys`` arrays: the other ``names``
    columns set to (``adding``: added to the stored value of) the arrays' elements."""
    target = _quote(table.name)
    sets = ", ".join(f"{_quote(name)} = " + (f"{target}.{_quote(name)} + " if name in adding else "")
                     + f"batch.{_quote(name)}" for name in names if name not in keys)
    match = " AND ".join(f"{target}.{_quote(key)} = batch.{_quote(key)}" for key in keys)
    columns = ", ".join(_quote(name) for name in names)
    return (f"UPDATE {target} SET {sets} FROM unnest({_arrays(table, names)}) AS batch({columns}) "
            f"WHERE {match}")


@functools.cache
def insert_statement(table: Table, names: tuple[str, ...], replacing: tuple[str, ...] = ()) -> Executable:
    """The INSERT each row runs through on SQLite (``replacing``: as in ``postgres_insert``)."""
    if not replacing:
        return insert(table).inline()
    statement = sqlite.insert(table)
    return statement.on_conflict_do_update(
        index_elements=list(replacing),
        set_={name: statement.excluded[name] for name in names if name not in replacing})


@functools.cache
def update_statement(table: Table, keys: tuple[str, ...], names: tuple[str, ...],
                     adding: tuple[str, ...]) -> Executable:
    """The UPDATE each row runs through on SQLite, its parameters named by ``parameter``."""
    values: dict[str, Any] = {name: (table.c[name] + bindparam(parameter(name))) if name in adding
                              else bindparam(parameter(name)) for name in names if name not in keys}
    match = and_(*(table.c[key] == bindparam(parameter(key)) for key in keys))
    return update(table).where(match).values(values)


def parameter(name: str) -> str:
    """The bound parameter of a column in ``update_statement`` (a column's own name is reserved)."""
    return f"batch_{name}"


def by_parameter(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows of an ``update_statement``, each value under its column's ``parameter``."""
    return [{parameter(name): value for name, value in row.items()} for row in rows]
