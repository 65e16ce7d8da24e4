"""Audit records of settled live rounds, read back from what was stored.

The round's row (times, seeds, deck, rules fingerprint), its seats (bets, steps with their
times, the settlement lines computed when it was settled) and its ledger entries as posted
(txid ``{table}/{n}:{player}:{step}``) go into :func:`dealerpoker.fairness.live_record.build_live_record`
unchanged -- nothing is recomputed here, so ``dealerpoker verify`` can catch any difference.

A player gets their own part of a round they had a seat in, once it is settled (``scope``
``"player"``: no other player's id, bets or transfers); exports and reports get every seat
(``scope`` ``"round"``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row, select

from dealerpoker.cards.encoding import index_to_card
from dealerpoker.fairness.live_record import build_live_record, live_action, reveals_of
from dealerpoker.games import get_game
from dealerpoker.games.base import place_of
from dealerpoker.games.currency import DEFAULT_CURRENCY
from dealerpoker.server.accounts import REMOTE_PREFIX
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.errors import ConflictError, ForbiddenError, NotFoundError
from dealerpoker.server.fairness import store_rules_document
from dealerpoker.server.jackpot import AWARD as JACKPOT_AWARD
from dealerpoker.server.jackpot import STAKE as JACKPOT_STAKE
from dealerpoker.server.operators.reconcile import wallet_ledger
from dealerpoker.server.schema import ledger_entries, live_rounds, live_seats, rules_documents
from dealerpoker.tables.config import TableConfig
from dealerpoker.tables.table import RESTART_REASON

__all__ = ["LiveRecords", "live_records_between", "settled_live_records", "store_table_rules"]


async def store_table_rules(database: Database, tables: Iterable[TableConfig], at: str) -> None:
    """Keep each table's rules document (by fingerprint): its rounds' records cite it."""
    async with database.transaction() as connection:
        for table in tables:
            await store_rules_document(connection, get_game(table.game, table.rules), at)


def _iso(seconds: float | None) -> str | None:
    return None if seconds is None else timestamp(datetime.fromtimestamp(seconds, UTC))


class LiveRecords:
    """Players' live round history and records, and every round's record for exports."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def player_record(self, player_id: str, table_id: str, number: int) -> dict[str, Any]:
        """The player's own part of a settled round they had a seat in."""
        async with self.database.transaction() as connection:
            row = (await connection.execute(select(live_rounds).where(
                live_rounds.c.table_id == table_id, live_rounds.c.number == number))).first()
            if row is None:
                raise NotFoundError(f"no round {number} at table {table_id!r}")
            seat = (await connection.execute(select(live_seats).where(
                live_seats.c.table_id == table_id, live_seats.c.number == number,
                live_seats.c.player_id == player_id))).first()
            if seat is None:
                raise ForbiddenError(f"you had no seat in round {table_id}/{number}")
            if row.settled_at is None:
                raise ConflictError(f"round {table_id}/{number} is not settled yet: its record (with the "
                                    "revealed server seed) exists once it is")
            return await _record(connection, row, [seat], player_id=player_id)

    async def history(self, player_id: str, *, limit: int, before: str | None) -> list[dict[str, Any]]:
        """The player's settled live rounds, newest first (``before``: settled before that time)."""
        query = (select(live_seats, live_rounds.c.settled_at, live_rounds.c.record)
                 .join(live_rounds, (live_rounds.c.table_id == live_seats.c.table_id)
                       & (live_rounds.c.number == live_seats.c.number))
                 .where(live_seats.c.player_id == player_id, live_rounds.c.settled_at.is_not(None)))
        if before is not None:
            query = query.where(live_rounds.c.settled_at < before)
        query = query.order_by(live_rounds.c.settled_at.desc(), live_seats.c.table_id).limit(limit)
        async with self.database.transaction() as connection:
            rows = (await connection.execute(query)).all()
            games = await _games(connection, (json.loads(r.record).get("rules_fingerprint") for r in rows))
        return [_history_item(row, games) for row in rows]


