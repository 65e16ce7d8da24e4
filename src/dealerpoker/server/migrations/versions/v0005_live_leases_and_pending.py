"""Live tables: the lease epoch (fencing token) of each table, and accepted bets and decisions.

``live_leases`` holds the newest lease token that claimed each table: every commit of a table's
round checks it in its own transaction, so a process whose lease was taken over (paused,
partitioned) can no longer write. ``live_pending`` holds the bets and decisions accepted before
their step is committed, so a restart resumes the window or timer with them.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "live_leases",
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("epoch", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_live_leases"),
    )
    op.create_table(
        "live_pending",
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("number", sa.BigInteger, nullable=False),
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("step", sa.String(16), nullable=False),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "number", "player_id", "step", name="pk_live_pending"),
    )


def downgrade() -> None:
    op.drop_table("live_pending")
    op.drop_table("live_leases")
