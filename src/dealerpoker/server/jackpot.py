"""The progressive jackpot's pool: one row for the whole deployment, changed atomically.

The bet's rules are data (``games.jackpot``: stake, fixed awards, contribution, seed, sharing,
rates); this module is where the pool lives. The pool is a row of ``jackpot_pools`` in the
pool's currency, and every change of it is an event of ``jackpot_events`` written in the same
statement sequence, inside the unit of work of the round step it belongs to (the step's ledger
transfers and round state commit with it, or none of them does):

* a **contribution** (``contribution`` of the bet's stake, in the pool's currency) is added with
  ``UPDATE ... SET amount = amount + delta``: concurrent steps in any number of processes add
  up, never overwrite each other;
* a **pool award** was computed from the pool as read, so its update also requires the pool to
  be still that amount (``expected``): if another step changed it since, nothing is written and
  :class:`PoolChanged` makes the step start again from a fresh read; the award is followed by a
  **seed** event, the house putting the pool back to its seed (plus the indivisible remainder
  of an equal share);
* a **fixed award** is paid by the house and leaves the pool as it is (an event of amount 0 in
  the pool, the player's amount beside it).

So the pool is always the sum of its seeds and contributions less its awards, which
:func:`audit_pool` checks. The money itself moves through the ledger or the operator's wallet as
two transfers of the round: the stake (memo ``jackpot``) and the award (memo ``jackpot-award``,
its own transaction with the round, so a seamless wallet is sent it as a credit call of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from dealerpoker.cards.encoding import texts_from_indices
from dealerpoker.errors import DealerPokerError
from dealerpoker.games.jackpot import (
    JackpotRules,
    contribution_of,
    first_five,
    first_five_result,
    share_pool,
    to_currency,
)
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.ledger import Transfer, txid
from dealerpoker.server.schema import jackpot_events, jackpot_pools

POOL_ID = "main"
STAKE, AWARD = "jackpot", "jackpot-award"
"""The money moments (txid suffix and ledger memo) of the bet's stake and of its award."""
SEED, CONTRIBUTION = "seed", "contribution"
"""Event kinds besides ``award``."""
INITIAL_SEED = "seed:initial"
"""The round id of the pool's first seed (every later seed follows the round that won it)."""


class JackpotNotOfferedError(DealerPokerError, ValueError):
    """A jackpot bet where there is none: no jackpot configured, or the player's currency has no rate."""

    code = "jackpot_not_offered"
    status = 422


class JackpotRefusedError(DealerPokerError, ValueError):
    """The player's jurisdiction does not allow the jackpot bet (its profile's ``jackpots``)."""

    code = "jurisdiction"
    status = 403

    def details(self) -> dict[str, Any]:
        return {"rule": "jackpots"}


class PoolChanged(Exception):
    """The pool moved since a pool award was computed from it: nothing written, compute again."""


@dataclass(frozen=True, slots=True)
class PoolEvent:
    kind: str
    round_id: str
    player_id: str
    amount: int
    """Minor units of the pool's currency taken from (award) or added to (seed, contribution) it."""
    player_amount: int | None = None
    player_currency: str | None = None
    category: str | None = None

    @property
    def delta(self) -> int:
        return -self.amount if self.kind == "award" else self.amount


@dataclass(frozen=True, slots=True)
class PoolChange:
    """What one step does to the pool: its events, in order, and the pool they were computed
    from when an award depends on it (None: they add up whatever the pool is)."""

    events: tuple[PoolEvent, ...]
    expected: int | None = None

    @property
    def delta(self) -> int:
        return sum(event.delta for event in self.events)


@dataclass(frozen=True, slots=True)
class Settled:
    """A jackpot bet settled on the first five cards: the view's entry, the award's transfer
    (None: nothing won) and the pool's events."""

    view: dict[str, Any]
    award: Transfer | None
    events: tuple[PoolEvent, ...]
    wins_pool: bool


