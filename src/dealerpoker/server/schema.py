"""Tables (SQLAlchemy Core). The Alembic migrations in ``migrations/`` create exactly these.

Timestamps are ISO-8601 UTC strings (``2026-11-29T12:00:00.000000Z``): they sort as text and
behave the same on SQLite and PostgreSQL. JSON documents are stored as text for the same reason.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

# SQLite only auto-increments an INTEGER PRIMARY KEY.
_SERIAL = BigInteger().with_variant(Integer(), "sqlite")

accounts = Table(
    "accounts", metadata,
    Column("id", String(40), primary_key=True),
    # "player" | "house": one house account per currency, ``games.currency.house_account``
    Column("kind", String(10), nullable=False),
    # Materialised for players (checked against their entries); the house's balance is the
    # sum of its entries, so no single row is written by every player's transaction.
    Column("balance", BigInteger, nullable=False, default=0),
    Column("created_at", String(32), nullable=False),
    # Every entry of the account is in this currency (migration 0006); a player keeps theirs.
    Column("currency", String(8), nullable=False),
)

players = Table(
    "players", metadata,
    Column("id", String(40), ForeignKey("accounts.id"), primary_key=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("client_seed", String(128), nullable=False),
    Column("nonce", BigInteger, nullable=False, default=0),
    Column("created_at", String(32), nullable=False),
    # The seed of this player's next round, committed (its SHA-256 shown) before they bet.
    Column("next_server_seed", String(64), nullable=True),
    # JSON: limits, restriction and session state (``responsible``); null: none ever set (0007).
    Column("responsible_gaming", Text, nullable=True),
)

ledger_entries = Table(
    "ledger_entries", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("txid", String(80), nullable=False),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("amount", BigInteger, nullable=False),  # signed: debit < 0 < credit
    Column("round_id", String(40), nullable=True),
    Column("memo", String(40), nullable=False),
    Column("created_at", String(32), nullable=False),
    UniqueConstraint("txid", "account_id", name="uq_ledger_entries_txid_account"),
    Index("ix_ledger_entries_account", "account_id"),
    Index("ix_ledger_entries_round", "round_id"),
)

rounds = Table(
    "rounds", metadata,
    Column("seq", _SERIAL, primary_key=True, autoincrement=True),
    Column("id", String(40), nullable=False, unique=True),
    Column("player_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("game", String(32), nullable=False),
    Column("rules_version", String(64), nullable=False),
    Column("rules_fingerprint", String(64), nullable=False),
    Column("status", String(10), nullable=False),  # "open" | "settled"
    Column("phase", String(16), nullable=False),
    Column("idempotency_key", String(128), nullable=True),
    Column("bets", Text, nullable=False),  # JSON {field: amount}
    Column("deck", Text, nullable=False),  # JSON [52 card indices] in dealing order
    Column("server_seed", String(64), nullable=True),
    Column("commitment", String(64), nullable=True),
    Column("client_seed", String(128), nullable=True),
    Column("nonce", BigInteger, nullable=True),
    Column("algorithm", String(40), nullable=False),
    Column("steps", Text, nullable=False),  # JSON [{step, action, source, at, stake, returned}]
    Column("view", Text, nullable=False),  # JSON: the player's view after the last step
    Column("total_stake", BigInteger, nullable=False),
    Column("total_returned", BigInteger, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("updated_at", String(32), nullable=False),
    Column("settled_at", String(32), nullable=True),
    Column("currency", String(8), nullable=False),  # fixed when the round opens (migration 0006)
    UniqueConstraint("player_id", "idempotency_key", name="uq_rounds_player_idempotency"),
    Index("ix_rounds_player_seq", "player_id", "seq"),
    Index("ix_rounds_status_updated", "status", "updated_at"),
    # The back office's search, newest first, and its reports by day (migration 0010).
    Index("ix_rounds_created", "created_at"),
    Index("ix_rounds_game_created", "game", "created_at"),
    Index("ix_rounds_settled", "settled_at"),
    Index("ix_rounds_player_created", "player_id", "created_at"),  # a player's, newest first (0011)
)

rules_documents = Table(
    "rules_documents", metadata,
    Column("fingerprint", String(64), primary_key=True),
    Column("game", String(32), nullable=False),
    Column("rules_version", String(64), nullable=False),
    Column("document", Text, nullable=False),  # JSON: the rules as played (paytables, limits)
    Column("created_at", String(32), nullable=False),
)

# Every change of a player's responsible-gaming settings, as it was made (migration 0007).
rg_events = Table(
    "rg_events", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("player_id", String(40), nullable=False),
    Column("at", String(32), nullable=False),
    Column("by", String(60), nullable=False),  # "player" | "operator:{id}" | "server"
    Column("kind", String(32), nullable=False),  # "limit" | "restriction" | "reality_check" | "session"
    Column("detail", Text, nullable=False),  # JSON
    Index("ix_rg_events_player", "player_id", "id"),
)

# ---- live tables (migrations 0003-0005) ----------------------------------------------------

live_rounds = Table(
    "live_rounds", metadata,
    Column("table_id", String(40), nullable=False),
    Column("number", BigInteger, nullable=False),
    Column("phase", String(16), nullable=False),
    # JSON: point, deadline, deck and the fairness seeds (the server seed is only published
    # once the round is over; it is stored so a restarted process can finish the round).
    Column("record", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("updated_at", String(32), nullable=False),
    Column("settled_at", String(32), nullable=True),  # set by the settlement commit (0004)
    PrimaryKeyConstraint("table_id", "number", name="pk_live_rounds"),
    Index("ix_live_rounds_settled", "settled_at"),
    Index("ix_live_rounds_created", "created_at"),  # the back office's search (migration 0010)
)

live_seats = Table(
    "live_seats", metadata,
    Column("table_id", String(40), nullable=False),
    Column("number", BigInteger, nullable=False),
    Column("player_id", String(40), nullable=False),
    Column("bets", Text, nullable=False),   # JSON {field: amount}
    Column("steps", Text, nullable=False),  # JSON [{point, action, source, stake}]
    Column("total_stake", BigInteger, nullable=False),
    Column("total_returned", BigInteger, nullable=True),  # set by the settlement
    Column("updated_at", String(32), nullable=False),
    # JSON Settlement.to_dict() as computed when the round was settled (0004)
    Column("settlement", Text, nullable=True),
    PrimaryKeyConstraint("table_id", "number", "player_id", name="pk_live_seats"),
    Index("ix_live_seats_player", "player_id"),
    Index("ix_live_seats_player_updated", "player_id", "updated_at"),
)

# The newest lease token (fencing token) that claimed each table; every commit checks it.
live_leases = Table(
    "live_leases", metadata,
    Column("table_id", String(40), nullable=False),
    Column("epoch", BigInteger, nullable=False),
    Column("updated_at", String(32), nullable=False),
    PrimaryKeyConstraint("table_id", name="pk_live_leases"),
)

# The back office's hold and timers of each live table (migration 0010; ``live.controls``).
live_table_controls = Table(
    "live_table_controls", metadata,
    Column("table_id", String(40), primary_key=True),
    Column("status", String(10), nullable=False),  # "open" | "paused" | "closed"
    Column("timers", Text, nullable=True),  # JSON {betting_seconds, decision_seconds, pause_seconds}
    Column("updated_at", String(32), nullable=False),
)

# Bets and decisions accepted before their step is committed (see ``live.pending``).
live_pending = Table(
    "live_pending", metadata,
    Column("table_id", String(40), nullable=False),
    Column("number", BigInteger, nullable=False),
    Column("player_id", String(40), nullable=False),
    Column("step", String(16), nullable=False),  # "bets" or the decision point
    Column("value", Text, nullable=False),       # the bets' JSON, or the action
    Column("updated_at", String(32), nullable=False),
    PrimaryKeyConstraint("table_id", "number", "player_id", "step", name="pk_live_pending"),
)

# ---- the back office (migration 0009) -------------------------------------------------------

# Staff of the back office: a role, an argon2 password hash, an optional TOTP secret, lockout.
staff_users = Table(
    "staff_users", metadata,
    Column("id", String(40), primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("role", String(16), nullable=False),  # "admin" | "support" | "auditor"
    Column("password_hash", String(200), nullable=False),
    # The password printed by ``admin create-user``: to be replaced at the first sign-in.
    Column("must_change_password", Integer, nullable=False, default=1),
    Column("totp_secret", String(64), nullable=True),
    Column("failed_logins", Integer, nullable=False, default=0),
    Column("locked_until", String(32), nullable=True),
    Column("created_at", String(32), nullable=False),
)

# A staff member's signed-in browser: the cookie's token (stored as its SHA-256) and its CSRF token.
staff_sessions = Table(
    "staff_sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("user_id", String(40), ForeignKey("staff_users.id"), nullable=False),
    Column("csrf", String(64), nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("expires_at", String(32), nullable=False),
)

# Every change made in the back office: append-only (the migration adds triggers refusing
# UPDATE and DELETE on both databases).
admin_audit = Table(
    "admin_audit", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("at", String(32), nullable=False),
    Column("actor", String(64), nullable=False),  # the staff member's name, or "cli"
    Column("action", String(40), nullable=False),
    Column("target", String(120), nullable=False),
    Column("before", Text, nullable=True),  # JSON
    Column("after", Text, nullable=True),   # JSON
    Index("ix_admin_audit_at", "at"),
)

# Every paytable version an admin saved in the back office (migration 0011): what it changes in
# the game's rules, applied to new rounds from then on (the newest per game, also after a restart).
game_rules_versions = Table(
    "game_rules_versions", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("game", String(32), nullable=False),
    Column("overrides", Text, nullable=False),  # JSON merged over the game's configured rules
    Column("fingerprint", String(64), nullable=False),  # of the default currency's rules with it
    Column("created_at", String(32), nullable=False),
    Column("created_by", String(64), nullable=False),
    Index("ix_game_rules_versions_game", "game", "id"),
)

# ---- operators and their seamless wallets (migration 0012; ``server.operators``) ------------

# An operator's player: (operator, the operator's player id, currency, mode) -> an account here.
# "real" accounts hold no money here (kind "remote": the operator's wallet does); "demo" ones are
# embedded play-money accounts. ``token`` is the operator's session token of the newest launch.
operator_players = Table(
    "operator_players", metadata,
    Column("operator_id", String(32), nullable=False),
    Column("external_id", String(64), nullable=False),
    Column("currency", String(8), nullable=False),
    Column("mode", String(8), nullable=False),  # "real" | "demo"
    Column("player_id", String(40), ForeignKey("accounts.id"), nullable=False, unique=True),
    Column("token", String(512), nullable=True),
    Column("created_at", String(32), nullable=False),
    Column("updated_at", String(32), nullable=False),
    PrimaryKeyConstraint("operator_id", "external_id", "currency", "mode", name="pk_operator_players"),
)

# One-time launch tokens (stored as SHA-256): valid 60 s, used once (``used_at``).
launch_tokens = Table(
    "launch_tokens", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("operator_id", String(32), nullable=False),
    Column("launch", Text, nullable=False),  # JSON: the launch request's fields (player, game...)
    Column("created_at", String(32), nullable=False),
    Column("expires_at", String(32), nullable=False),
    Column("used_at", String(32), nullable=True),
)

# Bearer tokens of operators' players (one per launch: two tabs are two sessions of one account).
operator_sessions = Table(
    "operator_sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("player_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("created_at", String(32), nullable=False),
)

# Every transaction with an operator's wallet: a bet (written before it is sent), a win owed (the
# outbox, written with the settlement), a rollback of a bet whose outcome is unknown.
wallet_transactions = Table(
    "wallet_transactions", metadata,
    Column("transaction_id", String(100), primary_key=True),
    Column("operator_id", String(32), nullable=False),
    Column("player_id", String(40), nullable=False),
    Column("currency", String(8), nullable=False),
    Column("kind", String(10), nullable=False),  # "bet" | "win" | "rollback"
    Column("amount", BigInteger, nullable=False),  # minor units, >= 0
    Column("round_id", String(40), nullable=False),
    Column("game", String(32), nullable=False),
    Column("round_closed", Integer, nullable=False, default=0),
    Column("reference_transaction_id", String(100), nullable=True),  # a rollback's bet
    Column("txid", String(80), nullable=False),  # the ledger txid it carries the money of
    # bet: "sending" -> "taken" (OK) -> "confirmed" (recorded with its step) | "refused" |
    #      "rolled_back" (its rollback answered); win/rollback: "pending" -> "done"
    Column("status", String(12), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("next_attempt_at", String(32), nullable=True),  # pending ones only
    Column("last_answer", String(40), nullable=True),
    Column("balance", BigInteger, nullable=True),  # the operator's balance in its last answer
    Column("created_at", String(32), nullable=False),
    Column("updated_at", String(32), nullable=False),
    Index("ix_wallet_transactions_pending", "status", "next_attempt_at"),
    Index("ix_wallet_transactions_round", "round_id"),
    Index("ix_wallet_transactions_operator_created", "operator_id", "created_at"),
    Index("ix_wallet_transactions_txid", "txid"),
)

# Every call to an operator's wallet and its answer, as sent and received (the player's session
# token left out), append-only: a dispute is settled from these.
wallet_calls = Table(
    "wallet_calls", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("transaction_id", String(100), nullable=False),
    Column("call", String(10), nullable=False),  # "bet" | "win" | "rollback" | "balance"
    Column("request", Text, nullable=False),  # JSON body sent (without the token)
    Column("http_status", Integer, nullable=True),
    Column("answer", Text, nullable=True),  # the body received, or the failure ("timeout", ...)
    Column("at", String(32), nullable=False),
    Column("duration_ms", Integer, nullable=False),
    Index("ix_wallet_calls_transaction", "transaction_id", "id"),
)

# Every bearer token's life (migration 0013; ``server.sessions``): a demo player's or an
# operator's session token gets its row when it first authenticates. It expires when idle or too
# old (settings) and ends by a logout or a revocation (``ended_at``, ``end_reason``).
sessions = Table(
    "sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("player_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("last_seen_at", String(32), nullable=False),
    Column("ended_at", String(32), nullable=True),
    Column("end_reason", String(16), nullable=True),  # "logout" | "revoked"
    Index("ix_sessions_player", "player_id"),
)
