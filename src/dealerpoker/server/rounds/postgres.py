"""``PostgresRoundStore``: a solo step in one or two round trips on PostgreSQL (embedded wallet).

Kept for its measured gain: the general ``SqlRoundStore`` (SQLAlchemy's asyncio layer, six to
eight statements a step, each a round trip costing more than the small statement it carries)
cost 2.8x the CPU per round, server plus PostgreSQL, and served a quarter of the rounds per second
(``benchmarks/server.py --without postgres_store``; ``benchmarks/RESULTS.md``). A step is:

1. one read (the round and its player's balance; or the player's balance, seeds, nonce and the
   round an idempotency key opened), skipped for a round this process wrote last and whose
   player's balance it wrote last (``KnownRows``: a guess the write checks; the same CPU per
   round, one round trip fewer per action: 1.1x to 1.25x the rounds per second measured on a
   loaded machine, ``--without known_rows``), and
2. one statement, committed on its own, whose first CTE (``locked``) selects and locks the rows
   only if they still hold what was read: the round's ``steps`` (every change of a round
   appends to them) and the exact balance, or for an opening the balance, nonce, client seed
   and committed seed. Under READ COMMITTED a row a concurrent transaction changed is locked
   and re-checked in its newest version. Every write of the statement (the balance and the
   ledger entries, ``ledger.postgres_post``; the round; for an opening the player's nonce and
   next seed) joins ``locked``: all happen or none does (then the store answers None and the
   use case reads again).

It writes the embedded wallet's ledger itself (the same entries as ``ledger.post``), so it
serves only the embedded wallet's players: with operators (``SeamlessWallet``),
``SeamlessPostgresRoundStore`` serves them so, and an operator's real-money player's opening or
step in one statement as well, whose CTEs write the seamless wallet's rows
(``operators.postgres``; ``SqlRoundStore`` and the wallet's ``record`` took a transaction of
seven to ten round trips: 2x the server CPU per seamless round, benchmarks/RESULTS.md).
Statements go straight to asyncpg (its prepared-statement cache makes them cheap), on the
connections of the process's bounded asyncpg pool (``Database.acquire``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any

import asyncpg
from cachetools import LRUCache

from dealerpoker.errors import InsufficientFundsError
from dealerpoker.games.currency import house_account
from dealerpoker.server import ledger
from dealerpoker.server.db import Database
from dealerpoker.server.observability.metrics import count_postings
from dealerpoker.server.operators.postgres import Arguments, cast, postgres_record, record_values, results
from dealerpoker.server.operators.wallet import SeamlessWallet, credits, is_remote, too_late
from dealerpoker.server.rounds.plan import Planned, ViewJSON
from dealerpoker.server.rounds.sql import SqlRoundStore
from dealerpoker.server.rounds.store import Check, PlayerRead, RoundRead
from dealerpoker.server.schema import rounds
from dealerpoker.server.wallet import Debit, LedgerWallet

_ROUND = "SELECT rounds.*, accounts.balance FROM rounds JOIN accounts ON accounts.id = rounds.player_id " \
         "WHERE rounds.id = $1"
_PLAYER = """SELECT accounts.balance, accounts.currency, players.client_seed, players.nonce,
    players.next_server_seed, players.responsible_gaming, {key_round} AS key_round
