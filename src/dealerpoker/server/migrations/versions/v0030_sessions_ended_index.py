"""Sessions by when they ended (issue 29): every server process reads the sessions ended in the
last seconds (``server.sessions``) instead of reading each open socket's session again.

Revision ID: 0030
Revises: 0029
"""

from __future__ import annotations

from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_sessions_ended", "sessions", ["ended_at"])


def downgrade() -> None:
    op.drop_index("ix_sessions_ended", table_name="sessions")
