"""Change control on the games' rules: a saved paytable version goes live only once a second
member of staff approved it (``rules_activations``: who asked, who approved, when it goes live),
and each version keeps its exact figures and, for the jurisdictions issue, the jurisdictions it
is approved for. The versions saved before went live at once: each gets an approved activation
of its own, so the version in force stays the one it was.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("game_rules_versions") as batch:
        batch.add_column(sa.Column("figures", sa.Text, nullable=True))
        batch.add_column(sa.Column("jurisdictions", sa.Text, nullable=True))
    op.create_table(
        "rules_activations",
        sa.Column("id", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("version_id", sa.BigInteger, nullable=False),
        sa.Column("requested_by", sa.String(64), nullable=False),
        sa.Column("requested_at", sa.String(32), nullable=False),
        sa.Column("live_from", sa.String(32), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("decided_by", sa.String(64), nullable=True),
        sa.Column("decided_at", sa.String(32), nullable=True),
        sa.Column("effective_at", sa.String(32), nullable=True),
    )
    op.create_index("ix_rules_activations_game", "rules_activations", ["game", "status", "effective_at"])
    op.execute("INSERT INTO rules_activations (game, version_id, requested_by, requested_at, status, "
               "decided_by, decided_at, effective_at) SELECT game, id, created_by, created_at, 'approved', "
               "created_by, created_at, created_at FROM game_rules_versions")


def downgrade() -> None:
    op.drop_table("rules_activations")
    with op.batch_alter_table("game_rules_versions") as batch:
        batch.drop_column("jurisdictions")
        batch.drop_column("figures")
