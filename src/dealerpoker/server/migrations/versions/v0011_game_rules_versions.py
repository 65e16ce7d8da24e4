"""The paytable versions an admin saves in the back office (new rounds only), and a player's rounds
by opening time for the back office's search.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "game_rules_versions",
        sa.Column("id", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("overrides", sa.Text, nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("created_by", sa.String(64), nullable=False),
    )
    op.create_index("ix_game_rules_versions_game", "game_rules_versions", ["game", "id"])
    op.create_index("ix_rounds_player_created", "rounds", ["player_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_rounds_player_created", "rounds")
    op.drop_table("game_rules_versions")
