"""The back office's reports: per day, ISO week or month, per game, table (``solo`` for solo
rounds), currency, operator (the operator whose players played, ``embedded`` for the
embedded demo players) and jurisdiction (the profile each round or live seat was played
under, ``default`` also for those from before jurisdictions): rounds, players, staked,
returned, gross gaming revenue (staked less returned), hold %, and the measured RTP beside the
exact RTP with the range chance leaves it. A report's rows may be rolled up to one of these
(``grouped_by``: the jurisdiction's totals, say).

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
analysis' strategy move it too). The range's low end is never below 0: no round returns less than
nothing (few rounds give a wide range, cut there).

**One basis for every RTP**: returned per unit *staked*, every bet counted (the ante, the
decisions' bets, the side bets), as the games page's main-game RTP (``1 - element of risk``) and
each side bet's; the house edge per unit of ante is a house edge, never called an RTP.

**Misdeals** (a studio round cancelled, every bet returned) are not rounds played: they are
counted apart (``misdeals``, ``voided``: the stakes they returned) and left out of rounds,
staked, returned and the RTPs. **Open rounds** (opened in the period, not settled yet) are
listed apart (``open_rounds``): their bets have left the players' wallets but count nowhere here
until they settle, which is why a wallet's net can differ from the report's GGR.

**Free rounds** (an operator's free bets, ``server.promotions``) are promotional money, not real:
they are left out of the rows, the totals and ``ledger_totals``, and reported apart
(``promotional``, per campaign and currency: the free rounds settled, the antes the operator paid,
the players' own stakes, the returns and the net to players).

**Totals** (``totals``): one row per currency (amounts of two currencies are never added), the
sums of the rows shown, distinct players counted once, the exact RTP and range recomputed over
the whole.
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
from dealerpoker.jurisdictions import DEFAULT
from dealerpoker.server.backoffice.players import EMBEDDED
from dealerpoker.server.backoffice.search import live_record_text
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
GROUP_BY = ("period", "game", "table", "currency", "operator", "jurisdiction", "all")
"""What a report's rows may be rolled up to (by index in a group's key; ``all``: every dimension)."""
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
    misdeals: int = 0
    """Studio rounds cancelled (void, every bet returned): not counted in the figures above."""
    voided: int = 0
    """The stakes the misdeals returned."""

    def add(self, count: int, staked: int, returned: int, fingerprint: str, moments: Iterable[int]) -> None:
        self.rounds += count
        self.staked += staked
        self.returned += returned
        known = self.by_fingerprint.setdefault(fingerprint, [0, 0, 0, 0])
        for index, value in enumerate(moments):
            known[index] += value

    def merge(self, other: Sums) -> None:
        self.rounds += other.rounds
        self.staked += other.staked
        self.returned += other.returned
        for fingerprint, values in other.by_fingerprint.items():
            known = self.by_fingerprint.setdefault(fingerprint, [0, 0, 0, 0])
            for index, value in enumerate(values):
                known[index] += value
        self.players |= other.players
        self.misdeals += other.misdeals
        self.voided += other.voided


async def _solo_days(connection: Connection, since: str, until: str) -> list[Any]:
    dialect = connection.dialect.name
    ante, side = _bet(rounds.c.bets, MAIN_FIELD, dialect), _side(rounds.c.bets, dialect)
    day = func.substr(rounds.c.settled_at, 1, 10)
    operator, market = _operator(), _jurisdiction(rounds.c.jurisdiction, dialect)
    query = (select(day, rounds.c.game, literal(SOLO), rounds.c.currency, rounds.c.rules_fingerprint,
                    func.count(), func.sum(rounds.c.total_stake), func.sum(rounds.c.total_returned),
                    func.sum(ante), func.sum(ante * ante), func.sum(side), func.sum(side * side), operator,
                    market, literal(0))
             .select_from(_by_operator(rounds, rounds.c.player_id))
             .where(rounds.c.status == "settled", rounds.c.settled_at >= since, rounds.c.settled_at < until,
                    rounds.c.promo_reward.is_(None))  # free rounds: promotional, reported apart
             .group_by(day, rounds.c.game, rounds.c.currency, rounds.c.rules_fingerprint, operator, market))
    return list(await connection.execute(query))


def _operator() -> Any:
    """The operator of the round's player (``EMBEDDED`` for none), with ``_by_operator`` joined."""
    return func.coalesce(operator_players.c.operator_id, literal(EMBEDDED))


