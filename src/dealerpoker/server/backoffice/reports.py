"""The back office's reports: per day, ISO week or month, per game, table (``solo`` for solo
rounds), currency and operator (the operator whose players played, ``embedded`` for the
embedded demo players): rounds, players, staked, returned, gross gaming revenue (staked less
returned), hold %, and the measured RTP beside the exact RTP with the range chance leaves it.

Sums come from the settled rounds' own totals (solo ``rounds``, live ``live_seats``), grouped in
the database by settlement day (UTC) and rules fingerprint, then rolled into weeks and months
here, in integers; ``ledger_totals`` sums the same days from the ledger entries alone, which the
tests and the benchmark hold them to, to the cent.

**Exact RTP and its range.** Each rules document's bets have an exact house edge and variance per
unit (``analysis.moments``: the ante stands for the main game under the analysis' strategy,
the side bet on its own). A group's expected revenue is ``Σ ante × edge(ante) + Σ side ×
edge(side)`` over its rounds and its variance ``Σ ante² × var(ante) + Σ side² × var(side)``
(the two bets taken as independent); the exact RTP is ``1 - expected / staked`` and the range is
``± RANGE_SIGMAS`` standard deviations of revenue over the staked amount. A group whose measured
RTP falls outside is flagged (by chance about 3 groups in 1,000; players who do not follow the
analysis' strategy move it too).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from math import sqrt
from typing import Any

from sqlalchemy import String, and_, case, cast, func, literal, select, type_coerce
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.types import JSON

from dealerpoker.analysis.moments import MAIN_FIELD, Moments
from dealerpoker.errors import DealerPokerError
from dealerpoker.server.backoffice.players import EMBEDDED
from dealerpoker.server.db import Connection
from dealerpoker.server.schema import (
    accounts,
    ledger_entries,
    live_rounds,
    live_seats,
    operator_players,
    rounds,
    rules_documents,
)

PERIODS = ("day", "week", "month")
RANGE_SIGMAS = 3
SIDE_FIELDS = ("bonus", "aa")
SOLO = "solo"
MomentsSource = Callable[[set[str]], Awaitable[Mapping[str, Mapping[str, Moments]]]]
"""Rules fingerprints -> each known one's bets' moments (``Analyses.moments``)."""


class ReportError(DealerPokerError, ValueError):
    code = "invalid_request"
    status = 422


def period_of(day: str, period: str) -> str:
    """The period a UTC day falls in: the day, its ISO week, or its month.

    >>> period_of("2026-11-29", "day"), period_of("2026-11-29", "week"), period_of("2026-11-29", "month")
    ('2026-11-29', '2026-W48', '2026-11')
    """
    if period == "day":
        return day
    if period == "month":
        return day[:7]
    year, week, _ = date.fromisoformat(day).isocalendar()
    return f"{year}-W{week:02d}"


def _bet(column: Any, name: str, dialect: str) -> Any:
    """One field's amount from a bets JSON text column (0 when absent)."""
    if dialect == "postgresql":
        value = cast(column, JSONB)[name].as_integer()
    else:
        value = type_coerce(column, JSON)[name].as_integer()
    return func.coalesce(value, 0)


@dataclass
class Sums:
    rounds: int = 0
    staked: int = 0
    returned: int = 0
    by_fingerprint: dict[str, list[int]] = field(default_factory=dict)
    """fingerprint -> [Σ ante, Σ ante², Σ side, Σ side²]."""
    players: set[str] = field(default_factory=set)

    def add(self, count: int, staked: int, returned: int, fingerprint: str, moments: Iterable[int]) -> None:
        self.rounds += count
        self.staked += staked
        self.returned += returned
        known = self.by_fingerprint.setdefault(fingerprint, [0, 0, 0, 0])
        for index, value in enumerate(moments):
            known[index] += value


async def _solo_days(connection: Connection, since: str, until: str) -> list[Any]:
    dialect = connection.dialect.name
    ante, side = _bet(rounds.c.bets, MAIN_FIELD, dialect), _side(rounds.c.bets, dialect)
    day = func.substr(rounds.c.settled_at, 1, 10)
    operator = _operator()
    query = (select(day, rounds.c.game, literal(SOLO), rounds.c.currency, rounds.c.rules_fingerprint,
                    func.count(), func.sum(rounds.c.total_stake), func.sum(rounds.c.total_returned),
                    func.sum(ante), func.sum(ante * ante), func.sum(side), func.sum(side * side), operator)
             .select_from(_by_operator(rounds, rounds.c.player_id))
             .where(rounds.c.status == "settled", rounds.c.settled_at >= since, rounds.c.settled_at < until)
             .group_by(day, rounds.c.game, rounds.c.currency, rounds.c.rules_fingerprint, operator))
    return list(await connection.execute(query))


