"""The jackpot side bet at a live table: every seat shares the round's cards, so every jackpot
bet of a round wins or loses together. A pool win is shared by the round's jackpot bets as the
jackpot file's ``sharing`` says (``equal``: each gets the pool divided by their number, rounded
down to a minor unit of the pool's currency; the indivisible remainder stays in the pool, which the
house then seeds again; ``games.jackpot.share_pool``). Fixed awards are paid to each bet in full.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dealerpoker.server.jackpot import Jackpot, PoolChange, PoolEvent
from dealerpoker.tables.table import LiveRound


@dataclass(frozen=True, slots=True)
class JackpotSettlement:
    """The round with its seats' jackpot entries settled, each award (player -> minor units of
    the table's currency) and what it does to the pool (None: nothing)."""

    round: LiveRound
    awards: dict[str, int]
    change: PoolChange | None


def settle_jackpots(jackpot: Jackpot, rnd: LiveRound, pool: int | None) -> JackpotSettlement:
    """Every jackpot bet of ``rnd`` settled on its first five cards; ``pool``: the pool as read
    (needed when the cards win it: the award is written only if the pool is still that)."""
    assert rnd.deck is not None
    betting = {player: seat for player, seat in rnd.seats.items() if seat.jackpot}
    wins_pool = jackpot.wins_pool(rnd.deck)
    events: list[PoolEvent] = []
    awards: dict[str, int] = {}
    seats = dict(rnd.seats)
    for player, seat in sorted(betting.items()):
        assert seat.jackpot is not None
        settled = jackpot.settle(dict(seat.jackpot), rnd.deck, rnd.round_id, player, pool=pool,
                                 winners=len(betting))
        seats[player] = replace(seat, jackpot=settled.view)
        events += settled.events
        if settled.award is not None:
            awards[player] = settled.award.amount
    if wins_pool and betting:
        events.append(jackpot.reseed(rnd.round_id))
    change = PoolChange(tuple(events), expected=pool if wins_pool and betting else None) if events else None
    return JackpotSettlement(replace(rnd, seats=seats), awards, change)