def _by_operator(source: Any, player_id: Any) -> Any:
    return source.outerjoin(operator_players, operator_players.c.player_id == player_id)


def _jurisdiction(column: Any, dialect: str) -> Any:
    """The jurisdiction id of a stored profile (``rounds`` / ``live_seats.jurisdiction``),
    ``default`` when none is stored (rounds and seats from before jurisdictions)."""
    if dialect == "postgresql":
        found = cast(column, JSONB)["id"].astext
    else:
        found = type_coerce(column, JSON)["id"].as_string()
    return func.coalesce(found, literal(DEFAULT))


def _side(column: Any, dialect: str) -> Any:
    first, *others = (_bet(column, name, dialect) for name in SIDE_FIELDS)
    return sum(others, first)


def _misdealt(dialect: str) -> Any:
    """Whether a live round was cancelled as a misdeal (its record names the misdeal)."""
    return case((live_record_text("misdeal", dialect).is_(None), 0), else_=1)


async def _live_days(connection: Connection, since: str, until: str) -> list[Any]:
    dialect = connection.dialect.name
    ante, side = _bet(live_seats.c.bets, MAIN_FIELD, dialect), _side(live_seats.c.bets, dialect)
    day = func.substr(live_rounds.c.settled_at, 1, 10)
    fingerprint = live_record_text("rules_fingerprint", dialect)
    currency = live_record_text("currency", dialect)
    joined = live_seats.join(live_rounds, and_(live_rounds.c.table_id == live_seats.c.table_id,
                                               live_rounds.c.number == live_seats.c.number))
    operator, misdealt = _operator(), _misdealt(dialect)
    market = _jurisdiction(live_seats.c.jurisdiction, dialect)
    query = (select(day, rules_documents.c.game, live_seats.c.table_id, currency, fingerprint,
                    func.count(func.distinct(live_seats.c.number)), func.sum(live_seats.c.total_stake),
                    func.sum(func.coalesce(live_seats.c.total_returned, 0)),
                    func.sum(ante), func.sum(ante * ante), func.sum(side), func.sum(side * side), operator,
                    market, misdealt)
             .select_from(_by_operator(joined, live_seats.c.player_id)
                          .outerjoin(rules_documents, rules_documents.c.fingerprint == fingerprint))
             .where(live_rounds.c.settled_at >= since, live_rounds.c.settled_at < until)
             .group_by(day, rules_documents.c.game, live_seats.c.table_id, currency, fingerprint, operator,
                       market, misdealt))
    return list(await connection.execute(query))


async def _players(connection: Connection, since: str, until: str) -> list[Any]:
    dialect = connection.dialect.name
    day = func.substr(rounds.c.settled_at, 1, 10)
    solo = (select(day, rounds.c.game, literal(SOLO), rounds.c.currency, rounds.c.player_id,
                   _operator(), _jurisdiction(rounds.c.jurisdiction, dialect)).distinct()
            .select_from(_by_operator(rounds, rounds.c.player_id))
            .where(rounds.c.status == "settled", rounds.c.settled_at >= since, rounds.c.settled_at < until))
    live_day = func.substr(live_rounds.c.settled_at, 1, 10)
    live = (select(live_day, live_seats.c.table_id, live_seats.c.player_id, _operator(),
                   _jurisdiction(live_seats.c.jurisdiction, dialect))
            .distinct()
            .select_from(_by_operator(live_seats.join(live_rounds, and_(
                live_rounds.c.table_id == live_seats.c.table_id,
                live_rounds.c.number == live_seats.c.number)), live_seats.c.player_id))
            .where(live_rounds.c.settled_at >= since, live_rounds.c.settled_at < until,
                   live_record_text("misdeal", dialect).is_(None)))
    return [*await connection.execute(solo), *(("live", *row) for row in await connection.execute(live))]