def _operator() -> Any:
    """The operator of the round's player (``EMBEDDED`` for none), with ``_by_operator`` joined."""
    return func.coalesce(operator_players.c.operator_id, literal(EMBEDDED))


def _by_operator(source: Any, player_id: Any) -> Any:
    return source.outerjoin(operator_players, operator_players.c.player_id == player_id)


def _side(column: Any, dialect: str) -> Any:
    first, *others = (_bet(column, name, dialect) for name in SIDE_FIELDS)
    return sum(others, first)


def _record_text(name: str, dialect: str) -> Any:
    if dialect == "postgresql":
        return cast(live_rounds.c.record, JSONB)[name].astext
    return type_coerce(live_rounds.c.record, JSON)[name].as_string()


async def _live_days(connection: Connection, since: str, until: str) -> list[Any]:
    dialect = connection.dialect.name
    ante, side = _bet(live_seats.c.bets, MAIN_FIELD, dialect), _side(live_seats.c.bets, dialect)
    day = func.substr(live_rounds.c.settled_at, 1, 10)
    fingerprint, currency = _record_text("rules_fingerprint", dialect), _record_text("currency", dialect)
    joined = live_seats.join(live_rounds, and_(live_rounds.c.table_id == live_seats.c.table_id,
                                               live_rounds.c.number == live_seats.c.number))
    operator = _operator()
    query = (select(day, rules_documents.c.game, live_seats.c.table_id, currency, fingerprint,
                    func.count(func.distinct(live_seats.c.number)), func.sum(live_seats.c.total_stake),
                    func.sum(func.coalesce(live_seats.c.total_returned, 0)),
                    func.sum(ante), func.sum(ante * ante), func.sum(side), func.sum(side * side), operator)
             .select_from(_by_operator(joined, live_seats.c.player_id)
                          .outerjoin(rules_documents, rules_documents.c.fingerprint == fingerprint))
             .where(live_rounds.c.settled_at >= since, live_rounds.c.settled_at < until)
             .group_by(day, rules_documents.c.game, live_seats.c.table_id, currency, fingerprint, operator))
    return list(await connection.execute(query))


async def _players(connection: Connection, since: str, until: str) -> list[Any]:
    day = func.substr(rounds.c.settled_at, 1, 10)
    solo = (select(day, rounds.c.game, literal(SOLO), rounds.c.currency, rounds.c.player_id,
                   _operator()).distinct()
            .select_from(_by_operator(rounds, rounds.c.player_id))
            .where(rounds.c.status == "settled", rounds.c.settled_at >= since, rounds.c.settled_at < until))
    live_day = func.substr(live_rounds.c.settled_at, 1, 10)
    live = (select(live_day, live_seats.c.table_id, live_seats.c.player_id, _operator())
            .distinct()
            .select_from(_by_operator(live_seats.join(live_rounds, and_(
                live_rounds.c.table_id == live_seats.c.table_id,
                live_rounds.c.number == live_seats.c.number)), live_seats.c.player_id))
            .where(live_rounds.c.settled_at >= since, live_rounds.c.settled_at < until))
    return [*await connection.execute(solo), *(("live", *row) for row in await connection.execute(live))]


Groups = dict[tuple[str, str, str, str, str], Sums]
"""(period, game, table, currency, operator) -> the group's sums."""


async def collect(connection: Connection, *, since: str, until: str, period: str) -> Groups:
    """The sums of the rounds settled on the days ``since`` (inclusive) to ``until`` (exclusive,
    ``YYYY-MM-DD``), by period, game, table, currency and operator."""
    if period not in PERIODS:
        raise ReportError(f"period: expected one of {', '.join(PERIODS)}, got {period!r}")
    for name, value in (("since", since), ("until", until)):
        try:
            date.fromisoformat(value)
        except ValueError:
            raise ReportError(f"{name}: expected a day like 2026-11-29, got {value!r}") from None
    if since >= until:
        raise ReportError(f"until {until!r} is not after since {since!r}")
    groups: Groups = {}
    live_currency: dict[tuple[str, str], tuple[str, str]] = {}  # (day, table) -> (game, currency)
    for row in [*await _solo_days(connection, since, until), *await _live_days(connection, since, until)]:
        day, game_name, table_id, money = str(row[0]), str(row[1] or "unknown"), str(row[2]), str(row[3])
        if table_id != SOLO:
            live_currency[(day, table_id)] = (game_name, money)
        key = (period_of(day, period), game_name, table_id, money, str(row[12]))
        groups.setdefault(key, Sums()).add(int(row[5]), int(row[6] or 0), int(row[7] or 0), str(row[4]),
                                           (int(value or 0) for value in row[8:12]))
    for row in await _players(connection, since, until):
        if row[0] == "live":
            _, day, table_id, player, operator = row
            game_name, money = live_currency.get((str(day), str(table_id)), ("unknown", ""))
        else:
            day, game_name, table_id, money, player, operator = row
        found = groups.get((period_of(str(day), period), str(game_name), str(table_id), str(money),
                            str(operator)))
        if found is not None:
            found.players.add(str(player))
    return groups


