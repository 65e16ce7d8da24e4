"""The live tables' store on the server's database: the shared ledger and the round records.

A commit is one transaction, fenced: it first checks (and on PostgreSQL locks) the table's
lease epoch in ``live_leases``, and is refused (``StaleLeaseError``) unless the committing
process holds the newest token that claimed the table. Then every player's stake or return of
the step goes through the wallet (``Wallet.record``; the embedded one posts them to the same
double-entry ledger as solo play with ``ledger.post``, one batch for the whole table, txids
``{round}:{player}:{moment}``), and the round's record and changed seats are written. A txid
already posted is skipped (a retried or resumed step never moves money twice). If any player
cannot cover a stake, nothing is written and they are named.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any

from cachetools import TTLCache
from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite

from dealerpoker.games.currency import DEFAULT_CURRENCY
from dealerpoker.identity import ByIdentity
from dealerpoker.server.batching import Batcher
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.ledger import SETTLE, Transfer, UncoveredStakesError, txid
from dealerpoker.server.live.ports import FreeRoundClaim, Pending, StaleLeaseError
from dealerpoker.server.schema import live_leases, live_pending, live_rounds, live_seats
from dealerpoker.server.wallet import LedgerWallet, Movement, Wallet

BALANCE_TTL = 600.0  # a stale figure only decides the early feedback; every commit checks
BALANCE_CACHE_SIZE = 200_000
WALLET_SECONDS = 2.0
"""How long the wallet may take over a step's debits (all its attempts: a remote wallet's bets go
out at once; those unanswered by then are refused, their players sit the round out)."""


SeatJurisdictions = Callable[[Collection[str]], Awaitable[Mapping[str, str]]]
"""Players -> what each one's new seat keeps of the jurisdiction profile they play under."""
ClaimFreeRound = Callable[[Connection, FreeRoundClaim, str], Awaitable[bool]]
"""(the deal's connection, the seat's claim, at) -> whether one free round of the reward was
claimed (``server.promotions.claim_at_table``)."""
GiveBackFreeRound = Callable[[Connection, str], Awaitable[None]]
"""(the misdeal's connection, reward): give one free round of the reward back
(``server.promotions.release_at_table``)."""


async def no_free_rounds(_connection: Connection, _claim: FreeRoundClaim, _at: str) -> bool:
    return False  # a server without operators has no free rounds: a seat naming one sits out


async def nothing_to_give_back(_connection: Connection, _reward: str) -> None:
    return None