FROM accounts JOIN players ON players.id = accounts.id WHERE accounts.id = $1"""
# Two statements, not one with a NULL key: PostgreSQL's generic plan of one statement for both
# cases found the key's round by the player's index and read every round the player ever played
# (at every deal, a cost growing with the player's history; auto_explain, 2026-12-07).
_PLAYER_WITHOUT_KEY = _PLAYER.format(key_round="NULL")
_PLAYER_WITH_KEY = _PLAYER.format(key_round="""(SELECT rounds.id FROM rounds
    WHERE rounds.player_id = accounts.id AND rounds.idempotency_key = $2)""")

_MONEY = ledger.postgres_post(locked="locked", round_id="$1::varchar", delta="$3::bigint", at="$4::varchar",
                              arrays="$5::varchar[], $6::varchar[], $7::bigint[], $8::varchar[]")
_STEP_COLUMNS = ("status", "phase", "steps", "view", "settled_at", "total_stake", "total_returned")
_STEP = f"""
WITH locked AS (
    SELECT rounds.id, rounds.player_id FROM rounds JOIN accounts ON accounts.id = rounds.player_id
    WHERE rounds.id = $1::varchar AND rounds.steps = $9::text AND accounts.balance = $2::bigint
    FOR UPDATE OF rounds, accounts
),{_MONEY},
stepped AS (
    UPDATE rounds SET updated_at = $4::varchar,
        status = $10::varchar, phase = $11::varchar, steps = $12::text, view = $13::text,
        settled_at = $14::varchar, total_stake = $15::bigint, total_returned = $16::bigint
    FROM locked WHERE rounds.id = locked.id
    RETURNING rounds.id
)
SELECT count(*) FROM stepped"""

_ROUND_COLUMNS = tuple(column.name for column in rounds.columns if column.name != "seq")
_OPEN = f"""
WITH locked AS (
    SELECT accounts.id AS player_id FROM accounts JOIN players ON players.id = accounts.id
    WHERE accounts.id = $9::varchar AND accounts.balance = $2::bigint AND players.nonce = $10::bigint
        AND players.client_seed = $11::varchar
        AND players.next_server_seed IS NOT DISTINCT FROM $12::varchar
        AND players.responsible_gaming IS NOT DISTINCT FROM ${14 + len(_ROUND_COLUMNS)}::text
    FOR UPDATE OF accounts, players
),
seeded AS (
    UPDATE players SET nonce = $10::bigint + 1, next_server_seed = $13::varchar FROM locked
    WHERE players.id = locked.player_id
),{_MONEY},
opened AS (
    INSERT INTO rounds ({", ".join(_ROUND_COLUMNS)})
    SELECT {", ".join(f"${14 + i}::{cast(column)}"
                      for i, column in enumerate(c for c in rounds.columns if c.name != "seq"))}
    FROM locked
    RETURNING rounds.id
)
SELECT count(*) FROM opened"""

#: Errors after which the statement changed nothing: a concurrent request took the idempotency
#: key (or a deadlock, which the lock order, the round before the account, should rule out).
_CHANGED = (asyncpg.UniqueViolationError, asyncpg.DeadlockDetectedError)


class PostgresRoundStore(SqlRoundStore):
    """Reads and writes a step on asyncpg; history and stale rounds as ``SqlRoundStore``."""

    def __init__(self, database: Database, *, remember: bool = True) -> None:
        super().__init__(database, LedgerWallet(database))
        self._known = KnownRows(capacity=10_000 if remember else 0)

    def _connection(self) -> AbstractAsyncContextManager[Any]:
        """A connection of the process's bounded asyncpg pool (``Database.acquire``)."""
        return self.database.acquire()

    async def player(self, player_id: str, idempotency_key: str | None = None) -> PlayerRead | None:
        async with self._connection() as connection:
            row = await (connection.fetchrow(_PLAYER_WITHOUT_KEY, player_id) if idempotency_key is None
                         else connection.fetchrow(_PLAYER_WITH_KEY, player_id, idempotency_key))
        if row is None:
            return None
        return PlayerRead(player_id, int(row["balance"]), str(row["currency"]), str(row["client_seed"]),
                          int(row["nonce"]), row["next_server_seed"], row["responsible_gaming"],
                          row["key_round"])

    async def round(self, round_id: str) -> RoundRead | None:
        self._known.forget_round(round_id)  # superseded by what is stored
        async with self._connection() as connection:
            row = await connection.fetchrow(_ROUND, round_id)
        if row is None:
            return None
        columns = dict(row)
        return RoundRead(columns, int(columns.pop("balance")))

    async def round_to_step(self, round_id: str) -> RoundRead | None:
        known = self._known.round(round_id)
        return known if known is not None else await self.round(round_id)

    async def open(self, read: PlayerRead, opening: Planned, next_seed: str, debit: Debit,
                   check: Check | None = None) -> ViewJSON | None:
        if check is not None or opening.pool is not None:  # more than one statement can: a transaction
            self._known.forget("", read.player_id)
            return await super().open(read, opening, next_seed, debit, check)
        columns = opening.columns
        money, balance = self._money(read.player_id, read.balance, opening)
        view = opening.render(balance)
        values = {**columns, "view": view}
        arguments = [*money, read.player_id, read.nonce, read.client_seed, read.next_server_seed, next_seed,
                     *(values.get(name) for name in _ROUND_COLUMNS), read.responsible_gaming]
        if not await self._write(_OPEN, arguments):
            return None
        count_postings(opening.money.transfers)  # committed (ledger.post counts on the other paths)
        self._known.wrote(read.player_id, balance, values)
        return view

    async def step(self, read: RoundRead, step: Planned, debit: Debit) -> ViewJSON | None:
        player_id = str(read.row["player_id"])
        if step.pool is not None:  # the jackpot's pool too: a transaction (SqlRoundStore's)
            self._known.forget(step.round_id, player_id)
            return await super().step(read, step, debit)
        money, balance = self._money(player_id, read.balance, step)
        view = step.render(balance)
        changes = {**step.columns, "view": view}
        arguments = [*money, read.row["steps"], *(changes[name] for name in _STEP_COLUMNS)]
        if not await self._write(_STEP, arguments):
            self._known.forget(step.round_id, player_id)
            return None
        count_postings(step.money.transfers)
        self._known.wrote(player_id, balance, {**read.row, **changes})
        return view

    @staticmethod
    def _money(player_id: str, balance: int, planned: Planned) -> tuple[list[Any], int]:
        """The statements' first eight arguments (round, balance read, net change, time, the
        entries' arrays) and the balance after; a stake the balance read does not cover is
        refused (the wallet's debit refused it already)."""
        needed = ledger.stakes(planned.money.transfers).get(player_id, 0)
        if needed > balance:
            raise InsufficientFundsError(key="error.funds", balance=balance, needed=needed)
        delta = ledger.net(planned.money.transfers).get(player_id, 0)
        rows = ledger.entries(planned.money.transfers, house_account(planned.money.currency))
        arguments = [planned.round_id, balance, delta, planned.money.at, *ledger.entry_arrays(rows)]
        return arguments, balance + delta

    async def _write(self, statement: str, arguments: list[Any]) -> bool:
        async with self._connection() as connection:
            try:
                return bool(await connection.fetchval(statement, *arguments))
            except _CHANGED:
                return False

    async def close(self) -> None:
        """Nothing of its own to close: the pool is the ``Database``'s."""