Key = tuple[str, str, str, str, str, str]
"""(period, game, table, currency, operator, jurisdiction)."""
Groups = dict[Key, Sums]
"""Each group's sums."""


async def collect(connection: Connection, *, since: str, until: str, period: str) -> Groups:
    """The sums of the rounds settled on the days ``since`` (inclusive) to ``until`` (exclusive,
    ``YYYY-MM-DD``), by period, game, table, currency, operator and jurisdiction."""
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
        key = (period_of(day, period), game_name, table_id, money, str(row[12]), str(row[13]))
        sums = groups.setdefault(key, Sums())
        if row[14]:  # misdeals: void, every bet returned; not rounds played
            sums.misdeals += int(row[5])
            sums.voided += int(row[6] or 0)
            continue
        sums.add(int(row[5]), int(row[6] or 0), int(row[7] or 0), str(row[4]),
                 (int(value or 0) for value in row[8:12]))
    for row in await _players(connection, since, until):
        if row[0] == "live":
            _, day, table_id, player, operator, market = row
            game_name, money = live_currency.get((str(day), str(table_id)), ("unknown", ""))
        else:
            day, game_name, table_id, money, player, operator, market = row
        found = groups.get((period_of(str(day), period), str(game_name), str(table_id), str(money),
                            str(operator), str(market)))
        if found is not None:
            found.players.add(str(player))
    return groups


def _chosen(key: Key, game: str | None, table: str | None, currency: str | None, operator: str | None,
            jurisdiction: str | None) -> bool:
    _, its_game, its_table, its_currency, its_operator, its_jurisdiction = key
    return ((game is None or its_game == game) and (table is None or its_table == table)
            and (currency is None or its_currency == currency)
            and (operator is None or its_operator == operator)
            and (jurisdiction is None or its_jurisdiction == jurisdiction))


def grouped_by(groups: Groups, by: str) -> Groups:
    """The groups rolled up to period, currency and one dimension (``game``, ``table``,
    ``operator`` or ``jurisdiction``): the others are left empty."""
    if by not in GROUP_BY:
        raise ReportError(f"group: expected one of {', '.join(GROUP_BY)}, got {by!r}")
    if by == "all":
        return groups
    kept = GROUP_BY.index(by)
    rolled: Groups = {}
    for key, sums in groups.items():
        new = tuple(value if index in (0, 3, kept) else "" for index, value in enumerate(key))
        rolled.setdefault(new, Sums()).merge(sums)  # type: ignore[arg-type]
    return rolled


async def report_of(groups: Groups, moments: MomentsSource, *, game: str | None = None,
                    table: str | None = None, currency: str | None = None,
                    operator: str | None = None, jurisdiction: str | None = None,
                    group: str = "all") -> dict[str, Any]:
    """``rows`` (the groups chosen by the filters, with the exact RTPs of the rules the rounds
    were played under; ``group``: rolled up to one dimension) and ``totals``: one row per
    currency over them."""
    chosen = {key: sums for key, sums in groups.items()
              if _chosen(key, game, table, currency, operator, jurisdiction)}
    chosen = grouped_by(chosen, group)
    known = await moments({fingerprint for sums in chosen.values() for fingerprint in sums.by_fingerprint})
    by_currency: dict[str, Sums] = {}
    for key, sums in chosen.items():
        by_currency.setdefault(key[3], Sums()).merge(sums)
    return {"rows": [_row(key, sums, known) for key, sums in sorted(chosen.items())],
            "totals": [_row(("total", "", "", money, "", ""), sums, known)
                       for money, sums in sorted(by_currency.items())]}


def _row(key: Key, sums: Sums, moments: Mapping[str, Mapping[str, Moments]]) -> dict[str, Any]:
    period, game, table, currency, operator, jurisdiction = key
    ggr = sums.staked - sums.returned
    row: dict[str, Any] = {
        "period": period, "game": game, "table": table, "currency": currency, "operator": operator,
        "jurisdiction": jurisdiction, "rounds": sums.rounds,
        "players": len(sums.players), "staked": sums.staked, "returned": sums.returned, "ggr": ggr,
        "hold": ggr / sums.staked if sums.staked else None,
        "measured_rtp": sums.returned / sums.staked if sums.staked else None,
        "exact_rtp": None, "range_low": None, "range_high": None, "flagged": False,
        "misdeals": sums.misdeals, "voided": sums.voided}
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
    # no round returns less than nothing: a wide range (few rounds) stops at 0%
    row.update(exact_rtp=float(exact), range_low=max(0.0, float(exact) - spread),
               range_high=float(exact) + spread)
    row["flagged"] = not row["range_low"] <= row["measured_rtp"] <= row["range_high"]
    return row