class Jackpot:
    """The deployment's jackpot: its rules, the players' currencies, the pool in the database."""

    def __init__(self, database: Database, rules: JackpotRules, exponent_of: Callable[[str], int]) -> None:
        self.database = database
        self.rules = rules
        self.exponent_of = exponent_of
        """A currency's decimals (the deployment's currencies)."""

    # ---- amounts (pure) -----------------------------------------------------------------------
    def offered_in(self, currency: str) -> bool:
        return currency in self.rules.currencies

    def to_player(self, amount: int, currency: str) -> int:
        """``amount`` of the pool's currency in ``currency``, at the configured rate, rounded down."""
        if not self.offered_in(currency):
            raise JackpotNotOfferedError(
                f"the jackpot bet is not offered in {currency}: it is offered in "
                f"{', '.join(self.rules.currencies)} (the jackpot file's rates)")
        return to_currency(self.rules, amount, currency, from_exponent=self.exponent_of(self.rules.currency),
                           to_exponent=self.exponent_of(currency))

    def stake_in(self, currency: str) -> int:
        """What one jackpot bet costs a player of ``currency``."""
        return self.to_player(self.rules.stake, currency)

    def opening(self, round_id: str, player_id: str,
                currency: str) -> tuple[Transfer, PoolEvent, dict[str, Any]]:
        """A bet placed: its stake's transfer, its contribution, its entry in the view (open)."""
        stake = self.stake_in(currency)
        contribution = PoolEvent(CONTRIBUTION, round_id, player_id, contribution_of(self.rules))
        view = {"stake": stake, "currency": currency, "status": "open", "pool_currency": self.rules.currency}
        return Transfer(txid(round_id, player_id, STAKE), player_id, -stake, STAKE), contribution, view

    def settle(self, view: dict[str, Any], deck: Sequence[int], round_id: str, player_id: str,
               *, pool: int | None, winners: int = 1) -> Settled:
        """The bet of ``view`` (its open entry) settled on the round's first five cards.

        ``pool``: the pool as read, including this round's contributions (needed only when the
        cards win it); ``winners``: the jackpot bets of the round sharing it (``sharing = equal``)."""
        cards = first_five(deck)
        result = first_five_result(self.rules, cards)
        currency = str(view["currency"])
        settled = {**view, "cards": texts_from_indices(cards), "hand": result.category.slug}
        events: list[PoolEvent] = []
        if result.wins_pool:
            if pool is None:
                raise ValueError("a pool award needs the pool as read")
            share, _ = share_pool(pool, winners)
            amount = share
            events.append(PoolEvent("award", round_id, player_id, share, self.to_player(share, currency),
                                    currency, result.category.slug))
        else:
            amount = result.award
            if amount:
                events.append(PoolEvent("award", round_id, player_id, 0, self.to_player(amount, currency),
                                        currency, result.category.slug))
        paid = self.to_player(amount, currency) if amount else 0
        settled.update(status="won" if paid else "lost", award=paid, pool_award=result.wins_pool)
        transfer = Transfer(txid(round_id, player_id, AWARD), player_id, paid, AWARD) if paid else None
        return Settled(settled, transfer, tuple(events), result.wins_pool)

    def reseed(self, round_id: str) -> PoolEvent:
        """The house seeds the pool again after ``round_id`` won it."""
        return PoolEvent(SEED, round_id, "", self.rules.seed)

    def wins_pool(self, deck: Sequence[int]) -> bool:
        return first_five_result(self.rules, first_five(deck)).wins_pool

    # ---- the pool in the database ----------------------------------------------------------
    async def ensure(self, at: str) -> None:
        """Create and seed the pool if it does not exist yet (any number of processes at once)."""
        async with self.database.transaction() as connection:
            currency = await connection.scalar(
                select(jackpot_pools.c.currency).where(jackpot_pools.c.id == POOL_ID))
        if currency is not None:
            if currency != self.rules.currency:
                raise JackpotNotOfferedError(
                    f"the jackpot file's currency is {self.rules.currency} but the pool in the "
                    f"database is in {currency}: a pool keeps its currency")
            return
        try:
            async with self.database.transaction() as connection:
                await connection.run(insert(jackpot_pools), {
                    "id": POOL_ID, "currency": self.rules.currency, "amount": 0, "updated_at": at})
                await apply(connection, PoolChange((PoolEvent(SEED, INITIAL_SEED, "", self.rules.seed),)), at)
        except IntegrityError:
            return  # another process seeded it first

    async def amount(self) -> int:
        async with self.database.reading() as connection:
            return await pool_amount(connection)


