"""``staff_users.failed_logins`` and ``locked_until`` dropped: since migration 0019 the lockout is
counted in ``staff_login_failures`` (by name and client address, atomically), and nothing reads
these columns (a reader would have seen a count that no longer moves).

Revision ID: 0024
Revises: 0026
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("staff_users") as batch:
        batch.drop_column("locked_until")
        batch.drop_column("failed_logins")


def downgrade() -> None:
    with op.batch_alter_table("staff_users") as batch:
        batch.add_column(sa.Column("failed_logins", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("locked_until", sa.String(32), nullable=True))
