"""Append-only tables: database triggers that refuse every UPDATE and DELETE of a table's rows,
on SQLite and PostgreSQL, so a log a regulator reads is the log as written whatever code runs.
Used by the migrations that make a table so (0009: ``admin_audit``; 0014: ``rg_events``), and
since 0018 hash-chained with every rewrite refused (``make_chained_log``: one line for a new
append-only log, beside ``*chain_columns()`` in its table)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


def make_append_only(table: str) -> None:
    message = f"{table} is append-only"
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"""CREATE FUNCTION {table}_append_only() RETURNS trigger AS $$
            BEGIN RAISE EXCEPTION '{message}'; END; $$ LANGUAGE plpgsql""")
        op.execute(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                   f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only()")
    else:
        for event in ("UPDATE", "DELETE"):
            op.execute(f"CREATE TRIGGER {table}_no_{event.lower()} BEFORE {event} ON {table} "
                       f"BEGIN SELECT RAISE(ABORT, '{message}'); END")


def drop_append_only(table: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP TRIGGER {table}_append_only ON {table}")
        op.execute(f"DROP FUNCTION {table}_append_only()")
    else:
        for event in ("UPDATE", "DELETE"):
            op.execute(f"DROP TRIGGER {table}_no_{event.lower()}")


def forbid_rewrites(table: str) -> None:
    """Close what the UPDATE and DELETE triggers leave open: on SQLite, ``INSERT OR REPLACE`` (its
    REPLACE deletes the old row without firing DELETE triggers) is refused by a trigger on
    inserting an ``id`` that exists; on PostgreSQL, ``TRUNCATE`` (no row trigger fires) by a
    statement trigger. ``make_append_only`` must have run first."""
    message = f"{table} is append-only"
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                   f"FOR EACH STATEMENT EXECUTE FUNCTION {table}_append_only()")
    else:
        op.execute(f"CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table} "
                   f"WHEN EXISTS (SELECT 1 FROM {table} WHERE id = NEW.id) "
                   f"BEGIN SELECT RAISE(ABORT, '{message}'); END")


def allow_rewrites(table: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP TRIGGER {table}_no_truncate ON {table}")
    else:
        op.execute(f"DROP TRIGGER {table}_no_replace")


def make_chained_log(table: str, *, append_only_already: bool = False) -> None:
    """Make ``table`` (with an integer ``id`` key) a hash-chained append-only log
    (``server.chained_log``): its ``prev_hash`` and ``row_hash`` columns (added when absent), its
    existing rows chained in ``id`` order, and triggers refusing UPDATE, DELETE, INSERT OR
    REPLACE and TRUNCATE. ``append_only_already``: its UPDATE and DELETE triggers exist (they are
    lifted while the existing rows are chained, then put back)."""
    from dealerpoker.server.chained_log import GENESIS, row_hash
    from dealerpoker.server.schema import HASH_COLUMNS

    bind = op.get_bind()
    present = {column["name"] for column in sa.inspect(bind).get_columns(table)}
    for name in HASH_COLUMNS:
        if name not in present:
            op.add_column(table, sa.Column(name, sa.String(64), nullable=True))
    if append_only_already:
        drop_append_only(table)
    reflected = sa.Table(table, sa.MetaData(), autoload_with=bind)
    previous = GENESIS
    for row in bind.execute(sa.select(reflected).order_by(reflected.c.id)).mappings().all():
        digest = row_hash(previous, dict(row))
        bind.execute(sa.update(reflected).where(reflected.c.id == row["id"])
                     .values(prev_hash=previous, row_hash=digest))
        previous = digest
    make_append_only(table)
    forbid_rewrites(table)


def drop_chained_log(table: str) -> None:
    """Undo :func:`make_chained_log` (the table stays append-only against UPDATE and DELETE)."""
    from dealerpoker.server.schema import HASH_COLUMNS

    allow_rewrites(table)
    drop_append_only(table)
    for name in HASH_COLUMNS:
        op.drop_column(table, name)
    make_append_only(table)
