"""Live tables: each table's rounds and every player's part in them.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "live_rounds",
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("number", sa.BigInteger, nullable=False),
        sa.Column("phase", sa.String(16), nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "number", name="pk_live_rounds"),
    )
    op.create_table(
        "live_seats",
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("number", sa.BigInteger, nullable=False),
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("bets", sa.Text, nullable=False),
        sa.Column("steps", sa.Text, nullable=False),
        sa.Column("total_stake", sa.BigInteger, nullable=False),
        sa.Column("total_returned", sa.BigInteger, nullable=True),
        sa.Column("updated_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "number", "player_id", name="pk_live_seats"),
    )
    op.create_index("ix_live_seats_player", "live_seats", ["player_id"])


def downgrade() -> None:
    op.drop_table("live_seats")
    op.drop_table("live_rounds")