class SeamlessPostgresRoundStore(PostgresRoundStore):
    """PostgreSQL with operators: an operator's real-money player's opening or step is one
    statement too, the round written as ``PostgresRoundStore`` writes it (only if still as read;
    their balance is the operator's, so it is not compared) and the money as the
    ``SeamlessWallet`` records it (``operators.postgres``: the bets confirmed, their calls kept,
    the wins owed in the outbox, the balance kept; with the round or not at all). An opening
    with a responsible-gaming check goes through ``SqlRoundStore`` and the wallet (``seamless``).
    Everything else, and every read, as ``PostgresRoundStore``."""

    def __init__(self, database: Database, wallet: SeamlessWallet, *, remember: bool = True) -> None:
        super().__init__(database, remember=remember)
        self.seamless = SqlRoundStore(database, wallet)
        self.operators = wallet

    async def open(self, read: PlayerRead, opening: Planned, next_seed: str, debit: Debit,
                   check: Check | None = None) -> ViewJSON | None:
        if not is_remote(read.player_id):
            return await super().open(read, opening, next_seed, debit, check)
        if check is not None or opening.pool is not None:  # more than one statement: a transaction
            return await self.seamless.open(read, opening, next_seed, debit, check)
        values = {"p_player": read.player_id, "p_nonce": read.nonce, "p_client_seed": read.client_seed,
                  "p_committed_seed": read.next_server_seed, "p_next_seed": next_seed,
                  "p_responsible_gaming": read.responsible_gaming, "jurisdiction": None, "promo_reward": None,
                  "promo": None, **opening.columns}
        return await self._remote(_seamless_open, read.player_id, read.balance, opening, debit, values)

    async def step(self, read: RoundRead, step: Planned, debit: Debit) -> ViewJSON | None:
        player_id = str(read.row["player_id"])
        if not is_remote(player_id):
            return await super().step(read, step, debit)
        if step.pool is not None:  # the jackpot's pool too: a transaction (SqlRoundStore's)
            return await self.seamless.step(read, step, debit)
        values = {"round": step.round_id, "steps_read": read.row["steps"], **step.columns}
        return await self._remote(_seamless_step, player_id, read.balance, step, debit, values)

    async def _remote(self, statement: Callable[[int], tuple[str, Arguments]], player_id: str, balance: int,
                      planned: Planned, debit: Debit, values: dict[str, Any]) -> ViewJSON | None:
        """Write ``planned`` for an operator's player in one statement (None: the rows changed),
        ``statement``'s for the step's number of bets."""
        wallet = self.operators
        who = await wallet.who(player_id) if credits(planned.money, player_id) else None
        writes = wallet.writes(planned.money, debit, player_id, who)
        balance = writes.balance(balance)
        view = planned.render(balance)
        sql, arguments = statement(len(writes.bets))
        async with self._connection() as connection:
            try:
                found = await connection.fetchrow(
                    sql, *arguments.values({**values, "view": view, **record_values(writes)}))
            except _CHANGED:
                return None
        if found["found"] and not found["ok"]:  # the sweeper took a bet for rollback meanwhile
            raise too_late()
        if not found["written"]:
            return None
        owed = set(found["owed"])
        wallet.wrote(planned.money, [{**win, "external_id": found["external_id"], "token": found["token"]}
                                     for win in writes.wins if win["transaction_id"] in owed])
        # Not among ``KnownRows``: a refusal decided on rows from memory is decided again on what
        # is stored, which for a remote player would be another call to the operator.
        return view


