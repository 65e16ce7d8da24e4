"""The append-only logs (``admin_audit``, ``rg_events``) hash-chained (``prev_hash``, ``row_hash``:
``server.chained_log``; the rows already there chained in ``id`` order), and the rewrites their
UPDATE and DELETE triggers let through refused: ``INSERT OR REPLACE`` on SQLite, ``TRUNCATE`` on
PostgreSQL.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

from dealerpoker.server.migrations.append_only import drop_chained_log, make_chained_log

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

TABLES = ("admin_audit", "rg_events")


def upgrade() -> None:
    for table in TABLES:
        make_chained_log(table, append_only_already=True)


def downgrade() -> None:
    for table in TABLES:
        drop_chained_log(table)
