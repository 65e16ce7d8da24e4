"""PostgreSQL: a round step in two round trips (a read, then one statement that writes it all),
or one when the server already knows the rows (``rounds.KnownRows``).

The locked path (``Database.direct``) runs a step as BEGIN, ``SELECT ... FOR UPDATE``, the
balance update, the ledger entries, the round's row, COMMIT: six round trips for an action,
eight for a deal, each costing the server and PostgreSQL more CPU than the small statement it
carries. Here a step is:

1. one read outside any transaction (the round and the balance; or the balance, the seeds and
   whether the idempotency key was used), or for an action the round and the balance as this
   process's last statement left them, and
2. one statement, committed on its own, that checks the rows are still exactly as read, locks
   them, and only then writes everything the step changes (a data-modifying ``WITH``): the
   balance, the ledger entries, the round (and for a deal the player's nonce and next seed).

The statement's first CTE (``locked``) selects the rows ``FOR UPDATE`` under the conditions
that they still hold what was read: the round's ``steps`` (every change of a round appends to
them; its other columns never change), the player's exact balance, and for a deal their nonce,
client seed and committed seed. Under READ COMMITTED a row a concurrent transaction changed is
locked and re-checked in its newest version, so ``locked`` has a row only if the rows are as
read and are locked until the statement commits. Every write of the statement is joined with
``locked``: either all of them happen or none does (then the caller reads the rows and tries
once more if it had taken them from memory, else runs the step on the locked path, which
decides as it always did: an error, a retry's answer, or the step itself).
The rows are locked in the locked path's order (the round, then the account; the account, then
the player), so the two paths never deadlock each other.

Nothing else differs: the same engine computes the step from the same rows, the balance the
step's view shows is the guarded balance plus the step's movements, the txids and their unique
constraint are the same, and a balance short of the stake never reaches this statement (the
locked path answers it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import asyncpg
from sqlalchemy import bindparam, select

from dealerpoker.server.direct import AsyncpgDirect
from dealerpoker.server.schema import accounts, players, rounds

#: The round and its player's balance, no lock (``rounds._ROUND_AND_BALANCE`` without it).
ROUND_AND_BALANCE = select(rounds, accounts.c.balance) \
    .join(accounts, accounts.c.id == rounds.c.player_id) \
    .where(rounds.c.id == bindparam("round"))
#: What a deal reads: the balance, the seeds and the nonce.
PLAYER = select(accounts.c.balance, players.c.client_seed, players.c.nonce, players.c.next_server_seed,
                players.c.responsible_gaming) \
    .join(players, players.c.id == accounts.c.id).where(accounts.c.id == bindparam("player"))
#: The same and the round that used an idempotency key (``key_round``, None if none did).
PLAYER_AND_KEY = PLAYER.add_columns(
    select(rounds.c.id).where(rounds.c.player_id == accounts.c.id)
    .where(rounds.c.idempotency_key == bindparam("idempotency_key")).scalar_subquery().label("key_round"))

# The balance moves by the step's net amount (not at all for none); the entries come as arrays,
# inserted in their order (their ids order them, as the locked path's insert does).
_MOVE_AND_ENTER = """
moved AS (
    UPDATE accounts SET balance = accounts.balance + $3::bigint FROM locked
    WHERE accounts.id = locked.player_id AND $3::bigint <> 0
),
entered AS (
    INSERT INTO ledger_entries (txid, account_id, amount, round_id, memo, created_at)
    SELECT e.txid, e.account_id, e.amount, $1::varchar, e.memo, $4::varchar
    FROM locked, unnest($5::varchar[], $6::varchar[], $7::bigint[], $8::varchar[]) WITH ORDINALITY
        AS e(txid, account_id, amount, memo, n)
    ORDER BY e.n
)"""

_STEP_COLUMNS = ("status", "phase", "steps", "view", "settled_at", "total_stake", "total_returned")
_STEP = f"""
WITH locked AS (
    SELECT rounds.id, rounds.player_id FROM rounds JOIN accounts ON accounts.id = rounds.player_id
    WHERE rounds.id = $1::varchar AND rounds.steps = $9::text AND accounts.balance = $2::bigint
    FOR UPDATE OF rounds, accounts
),
{_MOVE_AND_ENTER},
stepped AS (
    UPDATE rounds SET updated_at = $4::varchar,
        status = $10::varchar, phase = $11::varchar, steps = $12::text, view = $13::text,
        settled_at = $14::varchar, total_stake = $15::bigint, total_returned = $16::bigint
    FROM locked WHERE rounds.id = locked.id
    RETURNING rounds.id
)
SELECT count(*) FROM stepped"""

_ROUND_COLUMNS = tuple(column.name for column in rounds.columns if column.name != "seq")
_CASTS = {"BIGINT": "bigint", "TEXT": "text"}
_OPEN = f"""
WITH locked AS (
    SELECT accounts.id AS player_id FROM accounts JOIN players ON players.id = accounts.id
    WHERE accounts.id = $9::varchar AND accounts.balance = $2::bigint AND players.nonce = $10::bigint
        AND players.client_seed = $11::varchar
        AND players.next_server_seed IS NOT DISTINCT FROM $12::varchar
    FOR UPDATE OF accounts, players
),
seeded AS (
    UPDATE players SET nonce = $10::bigint + 1, next_server_seed = $13::varchar FROM locked
    WHERE players.id = locked.player_id
),
{_MOVE_AND_ENTER},
opened AS (
    INSERT INTO rounds ({", ".join(_ROUND_COLUMNS)})
    SELECT {", ".join(f"${14 + i}::{_CASTS.get(str(column.type), 'varchar')}"
                      for i, column in enumerate(c for c in rounds.columns if c.name != "seq"))}
    FROM locked
    RETURNING rounds.id
)
SELECT count(*) FROM opened"""

#: Errors after which the statement changed nothing and the locked path decides: a concurrent
#: request took the idempotency key (or a deadlock, which the lock order should rule out).
_RETRY_LOCKED = (asyncpg.UniqueViolationError, asyncpg.DeadlockDetectedError)


def _movement_arguments(
    round_id: str, balance: int, delta: int, at: str, entries: Sequence[tuple[str, str, int, str]]
) -> list[Any]:
    return [round_id, balance, delta, at, [e[0] for e in entries], [e[1] for e in entries],
            [e[2] for e in entries], [e[3] for e in entries]]


async def write_step(
    connection: AsyncpgDirect, *, round_id: str, steps_read: str, balance: int, delta: int, at: str,
    entries: Sequence[tuple[str, str, int, str]], changes: Mapping[str, Any],
) -> bool:
    """Write an action's step if the round and the balance are still as read (True), else
    change nothing (False). ``changes``: the round's columns that change (``_STEP_COLUMNS``)."""
    arguments = [*_movement_arguments(round_id, balance, delta, at, entries), steps_read,
                 *(changes[name] for name in _STEP_COLUMNS)]
    try:
        return bool(await connection.value(_STEP, arguments))
    except _RETRY_LOCKED:
        return False


async def write_opening(
    connection: AsyncpgDirect, *, player_id: str, balance: int, nonce: int, client_seed: str,
    committed_seed: str | None, next_seed: str, delta: int, at: str,
    entries: Sequence[tuple[str, str, int, str]], values: Mapping[str, Any],
) -> bool:
    """Open a round (``values``: its row) if the player's balance and seeds are still as read
    (True), else change nothing (False)."""
    arguments = [*_movement_arguments(str(values["id"]), balance, delta, at, entries), player_id, nonce,
                 client_seed, committed_seed, next_seed, *(values[name] for name in _ROUND_COLUMNS)]
    try:
        return bool(await connection.value(_OPEN, arguments))
    except _RETRY_LOCKED:
        return False
