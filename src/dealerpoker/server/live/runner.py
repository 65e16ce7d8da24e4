"""The imperative shell of one live table: clock, money, records and messages around the pure round.

Order of every transition (docs/architecture.md, "Functional core, imperative shell"): compute
the next round purely, commit it with its ledger entries in one transaction, then publish. So a
street is never shown before the stakes of the decisions that led to it are committed, and a
restart resumes from the last commit: a round at the showdown is settled (idempotent txids:
nothing is paid twice).

Bets are validated (limits, balance) when placed, and debited when the window closes, all in
one transaction: a player whose balance no longer covers them at that moment leaves the round.
A decision is checked against the balance when sent and debited, with every other decision of
that point, when the point closes; if it can no longer be covered the timeout action replaces it.
The deal's transaction also credits every won Bonus (texas-bonus pays it on the hole cards).

Crash safety of what is not committed yet: every accepted bet and decision is written behind
(``live.pending``: batched, at most ``FLUSH_DELAY`` plus one write later) and the player's reply
("accepted": their ``you`` message) is sent only once it is written. The window's and each
timer's deadline are in the committed record. After a restart the table resumes the same window
or timer with its original deadline (closing it at once if it has passed) and every bet or
decision that was acknowledged; one that was not acknowledged may be lost and must be sent again.

Fencing: each (re)start or takeover claims the table with a lease token (Redis ``INCR``, or the
database's own counter without Redis) before reading the round; every commit and pending write
is refused once a newer token claimed the table (``StaleLeaseError``), and the runner stops.

With nobody watching, the table idles: no betting window opens until someone joins. A round
whose window closes without bets deals nothing and goes to the pause.

A studio table (``dealing = "studio"``) has no seeds: once the stakes are debited the round
waits for its dealer (the card reports, voids and misdeals of ``live.dealer.DealerDesk``, sent on
``/ws/dealer/{table}``). A deal deadline that passes cancels the round as a misdeal: the
cancellation's returns are credited as the round's settlement (txid ``...:settle``).
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dealerpoker.errors import InsufficientFundsError
from dealerpoker.fairness import ALGORITHM_VERSION, commitment, deck_order, table_client_seed
from dealerpoker.games.currency import DEFAULT_CURRENCY
from dealerpoker.identity import ByIdentity
from dealerpoker.messages import render
from dealerpoker.server.jackpot import AWARD, STAKE, Jackpot, JackpotNotOfferedError, PoolChange, PoolChanged
from dealerpoker.server.jackpot import apply as apply_pool
from dealerpoker.server.live.dealer import LAST_ROUNDS, DealerDesk
from dealerpoker.server.live.jackpot_seats import JackpotSettlement, settle_jackpots
from dealerpoker.server.live.pending import FLUSH_DELAY, PendingWriter
from dealerpoker.server.live.ports import (
    BETS,
    TIMER,
    FreeRoundClaim,
    LiveStore,
    Pending,
    Publisher,
    StaleLeaseError,
)
from dealerpoker.server.observability.metrics import count_round
from dealerpoker.tables import studio, views
from dealerpoker.tables import table as core
from dealerpoker.tables.config import TableConfig
from dealerpoker.tables.record import Fairness, from_record, to_record
from dealerpoker.tables.table import LiveGame, LiveRound, LiveTableError, Phase, Seat

Clock = Callable[[], float]
Controls = Callable[[str], Awaitable["TableControl | None"]]
IDLE_RECHECK = 1.0
log = logging.getLogger("dealerpoker.live.runner")


@dataclass(frozen=True, slots=True)
class TableControl:
    """What the back office set for a table: whether a new round may open (``open``; ``paused``
    and ``closed`` let the current round finish and open none), and the timers of the next rounds."""

    status: str = "open"
    timers: Mapping[str, float] | None = None


async def no_controls(_table_id: str) -> TableControl | None:
    return None


class TableRunner(DealerDesk):
    """Runs one table's loop; the only writer of that table's round."""

    def __init__(self, table: TableConfig, game: LiveGame, store: LiveStore, publisher: Publisher,
                 *, clock: Clock, watchers: Callable[[], int] = lambda: 0,
                 new_seed: Callable[[], str] = lambda: secrets.token_hex(32),
                 flush_delay: float = FLUSH_DELAY, currency: str | None = None,
                 controls: Controls = no_controls,
                 halted: Callable[[], str | None] = lambda: None,
                 handing_over: Callable[[], bool] = lambda: False,
                 jackpot: Jackpot | None = None) -> None:
        self.table = table
        #: The deployment's progressive jackpot (None: no jackpot bet at this table).
        self.jackpot = jackpot
        #: Why play is halted (the software verification failed), else None: no round opens and
        #: no bet is taken; the round in play finishes.
        self.halted = halted
        #: Whether this process is handing its tables over (draining): no round opens here; the
        #: process that takes the table opens the next one.
        self.handing_over = handing_over
        #: Read before each round opens (the back office's pause, close and timers; every
        #: process reads the same row, so the table's owner applies it wherever it was set).
        self.controls = controls
        self.held: str | None = None  # "paused" | "closed" while the back office holds the table
        #: Every amount at this table is in this currency (its players' accounts hold it).
        self.currency = currency or table.currency or DEFAULT_CURRENCY
        self.game = game
        self.store = store
        self.publisher = publisher
        self.clock = clock
        self.watchers = watchers
        self.new_seed = new_seed
        self.round: LiveRound | None = None
        self.fairness: Fairness | None = None
        self.wakeup = asyncio.Event()
        self._lock = asyncio.Lock()
        self.token: int | None = None  # the lease token this runner's writes carry
        self.stale = False              # a newer token claimed the table: this runner stopped
        self.writer = PendingWriter(self._write_pending, delay=flush_delay)
        self._balances: dict[str, int] = {}  # each balance as this round's commits left it
        self.last_rounds: list[dict[str, Any]] = []  # studio: the dealer's list of ended rounds

    # ----- views and messages -------------------------------------------------------------
    def table_message(self, event: str) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "table", "event": event, "players": self.watchers(),
                                   "server_time": self.clock(), "currency": self.currency}
        if self.round is None:
            message.update(table=self.table.id, phase="idle", round=None, deadline=None)
            return message
        message.update(views.public_view(self.round, self.table))
        if self.fairness is not None:
            message["fairness"] = self.fairness.public(reveal_seed=self.round.phase is Phase.PAUSE)
        return message

    def jackpot_stake(self) -> int | None:
        """What the jackpot bet costs at this table (its currency), None where it offers none: no
        jackpot, none in the table's currency, or a studio table (its deal is the dealer's and a
        misdeal would have to take the bets' contributions back out of the shared pool)."""
        jackpot = self.jackpot
        if jackpot is None or self.table.studio is not None or not jackpot.offered_in(self.currency):
            return None
        return jackpot.stake_in(self.currency)

    def seat_message(self, player_id: str) -> dict[str, Any]:
        rnd = self.round
        return self._you(views.seat_view(rnd, self.game, player_id) if rnd is not None else None)

    def _you(self, view: dict[str, Any] | None) -> dict[str, Any]:
        """A player's own message around their seat's view."""
        message = {"type": "you", "currency": self.currency,
                   "round": self.round.round_id if self.round else None,
                   "phase": str(self.round.phase) if self.round else "idle", "seat": view}
        if view is not None and self.round is not None and self.round.phase is Phase.PAUSE:
            # Settled and committed: the player's part of the round's audit record exists now.
            message["record"] = f"/api/tables/{self.table.id}/rounds/{self.round.number}/record"
        return message

    def decision_message(self, player_id: str) -> dict[str, Any]:
        """The player's open decision as they see it (``views.decision_view``), for the hint."""
        return views.decision_view(self.round, self.table, self.game, player_id)

    async def _tell_seated(self) -> None:
        """Every seated player's own message, with the balance this round's commits in this
        process left (every seated player's money moved at the deal; none after a restart), so
        no client has to ask. Money moved outside this table since (solo play in another
        window) shows from the next round's deal on. The players who played alike share one
        message (``views.seat_views``), which the publisher serialises once."""
        assert self.round is not None
        wrapped = ByIdentity(self._you)
        messages = {player: wrapped(view)
                    for player, view in views.seat_views(self.round, self.game, self.round.seats).items()}
        balances = {player: self._balances[player] for player in messages if player in self._balances}
        await self.publisher.to_players(self.table.id, messages, balances)

    # ----- intents ----------------------------------------------------------------------------
    async def bet(self, player_id: str, bets: Mapping[str, int],
                  free: Mapping[str, Any] | None = None, jackpot: bool = False) -> dict[str, Any]:
        """Place/replace (``{}``: withdraw) a player's bets; returns their seat message once the
        bets are written (they survive a crash from then on). ``free``: the bets are a free
        round's (``Promotions.prepare``'s promo, checked by the caller), claimed at the deal.
        ``jackpot``: the player adds the jackpot side bet (checked by the caller)."""
        if bets:
            # Read before the table's lock (kept by the store for the check under it): the first
            # bets of a crowd are read together, not one after the other behind the lock.
            await self.store.balance(player_id)
        async with self._lock:
            self._check_running()
            if self.round is None:
                raise LiveTableError(code="no_more_bets", key="error.live.no_betting_window")
            if bets and self.halted() is not None:
                raise LiveTableError(code="software_unverified", key="error.software.halted")
            entry = None
            if jackpot and bets:
                if self.jackpot_stake() is None:
                    raise JackpotNotOfferedError("this table offers no jackpot bet (RNG tables of a server "
                                                 "with a jackpot in the table's currency do)")
                assert self.jackpot is not None
                entry = self.jackpot.opening(self.round.round_id, player_id, self.currency)[2]
            updated = core.place_bets(self.round, self.game, player_id, bets, now=self.clock(), free=free,
                                      jackpot=entry)
            seat = updated.seats.get(player_id)
            if seat is not None:
                side = 0 if entry is None else int(entry["stake"])  # the jackpot bet's, debited with the deal
                await self._require_funds(player_id, seat.opening_stake + side)
            self.round = updated
            reply = self.seat_message(player_id)
            value = _pending_bets(seat)
            written = self.writer.put(Pending(updated.number, player_id, BETS, value))
        await self._written(written)
        return reply

    async def decide(self, player_id: str, action: str) -> dict[str, Any]:
        """Accept a decision at the current point; returns the seat message once it is written."""
        async with self._lock:
            self._check_running()
            if self.round is None:
                raise LiveTableError(code="no_decision_open", key="error.live.no_decision_open")
            updated = core.decide(self.round, self.game, player_id, action, now=self.clock())
            seat = self.round.seats[player_id]
            await self._require_funds(player_id, self.game.stake_for(seat.state, action))
            self.round = updated
            if updated.all_decided():
                self.wakeup.set()
            reply = self.seat_message(player_id)
            point = updated.point
            assert point is not None
            value = json.dumps({"action": action, "at": updated.seats[player_id].pending_at})
            written = self.writer.put(Pending(updated.number, player_id, point, value))
        await self._written(written)
        return reply

    def _check_running(self) -> None:
        if self.stale:
            raise LiveTableError(code="table_unavailable", key="error.live.table_moved")

    async def _written(self, written: asyncio.Future[None]) -> None:
        try:
            await asyncio.shield(written)
        except StaleLeaseError:
            raise LiveTableError(code="table_unavailable", key="error.live.table_moved") from None

    async def _write_pending(self, items: Any) -> None:
        await self.store.save_pending(self.table.id, items, fence=self._fence())

    async def _require_funds(self, player_id: str, needed: int) -> None:
        balance = await self.store.balance(player_id)
        if balance is None or balance < needed:
            balance = await self.store.balance(player_id, fresh=True)
        if balance is None or balance < needed:
            raise InsufficientFundsError(key="error.funds", balance=balance or 0, needed=needed)

    # ----- the clock ----------------------------------------------------------------------------
    async def resume(self, lease: int | None = None) -> bool:
        """Pick up the table's last stored round after a (re)start or a takeover.

        First claims the table with the lease token ``lease`` (None: the database's counter),
        so a previous owner can write nothing more; then restores the last commit and the bets
        or decisions accepted since, keeping the stored deadline.
        """
        async with self._lock:
            return await self._resume(lease)

    async def _resume(self, lease: int | None) -> bool:
        self.round = self.fairness = None
        self._balances = {}
        self.token = await self.store.claim(self.table.id, lease)
        self.stale = False
        self.writer.reopen()
        record = await self.store.last_round(self.table.id)
        if record is None:
            return False
        rnd, self.fairness = from_record(record, self.game)
        rnd = await self._restore_pending(rnd)
        # A decision deadline that passed while the server was down: a fresh window, not the timer.
        self.round = core.reopen_missed_decision(rnd, self.table, now=self.clock())
        if self.table.studio is not None:
            self.last_rounds = [views.round_summary(stored) for stored in
                                await self.store.recent_rounds(self.table.id, LAST_ROUNDS)
                                if stored["phase"] == "pause" and stored.get("deck")]
        return True

    async def _restore_pending(self, rnd: LiveRound) -> LiveRound:
        items = await self.store.pending(self.table.id, rnd.number)
        if rnd.phase is Phase.BETTING:
            placed = {item.player_id: _placed(item.value) for item in items if item.step == BETS}
            rnd, invalid = core.restore_bets(
                rnd, self.game, {p: bets for p, (bets, _, _) in placed.items()},
                {p: free for p, (_, free, _) in placed.items() if free is not None},
                {p: entry for p, (_, _, entry) in placed.items() if entry is not None})
        else:
            for item in items:
                if item.player_id == TIMER and item.step == rnd.point:
                    timer = json.loads(item.value)
                    rnd = core.start_decision_timer(rnd, at=timer["at"], deadline=timer["deadline"])
            decisions = {item.player_id: _decision(item.value) for item in items
                         if item.step == rnd.point and item.player_id != TIMER}
            rnd, invalid = core.restore_decisions(rnd, self.game, decisions)
        if invalid:
            log.warning("table %s: left out the stored bets/decisions no longer valid of %s",
                        self.table.id, ", ".join(sorted(invalid)))
        return rnd

    async def advance(self) -> float | None:
        """Make every transition due now; returns when to call again (None: on a wake-up).

        Raises ``StaleLeaseError`` (and stops this runner) once a newer lease token claimed the
        table: the commit that found out wrote nothing. A runner never resumed resumes first
        (without a lease token: the database's counter).
        """
        async with self._lock:
            if self.stale:
                return None
            try:
                if self.token is None:
                    await self._resume(None)
                return await self._advance()
            except StaleLeaseError as error:
                self.stale, self.round = True, None
                self.writer.close(error)
                raise

    async def _advance(self) -> float | None:
        while True:
            now = self.clock()
            rnd = self.round
            if rnd is None or (rnd.phase is Phase.PAUSE and now >= (rnd.deadline or 0)):
                if self.watchers() == 0 or not await self._may_open():
                    return None
                await self._open(1 if rnd is None else rnd.number + 1, now)
            elif rnd.phase is Phase.BETTING and now >= (rnd.deadline or 0):
                # Every accepted bet is answered (written) before "no more bets" goes out.
                await self.writer.drain()
                self.round = core.close_betting(rnd, now=now)
                await self.publisher.to_table(self.table.id, self.table_message("no_more_bets"))
                await self._to_dealer("no_more_bets")
            elif rnd.phase is Phase.CLOSED and self.table.studio is not None:
                await self._begin_dealing(now)
            elif rnd.phase is Phase.CLOSED:
                await self._deal(now)
            elif studio.deal_overdue(rnd, now):
                seconds = self.table.studio.deal_seconds if self.table.studio else 0
                await self._cancel("timer", f"the dealer did not report the cards within {seconds:g} s", now)
            elif rnd.phase is Phase.DECISION and rnd.decision_due(now):
                # Every accepted decision is answered before the next street: a point that closes
                # early (everyone decided) does not overtake the last decider's reply.
                await self.writer.drain()
                await self._close_point(now)
            elif rnd.phase is Phase.SHOWDOWN:
                await self._settle(now)
            else:
                return rnd.deadline

    async def _may_open(self) -> bool:
        """Whether the back office lets a new round open; its timers apply from that round on."""
        if self.handing_over():
            return False
        if self.halted() is not None:
            self.held = "paused"
            return False
        control = await self.controls(self.table.id)
        if control is not None and control.status != "open":
            self.held = control.status
            return False
        self.held = None
        timers = dict(control.timers or {}) if control is not None else {}
        if any(getattr(self.table, name) != value for name, value in timers.items()):
            self.table = replace(self.table, **timers)  # type: ignore[arg-type]  # only the timers
        return True

    async def _open(self, number: int, now: float) -> None:
        self.fairness = None
        if self.table.studio is None:
            seed = self.new_seed()
            self.fairness = Fairness(seed, commitment(seed), ALGORITHM_VERSION)
        self.round = core.open_round(self.table, number=number, now=now)
        await self._commit(to_record(self.round, self.fairness), step="open", debits={}, credits={})
        await self.publisher.to_table(self.table.id, self.table_message("betting_open"))
        await self._to_dealer("betting_open")

    async def _begin_dealing(self, now: float) -> None:
        """Studio: debit every seat's stakes (those who cannot cover them sit out), then wait for
        the dealer's hole cards."""
        rnd = self.round
        assert rnd is not None
        paid = set(rnd.seats)
        while True:
            dealing = studio.begin_dealing(rnd, self.table, paid, now=now)
            stakes = {p: a for p, a in core.opening_stakes(rnd).items() if p in paid}
            refused = await self._commit(to_record(dealing, None), step="bets", debits=stakes, credits={},
                                         claims=_claims(dealing))
            if not refused:
                break
            await self.publisher.to_players(self.table.id, {p: _refused(rnd.seats[p]) for p in refused})
            paid -= refused
        self.round = dealing
        await self._after_commit("dealing")

    async def _deal(self, now: float) -> None:
        rnd, fairness = self.round, self.fairness
        assert rnd is not None and fairness is not None
        while True:
            accepted = {player: dict(seat.bets) for player, seat in rnd.seats.items()}
            client_seed = table_client_seed(rnd.round_id, accepted)
            fairness = replace(fairness, client_seed=client_seed, nonce=rnd.number)
            deck = deck_order(fairness.server_seed, client_seed, rnd.number)
            dealt = core.deal(rnd, self.game, self.table, deck, set(rnd.seats), now=now)
            # The Bonus is paid on the hole cards at once: in the deal's own transaction.
            refused = await self._commit(to_record(dealt, fairness), step="bets",
                                         debits=core.opening_stakes(rnd), credits={},
                                         extra_credits={"bonus": core.bonus_payouts(dealt)},
                                         claims=_claims(dealt),
                                         extra_debits={STAKE: core.jackpot_stakes(dealt)},
                                         in_transaction=self._contributions(dealt))
            if not refused:
                break
            await self.publisher.to_players(self.table.id, {p: _refused(rnd.seats[p]) for p in refused})
            rnd = replace(rnd, seats={p: s for p, s in rnd.seats.items() if p not in refused})
        self.round, self.fairness = dealt, fairness
        await self._after_commit("deal")

    async def _close_point(self, now: float) -> None:
        rnd = self.round
        assert rnd is not None
        plan = core.decision_plan(rnd, self.game, now=now)
        unpaid: set[str] = set()
        while True:
            after = core.apply_decisions(rnd, self.game, self.table, plan, unpaid, now=now)
            stakes = {p: a for p, a in plan.stakes().items() if p not in unpaid}
            refused = await self._commit(to_record(after, self.fairness), step=plan.point,
                                         debits=stakes, credits={})
            if not refused:
                break
            unpaid |= refused
        self.round = after
        await self._after_commit(plan.point)

    async def _settle(self, now: float) -> None:
        rnd = self.round
        assert rnd is not None
        while True:
            settled = await self._jackpot_settlement(rnd)
            finished = core.finish(settled.round, self.table, now=now)
            try:
                await self._commit(to_record(finished, self.fairness), step="settle",
                                   debits={}, credits=core.returns(rnd), promos=_promos(finished),
                                   extra_credits={AWARD: settled.awards},
                                   in_transaction=_moving(settled.change))
                break
            except PoolChanged:  # another round moved the pool since it was read: read it again
                continue
        outcomes = collections.Counter(settlement.outcome for seat in finished.seats.values()
                                       if (settlement := getattr(seat.state, "settlement", None)) is not None)
        for outcome, seats in outcomes.items():
            count_round(self.table.game, outcome, "live", seats)
        self.round = finished
        await self._ended("settled")

    async def _cancel(self, by: str, reason: str, now: float) -> None:
        """Studio misdeal: the cancelled round's returns credited as its settlement, then the pause."""
        rnd = self.round
        assert rnd is not None
        cancelled = studio.misdeal(rnd, self.game, self.table, by=by, reason=reason, now=now)
        await self._commit(to_record(cancelled, self.fairness), step="settle", debits={},
                           credits=core.returns(cancelled), promos=_promos(cancelled),
                           releases=[str(seat.free["reward"]) for seat in cancelled.seats.values()
                                     if seat.free is not None])
        self.round = cancelled
        await self._ended("misdeal")

    async def _ended(self, event: str) -> None:
        await self.publisher.to_table(self.table.id, self.table_message(event))
        await self._tell_seated()
        if self.table.studio is not None and self.round is not None:
            ended = views.round_summary(to_record(self.round, None))
            self.last_rounds = [ended, *self.last_rounds][:LAST_ROUNDS]
        await self._to_dealer(event)

    async def _after_commit(self, step: str) -> None:
        rnd = self.round
        assert rnd is not None
        self.round = rnd = self._start_timer(rnd)
        events = {Phase.DECISION: "decision", Phase.SHOWDOWN: "reveal", Phase.PAUSE: "no_bets",
                  Phase.DEALING: "dealing"}
        event = events.get(rnd.phase, step)
        await self.publisher.to_table(self.table.id, self.table_message(event))
        if rnd.phase in (Phase.DECISION, Phase.DEALING):
            await self._tell_seated()
        await self._to_dealer(event)

    def _start_timer(self, rnd: LiveRound) -> LiveRound:
        """A decision point's timer from now, when its players are told, not from before the
        commit (``core.start_decision_timer``); its start written behind, before any decision
        at the point (a decision acknowledged means the timer is written too)."""
        now = self.clock()
        started = core.start_decision_timer(rnd, at=now, deadline=now + self.table.decision_seconds)
        if started is not rnd:
            assert started.point is not None
            written = self.writer.put(Pending(started.number, TIMER, started.point,
                                              json.dumps({"at": now, "deadline": started.deadline})))
            # Nobody waits on it: a failure (the table moved to a newer owner) is only logged.
            written.add_done_callback(_logged)
        return started

    async def _commit(self, record: dict[str, Any], *, step: str, debits: Mapping[str, int],
                      credits: Mapping[str, int],
                      extra_credits: Mapping[str, Mapping[str, int]] | None = None,
                      claims: Mapping[str, FreeRoundClaim] | None = None,
                      promos: Mapping[str, Mapping[str, Any]] | None = None,
                      releases: Sequence[str] = (),
                      extra_debits: Mapping[str, Mapping[str, int]] | None = None,
                      in_transaction: Callable[[Any, str], Awaitable[None]] | None = None) -> frozenset[str]:
        record["currency"] = self.currency  # stored with the round: its ledger's house account
        refused = await self.store.commit(record, fence=self._fence(), step=step, debits=debits,
                                          credits=credits, extra_credits=extra_credits, game=self.table.game,
                                          claims=claims, promos=promos, releases=releases,
                                          extra_debits=extra_debits,
                                          in_transaction=in_transaction)
        if record["phase"] == "betting":
            self._balances = {}
        self._balances.update(self.store.moved_balances())
        return refused

    def _contributions(self, dealt: LiveRound) -> Callable[[Any, str], Awaitable[None]] | None:
        """The deal's contributions to the jackpot's pool: one per jackpot bet of the seats dealt."""
        if self.jackpot is None:
            return None
        return _moving(PoolChange(tuple(self.jackpot.opening(dealt.round_id, player, self.currency)[1]
                                        for player, seat in dealt.seats.items() if seat.jackpot)))

    async def _jackpot_settlement(self, rnd: LiveRound) -> JackpotSettlement:
        """The round's jackpot bets settled on its first five cards (the pool read when they win it)."""
        if self.jackpot is None or not any(seat.jackpot for seat in rnd.seats.values()) or rnd.deck is None:
            return JackpotSettlement(rnd, {}, None)
        pool = await self.jackpot.amount() if self.jackpot.wins_pool(rnd.deck) else None
        return settle_jackpots(self.jackpot, rnd, pool)

    async def between_rounds(self) -> bool:
        """No round in play: none yet, or the last one settled (its pause) and its table and
        players told so. Asked under the lock, as ``advance`` settles and tells in one step: a
        process that drains hands its table over (cancelling this loop) only after the players
        connected to it have their settlement, not between the commit and the telling."""
        async with self._lock:
            return self.round is None or self.round.phase is Phase.PAUSE

    def _fence(self) -> int:
        assert self.token is not None, "resume() claims the table before anything is written"
        return self.token

    async def run(self, stop: asyncio.Event, *, lease: int | None = None) -> None:
        """The table's loop until ``stop`` is set: advance, then sleep until the next deadline.

        ``lease`` is the token of the lease that gave this process the table's clock.
        """
        if await self.resume(lease):
            # Whoever watches gets the round as stored, with the bets and decisions accepted.
            await self.publisher.to_table(self.table.id, self.table_message("resumed"))
            if self.round is not None and self.round.seats:
                await self._tell_seated()
            await self._to_dealer("resumed")
        while not stop.is_set():
            wake = await self.advance()
            # Idle: a join here wakes the table at once; joins on other processes within a second.
            timeout = IDLE_RECHECK if wake is None else max(0.0, wake - self.clock())
            waiter = asyncio.ensure_future(self.wakeup.wait())
            stopper = asyncio.ensure_future(stop.wait())
            await asyncio.wait({waiter, stopper}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            stopper.cancel()
            self.wakeup.clear()


def _logged(written: asyncio.Future[None]) -> None:
    if not written.cancelled() and written.exception() is not None:
        log.warning("a decision timer's start was not written: %s", written.exception())


def _decision(value: str) -> tuple[str, float | None]:
    """A pending decision as written by ``decide``: the action and when it was accepted."""
    data = json.loads(value)
    return str(data["action"]), data.get("at")


def _refused(seat: Seat) -> dict[str, Any]:
    """What a seat refused at the deal is told: its stakes were not debited (or, a free round,
    its free round could not be claimed): it sits the round out."""
    key = "error.live.unpaid" if seat.free is None else "error.live.free_round_refused"
    return {"type": "error", "error": "insufficient_funds" if seat.free is None else "free_round",
            "key": key, "params": {}, "message": render(key)}


def _pending_bets(seat: Seat | None) -> str:
    """A seat's bets as written behind (``_placed`` reads them back): the bets, and a free
    round's promo and a jackpot bet's entry beside them."""
    if seat is None:
        return "{}"
    if seat.free is None and seat.jackpot is None:
        return json.dumps(dict(seat.bets), sort_keys=True)
    return json.dumps({"bets": dict(seat.bets), "free_round": None if seat.free is None else dict(seat.free),
                       "jackpot": None if seat.jackpot is None else dict(seat.jackpot)}, sort_keys=True)


def _placed(value: str) -> tuple[dict[str, int], dict[str, Any] | None, dict[str, Any] | None]:
    data = json.loads(value)
    if isinstance(data.get("bets"), dict):
        return data["bets"], data.get("free_round"), data.get("jackpot")
    return data, None, None


def _moving(change: PoolChange | None) -> Callable[[Any, str], Awaitable[None]] | None:
    """What a commit does to the jackpot's pool in its transaction (None: nothing)."""
    if change is None or not change.events:
        return None

    async def move(connection: Any, at: str) -> None:
        await apply_pool(connection, change, at)

    return move


def _claims(rnd: LiveRound) -> dict[str, FreeRoundClaim]:
    """The free rounds the deal claims: player -> the reward, from its ``rounds_used`` at the bet."""
    return {player: FreeRoundClaim(str(seat.free["reward"]), _rounds_used(seat.free))
            for player, seat in rnd.seats.items() if seat.free is not None}


def _rounds_used(free: Mapping[str, Any]) -> int | None:
    used = free.get("rounds_used")
    return used if isinstance(used, int) else None


def _promos(rnd: LiveRound) -> dict[str, dict[str, Any]]:
    """The settlement's promotional flags: each free round's campaign and reward, the free ante
    and what its cap forfeited, sent with its win (``Movement.promos``)."""
    flags = {}
    for player, seat in rnd.seats.items():
        if seat.free is not None:
            flags[player] = {"campaign_id": seat.free["campaign"],
                             "campaign_external_id": seat.free.get("campaign_external_id"),
                             "reward_id": seat.free["reward"], "free_ante": seat.free_ante,
                             "forfeited": core.seat_credit(seat)[1]}
    return flags