async def rows_of(groups: Groups, moments: MomentsSource, *, game: str | None = None,
                  table: str | None = None, currency: str | None = None,
                  operator: str | None = None) -> list[dict[str, Any]]:
    """The report's rows (with the exact RTPs of the rules the rounds were played under)."""
    known = await moments({fingerprint for sums in groups.values() for fingerprint in sums.by_fingerprint})
    rows = [_row(key, sums, known) for key, sums in sorted(groups.items())]
    return [row for row in rows if (game is None or row["game"] == game)
            and (table is None or row["table"] == table)
            and (currency is None or row["currency"] == currency)
            and (operator is None or row["operator"] == operator)]


def _row(key: tuple[str, str, str, str, str], sums: Sums,
         moments: Mapping[str, Mapping[str, Moments]]) -> dict[str, Any]:
    period, game, table, currency, operator = key
    ggr = sums.staked - sums.returned
    row: dict[str, Any] = {
        "period": period, "game": game, "table": table, "currency": currency, "operator": operator,
        "rounds": sums.rounds,
        "players": len(sums.players), "staked": sums.staked, "returned": sums.returned, "ggr": ggr,
        "hold": ggr / sums.staked if sums.staked else None,
        "measured_rtp": sums.returned / sums.staked if sums.staked else None,
        "exact_rtp": None, "range_low": None, "range_high": None, "flagged": False}
    expected, variance = Fraction(0), Fraction(0)
    for fingerprint, (ante, ante2, side, side2) in sums.by_fingerprint.items():
        known = moments.get(fingerprint)
        if known is None or not sums.staked:
            return row
        side_moments = next((known[name] for name in SIDE_FIELDS if name in known),
                            Moments(Fraction(0), Fraction(0)))
        expected += ante * known[MAIN_FIELD].edge + side * side_moments.edge
        variance += ante2 * known[MAIN_FIELD].variance + side2 * side_moments.variance
    exact = 1 - expected / sums.staked
    spread = RANGE_SIGMAS * sqrt(variance) / sums.staked
    row.update(exact_rtp=float(exact), range_low=float(exact) - spread, range_high=float(exact) + spread)
    row["flagged"] = not row["range_low"] <= row["measured_rtp"] <= row["range_high"]
    return row


CSV_COLUMNS = ("period", "game", "table", "currency", "operator", "rounds", "players", "staked", "returned",
               "ggr", "hold", "measured_rtp", "exact_rtp", "range_low", "range_high", "flagged")


def csv_text(rows: Iterable[Mapping[str, Any]]) -> str:
    """The rows as CSV (amounts in minor units, ratios as decimals)."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow(["" if row[c] is None else (f"{row[c]:.6f}" if isinstance(row[c], float) else row[c])
                         for c in CSV_COLUMNS])
    return out.getvalue()


async def ledger_totals(connection: Connection, *, since: str,
                        until: str) -> dict[tuple[str, str], tuple[int, int]]:
    """(settlement day, currency) -> (staked, returned) summed from the players' ledger entries of
    the rounds settled those days alone: what the report's totals must equal."""
    players = accounts.c.kind == "player"
    solo = (select(func.substr(rounds.c.settled_at, 1, 10), accounts.c.currency, ledger_entries.c.amount)
            .select_from(ledger_entries.join(rounds, rounds.c.id == ledger_entries.c.round_id)
                         .join(accounts, accounts.c.id == ledger_entries.c.account_id))
            .where(players, rounds.c.status == "settled", rounds.c.settled_at >= since,
                   rounds.c.settled_at < until))
    live_id = live_rounds.c.table_id + "/" + cast(live_rounds.c.number, String)
    live = (select(func.substr(live_rounds.c.settled_at, 1, 10), accounts.c.currency, ledger_entries.c.amount)
            .select_from(ledger_entries.join(live_rounds, live_id == ledger_entries.c.round_id)
                         .join(accounts, accounts.c.id == ledger_entries.c.account_id))
            .where(players, live_rounds.c.settled_at >= since, live_rounds.c.settled_at < until))
    totals: dict[tuple[str, str], tuple[int, int]] = {}
    for statement in (solo, live):
        day, money, amount = statement.subquery().c
        staked = func.sum(case((amount < 0, -amount), else_=0))
        returned = func.sum(case((amount > 0, amount), else_=0))
        for found_day, found_money, paid, won in await connection.execute(
                select(day, money, staked, returned).group_by(day, money)):
            key = (str(found_day), str(found_money))
            before = totals.get(key, (0, 0))
            totals[key] = (before[0] + int(paid or 0), before[1] + int(won or 0))
    return totals