def _history_item(row: Row[Any], games: Mapping[str, str]) -> dict[str, Any]:
    stored = json.loads(row.record)
    settlement = None if row.settlement is None else json.loads(row.settlement)
    returned = int(row.total_returned or 0)
    return {
        "round_id": f"{row.table_id}/{row.number}",
        "table_id": row.table_id,
        "number": int(row.number),
        "game": games.get(stored.get("rules_fingerprint"), "unknown"),
        "bets": json.loads(row.bets),
        "actions": [live_action(f"{row.table_id}/{row.number}", row.player_id, step, _iso(step.get("at")))
                    for step in json.loads(row.steps)],
        "total_stake": int(row.total_stake),
        "total_returned": returned,
        "net": returned - int(row.total_stake),
        "settlement": settlement,
        "settled_at": row.settled_at,
        "jurisdiction": None if row.jurisdiction is None else json.loads(row.jurisdiction)["id"],
        "record": f"/api/tables/{row.table_id}/rounds/{row.number}/record",
    }


async def _games(connection: Connection, fingerprints: Iterable[str | None]) -> dict[str, str]:
    wanted = {f for f in fingerprints if f}
    if not wanted:
        return {}
    rows = await connection.execute(select(rules_documents.c.fingerprint, rules_documents.c.game)
                                    .where(rules_documents.c.fingerprint.in_(wanted)))
    return {str(f): str(g) for f, g in rows}


async def _rules(connection: Connection, fingerprint: str | None, round_id: str) -> Row[Any]:
    found = None if fingerprint is None else (await connection.execute(
        select(rules_documents).where(rules_documents.c.fingerprint == fingerprint))).first()
    if found is None:
        raise ConflictError(f"round {round_id}: the rules it was played under ({fingerprint}) are not "
                            "stored on this server")
    return found


async def _record(connection: Connection, row: Row[Any], seats: list[Row[Any]],
                  *, player_id: str | None) -> dict[str, Any]:
    """The record of a settled round from its stored row, seats and ledger entries."""
    round_id = f"{row.table_id}/{row.number}"
    stored = json.loads(row.record)
    rules = await _rules(connection, stored.get("rules_fingerprint"), round_id)
    query = select(ledger_entries).where(ledger_entries.c.round_id == round_id)
    if player_id is not None:
        query = query.where(ledger_entries.c.txid.startswith(f"{round_id}:{player_id}:", autoescape=True))
    posted = (await connection.execute(query.order_by(ledger_entries.c.id))).all()
    entries = [{"txid": e.txid, "account": e.account_id, "amount": int(e.amount), "memo": e.memo,
                "at": e.created_at} for e in posted]
    if any(str(seat.player_id).startswith(REMOTE_PREFIX) for seat in seats):  # operators' players' money
        entries += await wallet_ledger(connection, round_id, str(stored.get("currency") or DEFAULT_CURRENCY),
                                       player_id)
    times = [(str(event), float(at)) for event, at in stored.get("times", [])]
    first = {event: at for event, at in reversed(times)}
    reveals = [(event.removeprefix("reveal:"), _iso(at)) for event, at in times
               if event.startswith("reveal:")]
    f = stored["fairness"]
    fairness = None if f is None else {"algorithm": f["algorithm"], "commitment": f["commitment"],
                                       "server_seed": f["server_seed"], "client_seed": f["client_seed"],
                                       "nonce": f["nonce"]}
    # A jackpot bet's stake and award are transfers of their own: kept with its seat's bet
    # (``jackpot.ledger``), apart from the game's ledger that ``verify`` re-settles.
    side = [e for e in entries if str(e["txid"]).rsplit(":", 1)[-1] in (JACKPOT_STAKE, JACKPOT_AWARD)]
    entries = [e for e in entries if e not in side]
    seat_records = [_seat(round_id, seat) for seat in sorted(seats, key=lambda s: str(s.player_id))]
    for seat_record in seat_records:
        if "jackpot" in seat_record:
            mine = f"{round_id}:{seat_record['player_id']}:"
            seat_record["jackpot"]["ledger"] = [e for e in side if str(e["txid"]).startswith(mine)]
    return build_live_record(
        table_id=row.table_id,
        number=int(row.number),
        scope="round" if player_id is None else "player",
        player_id=player_id,
        game=rules.game,
        rules_version=rules.rules_version,
        rules_fingerprint=rules.fingerprint,
        rules=json.loads(rules.document),
        opened_at=_iso(first.get("opened")) or row.created_at,
        betting_closed_at=_iso(first.get("betting_closed")),
        settled_at=row.settled_at,
        reveals=reveals_of(stored["deck"], reveals),
        fairness=fairness,
        deck=stored["deck"],
        seats=seat_records,
        ledger=entries,
        currency=stored.get("currency"),
        studio=_studio(stored) if stored.get("dealing") == "studio" else None,
        restarts=_restarts(times),
    )


