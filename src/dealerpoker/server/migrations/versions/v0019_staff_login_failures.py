"""Failed back-office sign-ins counted by (name, client address), known names and unknown alike
(``staff_login_failures``): the lockout is counted atomically and locks a name from one address,
so a stranger cannot lock a member out nor tell a known name from an unknown one.

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "staff_login_failures",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("locked_until", sa.String(32), nullable=True),
        sa.Column("updated_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("name", "address", name="pk_staff_login_failures"),
    )


def downgrade() -> None:
    op.drop_table("staff_login_failures")
