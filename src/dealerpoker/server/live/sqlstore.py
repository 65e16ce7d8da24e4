"""The live tables' store on the server's database: the shared ledger and the round records.

A commit is one transaction, fenced: it first checks (and on PostgreSQL locks) the table's
lease epoch in ``live_leases``, and is refused (``StaleLeaseError``) unless the committing
process holds the newest token that claimed the table. Then every player's stake or return of
the step is posted to the same double-entry ledger as solo play (txid
``{round}:{player}:{step}``, player <-> house), and the round's record and changed seats are
written. The postings of a step are batched: one query
finds the txids already posted (they are skipped: a retried or resumed step never moves money
twice), one reads (and on PostgreSQL locks, in id order) the balances, one updates them and one
inserts the entries. If any player cannot cover a stake, nothing is written and they are named.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from dealerpoker.games.currency import DEFAULT_CURRENCY, house_account
from dealerpoker.server.db import Database
from dealerpoker.server.live.ports import Pending, StaleLeaseError
from dealerpoker.server.live.schema import live_leases, live_pending, live_rounds, live_seats
from dealerpoker.server.schema import accounts, ledger_entries

T = TypeVar("T")
_CHUNK = 1000
BALANCE_TTL = 600.0  # a stale figure only decides the early feedback; every commit checks
BALANCE_CACHE_SIZE = 200_000


def _chunks(items: Sequence[T]) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start:start + _CHUNK]


class _Refused(Exception):
    def __init__(self, players: frozenset[str]) -> None:
        self.players = players


class SqlStore:
    def __init__(self, database: Database, now: Callable[[], str]) -> None:
        self.database = database
        self.now = now
        # What this process last wrote of each seat, so a step rewrites only the seats it changed.
        self._written: dict[tuple[str, int], dict[str, str]] = {}
        self._balances: dict[str, tuple[int, float]] = {}  # player -> (balance, when read)
        self._moved: dict[str, int] = {}  # the last commit's players' balances

    async def claim(self, table_id: str, token: int | None) -> int:
        at = self.now()
        dialect: Any = sqlite if self.database.is_sqlite else postgresql
        async with self.database.transaction() as connection:
            first = dialect.insert(live_leases).values(table_id=table_id, epoch=0, updated_at=at)
            await connection.execute(first.on_conflict_do_nothing(index_elements=["table_id"]))
            query = select(live_leases.c.epoch).where(live_leases.c.table_id == table_id)
            if not self.database.is_sqlite:
                query = query.with_for_update()
            epoch = int(await connection.scalar(query) or 0)
            if token is None:
                token = epoch + 1
            elif token < epoch:
                raise StaleLeaseError(table_id, token, epoch)
            await connection.execute(update(live_leases).where(live_leases.c.table_id == table_id)
                                     .values(epoch=token, updated_at=at))
        return token

    async def _fence(self, connection: AsyncConnection, table_id: str, fence: int) -> None:
        """Refuse the transaction unless ``fence`` is the table's epoch (a row lock on PostgreSQL
        until the commit, so a claim by a newer owner waits for it or refuses it)."""
        result = await connection.execute(
            update(live_leases).where(live_leases.c.table_id == table_id, live_leases.c.epoch == fence)
            .values(epoch=fence))
        if result.rowcount != 1:
            epoch = await connection.scalar(
                select(live_leases.c.epoch).where(live_leases.c.table_id == table_id))
            raise StaleLeaseError(table_id, fence, int(epoch or 0))

    async def save_pending(self, table_id: str, items: Sequence[Pending], *, fence: int) -> None:
        if not items:
            return
        at = self.now()
        dialect: Any = sqlite if self.database.is_sqlite else postgresql
        statement = dialect.insert(live_pending)
        statement = statement.on_conflict_do_update(
            index_elements=["table_id", "number", "player_id", "step"],
            set_={"value": statement.excluded.value, "updated_at": statement.excluded.updated_at})
        rows = [{"table_id": table_id, "number": item.number, "player_id": item.player_id, "step": item.step,
                 "value": item.value, "updated_at": at} for item in items]
        async with self.database.transaction() as connection:
            await self._fence(connection, table_id, fence)
            for chunk in _chunks(rows):
                await connection.execute(statement, chunk)

    async def pending(self, table_id: str, number: int) -> list[Pending]:
        async with self.database.transaction() as connection:
            rows = await connection.execute(
                select(live_pending.c.player_id, live_pending.c.step, live_pending.c.value)
                .where(live_pending.c.table_id == table_id, live_pending.c.number == number))
            return [Pending(number, str(player), str(step), str(value)) for player, step, value in rows]

    async def last_round(self, table_id: str) -> dict[str, Any] | None:
        async with self.database.transaction() as connection:
            row = (await connection.execute(
                select(live_rounds.c.number, live_rounds.c.record)
                .where(live_rounds.c.table_id == table_id)
                .order_by(live_rounds.c.number.desc()).limit(1))).first()
            if row is None:
                return None
            number = int(row[0])
            seats = await connection.execute(
                select(live_seats.c.player_id, live_seats.c.bets, live_seats.c.steps)
                .where(live_seats.c.table_id == table_id, live_seats.c.number == number))
            record: dict[str, Any] = json.loads(row[1])
            record["seats"] = {str(p): {"bets": json.loads(b), "steps": json.loads(s)} for p, b, s in seats}
        self._written[(table_id, number)] = {p: _seat_key(s) for p, s in record["seats"].items()}
        return record

    async def recent_rounds(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        async with self.database.transaction() as connection:
            rows = await connection.execute(
                select(live_rounds.c.record).where(live_rounds.c.table_id == table_id)
                .order_by(live_rounds.c.number.desc()).limit(limit))
            return [json.loads(row[0]) for row in rows]

    async def commit(self, record: dict[str, Any], *, fence: int, step: str, debits: Mapping[str, int],
                     credits: Mapping[str, int],
                     extra_credits: Mapping[str, Mapping[str, int]] | None = None) -> frozenset[str]:
        key = (str(record["table"]), int(record["number"]))
        round_id = f"{key[0]}/{key[1]}"
        at = self.now()
        written = dict(self._written.get(key, {}))
        self._moved = {}
        try:
            async with self.database.transaction() as connection:
                await self._fence(connection, key[0], fence)
                lock = not self.database.is_sqlite
                house = house_account(str(record.get("currency", DEFAULT_CURRENCY)))
                balances = await post_batch(connection, round_id, step, debits, credits, at=at, lock=lock,
                                            house=house)
                for other, amounts in (extra_credits or {}).items():
                    balances.update(await post_batch(connection, round_id, other, {}, amounts, at=at,
                                                     lock=lock, house=house))
                await self._write_round(connection, record, at, settled=step == "settle")
                written = await self._write_seats(connection, record, written, step, at)
                if record["phase"] == "betting":  # a new round: the earlier rounds' intents are moot
                    await connection.execute(delete(live_pending).where(
                        live_pending.c.table_id == key[0], live_pending.c.number < key[1]))
        except _Refused as refused:
            return refused.players
        fetched = time.monotonic()
        if len(self._balances) > BALANCE_CACHE_SIZE:
            self._balances.clear()
        self._balances.update((player, (balance, fetched)) for player, balance in balances.items())
        self._moved = balances
        # Only the newest round of a table is ever written again.
        self._written = {k: v for k, v in self._written.items() if k[0] != key[0]}
        self._written[key] = written
        return frozenset()

    async def _write_round(self, connection: AsyncConnection, record: dict[str, Any], at: str,
                           *, settled: bool) -> None:
        body = json.dumps({k: v for k, v in record.items() if k != "seats"}, separators=(",", ":"))
        dialect: Any = sqlite if self.database.is_sqlite else postgresql
        statement = dialect.insert(live_rounds).values(
            table_id=record["table"], number=record["number"], phase=record["phase"], record=body,
            created_at=at, updated_at=at, settled_at=at if settled else None)
        changes = {"phase": statement.excluded.phase, "record": statement.excluded.record,
                   "updated_at": statement.excluded.updated_at}
        if settled:
            changes["settled_at"] = statement.excluded.settled_at
        await connection.execute(statement.on_conflict_do_update(
            index_elements=["table_id", "number"], set_=changes))

    async def _write_seats(self, connection: AsyncConnection, record: dict[str, Any], written: dict[str, str],
                           step: str, at: str) -> dict[str, str]:
        new: list[dict[str, Any]] = []
        changed: list[dict[str, Any]] = []
        for player, seat in record["seats"].items():
            text = _seat_key(seat)
            # Every line's return (the Bonus paid at the deal included), once settled.
            settling = step == "settle"
            returned = seat.get("returned") if settling else None
            if written.get(player) == text and returned is None:
                continue
            settlement = seat.get("settlement") if settling else None
            row = {"p_table": record["table"], "p_number": record["number"], "p_player": player,
                   "p_bets": json.dumps(seat["bets"]), "p_steps": json.dumps(seat["steps"]),
                   "p_total": sum(seat["bets"].values()) + sum(s["stake"] for s in seat["steps"]),
                   "p_returned": returned, "p_at": at,
                   "p_settlement": None if settlement is None else json.dumps(settlement)}
            (changed if player in written else new).append(row)
            written[player] = text
        if new:
            await connection.execute(insert(live_seats), [
                {"table_id": r["p_table"], "number": r["p_number"], "player_id": r["p_player"],
                 "bets": r["p_bets"], "steps": r["p_steps"], "total_stake": r["p_total"],
                 "total_returned": r["p_returned"], "updated_at": r["p_at"],
                 "settlement": r["p_settlement"]} for r in new])
        if changed:
            await connection.execute(
                update(live_seats)
                .where(live_seats.c.table_id == bindparam("p_table"),
                       live_seats.c.number == bindparam("p_number"),
                       live_seats.c.player_id == bindparam("p_player"))
                .values(bets=bindparam("p_bets"), steps=bindparam("p_steps"),
                        total_stake=bindparam("p_total"), total_returned=bindparam("p_returned"),
                        updated_at=bindparam("p_at"), settlement=bindparam("p_settlement")),
                changed)
        return written

    def moved_balances(self) -> Mapping[str, int]:
        return self._moved

    async def balance(self, player_id: str, *, fresh: bool = False) -> int | None:
        """A player's balance for the early check of a bet or decision.

        Served from the balances this store read and wrote at its last commits when fresh
        enough (``BALANCE_TTL``), as thousands of players bet within seconds; the commit itself
        always checks the stored balance, so a stale figure can never overdraw an account
        (and a refusal is checked again with ``fresh=True``).
        """
        cached = self._balances.get(player_id)
        if not fresh and cached is not None and time.monotonic() - cached[1] < BALANCE_TTL:
            return cached[0]
        async with self.database.transaction() as connection:
            value = await connection.scalar(select(accounts.c.balance).where(accounts.c.id == player_id))
        if value is None:
            return None
        self._balances[player_id] = (int(value), time.monotonic())
        return int(value)


def _seat_key(seat: Mapping[str, Any]) -> str:
    return json.dumps([seat["bets"], seat["steps"]], sort_keys=True)


async def post_batch(connection: AsyncConnection, round_id: str, step: str, debits: Mapping[str, int],
                     credits: Mapping[str, int], *, at: str, lock: bool, house: str) -> dict[str, int]:
    """Post every stake (player -> house) and return (house -> player) of one step, batched
    (``house``: the house account of the table's currency).

    Returns the new balances of the players it moved money for. Raises ``_Refused`` naming the
    players whose balance cannot cover their stake (the caller's transaction then rolls back:
    nothing of the step is written).
    """
    moves: dict[str, int] = {p: -a for p, a in debits.items() if a > 0}
    for player, amount in credits.items():
        if amount > 0:
            moves[player] = moves.get(player, 0) + amount
    if not moves:
        return {}
    txid = {player: f"{round_id}:{player}:{step}" for player in moves}
    posted: set[str] = set()
    for chunk in _chunks(sorted(txid.values())):
        found = await connection.execute(
            select(ledger_entries.c.txid).where(ledger_entries.c.txid.in_(chunk)).distinct())
        posted.update(str(row[0]) for row in found)
    todo = {player: delta for player, delta in moves.items() if txid[player] not in posted}
    if not todo:
        return {}
    balances: dict[str, int] = {}
    for chunk in _chunks(sorted(todo)):
        query = select(accounts.c.id, accounts.c.balance).where(accounts.c.id.in_(chunk)) \
            .order_by(accounts.c.id)
        if lock:
            query = query.with_for_update()
        balances.update((str(i), int(b)) for i, b in await connection.execute(query))
    refused = frozenset(p for p, delta in todo.items() if p not in balances or balances[p] + delta < 0)
    if refused:
        raise _Refused(refused)
    await connection.execute(
        update(accounts).where(accounts.c.id == bindparam("p_id"))
        .values(balance=accounts.c.balance + bindparam("p_delta")),
        [{"p_id": player, "p_delta": delta} for player, delta in todo.items()])
    memo = f"live {step}"[:40]
    await connection.execute(insert(ledger_entries), list(_entries(todo, txid, round_id, memo, at, house)))
    return {player: balances[player] + delta for player, delta in todo.items()}


def _entries(todo: Mapping[str, int], txid: Mapping[str, str], round_id: str, memo: str,
             at: str, house: str) -> Iterable[dict[str, Any]]:
    for player, delta in todo.items():
        yield {"txid": txid[player], "account_id": player, "amount": delta, "round_id": round_id,
               "memo": memo, "created_at": at}
        yield {"txid": txid[player], "account_id": house, "amount": -delta, "round_id": round_id,
               "memo": memo, "created_at": at}
