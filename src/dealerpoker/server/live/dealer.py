"""A studio table's dealer at its runner: the card reports, voids and misdeals it takes, and the
dealer's own messages (``TableRunner`` mixes this in; it holds the round, the lock and the store).

Every accepted card report or void is committed before the dealer's reply, so a restart resumes
with the cards reported so far and the same deal deadline; a street's last card commits the
reveal (and the hole cards' commit credits each won Bonus). The dealer's messages (``dealer``:
every reported card; ``expect``: what is due next) go to the connections of the reserved id
``DEALER`` only: the players' views never hold a card before its reveal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from dealerpoker.cards.encoding import index_to_card
from dealerpoker.server.live.ports import Publisher
from dealerpoker.tables import studio, views
from dealerpoker.tables import table as core
from dealerpoker.tables.config import TableConfig
from dealerpoker.tables.record import to_record
from dealerpoker.tables.table import LiveGame, LiveRound, LiveTableError, Phase

#: Who the dealer's messages are for: never a player's id (those are issued by the server).
DEALER = "@dealer"
#: How many ended rounds the dealer's console lists.
LAST_ROUNDS = 10


class DealerDesk:
    """The dealer's intents and messages; the rest of the runner is ``TableRunner``'s."""

    table: TableConfig
    game: LiveGame
    publisher: Publisher
    round: LiveRound | None
    clock: Callable[[], float]
    watchers: Callable[[], int]
    wakeup: asyncio.Event
    last_rounds: list[dict[str, Any]]
    _lock: asyncio.Lock

    def _check_running(self) -> None:
        raise NotImplementedError

    async def _commit(self, record: dict[str, Any], *, step: str, debits: Mapping[str, int],
                      credits: Mapping[str, int],
                      extra_credits: Mapping[str, Mapping[str, int]] | None = None) -> frozenset[str]:
        raise NotImplementedError

    async def _after_commit(self, step: str) -> None:
        raise NotImplementedError

    async def _cancel(self, by: str, reason: str, now: float) -> None:
        raise NotImplementedError

    def dealer_message(self, event: str) -> dict[str, Any]:
        """The dealer's view: every card reported this round, what is expected, the stakes."""
        return {"type": "dealer", "event": event, "players": self.watchers(), "server_time": self.clock(),
                **views.dealer_view(self.round, self.table), "last_rounds": self.last_rounds}

    def expect_message(self) -> dict[str, Any] | None:
        """What the dealer must deal next (None when nothing is due)."""
        want = studio.expected(self.round) if self.round is not None else None
        if want is None or self.round is None:
            return None
        return {"type": "expect", "round": self.round.round_id, "number": self.round.number,
                "deadline": self.round.deadline, **want}

    async def _to_dealer(self, event: str) -> None:
        if self.table.studio is None:
            return
        await self.publisher.to_players(self.table.id, {DEALER: self.dealer_message(event)})
        expect = self.expect_message()
        if expect is not None:
            await self.publisher.to_players(self.table.id, {DEALER: expect})

    async def report_card(self, card: Any, source: str) -> dict[str, Any]:
        """The dealer's next card: committed (the street's last one with its reveal) before the
        reply, so it survives a crash from then on."""
        async with self._lock:
            rnd = self._studio_round()
            updated = studio.report_card(rnd, self.game, self.table, card, source=source, now=self.clock())
            await self._dealt(updated, street_in=updated.phase is not Phase.DEALING)
            report = updated.reports[-1]
            return {"type": "accepted", "what": "card", "card": str(index_to_card(report.card)),
                    "position": report.position, "round": updated.round_id}

    async def void_card(self) -> dict[str, Any]:
        """Take back the last card of the street being dealt (a misread)."""
        async with self._lock:
            updated = studio.void_card(self._studio_round(), now=self.clock())
            await self._dealt(updated, street_in=False)
            voided = next(r for r in reversed(updated.reports) if r.voided_at is not None)
            return {"type": "accepted", "what": "void", "card": str(index_to_card(voided.card)),
                    "position": voided.position, "round": updated.round_id}

    async def misdeal(self, reason: str) -> dict[str, Any]:
        """The dealer cancels the round: every stake returned (but a Bonus settled at the deal)."""
        async with self._lock:
            rnd = self._studio_round()
            if rnd.phase not in studio.MISDEAL_PHASES:
                raise LiveTableError(f"no round in play to cancel (phase {rnd.phase})", code="no_round")
            await self._cancel("dealer", reason, self.clock())
            self.wakeup.set()
            return {"type": "accepted", "what": "misdeal", "round": rnd.round_id}

    def _studio_round(self) -> LiveRound:
        self._check_running()
        if self.table.studio is None:
            raise LiveTableError(f"table {self.table.id} deals from the RNG: it has no dealer",
                                 code="not_studio")
        if self.round is None:
            raise LiveTableError("no round in play: nothing is expected", code="not_expected")
        return self.round

    async def _dealt(self, updated: LiveRound, *, street_in: bool) -> None:
        """Commit a card report or void; a completed street shows its cards to everyone (and the
        hole cards' commit credits each won Bonus, as an RNG table's deal does)."""
        hole_cards = street_in and updated.street_start == 0  # the first street: the Bonus is decided
        bonus = {"bonus": core.bonus_payouts(updated)} if hole_cards else None
        await self._commit(to_record(updated, None), step="deal", debits={}, credits={}, extra_credits=bonus)
        self.round = updated
        if street_in:
            await self._after_commit("deal")
            self.wakeup.set()  # the point's timer (or the showdown) is the runner's
        else:
            await self._to_dealer("card")
