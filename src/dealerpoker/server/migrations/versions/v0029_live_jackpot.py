"""The jackpot side bet at live tables (issue 30): each live seat keeps its jackpot bet's entry
(``live_seats.jackpot``: stake, currency, status and, settled with the round, the first five
cards, the hand, the award and whether it was a share of the pool).

Revision ID: 0029
Revises: 0028
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("live_seats") as batch:
        batch.add_column(sa.Column("jackpot", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("live_seats") as batch:
        batch.drop_column("jackpot")
