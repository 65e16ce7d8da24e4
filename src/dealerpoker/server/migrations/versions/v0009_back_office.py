"""The back office: staff accounts and their sessions, and the append-only admin audit log
(triggers refuse every UPDATE and DELETE of its rows, on SQLite and PostgreSQL).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from dealerpoker.server.migrations.append_only import drop_append_only, make_append_only

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "staff_users",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("must_change_password", sa.Integer, nullable=False),
        sa.Column("totp_secret", sa.String(64), nullable=True),
        sa.Column("failed_logins", sa.Integer, nullable=False),
        sa.Column("locked_until", sa.String(32), nullable=True),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "staff_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(40), sa.ForeignKey("staff_users.id"), nullable=False),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("expires_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "admin_audit",
        sa.Column("id", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("target", sa.String(120), nullable=False),
        sa.Column("before", sa.Text, nullable=True),
        sa.Column("after", sa.Text, nullable=True),
    )
    op.create_index("ix_admin_audit_at", "admin_audit", ["at"])
    make_append_only("admin_audit")


def downgrade() -> None:
    drop_append_only("admin_audit")
    op.drop_table("admin_audit")
    op.drop_table("staff_sessions")
    op.drop_table("staff_users")
