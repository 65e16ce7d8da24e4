"""A player's totals for the back office: per period (today, the last 7 and 30 days, UTC, and
lifetime) the rounds settled, turnover (everything staked), what came back, the player's net and
the house's (GGR), and the sessions opened, in the player's currency (an account has one).

Rounds count by the time they settled, solo and live alike (a live round once per seat: the
player's own stakes); a misdeal (void, every bet returned) is no round played and counts apart,
as in the reports. Rounds still open are counted apart with what is staked in them.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, func, select

from dealerpoker.server.backoffice.search import live_record_text
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Connection
from dealerpoker.server.schema import live_rounds, live_seats, rounds, sessions

PERIODS = (("today", 0), ("7_days", 6), ("30_days", 29), ("lifetime", None))
"""Each period's name and how many days before today it starts (None: ever)."""


def period_starts(now: datetime) -> dict[str, str | None]:
    """Each period's first instant (stored timestamps' form), from ``now``'s UTC day.

    >>> from datetime import UTC
    >>> starts = period_starts(datetime(2026, 12, 3, 18, 0, tzinfo=UTC))
    >>> starts["today"][:10], starts["7_days"][:10], starts["30_days"][:10], starts["lifetime"]
    ('2026-12-03', '2026-11-27', '2026-11-04', None)
    """
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return {name: None if back is None else timestamp(midnight - timedelta(days=back))
            for name, back in PERIODS}


def _sums(when: Any, staked: Any, returned: Any, starts: dict[str, str | None]) -> list[Any]:
    """For each period: rounds, staked and returned of the rows whose ``when`` falls in it."""
    columns = []
    for start in starts.values():
        inside = when.is_not(None) if start is None else when >= start
        columns += [func.sum(case((inside, 1), else_=0)), func.sum(case((inside, staked), else_=0)),
                    func.sum(case((inside, returned), else_=0))]
    return columns


async def totals(connection: Connection, player_id: str, now: datetime) -> dict[str, Any]:
    """``periods``: each period's ``rounds``, ``staked``, ``returned``, ``net`` (the player's:
    returned less staked), ``ggr`` (the house's: staked less returned), ``sessions`` and
    ``misdeals``; ``open``: the rounds not settled yet and what is staked in them."""
    starts = period_starts(now)
    solo = (await connection.execute(
        select(*_sums(rounds.c.settled_at, rounds.c.total_stake, rounds.c.total_returned, starts))
        .where(rounds.c.player_id == player_id, rounds.c.status == "settled"))).one()
    joined = live_seats.join(live_rounds, and_(live_rounds.c.table_id == live_seats.c.table_id,
                                               live_rounds.c.number == live_seats.c.number))
    misdealt = live_record_text("misdeal", connection.dialect.name)
    mine = and_(live_seats.c.player_id == player_id, live_rounds.c.settled_at.is_not(None),
                live_seats.c.total_stake > 0)
    live = (await connection.execute(
        select(*_sums(live_rounds.c.settled_at, live_seats.c.total_stake,
                      func.coalesce(live_seats.c.total_returned, 0), starts))
        .select_from(joined).where(mine, misdealt.is_(None)))).one()
    voided = (await connection.execute(
        select(*_sums(live_rounds.c.settled_at, live_seats.c.total_stake, 0, starts))
        .select_from(joined).where(mine, misdealt.is_not(None)))).one()
    opened = (await connection.execute(
        select(*_sums(sessions.c.created_at, 0, 0, starts)).where(sessions.c.player_id == player_id))).one()
    periods = {}
    for index, name in enumerate(starts):
        count, staked, returned = (int(solo[3 * index + k] or 0) + int(live[3 * index + k] or 0)
                                   for k in range(3))
        periods[name] = {"rounds": count, "staked": staked, "returned": returned, "net": returned - staked,
                         "ggr": staked - returned, "sessions": int(opened[3 * index] or 0),
                         "misdeals": int(voided[3 * index] or 0)}
    solo_open = (await connection.execute(
        select(func.count(), func.coalesce(func.sum(rounds.c.total_stake), 0))
        .where(rounds.c.player_id == player_id, rounds.c.status == "open"))).one()
    live_open = (await connection.execute(
        select(func.count(), func.coalesce(func.sum(live_seats.c.total_stake), 0)).select_from(joined)
        .where(live_seats.c.player_id == player_id, live_rounds.c.settled_at.is_(None),
               live_seats.c.total_stake > 0))).one()
    return {"periods": periods, "open": {"rounds": int(solo_open[0]) + int(live_open[0]),
                                         "staked": int(solo_open[1]) + int(live_open[1])}}