class SqlStore:
    def __init__(self, database: Database, now: Callable[[], str], *, wallet: Wallet | None = None,
                 seat_jurisdictions: SeatJurisdictions | None = None,
                 claim_free_round: ClaimFreeRound = no_free_rounds,
                 give_back_free_round: GiveBackFreeRound = nothing_to_give_back) -> None:
        self.database = database
        self.claim_free_round = claim_free_round
        self.give_back_free_round = give_back_free_round
        self.now = now
        self.wallet = wallet or LedgerWallet(database)
        # Read when a seat is first written, outside the commit's transaction (SQLite's one lock).
        self.seat_jurisdictions = seat_jurisdictions
        # What this process last wrote of each seat, so a step rewrites only the seats it changed.
        self._written: dict[tuple[str, int], dict[str, SeatTexts]] = {}
        # Player -> balance, as read or written (the last commits' players), for BALANCE_TTL.
        self._balances: TTLCache[str, int] = TTLCache(BALANCE_CACHE_SIZE, BALANCE_TTL, timer=time.monotonic)
        self._moved: dict[str, int] = {}  # the last commit's players' balances
        # The first bets of a crowd at a table: their balances read together.
        self._read_balances = Batcher(self._balances_of)
        self._deadlines: dict[str, tuple[tuple[str, int, str], float]] = {}  # table -> its step's debits'

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

    async def _fence(self, connection: Connection, table_id: str, fence: int) -> None:
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
        rows = [{"table_id": table_id, "number": item.number, "player_id": item.player_id, "step": item.step,
                 "value": item.value, "updated_at": at} for item in items]
        async with self.database.transaction() as connection:
            await self._fence(connection, table_id, fence)
            await connection.insert_many(live_pending, rows,
                                         replacing=("table_id", "number", "player_id", "step"))

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
                select(live_seats.c.player_id, live_seats.c.bets, live_seats.c.steps, live_seats.c.promo,
                       live_seats.c.jackpot)
                .where(live_seats.c.table_id == table_id, live_seats.c.number == number))
            record: dict[str, Any] = json.loads(row[1])
            record["seats"] = {str(p): {"bets": json.loads(b), "steps": json.loads(s),
                                        **({"promo": json.loads(f)} if f else {}),
                                        **({"jackpot": json.loads(j)} if j else {})}
                               for p, b, s, f, j in seats}
        self._written[(table_id, number)] = {p: _seat_texts(s) for p, s in record["seats"].items()}
        return record

    async def recent_rounds(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        async with self.database.transaction() as connection:
            rows = await connection.execute(
                select(live_rounds.c.record).where(live_rounds.c.table_id == table_id)
                .order_by(live_rounds.c.number.desc()).limit(limit))
            return [json.loads(row[0]) for row in rows]

    def _debit_deadline(self, step: tuple[str, int, str]) -> float:
        """When the debits of a table's step must be answered: ``WALLET_SECONDS`` after its first
        attempt (the same for the attempts that follow players' refusals)."""
        now = asyncio.get_running_loop().time()
        found = self._deadlines.get(step[0])
        if found is None or found[0] != step:
            found = self._deadlines[step[0]] = (step, now + WALLET_SECONDS)
        return found[1]

    async def commit(self, record: dict[str, Any], *, fence: int, step: str, debits: Mapping[str, int],
                     credits: Mapping[str, int],
                     extra_credits: Mapping[str, Mapping[str, int]] | None = None,
                     game: str = "", claims: Mapping[str, FreeRoundClaim] | None = None,
                     promos: Mapping[str, Mapping[str, Any]] | None = None,
                     releases: Sequence[str] = (),
                     extra_debits: Mapping[str, Mapping[str, int]] | None = None,
                     in_transaction: Callable[[Connection, str], Awaitable[None]] | None = None,
                     ) -> frozenset[str]:
        key = (str(record["table"]), int(record["number"]))
        round_id = f"{key[0]}/{key[1]}"
        at = self.now()
        written = dict(self._written.get(key, {}))
        self._moved = {}
        money = Movement(round_id, game, str(record.get("currency", DEFAULT_CURRENCY)),
                         _transfers(round_id, step, debits, credits, extra_credits or {},
                                    extra_debits or {}), at,
                         closes_round=step == "settle", may_repeat=True, promos=dict(promos or {}))
        newcomers = [player for player in record["seats"] if player not in written]
        markets = (await self.seat_jurisdictions(newcomers)
                   if newcomers and self.seat_jurisdictions is not None else {})
        debit = await self.wallet.debit(money, {}, deadline=self._debit_deadline((*key, step)))
        if debit.refused:
            await self.wallet.rollback(debit)
            return frozenset(debit.refused)
        try:
            async with self.database.transaction() as connection:
                await self._fence(connection, key[0], fence)
                await _claim_free_rounds(connection, claims or {}, at, self.claim_free_round)
                for reward in releases:
                    await self.give_back_free_round(connection, reward)
                if in_transaction is not None:  # the jackpot's pool, moved with this step
                    await in_transaction(connection, at)
                balances = await self.wallet.record(connection, money, debit)
                await self._write_round(connection, record, at, settled=step == "settle")
                written = await self._write_seats(connection, record, written, step, at, markets)
                if record["phase"] == "betting":  # a new round: the earlier rounds' intents are moot
                    await connection.execute(delete(live_pending).where(
                        live_pending.c.table_id == key[0], live_pending.c.number < key[1]))
        except (UncoveredStakesError, _FreeRoundsTaken) as refused:
            await self.wallet.rollback(debit)
            return refused.players
        except BaseException:
            await self.wallet.rollback(debit)
            raise
        await self.wallet.committed(money)
        self._balances.update(balances)
        self._moved = balances
        # Only the newest round of a table is ever written again.
        self._written = {k: v for k, v in self._written.items() if k[0] != key[0]}
        self._written[key] = written
        return frozenset()

    async def _write_round(self, connection: Connection, record: dict[str, Any], at: str,
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

    async def _write_seats(self, connection: Connection, record: dict[str, Any],
                           written: dict[str, SeatTexts], step: str, at: str,
                           markets: Mapping[str, str]) -> dict[str, SeatTexts]:
        new: list[dict[str, Any]] = []
        changed: list[dict[str, Any]] = []
        # A settlement's text: the seats that played alike share its dict (``tables.record``).
        settlement_text = ByIdentity(json.dumps)
        for player, seat in record["seats"].items():
            texts = _seat_texts(seat)
            # Every line's return (the Bonus paid at the deal included), once settled.
            settling = step == "settle"
            returned = seat.get("returned") if settling else None
            if written.get(player) == texts and returned is None:
                continue
            bets, steps, jackpot = texts
            settlement = seat.get("settlement") if settling else None
            promo = seat.get("promo")
            free_ante = 0 if promo is None else int(promo["free_ante"])  # the operator's, not the player's
            stake = sum(seat["bets"].values()) - free_ante + sum(s["stake"] for s in seat["steps"])
            row = {"table_id": record["table"], "number": record["number"], "player_id": player,
                   "bets": bets, "steps": steps,
                   "total_stake": stake,
                   "total_returned": returned, "updated_at": at,
                   "settlement": None if settlement is None else settlement_text(settlement),
                   "promo": None if promo is None else json.dumps(promo, separators=(",", ":")),
                   "jackpot": jackpot}
            if player in written:
                changed.append(row)
            else:
                new.append({**row, "jurisdiction": markets.get(player),
                            "promo_reward": None if promo is None else str(promo["reward"])})
            written[player] = texts
        await connection.insert_many(live_seats, new)
        await connection.update_many(live_seats, ("table_id", "number", "player_id"), changed)
        return written

    def moved_balances(self) -> Mapping[str, int]:
        return self._moved

    async def _balances_of(self, players: Mapping[str, None]) -> dict[str, int | None]:
        found = await self.wallet.balances(list(players))
        return {player: found.get(player) for player in players}

    async def balance(self, player_id: str, *, fresh: bool = False) -> int | None:
        """A player's balance for the early check of a bet or decision.

        Served from the balances this store read and wrote at its last commits when fresh
        enough (``BALANCE_TTL``), as thousands of players bet within seconds; the commit itself
        always checks the stored balance, so a stale figure can never overdraw an account
        (and a refusal is checked again with ``fresh=True``).
        """
        cached = None if fresh else self._balances.get(player_id)
        if cached is not None:
            return cached
        value = await self._read_balances(player_id, None)
        if value is not None:
            self._balances[player_id] = value
        return value


class _FreeRoundsTaken(Exception):
    """Seats whose free round could not be claimed at the deal (used up meanwhile, at another
    table or solo, or the campaign cancelled or ended): they sit the round out."""

    def __init__(self, players: frozenset[str]) -> None:
        super().__init__(", ".join(sorted(players)))
        self.players = players


async def _claim_free_rounds(connection: Connection, claims: Mapping[str, FreeRoundClaim], at: str,
                             claim: ClaimFreeRound) -> None:
    """Claim each seat's free round (player -> its claim) in the deal's unit of work, or raise
    :class:`_FreeRoundsTaken` naming the seats whose claim failed (the transaction rolls back)."""
    taken = frozenset([player for player, seat_claim in claims.items()
                       if not await claim(connection, seat_claim, at)])
    if taken:
        raise _FreeRoundsTaken(taken)


SeatTexts = tuple[str, str, str | None]
"""A seat's columns as written: its bets, steps and jackpot bet (JSON)."""


def _seat_texts(seat: Mapping[str, Any]) -> SeatTexts:
    """The JSON a commit writes of a seat's bets, steps and jackpot bet, which also tells the
    seats changed since the last commit. It is made for every seat at every commit: the default
    ``json.dumps`` of each column (its encoder built once) costs less than one ``sort_keys`` text
    of all three (an encoder built at each call) and then each column's text again."""
    jackpot = seat.get("jackpot")
    jackpot_text = None if jackpot is None else json.dumps(jackpot)
    return json.dumps(seat["bets"]), json.dumps(seat["steps"]), jackpot_text


def _transfers(round_id: str, step: str, debits: Mapping[str, int], credits: Mapping[str, int],
               extra_credits: Mapping[str, Mapping[str, int]],
               extra_debits: Mapping[str, Mapping[str, int]] | None = None) -> tuple[Transfer, ...]:
    """A commit's transfers: one per player per money moment (the step's stake or return, net;
    each of ``extra_credits``), txids ``{round}:{player}:{moment}`` (``ledger.txid``). The
    settlement has one for every settled seat, a return of 0 too: it closes that player's round
    (an operator's player gets a zero ``win`` with ``round_closed``; the ledger posts nothing)."""
    moves: dict[str, int] = {p: -a for p, a in debits.items() if a > 0}
    for player, amount in credits.items():
        if amount > 0 or step == SETTLE:
            moves[player] = moves.get(player, 0) + amount
    transfers = [Transfer(txid(round_id, p, step), p, amount, step) for p, amount in moves.items()]
    transfers += [Transfer(txid(round_id, p, other), p, amount, other)
                  for other, amounts in extra_credits.items() for p, amount in amounts.items() if amount > 0]
    transfers += [Transfer(txid(round_id, p, other), p, -amount, other)  # a side bet's own stake
                  for other, amounts in (extra_debits or {}).items()
                  for p, amount in amounts.items() if amount > 0]
    return tuple(transfers)