CSV_COLUMNS = ("period", "game", "table", "currency", "operator", "rounds", "players", "staked", "returned",
               "ggr", "hold", "measured_rtp", "exact_rtp", "range_low", "range_high", "flagged", "misdeals",
               "voided", "jurisdiction")  # a new column goes last: readers of the earlier file keep theirs


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
    the rounds settled those days alone (misdeals left out, as the report leaves them out of its
    figures): what the report's totals must equal."""
    players = accounts.c.kind == "player"
    solo = (select(func.substr(rounds.c.settled_at, 1, 10), accounts.c.currency, ledger_entries.c.amount)
            .select_from(ledger_entries.join(rounds, rounds.c.id == ledger_entries.c.round_id)
                         .join(accounts, accounts.c.id == ledger_entries.c.account_id))
            .where(players, rounds.c.status == "settled", rounds.c.settled_at >= since,
                   rounds.c.settled_at < until, rounds.c.promo_reward.is_(None)))
    live_id = live_rounds.c.table_id + "/" + cast(live_rounds.c.number, String)
    live = (select(func.substr(live_rounds.c.settled_at, 1, 10), accounts.c.currency, ledger_entries.c.amount)
            .select_from(ledger_entries.join(live_rounds, live_id == ledger_entries.c.round_id)
                         .join(accounts, accounts.c.id == ledger_entries.c.account_id))
            .where(players, live_rounds.c.settled_at >= since, live_rounds.c.settled_at < until,
                   live_record_text("misdeal", connection.dialect.name).is_(None)))
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


async def open_rounds(connection: Connection, *, since: str, until: str) -> list[dict[str, Any]]:
    """The rounds opened from ``since`` to ``until`` (days, as ``collect``) that are not settled
    yet, by game, table, currency and operator: how many and what is staked in them (bets the
    players' wallets have paid, which the report counts only once the round settles)."""
    dialect = connection.dialect.name
    operator = _operator()
    solo = (select(rounds.c.game, literal(SOLO), rounds.c.currency, operator, func.count(),
                   func.sum(rounds.c.total_stake))
            .select_from(_by_operator(rounds, rounds.c.player_id))
            .where(rounds.c.status == "open", rounds.c.created_at >= since, rounds.c.created_at < until)
            .group_by(rounds.c.game, rounds.c.currency, operator))
    currency = live_record_text("currency", dialect)
    fingerprint = live_record_text("rules_fingerprint", dialect)
    joined = live_seats.join(live_rounds, and_(live_rounds.c.table_id == live_seats.c.table_id,
                                               live_rounds.c.number == live_seats.c.number))
    live = (select(rules_documents.c.game, live_seats.c.table_id, currency, operator,
                   func.count(func.distinct(live_seats.c.number)), func.sum(live_seats.c.total_stake))
            .select_from(_by_operator(joined, live_seats.c.player_id)
                         .outerjoin(rules_documents, rules_documents.c.fingerprint == fingerprint))
            .where(live_rounds.c.settled_at.is_(None), live_seats.c.total_stake > 0,
                   live_rounds.c.created_at >= since, live_rounds.c.created_at < until)
            .group_by(rules_documents.c.game, live_seats.c.table_id, currency, operator))
    found = [{"game": str(game or "unknown"), "table": str(table), "currency": str(money),
              "operator": str(owner), "rounds": int(count), "staked": int(staked or 0)}
             for statement in (solo, live)
             for game, table, money, owner, count, staked in await connection.execute(statement)]
    return sorted(found, key=lambda row: (row["currency"], row["game"], row["table"], row["operator"]))