@functools.cache
def _seamless_step(bets: int) -> tuple[str, Arguments]:
    arguments = Arguments()
    at = arguments("updated_at", "varchar")
    changes = ", ".join(f"{name} = {arguments(name, cast(rounds.c[name]))}" for name in _STEP_COLUMNS)
    sql = f"""
WITH locked AS (
    SELECT rounds.id, rounds.player_id FROM rounds
    WHERE rounds.id = {arguments("round", "varchar")} AND rounds.steps = {arguments("steps_read", "text")}
    FOR UPDATE
),{postgres_record(arguments, locked="locked", bets=bets)},
stepped AS (
    UPDATE rounds SET updated_at = {at}, {changes} FROM ok WHERE rounds.id = ok.id
    RETURNING rounds.id
)
SELECT (SELECT count(*) FROM stepped) AS written, {results(arguments)}"""
    return sql, arguments


@functools.cache
def _seamless_open(bets: int) -> tuple[str, Arguments]:
    arguments = Arguments()
    nonce = arguments("p_nonce", "bigint")
    sql = f"""
WITH locked AS (
    SELECT players.id AS player_id FROM players
    WHERE players.id = {arguments("p_player", "varchar")} AND players.nonce = {nonce}
        AND players.client_seed = {arguments("p_client_seed", "varchar")}
        AND players.next_server_seed IS NOT DISTINCT FROM {arguments("p_committed_seed", "varchar")}
        AND players.responsible_gaming IS NOT DISTINCT FROM {arguments("p_responsible_gaming", "text")}
    FOR UPDATE
),{postgres_record(arguments, locked="locked", bets=bets)},
seeded AS (
    UPDATE players SET nonce = {nonce} + 1, next_server_seed = {arguments("p_next_seed", "varchar")}
    FROM ok WHERE players.id = ok.player_id
),
opened AS (
    INSERT INTO rounds ({", ".join(_ROUND_COLUMNS)})
    SELECT {", ".join(arguments(name, cast(rounds.c[name])) for name in _ROUND_COLUMNS)} FROM ok
    RETURNING rounds.id
)
SELECT (SELECT count(*) FROM opened) AS written, {results(arguments)}"""
    return sql, arguments


class KnownRows:
    """The open rounds and the players' balances as this process last wrote them, so the next
    step can skip reading them.

    Only a guess: the step's statement writes only if the round's steps and the balance in the
    database are still exactly these, else the step reads them and tries again. Bounded: the
    least recently used go first (``capacity`` 0: nothing is kept). Settled rounds are dropped.
    """

    def __init__(self, capacity: int = 10_000) -> None:
        self.keep = capacity > 0
        self._rounds: LRUCache[str, dict[str, Any]] = LRUCache(max(capacity, 1))
        self._balances: LRUCache[str, int] = LRUCache(max(capacity, 1))

    def round(self, round_id: str) -> RoundRead | None:
        row = self._rounds.get(round_id)
        balance = None if row is None else self._balances.get(str(row["player_id"]))
        return None if row is None or balance is None else RoundRead(row, balance, cached=True)

    def wrote(self, player_id: str, balance: int, row: Mapping[str, Any]) -> None:
        """The player's balance and a round of theirs as a committed statement left them."""
        if not self.keep:
            return
        self._balances[player_id] = balance
        if row["status"] == "open":
            # Not the stored view (the largest column, which a step does not read).
            self._rounds[str(row["id"])] = {k: v for k, v in row.items() if k != "view"}
        else:
            self._rounds.pop(str(row["id"]), None)

    def forget_round(self, round_id: str) -> None:
        self._rounds.pop(round_id, None)

    def forget(self, round_id: str, player_id: str) -> None:
        self._rounds.pop(round_id, None)
        self._balances.pop(player_id, None)
