"""Finding rounds for the back office: solo rounds and players' seats at live table rounds, by
round id, player, operator (and the operator's own player id), game, table, time range, stake
range and status, newest first.

Each query asks the database for at most ``limit`` rows per kind in index order (``rounds``:
``created_at`` and ``(game, created_at)``, ``player_id``; live rounds: ``created_at``; migration
0010) and the two kinds are merged here, so a search costs the same on a day's rounds as on a
year's. ``before`` (the ``created_at`` of the last row shown) pages on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, String, and_, cast, or_, select, type_coerce
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.types import JSON

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.backoffice.players import EMBEDDED, operators_of
from dealerpoker.server.db import Connection
from dealerpoker.server.schema import (
    live_rounds,
    live_seats,
    operator_players,
    rounds,
    wallet_status_is,
    wallet_transactions,
)

STATUSES = ("open", "settled", "credit_pending", "misdeal")
"""credit_pending: a win owed to the operator's wallet is not delivered yet (the outbox retries it);
misdeal: a studio round cancelled (void, every bet returned; ``settled`` leaves them out)."""
KINDS = ("solo", "live")


class SearchError(DealerPokerError, ValueError):
    """A search that cannot be answered (the message names the field)."""

    code = "invalid_request"
    status = 422


@dataclass(frozen=True, slots=True)
class RoundQuery:
    text: str | None = None
    """The one search box: a round id, a player id here, or any operator's id of its player."""
    round_id: str | None = None
    player_id: str | None = None
    operator_id: str | None = None
    """Only the rounds of this operator's players (``operator_players``); ``EMBEDDED``: of the
    embedded demo players (no operator's)."""
    operator_player: str | None = None
    """The operator's own id of its player (with ``operator_id``)."""
    game: str | None = None
    table_id: str | None = None
    since: str | None = None
    """Opened at or after (ISO-8601 UTC, as stored)."""
    until: str | None = None
    """Opened before."""
    min_stake: int | None = None
    max_stake: int | None = None
    currency: str | None = None
    jurisdiction: str | None = None
    """Only the rounds (and live seats) played under this jurisdiction's profile (``default``:
    also those from before jurisdictions, which name none)."""
    status: str | None = None
    kind: str | None = None
    before: str | None = None
    limit: int = 50

    def __post_init__(self) -> None:
        if self.status is not None and self.status not in STATUSES:
            raise SearchError(f"status: expected one of {', '.join(STATUSES)}, got {self.status!r}")
        if self.kind is not None and self.kind not in KINDS:
            raise SearchError(f"kind: expected one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.min_stake is not None and self.max_stake is not None and self.min_stake > self.max_stake:
            raise SearchError(f"min_stake {self.min_stake} is above max_stake {self.max_stake}")
        if self.operator_player is not None and self.operator_id is None:
            raise SearchError("operator_player: give the operator too (operator player ids are per operator)")
        if self.operator_player is not None and self.operator_id == EMBEDDED:
            raise SearchError(f"operator_player: the {EMBEDDED} demo players have no operator's id")
        if self.since and self.until and self.since >= self.until:
            raise SearchError(f"until {self.until!r} is not after since {self.since!r}")


def _of_operator(query: RoundQuery, player_id: ColumnElement[str]) -> ColumnElement[bool] | None:
    """``player_id`` is one of the operator's players' accounts (None: no operator filter)."""
    if query.operator_id is None:
        return None
    if query.operator_id == EMBEDDED:
        return player_id.not_in(select(operator_players.c.player_id))
    accounts = select(operator_players.c.player_id).where(operator_players.c.operator_id == query.operator_id)
    if query.operator_player is not None:
        accounts = accounts.where(operator_players.c.external_id == query.operator_player)
    return player_id.in_(accounts)


def _players_named(text: str) -> Select[Any]:
    """The accounts of every operator's player whose own id is ``text``."""
    return select(operator_players.c.player_id).where(operator_players.c.external_id == text)


def _owed() -> Select[Any]:
    """The ids of the rounds whose win is still owed to the operator's wallet."""
    return select(wallet_transactions.c.round_id).where(wallet_status_is("pending"),
                                                        wallet_transactions.c.kind == "win")


def _of_jurisdiction(code: str, column: Any = rounds.c.jurisdiction) -> ColumnElement[bool]:
    """The stored profile of a round or a live seat (canonical JSON, ``server.jurisdiction``) is
    ``code``'s (``default``: also those from before jurisdictions, which name none)."""
    named = column.contains(f'"id":{json.dumps(code)}')
    return or_(named, column.is_(None)) if code == "default" else named


def _solo(query: RoundQuery) -> Select[Any] | None:
    if query.kind == "live" or query.table_id is not None or query.status == "misdeal":
        return None  # only a studio table's live round can be misdealt
    columns = (rounds.c.id, rounds.c.player_id, rounds.c.game, rounds.c.currency, rounds.c.status,
               rounds.c.total_stake, rounds.c.total_returned, rounds.c.created_at, rounds.c.settled_at,
               rounds.c.jurisdiction)
    statement = select(*columns)
    conditions = []
    if query.text:
        conditions.append(or_(rounds.c.id == query.text, rounds.c.player_id == query.text,
                              rounds.c.player_id.in_(_players_named(query.text))))
    if query.currency:
        conditions.append(rounds.c.currency == query.currency)
    if query.round_id:
        conditions.append(rounds.c.id == query.round_id)
    if query.player_id:
        conditions.append(rounds.c.player_id == query.player_id)
    if (operator := _of_operator(query, rounds.c.player_id)) is not None:
        conditions.append(operator)
    if query.game:
        conditions.append(rounds.c.game == query.game)
    if query.jurisdiction:
        conditions.append(_of_jurisdiction(query.jurisdiction))
    if query.status == "credit_pending":
        conditions.append(rounds.c.id.in_(_owed()))
    elif query.status:
        conditions.append(rounds.c.status == query.status)
    if query.min_stake is not None:
        conditions.append(rounds.c.total_stake >= query.min_stake)
    if query.max_stake is not None:
        conditions.append(rounds.c.total_stake <= query.max_stake)
    for bound in (query.since, ):
        if bound:
            conditions.append(rounds.c.created_at >= bound)
    for bound in (query.until, query.before):
        if bound:
            conditions.append(rounds.c.created_at < bound)
    if conditions:
        statement = statement.where(and_(*conditions))
    return statement.order_by(rounds.c.created_at.desc()).limit(query.limit)


def live_record_text(name: str, dialect: str) -> Any:
    """An entry of a live round's record as text, in SQL (NULL when absent or JSON null; the
    reports read the currency and rules fingerprint the same way)."""
    if dialect == "postgresql":
        return cast(live_rounds.c.record, JSONB)[name].astext
    return type_coerce(live_rounds.c.record, JSON)[name].as_string()


def _live(query: RoundQuery, tables_of_game: Mapping[str, str], dialect: str) -> Select[Any] | None:
    if query.kind == "solo":
        return None
    joined = live_seats.join(live_rounds, and_(live_rounds.c.table_id == live_seats.c.table_id,
                                               live_rounds.c.number == live_seats.c.number))
    statement = select(live_seats.c.table_id, live_seats.c.number, live_seats.c.player_id,
                       live_seats.c.total_stake, live_seats.c.total_returned, live_rounds.c.created_at,
                       live_rounds.c.settled_at, live_rounds.c.record,
                       live_seats.c.jurisdiction).select_from(joined)
    conditions = []
    if query.jurisdiction:
        conditions.append(_of_jurisdiction(query.jurisdiction, live_seats.c.jurisdiction))
    if query.text:
        matches = [live_seats.c.player_id == query.text,
                   live_seats.c.player_id.in_(_players_named(query.text))]
        table, _, number = query.text.rpartition("/")
        if table and number.isdigit():
            matches.append(and_(live_seats.c.table_id == table, live_seats.c.number == int(number)))
        conditions.append(or_(*matches))
    if query.round_id:
        table, _, number = query.round_id.rpartition("/")
        if not table or not number.isdigit():
            return None  # not a live round's id (table/number)
        conditions += [live_seats.c.table_id == table, live_seats.c.number == int(number)]
    if query.table_id:
        conditions.append(live_seats.c.table_id == query.table_id)
    if query.game:
        tables = [table for table, game in tables_of_game.items() if game == query.game]
        if not tables:
            return None
        conditions.append(live_seats.c.table_id.in_(tables))
    if query.player_id:
        conditions.append(live_seats.c.player_id == query.player_id)
    if (operator := _of_operator(query, live_seats.c.player_id)) is not None:
        conditions.append(operator)
    misdealt = live_record_text("misdeal", dialect)  # NULL unless the round was cancelled
    if query.status == "open":
        conditions.append(live_rounds.c.settled_at.is_(None))
    elif query.status == "settled":
        conditions += [live_rounds.c.settled_at.is_not(None), misdealt.is_(None)]
    elif query.status == "misdeal":
        conditions.append(misdealt.is_not(None))
    elif query.status == "credit_pending":
        round_id = live_seats.c.table_id + "/" + cast(live_seats.c.number, String)
        conditions.append(round_id.in_(_owed()))
    if query.min_stake is not None:
        conditions.append(live_seats.c.total_stake >= query.min_stake)
    if query.max_stake is not None:
        conditions.append(live_seats.c.total_stake <= query.max_stake)
    if query.since:
        conditions.append(live_rounds.c.created_at >= query.since)
    for bound in (query.until, query.before):
        if bound:
            conditions.append(live_rounds.c.created_at < bound)
    if conditions:
        statement = statement.where(and_(*conditions))
    return statement.order_by(live_rounds.c.created_at.desc()).limit(query.limit)


def _profile_in_force(stored: str | None) -> dict[str, Any]:
    """The jurisdiction and profile version a round was played under (None: before issue 27)."""
    profile = json.loads(stored) if stored else {}
    return {"jurisdiction": profile.get("id"), "profile_version": profile.get("version")}


async def search(connection: Connection, query: RoundQuery,
                 tables_of_game: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The newest ``query.limit`` matching rounds (a live round: one row per seat), each with its
    player's operator (``EMBEDDED`` for a demo player) and the operator's id of them.

    ``tables_of_game``: live table id -> its game (the configured tables), for ``game``.
    """
    found: list[dict[str, Any]] = []
    solo = _solo(query)
    if solo is not None:
        for row in (await connection.execute(solo)).mappings():
            found.append({"kind": "solo", "round_id": row["id"], "player_id": row["player_id"],
                          "game": row["game"], "table_id": None, "currency": row["currency"],
                          "status": row["status"], "total_stake": int(row["total_stake"]),
                          "total_returned": int(row["total_returned"]), "created_at": row["created_at"],
                          "settled_at": row["settled_at"], **_profile_in_force(row["jurisdiction"])})
    live = _live(query, tables_of_game or {}, connection.dialect.name)
    if live is not None:
        for row in (await connection.execute(live)).mappings():
            stored = json.loads(row["record"])
            if query.currency and stored.get("currency") != query.currency:
                continue
            found.append({"kind": "live", "round_id": f"{row['table_id']}/{row['number']}",
                          "player_id": row["player_id"], "game": (tables_of_game or {}).get(row["table_id"]),
                          "table_id": row["table_id"], "currency": stored.get("currency"),
                          "status": "open" if row["settled_at"] is None
                          else "misdeal" if stored.get("misdeal") else "settled",
                          "total_stake": int(row["total_stake"]),
                          "total_returned": None if row["total_returned"] is None
                          else int(row["total_returned"]),
                          "created_at": row["created_at"], "settled_at": row["settled_at"],
                          **_profile_in_force(row["jurisdiction"])})
    found.sort(key=lambda item: str(item["created_at"]), reverse=True)
    found = found[:query.limit]
    operators = await operators_of(connection, (item["player_id"] for item in found))
    for item in found:
        operator = operators.get(item["player_id"])
        item["operator"] = EMBEDDED if operator is None else operator["operator"]
        item["operator_player"] = None if operator is None else operator["operator_player"]
    return found
