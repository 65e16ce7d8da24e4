"""Append-only tables: database triggers that refuse every UPDATE and DELETE of a table's rows,
on SQLite and PostgreSQL, so a log a regulator reads is the log as written whatever code runs.
Used by the migrations that make a table so (0009: ``admin_audit``; 0014: ``rg_events``)."""

from __future__ import annotations

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
