"""The wallet transactions in flight indexed alone (issue 29): the outbox's rows owed, by when
due, and the bets being sent, by when written (for the sweeper), in two partial indexes instead
of one index on every row's status. A lookup by key that also tests a status given as a
parameter (a step confirming its bets) can no longer be planned on the status index, which read
every row in flight (PostgreSQL's generic plans; tests/server/test_postgres_plans.py).

Revision ID: 0031
Revises: 0030
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None

_PARTIAL = (("ix_wallet_transactions_due", "next_attempt_at", "pending"),
            ("ix_wallet_transactions_sending", "created_at", "sending"))


def upgrade() -> None:
    op.drop_index("ix_wallet_transactions_pending", table_name="wallet_transactions")
    for name, column, status in _PARTIAL:
        where = sa.text(f"status = '{status}'")
        op.create_index(name, "wallet_transactions", [column], postgresql_where=where, sqlite_where=where)


def downgrade() -> None:
    for name, _column, _status in _PARTIAL:
        op.drop_index(name, table_name="wallet_transactions")
    op.create_index("ix_wallet_transactions_pending", "wallet_transactions", ["status", "next_attempt_at"])
