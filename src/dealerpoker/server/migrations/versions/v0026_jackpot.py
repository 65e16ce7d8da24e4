"""The progressive jackpot's pool and its events (``server.jackpot``): one row per pool, and
every seed, contribution and award that changed it.

Revision ID: 0026
Revises: 0023
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0023"
branch_labels = None
depends_on = None

_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "jackpot_pools",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "jackpot_events",
        sa.Column("id", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("pool_id", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("round_id", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("pool_after", sa.BigInteger(), nullable=False),
        sa.Column("player_amount", sa.BigInteger(), nullable=True),
        sa.Column("player_currency", sa.String(8), nullable=True),
        sa.Column("category", sa.String(32), nullable=True),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("round_id", "player_id", "kind", name="uq_jackpot_events_round_player_kind"),
    )
    op.create_index("ix_jackpot_events_pool", "jackpot_events", ["pool_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_jackpot_events_pool", "jackpot_events")
    op.drop_table("jackpot_events")
    op.drop_table("jackpot_pools")
