"""The imperative shell of one live table: clock, money, records and messages around the pure round.

Order of every transition (habit 1 of ARCHITECTURE.md): compute the next round purely, commit it
with its ledger entries in one transaction, then publish. So a street is never shown before
the stakes of the decisions that led to it are committed, and a restart resumes from the last
commit: the betting window or decision timer that was running starts again, a round at the
showdown is settled (idempotent txids: nothing is paid twice).

Bets are validated (limits, balance) when placed, and debited when the window closes, all in
one transaction: a player whose balance no longer covers them at that moment leaves the round.
A decision is checked against the balance when sent and debited, with every other decision of
that point, when the point closes; if it can no longer be covered the timeout action replaces it.

With nobody watching, the table idles: no betting window opens until someone joins. A round
whose window closes without bets deals nothing and goes to the pause.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from dealerpoker.errors import InsufficientFundsError
from dealerpoker.fairness import ALGORITHM_VERSION, commitment, deck_order, table_client_seed
from dealerpoker.server.live import table as core
from dealerpoker.server.live.config import TableConfig
from dealerpoker.server.live.ports import LiveStore, Publisher
from dealerpoker.server.live.record import Fairness, from_record, to_record
from dealerpoker.server.live.table import LiveGame, LiveRound, LiveTableError, Phase

Clock = Callable[[], float]
IDLE_RECHECK = 1.0


class TableRunner:
    """Runs one table's loop; the only writer of that table's round."""

    def __init__(self, table: TableConfig, game: LiveGame, store: LiveStore, publisher: Publisher,
                 *, clock: Clock, watchers: Callable[[], int] = lambda: 0,
                 new_seed: Callable[[], str] = lambda: secrets.token_hex(32)) -> None:
        self.table = table
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

    # ----- views and messages -------------------------------------------------------------
    def table_message(self, event: str) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "table", "event": event, "players": self.watchers(),
                                   "server_time": self.clock()}
        if self.round is None:
            message.update(table=self.table.id, phase="idle", round=None, deadline=None)
            return message
        message.update(core.public_view(self.round, self.table))
        if self.fairness is not None:
            message["fairness"] = self.fairness.public(reveal_seed=self.round.phase is Phase.PAUSE)
        return message

    def seat_message(self, player_id: str) -> dict[str, Any]:
        view = core.seat_view(self.round, self.game, player_id) if self.round is not None else None
        message = {"type": "you", "round": self.round.round_id if self.round else None,
                   "phase": str(self.round.phase) if self.round else "idle", "seat": view}
        if view is not None and self.round is not None and self.round.phase is Phase.PAUSE:
            # Settled and committed: the player's part of the round's audit record exists now.
            message["record"] = f"/api/tables/{self.table.id}/rounds/{self.round.number}/record"
        return message

    def _seated_messages(self) -> dict[str, dict[str, Any]]:
        assert self.round is not None
        return {player: self.seat_message(player) for player in self.round.seats}

    # ----- intents ----------------------------------------------------------------------------
    async def bet(self, player_id: str, bets: Mapping[str, int]) -> dict[str, Any]:
        """Place/replace (``{}``: withdraw) a player's bets; returns their seat message."""
        async with self._lock:
            if self.round is None:
                raise LiveTableError("no betting window is open", code="no_more_bets")
            updated = core.place_bets(self.round, self.game, player_id, bets, now=self.clock())
            seat = updated.seats.get(player_id)
            if seat is not None:
                await self._require_funds(player_id, seat.opening_stake)
            self.round = updated
            return self.seat_message(player_id)

    async def decide(self, player_id: str, action: str) -> dict[str, Any]:
        async with self._lock:
            if self.round is None:
                raise LiveTableError("no decision is open at this table now", code="no_decision_open")
            updated = core.decide(self.round, self.game, player_id, action, now=self.clock())
            seat = self.round.seats[player_id]
            await self._require_funds(player_id, self.game.stake_for(seat.state, action))
            self.round = updated
            if updated.all_decided():
                self.wakeup.set()
            return self.seat_message(player_id)

    async def _require_funds(self, player_id: str, needed: int) -> None:
        balance = await self.store.balance(player_id)
        if balance is None or balance < needed:
            balance = await self.store.balance(player_id, fresh=True)
        if balance is None or balance < needed:
            raise InsufficientFundsError(f"insufficient funds: {needed} needed, balance is {balance or 0}",
                                         balance=balance or 0, needed=needed)

    # ----- the clock ----------------------------------------------------------------------------
    async def resume(self) -> bool:
        """Pick up the table's last stored round after a (re)start or a takeover."""
        async with self._lock:
            self.round = self.fairness = None
            record = await self.store.last_round(self.table.id)
            if record is None:
                return False
            self.round, self.fairness = from_record(record, self.game)
            now = self.clock()
            if self.round.phase is Phase.BETTING:
                self.round = replace(self.round, deadline=now + self.table.betting_seconds)
            elif self.round.phase is Phase.DECISION:
                self.round = replace(self.round, deadline=now + self.table.decision_seconds)
            return True

    async def advance(self) -> float | None:
        """Make every transition due now; returns when to call again (None: on a wake-up)."""
        async with self._lock:
            while True:
                now = self.clock()
                rnd = self.round
                if rnd is None or (rnd.phase is Phase.PAUSE and now >= (rnd.deadline or 0)):
                    if self.watchers() == 0:
                        return None
                    await self._open(1 if rnd is None else rnd.number + 1, now)
                elif rnd.phase is Phase.BETTING and now >= (rnd.deadline or 0):
                    self.round = core.close_betting(rnd, now=now)
                    await self.publisher.to_table(self.table.id, self.table_message("no_more_bets"))
                elif rnd.phase is Phase.CLOSED:
                    await self._deal(now)
                elif rnd.phase is Phase.DECISION and rnd.decision_due(now):
                    await self._close_point(now)
                elif rnd.phase is Phase.SHOWDOWN:
                    await self._settle(now)
                else:
                    return rnd.deadline

    async def _open(self, number: int, now: float) -> None:
        seed = self.new_seed()
        self.fairness = Fairness(seed, commitment(seed), ALGORITHM_VERSION)
        self.round = core.open_round(self.table, number=number, now=now)
        await self.store.commit(to_record(self.round, self.fairness), step="open", debits={}, credits={})
        await self.publisher.to_table(self.table.id, self.table_message("betting_open"))

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
            refused = await self.store.commit(to_record(dealt, fairness), step="bets",
                                              debits=core.opening_stakes(rnd), credits={},
                                              extra_credits={"bonus": core.bonus_payouts(dealt)})
            if not refused:
                break
            await self.publisher.to_players(self.table.id, {p: _refused(p) for p in refused})
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
            refused = await self.store.commit(to_record(after, self._fair()), step=plan.point,
                                              debits=stakes, credits={})
            if not refused:
                break
            unpaid |= refused
        self.round = after
        await self._after_commit(plan.point)

    async def _settle(self, now: float) -> None:
        rnd = self.round
        assert rnd is not None
        finished = core.finish(rnd, self.table, now=now)
        await self.store.commit(to_record(finished, self._fair()), step="settle", debits={},
                                credits=core.returns(rnd))
        self.round = finished
        await self.publisher.to_table(self.table.id, self.table_message("settled"))
        await self.publisher.to_players(self.table.id, self._seated_messages())

    async def _after_commit(self, step: str) -> None:
        rnd = self.round
        assert rnd is not None
        events = {Phase.DECISION: "decision", Phase.SHOWDOWN: "reveal", Phase.PAUSE: "no_bets"}
        event = events.get(rnd.phase, step)
        await self.publisher.to_table(self.table.id, self.table_message(event))
        if rnd.phase is Phase.DECISION:
            await self.publisher.to_players(self.table.id, self._seated_messages())

    def _fair(self) -> Fairness:
        assert self.fairness is not None
        return self.fairness

    async def run(self, stop: asyncio.Event) -> None:
        """The table's loop until ``stop`` is set: advance, then sleep until the next deadline."""
        if await self.resume():
            # Whoever watches gets the round as stored (bets of an open window were in the
            # memory of the process that stopped: they must be placed again).
            await self.publisher.to_table(self.table.id, self.table_message("resumed"))
            if self.round is not None and self.round.seats:
                await self.publisher.to_players(self.table.id, self._seated_messages())
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


def _refused(player_id: str) -> dict[str, Any]:
    return {"type": "error", "error": "insufficient_funds",
            "message": "your bets could not be debited when betting closed: you sit this round out"}
