"""Responsible gaming: each player's limits, restriction and session state (one JSON document on
their row, read with what opening a round reads anyway), and an append-only log of every
change to them (who set what, when it takes effect) for the operator and the regulator.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("responsible_gaming", sa.Text, nullable=True))
    op.create_table(
        "rg_events",
        sa.Column("id", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("by", sa.String(60), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
    )
    op.create_index("ix_rg_events_player", "rg_events", ["player_id", "id"])


def downgrade() -> None:
    op.drop_table("rg_events")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("responsible_gaming")