def _restarts(times: list[tuple[str, float]]) -> list[dict[str, Any]]:
    """Each decision window opened again after a restart (``tables.table.reopen_missed_decision``)."""
    missed = {event.removeprefix("deadline_missed:"): at for event, at in times
              if event.startswith("deadline_missed:")}
    return [{"point": point, "deadline_missed_at": _iso(missed.get(point)), "reopened_at": _iso(at),
             "reason": RESTART_REASON}
            for event, at in times if event.startswith("reopened:")
            for point in [event.removeprefix("reopened:")]]


def _studio(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A studio round's card reports and misdeal, times as ISO-8601 (``build_live_record``'s ``studio``)."""
    misdeal = stored.get("misdeal")
    return {
        "cards": [{"card": str(index_to_card(r["card"])), "position": r["position"],
                   "to": place_of(r["position"]), "at": _iso(r["at"]), "source": r["source"],
                   "voided_at": _iso(r.get("voided_at"))}
                  for r in stored.get("reports", [])],
        "misdeal": None if not misdeal else {"at": _iso(misdeal["at"]), "by": misdeal["by"],
                                              "reason": misdeal["reason"]},
    }


def _seat(round_id: str, seat: Row[Any]) -> dict[str, Any]:
    player = str(seat.player_id)
    found: dict[str, Any] = {
        "player_id": player,
        "bets": json.loads(seat.bets),
        "bets_txid": f"{round_id}:{player}:bets",
        "actions": [live_action(round_id, player, step, _iso(step.get("at")))
                    for step in json.loads(seat.steps)],
        "settlement": None if seat.settlement is None else json.loads(seat.settlement),
        "total_stake": int(seat.total_stake),
        "total_returned": None if seat.total_returned is None else int(seat.total_returned),
    }
    if seat.jurisdiction is not None:  # the profile the player played under (seats since 0021)
        found["jurisdiction"] = json.loads(seat.jurisdiction)
    if seat.jackpot is not None:  # the jackpot side bet (seats since 0029)
        found["jackpot"] = json.loads(seat.jackpot)
    if seat.promo is not None:  # a free round (seats since 0027): the operator paid its ante
        promo = json.loads(seat.promo)
        found["promo"] = {"campaign": promo["campaign"], "reward": promo["reward"],
                          "free_ante": int(promo["free_ante"]), "forfeited": int(promo.get("forfeited", 0))}
    return found


async def table_round_record(connection: Connection, table_id: str, number: int) -> dict[str, Any] | None:
    """The whole record of one settled live round (every seat), None while it is not settled."""
    row = (await connection.execute(select(live_rounds).where(
        live_rounds.c.table_id == table_id, live_rounds.c.number == number))).first()
    if row is None:
        raise NotFoundError(f"no round {number} at table {table_id!r}")
    if row.settled_at is None:
        return None
    seats = (await connection.execute(select(live_seats).where(
        live_seats.c.table_id == table_id, live_seats.c.number == number))).all()
    return await _record(connection, row, list(seats), player_id=None)


async def live_records_between(connection: Connection, since: str,
                               until: str | None = None) -> AsyncIterator[dict[str, Any]]:
    """Every settled live round's whole record with ``since <= settled_at < until``, oldest first."""
    query = select(live_rounds).where(live_rounds.c.settled_at >= since)
    if until is not None:
        query = query.where(live_rounds.c.settled_at < until)
    rows = (await connection.execute(query.order_by(live_rounds.c.settled_at, live_rounds.c.table_id))).all()
    for row in rows:
        seats = (await connection.execute(select(live_seats).where(
            live_seats.c.table_id == row.table_id, live_seats.c.number == row.number))).all()
        if seats:  # a round nobody paid into dealt nothing: there is nothing to audit
            yield await _record(connection, row, list(seats), player_id=None)


async def settled_live_records(database_url: str, since: str,
                               until: str | None = None) -> list[dict[str, Any]]:
    """Whole records of the live rounds settled in ``[since, until)`` of the database at ``database_url``."""
    database = Database(database_url)
    try:
        await database.migrate()
        async with database.transaction() as connection:
            return [record async for record in live_records_between(connection, since, until)]
    finally:
        await database.dispose()
