"""New SQLite databases of the tests get their schema copied, not migrated step by step.

Every app a test builds on a new SQLite database runs Alembic's 27 migrations: 0.12 s of CPU each,
about 400 times in the quick tier alone (an eighth of its CPU). Here the first new database of a
process and default currency is migrated for real (``db._upgrade_to_head``), and what that made
(``sqlite_master``'s statements, in the order they were made, and the rows: Alembic's version, the
house account) is replayed into each later new database of that currency, in the migration's own
transaction. The copy is the real migrations' output, statement for statement
(tests/server/test_migrations.py compares the two); a database that has any table (a test of the
migrations themselves, a restart) is migrated as usual, and PostgreSQL always is.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, create_engine

import dealerpoker.server.db as db

Upgrade = Callable[[Connection, str], None]
MIGRATE_FOR_REAL: Upgrade = db._upgrade_to_head


@dataclass(frozen=True)
class Schema:
    """What the migrations made in a new SQLite database: its statements and its rows."""

    statements: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...], tuple[tuple[Any, ...], ...]], ...]  # table, columns, rows


def made_by(connection: Connection) -> Schema:
    """The schema and rows of the SQLite database on ``connection``, in the order they were made."""
    objects = connection.exec_driver_sql(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        "ORDER BY rowid").all()
    rows = []
    for kind, name, _sql in objects:
        if kind != "table":
            continue
        found = connection.exec_driver_sql(f'SELECT * FROM "{name}"')
        values = tuple(tuple(row) for row in found.all())
        if values:
            rows.append((str(name), tuple(found.keys()), values))
    return Schema(tuple(str(sql) for _kind, _name, sql in objects), tuple(rows))


@functools.cache
def migrated(default_currency: str) -> Schema:
    """What the real migrations make of a new SQLite database (file, WAL: as the server's)."""
    with tempfile.TemporaryDirectory(prefix="dp-migrated-") as folder:
        engine = create_engine(f"sqlite:///{Path(folder) / 'template.db'}")
        db._configure_sqlite(engine, wal=True)
        try:
            with engine.begin() as connection:
                MIGRATE_FOR_REAL(connection, default_currency)
            with engine.connect() as connection:
                return made_by(connection)
        finally:
            engine.dispose()


def is_new(connection: Connection) -> bool:
    return connection.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar() == 0


def upgrade_to_head(connection: Connection, default_currency: str) -> None:
    """``db._upgrade_to_head``, a new SQLite database's schema copied from ``migrated``."""
    if connection.dialect.name != "sqlite" or not is_new(connection):
        MIGRATE_FOR_REAL(connection, default_currency)
        return
    schema = migrated(default_currency)
    for statement in schema.statements:
        connection.exec_driver_sql(statement)
    for table, columns, values in schema.rows:
        names = ", ".join(f'"{column}"' for column in columns)
        marks = ", ".join("?" for _ in columns)
        connection.exec_driver_sql(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', list(values))


def install() -> None:
    """New SQLite databases copied, for every test of this process (tests/conftest.py)."""
    db._upgrade_to_head = upgrade_to_head


@contextmanager
def migrating_for_real() -> Iterator[None]:
    """Within: every database migrated step by step (the tests of the migrations)."""
    copying, db._upgrade_to_head = db._upgrade_to_head, MIGRATE_FOR_REAL
    try:
        yield
    finally:
        db._upgrade_to_head = copying
