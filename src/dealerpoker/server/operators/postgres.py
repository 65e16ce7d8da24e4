"""The seamless wallet's writes of one step for one operator's player, as CTEs of a single
PostgreSQL statement (``postgres_record``): the PostgreSQL round store's path for an operator's
real-money player (``rounds.postgres``: ``SeamlessPostgresRoundStore``).

``SeamlessWallet.record`` writes the same rows (``SeamlessWallet.writes`` makes them for both)
with a statement each: six to nine round trips in a transaction, which were most of a seamless
round's server CPU on PostgreSQL (benchmarks/RESULTS.md, "Seamless wallet"). The rules are
``record``'s, written once more in SQL:

* ``bets``: the step's bets, locked (the sweeper cannot take one for rollback meanwhile);
  ``ok``: the statement's ``locked`` row only if every one is still ``sending`` (not taken by
  the sweeper already). Every write joins ``ok``: a step whose bet came too late writes nothing
  (the store then raises ``too_late``, as ``record`` does). The bets are found by their keys
  alone, one parameter each (a statement per number of bets), the status tested after. With
  the status in the lookup, PostgreSQL's generic plan took the index then kept on every row's
  status and read every bet in flight at every step, a cost that grew with the players (that
  index now holds only the rows in flight, migration 0031); with the keys as one array, the
  plan made while the table was new scanned it whole until autovacuum first analyzed it
  (pg_stat_statements, auto_explain and pg_stat_user_tables at 256 players, 2026-12-07;
  tests/server/test_postgres_plans.py);
* with the round's new state, or not at all: the bets' calls (``wallet_calls``), their
  confirmation, the wins owed (the outbox's rows, each unless already there: a resumed step may
  owe one written before) and the player's balance kept (the operator's latest, ``known``, else
  the one kept, plus the wins owed: ``Writes.balance``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Column

from dealerpoker.server.operators.wallet import Writes
from dealerpoker.server.schema import wallet_calls, wallet_transactions

_CALL_COLUMNS = tuple(column for column in wallet_calls.columns if column.name != "id")
_TRANSACTION_COLUMNS = tuple(wallet_transactions.columns)


class Arguments:
    """The numbered parameters (``$1::type``...) of a statement built in pieces, by name."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __call__(self, name: str, cast: str) -> str:
        if name not in self.names:
            self.names.append(name)
        return f"${self.names.index(name) + 1}::{cast}"

    def values(self, values: Mapping[str, Any]) -> list[Any]:
        return [values[name] for name in self.names]


def cast(column: Column[Any]) -> str:
    """A column's PostgreSQL type, as the statements cast their parameters to."""
    return {"BIGINT": "bigint", "INTEGER": "integer", "TEXT": "text"}.get(str(column.type), "varchar")


def postgres_record(arguments: Arguments, *, locked: str, bets: int) -> str:
    """The CTEs ``bets`` (the step's ``bets`` bets), ``ok`` (the statement's ``locked`` CTE's
    row, with its ``player_id``, if every bet is still ``sending``) and the writes, ``owed``
    returning the wins written now; their values from :func:`record_values`."""
    keys = ", ".join(arguments(f"w_bet_{number}", "varchar") for number in range(bets))
    return f"""
bets AS (
    SELECT transaction_id, status FROM wallet_transactions
    WHERE {f"transaction_id IN ({keys})" if bets else "false"}
    FOR UPDATE
),
ok AS (
    SELECT {locked}.* FROM {locked}
    WHERE (SELECT count(*) FROM bets WHERE status = {arguments("w_from", "varchar")}) = {bets}
),
confirmed AS (
    UPDATE wallet_transactions SET status = {arguments("w_status", "varchar")},
        last_answer = {arguments("w_last_answer", "varchar")},
        updated_at = {arguments("w_updated_at", "varchar")}
    FROM ok WHERE wallet_transactions.transaction_id IN (SELECT transaction_id FROM bets)
),
called AS (
    INSERT INTO wallet_calls ({_names(_CALL_COLUMNS)})
    SELECT wc.* FROM ok, {_unnest(arguments, _CALL_COLUMNS, "wc")}
),
owed AS (
    INSERT INTO wallet_transactions ({_names(_TRANSACTION_COLUMNS)})
    SELECT wt.* FROM ok, {_unnest(arguments, _TRANSACTION_COLUMNS, "wt")}
    ON CONFLICT (transaction_id) DO NOTHING
    RETURNING transaction_id
),
balanced AS (
    UPDATE accounts SET balance =
        COALESCE({arguments("w_known", "bigint")}, accounts.balance) + {arguments("w_owed", "bigint")}
    FROM ok WHERE accounts.id = ok.player_id
)"""


def results(arguments: Arguments) -> str:
    """What the statement answers beside its own: whether ``locked`` found its row, whether the
    bets were all still ``sending`` (``ok``), the wins written now, and the player's id at their
    operator and newest session token (for the wins' delivery)."""
    player = f"operator_players.player_id = {arguments('w_player', 'varchar')}"
    return f"""(SELECT count(*) FROM locked) AS found, (SELECT count(*) FROM ok) AS ok,
    ARRAY(SELECT transaction_id FROM owed) AS owed,
    (SELECT external_id FROM operator_players WHERE {player}) AS external_id,
    (SELECT token FROM operator_players WHERE {player}) AS token"""


def record_values(writes: Writes) -> dict[str, Any]:
    """The values of :func:`postgres_record`'s parameters for ``writes``."""
    return {
        "w_player": writes.player,
        **{f"w_bet_{number}": bet for number, bet in enumerate(writes.bets)},
        **{name if name.startswith("w_") else f"w_{name}": value
           for name, value in writes.confirmation.items()},
        **_arrays(_CALL_COLUMNS, writes.calls, "wc"),
        **_arrays(_TRANSACTION_COLUMNS, writes.wins, "wt"),
        "w_known": writes.known,
        "w_owed": writes.owed,
    }


def _names(columns: Sequence[Column[Any]]) -> str:
    return ", ".join(f'"{column.name}"' for column in columns)


def _unnest(arguments: Arguments, columns: Sequence[Column[Any]], alias: str) -> str:
    """Rows of ``table`` given as one array per column: ``unnest(...) AS alias(columns)``."""
    arrays = ", ".join(arguments(f"{alias}_{column.name}", cast(column) + "[]") for column in columns)
    return f"unnest({arrays}) AS {alias}({_names(columns)})"


def _arrays(columns: Sequence[Column[Any]], rows: Sequence[Mapping[str, Any]], alias: str) -> dict[str, Any]:
    return {f"{alias}_{column.name}": [row.get(column.name) for row in rows] for column in columns}
