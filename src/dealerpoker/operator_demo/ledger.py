"""The operator's ledger: players' balances per currency, session tokens, and every wallet
transaction with the answer it got, in one SQLite file (stdlib ``sqlite3``).

The rules it keeps (docs/operators.md#the-reference-operator):

- a ``transaction_id`` is applied at most once; a repeat of the same request gets the first
  answer again, a different request reusing the id gets ``ERROR`` and changes nothing;
- ``balance`` and ``bet`` need a live session token of the player (``INVALID_TOKEN`` otherwise);
  ``win`` and ``rollback`` need a token the operator issued to that player, live or ended, since
  money owed to a player is paid after the session ends;
- a bet larger than the balance is refused with ``INSUFFICIENT_FUNDS`` and the balance;
- a rollback returns a bet's stake once; a rollback of a transaction never seen answers
  ``UNKNOWN_TRANSACTION`` and remembers the id, so a late bet with it is refused (``ERROR``).

Each method runs in one SQLite transaction; the server calls them from its event loop thread
only, so they never interleave. WAL journal: a killed process loses no committed transaction.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealerpoker.operator_demo.protocol import (
    ERROR,
    INSUFFICIENT_FUNDS,
    INVALID_TOKEN,
    OK,
    UNKNOWN_TRANSACTION,
    WalletRequest,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    player TEXT NOT NULL,
    currency TEXT NOT NULL,
    balance INTEGER NOT NULL CHECK (balance >= 0),
    PRIMARY KEY (player, currency)
);
CREATE TABLE IF NOT EXISTS sessions (
    token TEXT PRIMARY KEY,
    player TEXT NOT NULL,
    created_at REAL NOT NULL,
    ended_at REAL
);
CREATE TABLE IF NOT EXISTS transactions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    transaction_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    player TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount INTEGER NOT NULL,
    round_id TEXT NOT NULL,
    game TEXT NOT NULL,
    round_closed INTEGER NOT NULL,
    reference_transaction_id TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT NOT NULL,
    balance INTEGER NOT NULL,
    applied INTEGER NOT NULL,
    rolled_back_by TEXT,
    created_at REAL NOT NULL,
    promo_campaign TEXT,
    promo_reward TEXT
);
CREATE INDEX IF NOT EXISTS transactions_player ON transactions (player, seq);
CREATE TABLE IF NOT EXISTS cancelled (
    transaction_id TEXT PRIMARY KEY,
    rollback_transaction_id TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""

TRANSACTION_FIELDS = (
    "seq", "transaction_id", "kind", "player", "currency", "amount", "round_id", "game", "round_closed",
    "reference_transaction_id", "status", "error", "balance", "applied", "rolled_back_by", "created_at",
    "promo_campaign", "promo_reward",
)  # fmt: skip
PROMO_COLUMNS = ("promo_campaign", "promo_reward")
"""A free round's win (booked as promotional): added to ledgers made before free bets."""


class LedgerError(ValueError):
    """An administrative request the ledger refuses (the message names the problem)."""


@dataclass(frozen=True)
class Answer:
    """A wallet answer: ``{"status", "balance"}``, with ``error`` explaining an ``ERROR``."""

    status: str
    balance: int
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"status": self.status, "balance": self.balance}
        if self.error:
            body["error"] = self.error
        return body


