"""Currencies: every account and every solo round has one, and the house has one account per
currency, so no account's entries ever mix currencies.

Existing accounts and rounds get the deployment's default currency (``Database.migrate``
passes it; EUR when none is given), and the single ``house`` account becomes
``house:{that currency}``: its entries are moved under the new id in the same transaction, so
every balance stays as it was.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _default_currency() -> str:
    code = context.config.attributes.get("default_currency", "EUR")
    if not isinstance(code, str) or not code.isalpha() or not 2 <= len(code) <= 8:
        raise ValueError(f"default currency for the migration: expected 2-8 letters, got {code!r}")
    return code


def upgrade() -> None:
    code = _default_currency()
    bind = op.get_bind()
    for table in ("accounts", "rounds"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("currency", sa.String(8), nullable=False, server_default=code))
        if bind.dialect.name != "sqlite":
            # New rows always name their currency. (SQLite cannot drop a column default without
            # copying the table, which its foreign keys forbid inside the migration's transaction.)
            op.alter_column(table, "currency", server_default=None, existing_type=sa.String(8),
                            existing_nullable=False)
    house = f"house:{code}"
    exists = bind.execute(sa.text("SELECT 1 FROM accounts WHERE id = 'house'")).first()
    if exists is not None:
        bind.execute(sa.text("INSERT INTO accounts (id, kind, balance, created_at, currency) SELECT :house, "
                             "kind, balance, created_at, currency FROM accounts WHERE id = 'house'"),
                     {"house": house})
        bind.execute(sa.text("UPDATE ledger_entries SET account_id = :house WHERE account_id = 'house'"),
                     {"house": house})
        bind.execute(sa.text("DELETE FROM accounts WHERE id = 'house'"))


def downgrade() -> None:
    bind = op.get_bind()
    houses = [row[0] for row in bind.execute(sa.text("SELECT id FROM accounts WHERE kind = 'house'"))]
    if houses:
        if len(houses) > 1:
            raise RuntimeError(f"cannot downgrade: the ledger holds several currencies ({', '.join(houses)})")
        bind.execute(sa.text("INSERT INTO accounts (id, kind, balance, created_at, currency) SELECT 'house', "
                             "kind, balance, created_at, currency FROM accounts WHERE id = :h"),
                     {"h": houses[0]})
        bind.execute(sa.text("UPDATE ledger_entries SET account_id = 'house' WHERE account_id = :h"),
                     {"h": houses[0]})
        bind.execute(sa.text("DELETE FROM accounts WHERE id = :h"), {"h": houses[0]})
    for table in ("rounds", "accounts"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("currency")
