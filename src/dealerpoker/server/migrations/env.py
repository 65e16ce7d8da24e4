"""Alembic environment: runs on the connection the server hands over (see ``db.migrate``)."""

from __future__ import annotations

from alembic import context

from dealerpoker.server.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the server always passes its connection
    raise RuntimeError("run migrations through dealerpoker.server.db.Database.migrate()")
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
