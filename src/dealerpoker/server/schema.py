"""Tables (SQLAlchemy Core). The Alembic migrations in ``migrations/`` create exactly these.

Timestamps are ISO-8601 UTC strings (``2026-11-29T12:00:00.000000Z``): they sort as text and
behave the same on SQLite and PostgreSQL. JSON documents are stored as text for the same reason.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    ColumnElement,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
    literal_column,
    text,
)

metadata = MetaData()

HASH_COLUMNS = ("prev_hash", "row_hash")


def chain_columns() -> tuple[Column[str], Column[str]]:
    """The columns of a hash-chained append-only log (``server.chained_log``): the hash of the
    row before, and the row's own. A table with them is chained (its migration calls
    ``migrations.append_only.make_chained_log``)."""
    return Column("prev_hash", String(64), nullable=True), Column("row_hash", String(64), nullable=True)


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
    # JSON: the jurisdiction profile's enforced settings, id and version (0015; null before)
    Column("jurisdiction", Text, nullable=True),
    # A free round's reward (``promo_rewards.id``) and JSON {campaign, reward, free_ante, ...}
    # (migration 0023; null for a round played with the player's own ante).
    Column("promo_reward", String(40), nullable=True),
    Column("promo", Text, nullable=True),
    UniqueConstraint("player_id", "idempotency_key", name="uq_rounds_player_idempotency"),
    Index("ix_rounds_player_seq", "player_id", "seq"),
    Index("ix_rounds_status_updated", "status", "updated_at"),
    # The back office's search, newest first, and its reports by day (migration 0010).
    Index("ix_rounds_created", "created_at"),
    Index("ix_rounds_game_created", "game", "created_at"),
    Index("ix_rounds_settled", "settled_at"),
    Index("ix_rounds_player_created", "player_id", "created_at"),  # a player's, newest first (0011)
    Index("ix_rounds_promo_reward", "promo_reward"),
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
    *chain_columns(),  # hash-chained, every rewrite refused (migration 0018)
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
    # JSON: the seat's jurisdiction profile, enforced settings, id and version (0021; null before)
    Column("jurisdiction", Text, nullable=True),
    # A free round's reward (``promo_rewards.id``) and JSON {campaign, reward, free_ante, cap_left,
    # forfeited once settled} (0027; null: the player paid every stake)
    Column("promo_reward", String(40), nullable=True),
    Column("promo", Text, nullable=True),
    # The jackpot side bet's entry as JSON {stake, currency, status, cards, hand, award, pool_award}
    # (0029; null: no jackpot bet)
    Column("jackpot", Text, nullable=True),
    PrimaryKeyConstraint("table_id", "number", "player_id", name="pk_live_seats"),
    Index("ix_live_seats_player", "player_id"),
    Index("ix_live_seats_player_updated", "player_id", "updated_at"),
    Index("ix_live_seats_promo_reward", "promo_reward"),
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

# Staff of the back office: a role, an argon2 password hash, an optional TOTP secret (the lockout
# is counted in ``staff_login_failures``; migration 0024 dropped the columns that counted it here).
staff_users = Table(
    "staff_users", metadata,
    Column("id", String(40), primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("role", String(16), nullable=False),  # "admin" | "support" | "auditor"
    Column("password_hash", String(200), nullable=False),
    # The password printed by ``admin create-user``: to be replaced at the first sign-in.
    Column("must_change_password", Integer, nullable=False, default=1),
    Column("totp_secret", String(64), nullable=True),
    Column("created_at", String(32), nullable=False),
)

# Failed back-office sign-ins by (name, client address), known names and unknown alike (migration
# 0019; ``backoffice.staff``): counted atomically, the ``LOCK_AFTER``-th locks that name from that
# address only.
staff_login_failures = Table(
    "staff_login_failures", metadata,
    Column("name", String(64), nullable=False),
    Column("address", String(64), nullable=False),
    Column("failures", Integer, nullable=False),
    Column("locked_until", String(32), nullable=True),
    Column("updated_at", String(32), nullable=False),
    PrimaryKeyConstraint("name", "address", name="pk_staff_login_failures"),
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

# Every change made in the back office: append-only (triggers refuse UPDATE, DELETE, SQLite's
# INSERT OR REPLACE and PostgreSQL's TRUNCATE) and hash-chained (``server.chained_log``).
admin_audit = Table(
    "admin_audit", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("at", String(32), nullable=False),
    Column("actor", String(64), nullable=False),  # the staff member's name, or "cli"
    Column("action", String(40), nullable=False),
    Column("target", String(120), nullable=False),
    Column("before", Text, nullable=True),  # JSON
    Column("after", Text, nullable=True),   # JSON
    *chain_columns(),  # hash-chained, every rewrite refused (migration 0018)
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
    Column("figures", Text, nullable=True),  # JSON: the exact house edge and RTPs (migration 0016)
    Column("jurisdictions", Text, nullable=True),  # JSON: the jurisdictions it is approved for
    Index("ix_game_rules_versions_game", "game", "id"),
)

# A version's way to going live (migration 0016; ``backoffice.rules_changes``): asked by one
# member of staff, approved (or rejected) by another; live from ``effective_at`` (the approval,
# or the scheduled ``live_from`` if later). The version in force is the approved activation with
# the latest ``effective_at`` not in the future.
rules_activations = Table(
    "rules_activations", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("game", String(32), nullable=False),
    Column("version_id", BigInteger, nullable=False),
    Column("requested_by", String(64), nullable=False),
    Column("requested_at", String(32), nullable=False),
    Column("live_from", String(32), nullable=True),
    Column("status", String(16), nullable=False),  # pending | approved | rejected
    Column("decided_by", String(64), nullable=True),
    Column("decided_at", String(32), nullable=True),
    Column("effective_at", String(32), nullable=True),
    Index("ix_rules_activations_game", "game", "status", "effective_at"),
)

# A change of the jurisdictions a version is approved for, waiting for a second admin (migration
# 0028; ``backoffice.paytable_approvals``).
jurisdiction_requests = Table(
    "jurisdiction_requests", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("game", String(32), nullable=False),
    Column("version_id", BigInteger, nullable=False),
    Column("jurisdictions", Text, nullable=False),  # JSON: the codes, or null (not restricted)
    Column("requested_by", String(64), nullable=False),
    Column("requested_at", String(32), nullable=False),
    Column("status", String(16), nullable=False),  # pending | approved | rejected
    Column("decided_by", String(64), nullable=True),
    Column("decided_at", String(32), nullable=True),
    Index("ix_jurisdiction_requests_game", "game", "status"),
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
    Column("jurisdiction", String(8), nullable=True),  # of the newest launch (0015)
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
    Column("promo", Text, nullable=True),  # a free round's win: JSON {campaign_id, reward_id, ...} (0023)
    # Only the rows owed (due by next_attempt_at) and the bets in flight (by created_at, for
    # the sweeper): few at any time, whatever the table's size. A query names the status as a
    # literal (``wallet_status_is``): a status given as a parameter matches neither, so
    # PostgreSQL's generic plan of a lookup by key (a step confirming its bets) cannot take one
    # and read every row in flight, as it did with an index on every row's status
    # (tests/server/test_postgres_plans.py; migration 0031).
    Index("ix_wallet_transactions_due", "next_attempt_at",
          postgresql_where=text("status = 'pending'"), sqlite_where=text("status = 'pending'")),
    Index("ix_wallet_transactions_sending", "created_at",
          postgresql_where=text("status = 'sending'"), sqlite_where=text("status = 'sending'")),
    Index("ix_wallet_transactions_round", "round_id"),
    Index("ix_wallet_transactions_operator_created", "operator_id", "created_at"),
    Index("ix_wallet_transactions_txid", "txid"),
)

# Every call to an operator's wallet and its answer, as sent and received (the player's session
# token left out), append-only: a dispute is settled from these.

def wallet_status_is(status: str) -> ColumnElement[bool]:
    """``wallet_transactions.status`` is ``status`` (``pending`` or ``sending``), written as a
    literal: the condition of its partial index, which only so serves the query."""
    if status not in ("pending", "sending"):
        raise ValueError(f"no index holds the wallet transactions {status!r}")
    return wallet_transactions.c.status == literal_column(f"'{status}'")


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

# Nonces of operators' signed requests (migration 0017; ``server.operators.signing``): a nonce
# seen before is a replay and refused. Kept until ``expires_at`` (twice the signature window),
# then swept; in the database so that every process of a deployment sees every nonce.
operator_nonces = Table(
    "operator_nonces", metadata,
    Column("operator_id", String(32), nullable=False),
    Column("nonce", String(128), nullable=False),
    Column("expires_at", String(32), nullable=False),
    PrimaryKeyConstraint("operator_id", "nonce", name="pk_operator_nonces"),
    Index("ix_operator_nonces_expires", "expires_at"),
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
    Index("ix_sessions_ended", "ended_at"),  # each process reads the sessions ended lately
)


# Every software verification (``server.integrity``: at start, at intervals, on demand): when,
# which kind, the seed of an on-demand HMAC, the result and the files that differ (JSON);
# hash-chained, every rewrite refused (migration 0020).
software_checks = Table(
    "software_checks", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("at", String(32), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("seed", String(256), nullable=True),
    Column("result", String(16), nullable=False),
    Column("build_id", String(64), nullable=True),
    Column("files", Text, nullable=False),
    *chain_columns(),
    Index("ix_software_checks_at", "at"),
)


# Free bets (migration 0023; ``server.promotions``): an operator's campaign, created once per
# its idempotency id (``external_id``; ``body_sha256`` tells a repeat from another body), and the
# rewards granted to its players (one per player and campaign; ``rounds_used`` counts the free
# rounds opened, each claimed in the unit of work that opens its round).
promo_campaigns = Table(
    "promo_campaigns", metadata,
    Column("id", String(40), primary_key=True),
    Column("operator_id", String(32), nullable=False),
    Column("external_id", String(100), nullable=False),
    Column("body_sha256", String(64), nullable=False),
    Column("name", String(200), nullable=True),
    Column("games", Text, nullable=False),  # JSON [game, ...]
    Column("ante", Text, nullable=False),  # JSON {currency: minor units}
    Column("max_win", Text, nullable=True),  # JSON {currency: minor units}: the cap on winnings
    Column("rounds", Integer, nullable=False),
    Column("valid_from", String(32), nullable=False),
    Column("valid_until", String(32), nullable=False),
    Column("status", String(12), nullable=False),  # "active" | "cancelled"
    Column("created_at", String(32), nullable=False),
    Column("cancelled_at", String(32), nullable=True),
    UniqueConstraint("operator_id", "external_id", name="uq_promo_campaigns_operator_external"),
    Index("ix_promo_campaigns_operator_created", "operator_id", "created_at"),
)

promo_rewards = Table(
    "promo_rewards", metadata,
    Column("id", String(40), primary_key=True),
    Column("campaign_id", String(40), ForeignKey("promo_campaigns.id"), nullable=False),
    Column("operator_id", String(32), nullable=False),
    Column("player", String(64), nullable=False),  # the operator's id of its player
    Column("rounds", Integer, nullable=False),
    Column("rounds_used", Integer, nullable=False),
    Column("created_at", String(32), nullable=False),
    UniqueConstraint("campaign_id", "player", name="uq_promo_rewards_campaign_player"),
    Index("ix_promo_rewards_operator_player", "operator_id", "player"),
)

# The progressive jackpot (``server.jackpot``, migration 0026): one pool for the whole deployment,
# in the jackpot's currency, changed only with an event in the same unit of work, so the pool is
# always every seed plus every contribution less every award.
jackpot_pools = Table(
    "jackpot_pools", metadata,
    Column("id", String(40), primary_key=True),
    Column("currency", String(8), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("updated_at", String(32), nullable=False),
)

# What changed a pool: "seed" (the house seeds it: at the start and after each hit),
# "contribution" (a bet's share), "award" (a fixed award or a pool share, paid to the player in
# their currency as ``player_amount``). One event of each kind per round and player.
jackpot_events = Table(
    "jackpot_events", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("pool_id", String(40), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("round_id", String(64), nullable=False),
    Column("player_id", String(40), nullable=False),
    Column("amount", BigInteger, nullable=False),  # minor units of the pool's currency, >= 0
    Column("pool_after", BigInteger, nullable=False),  # what an award took from the pool: 0 for a fixed one
    Column("player_amount", BigInteger, nullable=True),
    Column("player_currency", String(8), nullable=True),
    Column("category", String(32), nullable=True),
    Column("created_at", String(32), nullable=False),
    UniqueConstraint("round_id", "player_id", "kind", name="uq_jackpot_events_round_player_kind"),
    Index("ix_jackpot_events_pool", "pool_id", "id"),
)
