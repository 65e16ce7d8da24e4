"""Alembic environment: runs on the connection the server hands over (see ``Database.migrate``)."""

from __future__ import annotations

from alembic import context

from dealerpoker.server.schema import metadata


def run_migrations() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("run migrations through dealerpoker.server.db.Database.migrate()")
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


# Alembic executes this file with ``context.config`` set; a plain import (doctest collection) does nothing.
if hasattr(context, "config"):
    run_migrations()