_ADD = update(jackpot_pools).where(jackpot_pools.c.id == bindparam("p_id")) \
    .values(amount=jackpot_pools.c.amount + bindparam("p_delta"), updated_at=bindparam("p_at")) \
    .returning(jackpot_pools.c.amount)
_ADD_IF = _ADD.where(jackpot_pools.c.amount == bindparam("p_expected"))


async def pool_amount(connection: Connection) -> int:
    found = await connection.scalar(select(jackpot_pools.c.amount).where(jackpot_pools.c.id == POOL_ID))
    if found is None:
        raise JackpotNotOfferedError("no jackpot pool in this database: serve with a jackpot seeds it")
    return int(found)


async def apply(connection: Connection, change: PoolChange, at: str) -> int:
    """Write ``change`` in the caller's unit of work: the pool moved by its events, the events
    appended; the pool after. Raises :class:`PoolChanged` (nothing written) when an award was
    computed from a pool that has moved since."""
    if not change.events:
        return await pool_amount(connection)
    values = {"p_id": POOL_ID, "p_delta": change.delta, "p_at": at}
    if change.expected is None:
        after = await connection.scalar(_ADD, values)
    else:
        after = await connection.scalar(_ADD_IF, {**values, "p_expected": change.expected})
        if after is None:
            raise PoolChanged
    if after is None:
        raise JackpotNotOfferedError("no jackpot pool in this database: serve with a jackpot seeds it")
    running = int(after) - change.delta
    rows = []
    for event in change.events:
        running += event.delta
        rows.append({"pool_id": POOL_ID, "kind": event.kind, "round_id": event.round_id,
                     "player_id": event.player_id, "amount": event.amount, "pool_after": running,
                     "player_amount": event.player_amount, "player_currency": event.player_currency,
                     "category": event.category, "created_at": at})
    await connection.run(insert(jackpot_events), rows)
    return int(after)


@dataclass(frozen=True, slots=True)
class PoolAudit:
    """The pool against its events: ``amount`` must equal seeds + contributions - awards."""

    amount: int
    seeds: int
    contributions: int
    awards: int

    @property
    def ok(self) -> bool:
        return self.amount == self.seeds + self.contributions - self.awards


async def audit_pool(connection: Connection) -> PoolAudit:
    totals = dict.fromkeys((SEED, CONTRIBUTION, "award"), 0)
    found = await connection.execute(
        select(jackpot_events.c.kind, func.coalesce(func.sum(jackpot_events.c.amount), 0))
        .where(jackpot_events.c.pool_id == POOL_ID).group_by(jackpot_events.c.kind))
    for kind, total in found:
        totals[str(kind)] = int(total)
    return PoolAudit(await pool_amount(connection), totals[SEED], totals[CONTRIBUTION], totals["award"])


async def history(connection: Connection, *, limit: int = 50, before: int | None = None,
                  kinds: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The pool's events, newest first (``before``: an event id, for the next page)."""
    query: Any = select(jackpot_events).where(jackpot_events.c.pool_id == POOL_ID)
    if before is not None:
        query = query.where(jackpot_events.c.id < before)
    if kinds:
        query = query.where(jackpot_events.c.kind.in_(list(kinds)))
    rows = await connection.execute(query.order_by(jackpot_events.c.id.desc()).limit(limit))
    return [{"id": int(row.id), "kind": row.kind, "round_id": row.round_id,
             "player_id": row.player_id or None,
             "amount": int(row.amount), "pool_after": int(row.pool_after),
             "player_amount": None if row.player_amount is None else int(row.player_amount),
             "player_currency": row.player_currency, "category": row.category, "at": row.created_at}
            for row in rows]