class Ledger:
    def __init__(self, path: str | Path) -> None:
        self.connection = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.connection.row_factory = sqlite3.Row
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self.connection.executescript(SCHEMA)
        columns = {row["name"] for row in self.connection.execute("PRAGMA table_info(transactions)")}
        for column in PROMO_COLUMNS:
            if column not in columns:
                self.connection.execute(f"ALTER TABLE transactions ADD COLUMN {column} TEXT")

    def close(self) -> None:
        self.connection.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield self.connection
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    # -- administration ---------------------------------------------------------------------

    def create_account(self, player: str, currency: str, balance: int) -> None:
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM accounts WHERE player = ? AND currency = ?",
                          (player, currency)).fetchone():
                raise LedgerError(f"player {player!r} already has a {currency} account")
            db.execute("INSERT INTO accounts VALUES (?, ?, ?)", (player, currency, balance))

    def open_session(self, player: str) -> str:
        with self._transaction() as db:
            if not db.execute("SELECT 1 FROM accounts WHERE player = ?", (player,)).fetchone():
                raise LedgerError(f"no player {player!r}")
            token = secrets.token_urlsafe(24)
            db.execute("INSERT INTO sessions VALUES (?, ?, ?, NULL)", (token, player, time.time()))
            return token

    def end_session(self, token: str) -> None:
        with self._transaction() as db:
            if db.execute("UPDATE sessions SET ended_at = ? WHERE token = ? AND ended_at IS NULL",
                          (time.time(), token)).rowcount == 0:
                raise LedgerError("no live session with this token")

    def balances(self) -> dict[str, dict[str, int]]:
        """Every player's balance per currency."""
        found: dict[str, dict[str, int]] = {}
        for row in self.connection.execute("SELECT * FROM accounts ORDER BY player, currency"):
            found.setdefault(row["player"], {})[row["currency"]] = row["balance"]
        return found

    def transactions(self, player: str | None = None, after: int = 0,
                     limit: int = 1000) -> list[dict[str, Any]]:
        """Wallet transactions in the order they were first answered (``seq``), after ``after``."""
        query = "SELECT * FROM transactions WHERE seq > ?"
        parameters: list[Any] = [after]
        if player is not None:
            query += " AND player = ?"
            parameters.append(player)
        rows = self.connection.execute(query + " ORDER BY seq LIMIT ?", [*parameters, limit])
        return [{name: _plain(name, row[name]) for name in TRANSACTION_FIELDS} for row in rows]

    def by_ids(self, transaction_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The ledger's rows of these transaction ids (those it has), by id."""
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(transaction_ids), 500):
            chunk = transaction_ids[start:start + 500]
            marks = ", ".join("?" * len(chunk))
            query = f"SELECT * FROM transactions WHERE transaction_id IN ({marks})"
            for row in self.connection.execute(query, chunk):
                found[row["transaction_id"]] = {name: _plain(name, row[name]) for name in TRANSACTION_FIELDS}
        return found

    def books(self) -> dict[str, Any]:
        """Each player's wins per currency booked apart: ``real`` money and ``promotional`` (wins
        of free rounds), and the promotional wins per campaign (applied wins only)."""
        players: dict[str, dict[str, dict[str, int]]] = {}
        campaigns: dict[str, dict[str, int]] = {}
        for row in self.connection.execute(
                "SELECT player, currency, amount, promo_campaign FROM transactions"
                " WHERE kind = 'win' AND applied = 1 ORDER BY seq"):
            books = players.setdefault(row["player"], {}).setdefault(
                row["currency"], {"real_wins": 0, "promo_wins": 0, "promo_count": 0})
            if row["promo_campaign"] is None:
                books["real_wins"] += row["amount"]
            else:
                books["promo_wins"] += row["amount"]
                books["promo_count"] += 1
                by_currency = campaigns.setdefault(row["promo_campaign"], {})
                by_currency[row["currency"]] = by_currency.get(row["currency"], 0) + row["amount"]
        return {"players": players, "campaigns": campaigns}

    def created_between(self, since: float, until: float) -> list[dict[str, Any]]:
        """The rows created in [since, until) (epoch seconds)."""
        rows = self.connection.execute("SELECT * FROM transactions WHERE created_at >= ? AND created_at < ?"
                                       " ORDER BY seq", (since, until))
        return [{name: _plain(name, row[name]) for name in TRANSACTION_FIELDS} for row in rows]

    # -- the wallet -------------------------------------------------------------------------

    def balance_of(self, request: WalletRequest) -> Answer:
        if not self._token_matches(request, live=True):
            return Answer(INVALID_TOKEN, 0)
        return Answer(OK, self._balance(request.player, request.currency))

    def apply(self, request: WalletRequest) -> Answer:
        """Apply a bet, win or rollback once; a repeat gets its first answer."""
        with self._transaction() as db:
            first = db.execute("SELECT * FROM transactions WHERE transaction_id = ?",
                               (request.transaction_id,)).fetchone()
            if first is not None:
                if not request.same_request(first["kind"], first["player"], first["currency"],
                                            first["amount"], first["reference_transaction_id"]):
                    return Answer(ERROR, self._balance(request.player, request.currency),
                                  "transaction_id already used by another request")
                return Answer(first["status"], first["balance"], first["error"])
            step = {"bet": self._bet, "win": self._win, "rollback": self._rollback}[request.kind]
            outcome = step(request)
            answer = outcome.answer
            promo = request.promo
            db.execute(
                "INSERT INTO transactions (transaction_id, kind, player, currency, amount, round_id, game,"
                " round_closed, reference_transaction_id, status, error, balance, applied, created_at,"
                " promo_campaign, promo_reward) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (request.transaction_id, request.kind, request.player, outcome.currency, outcome.amount,
                 request.round_id, request.game, int(request.round_closed), request.reference_transaction_id,
                 answer.status, answer.error, answer.balance, int(outcome.moved), time.time(),
                 None if promo is None else promo.campaign_id, None if promo is None else promo.reward_id),
            )
            return answer

    def _bet(self, request: WalletRequest) -> _Outcome:
        if not self._token_matches(request, live=True):
            return _Outcome.of(request, Answer(INVALID_TOKEN, 0))
        balance = self._balance(request.player, request.currency)
        if self.connection.execute("SELECT 1 FROM cancelled WHERE transaction_id = ?",
                                   (request.transaction_id,)).fetchone():
            return _Outcome.of(request, Answer(ERROR, balance, "the bet was rolled back before it arrived"))
        if balance < request.amount:
            return _Outcome.of(request, Answer(INSUFFICIENT_FUNDS, balance))
        return _Outcome.of(request, Answer(OK, self._add(request.player, request.currency, -request.amount)),
                           moved=True)

    def _win(self, request: WalletRequest) -> _Outcome:
        if not self._token_matches(request, live=False):
            return _Outcome.of(request, Answer(INVALID_TOKEN, 0))
        return _Outcome.of(request, Answer(OK, self._add(request.player, request.currency, request.amount)),
                           moved=True)

    def _rollback(self, request: WalletRequest) -> _Outcome:
        """A rollback returns the bet's stake, in the bet's currency (its own amount is not used)."""
        if not self._token_matches(request, live=False):
            return _Outcome.of(request, Answer(INVALID_TOKEN, 0))
        db = self.connection
        bet = db.execute("SELECT * FROM transactions WHERE transaction_id = ?",
                         (request.reference_transaction_id,)).fetchone()
        if bet is None:
            db.execute("INSERT OR IGNORE INTO cancelled VALUES (?, ?, ?)",
                       (request.reference_transaction_id, request.transaction_id, time.time()))
            balance = self._balance(request.player, request.currency)
            return _Outcome.of(request, Answer(UNKNOWN_TRANSACTION, balance))
        currency, balance = bet["currency"], self._balance(request.player, bet["currency"])
        if bet["kind"] != "bet" or bet["player"] != request.player:
            refused = Answer(ERROR, balance, "only a bet of this player can be rolled back")
            return _Outcome(refused, currency, 0)
        if not bet["applied"] or bet["rolled_back_by"] is not None:  # nothing (more) to return
            return _Outcome(Answer(OK, balance), currency, 0)
        db.execute("UPDATE transactions SET rolled_back_by = ? WHERE transaction_id = ?",
                   (request.transaction_id, request.reference_transaction_id))
        refunded = Answer(OK, self._add(request.player, currency, bet["amount"]))
        return _Outcome(refunded, currency, bet["amount"], moved=True)

    def _token_matches(self, request: WalletRequest, *, live: bool) -> bool:
        row = self.connection.execute("SELECT player, ended_at FROM sessions WHERE token = ?",
                                      (request.token,)).fetchone()
        return row is not None and row["player"] == request.player and (not live or row["ended_at"] is None)

    def _balance(self, player: str, currency: str) -> int:
        row = self.connection.execute("SELECT balance FROM accounts WHERE player = ? AND currency = ?",
                                      (player, currency)).fetchone()
        return int(row["balance"]) if row else 0

    def _add(self, player: str, currency: str, amount: int) -> int:
        """Add ``amount`` (negative: take) to the player's balance in ``currency`` (opened at 0)."""
        update = "UPDATE accounts SET balance = balance + ? WHERE player = ? AND currency = ?"
        if self.connection.execute(update, (amount, player, currency)).rowcount == 0:
            self.connection.execute("INSERT INTO accounts VALUES (?, ?, ?)", (player, currency, amount))
        return self._balance(player, currency)


@dataclass(frozen=True)
class _Outcome:
    """What applying a request did: its answer, and the currency and amount it is recorded with."""

    answer: Answer
    currency: str
    amount: int
    moved: bool = False

    @classmethod
    def of(cls, request: WalletRequest, answer: Answer, *, moved: bool = False) -> _Outcome:
        return cls(answer, request.currency, request.amount, moved)


def _plain(name: str, value: Any) -> Any:
    return bool(value) if name in ("applied", "round_closed") else value
