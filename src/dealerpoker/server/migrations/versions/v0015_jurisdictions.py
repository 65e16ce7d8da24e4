"""Jurisdictions: the market an operator's player was last launched into
(``operator_players.jurisdiction``) and the profile each solo round was played under
(``rounds.jurisdiction``: the profile's enforced settings as JSON, with its id and version; null
for rounds before this revision).

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("operator_players") as batch:
        batch.add_column(sa.Column("jurisdiction", sa.String(8), nullable=True))
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("jurisdiction", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("jurisdiction")
    with op.batch_alter_table("operator_players") as batch:
        batch.drop_column("jurisdiction")
