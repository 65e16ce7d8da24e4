"""The back office's rounds: the search, a round's page (the replay as the player saw it, its
ledger entries, its record) and the one-click verification of its fairness record."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from sqlalchemy import select

from dealerpoker.fairness.verify import verify_record
from dealerpoker.games.money import MAX_AMOUNT
from dealerpoker.server.api.deps import error_responses, reject_unknown_query
from dealerpoker.server.backoffice import players, search
from dealerpoker.server.backoffice.deps import RoundVerifier, RoundViewer, services_of
from dealerpoker.server.db import Connection
from dealerpoker.server.errors import NotFoundError
from dealerpoker.server.fairness import approved_rules, round_record
from dealerpoker.server.live.audit import table_round_record
from dealerpoker.server.operators.api import round_wallet
from dealerpoker.server.schema import ledger_entries, rounds
from dealerpoker.server.services import Services

router = APIRouter(prefix="/admin/api", tags=["back office"], dependencies=[Depends(reject_unknown_query)])
RoundIdQuery = Annotated[str, Query(alias="id", min_length=1, max_length=80,
                                    description="a solo round's id (r_...) or a live round's table/number")]


def live_games(request: Request) -> dict[str, str]:
    """Live table id -> its game (none without live tables)."""
    live = getattr(request.app.state, "live", None)
    return {} if live is None else {table_id: runner.table.game for table_id, runner in live.runners.items()}


@router.get("/rounds", responses=error_responses(401, 403, 422))
async def find_rounds(
    request: Request, _user: RoundViewer,
    text: Annotated[str | None, Query(alias="q", max_length=80, description=(
        "the one search box: a round id, a player id, or an operator's id of its player"))] = None,
    round_id: Annotated[str | None, Query(alias="round", max_length=80)] = None,
    player: Annotated[str | None, Query(max_length=40)] = None,
    operator: Annotated[str | None, Query(max_length=32)] = None,
    operator_player: Annotated[str | None, Query(max_length=64, description="its operator's id")] = None,
    game: Annotated[str | None, Query(max_length=32)] = None,
    table: Annotated[str | None, Query(max_length=40)] = None,
    since: Annotated[str | None, Query(max_length=32, description="opened at or after (ISO-8601)")] = None,
    until: Annotated[str | None, Query(max_length=32, description="opened before")] = None,
    min_stake: Annotated[int | None, Query(ge=0, le=MAX_AMOUNT)] = None,
    max_stake: Annotated[int | None, Query(ge=0, le=MAX_AMOUNT)] = None,
    currency: Annotated[str | None, Query(max_length=8, description="only rounds in this currency")] = None,
    jurisdiction: Annotated[str | None, Query(
        max_length=8, pattern=r"^([A-Z]{2}(-[A-Z0-9]{1,3})?|default)$",
        description="only rounds played under this market's profile")] = None,
    status: Annotated[Literal["", "open", "settled", "credit_pending", "misdeal"] | None,
                      Query(description="empty: any")] = None,
    kind: Annotated[Literal["", "solo", "live"] | None, Query(description="empty: any")] = None,
    before: Annotated[str | None, Query(max_length=32, description="the last row's created_at")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """Rounds matching every given filter, newest first (a live round: one row per seat); with
    ``q``, also the players it names (``players``: here, or any operator's)."""
    query = search.RoundQuery(
        text=(text or "").strip() or None, currency=currency or None, round_id=round_id or None,
        player_id=player or None, operator_id=operator or None,
        operator_player=operator_player or None, game=game or None, table_id=table or None,
        since=since or None, until=until or None, min_stake=min_stake, max_stake=max_stake,
        status=status or None, kind=kind or None, before=before or None, limit=limit,
        jurisdiction=jurisdiction or None)
    async with services_of(request).database.reading() as connection:
        found = await search.search(connection, query, live_games(request))
        named = await players.matching(connection, query.text) if query.text else []
    return {"rounds": found, "players": named}


async def _entries(connection: Connection, round_id: str) -> list[dict[str, Any]]:
    rows = (await connection.execute(select(ledger_entries).where(ledger_entries.c.round_id == round_id)
                                     .order_by(ledger_entries.c.id))).mappings().all()
    return [{"txid": r["txid"], "account": r["account_id"], "amount": int(r["amount"]), "memo": r["memo"],
             "at": r["created_at"]} for r in rows]


async def _record(services: Services, round_id: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(what the round is, its audit record once settled)."""
    async with services.database.transaction() as connection:
        table, _, number = round_id.rpartition("/")
        if table and number.isdigit():
            record = await table_round_record(connection, table, int(number))
            return ({"kind": "live", "round_id": round_id, "table_id": table, "number": int(number)},
                    None if record is None else services.signer.sign(record))
        row = (await connection.execute(select(rounds).where(rounds.c.id == round_id))).first()
        if row is None:
            raise NotFoundError(f"no round {round_id!r}")
        about = {"kind": "solo", "round_id": round_id, "player_id": row.player_id, "game": row.game,
                 "status": row.status, "currency": row.currency, "total_stake": int(row.total_stake),
                 "total_returned": int(row.total_returned), "created_at": row.created_at,
                 "settled_at": row.settled_at, "rules_version": row.rules_version,
                 "rules_fingerprint": row.rules_fingerprint,
                 # the jurisdiction profile in force for it (its enforced settings, id and version)
                 "jurisdiction": None if row.jurisdiction is None else json.loads(row.jurisdiction)}
        record = await round_record(connection, row, services.games) if row.status == "settled" else None
        return about, None if record is None else services.signer.sign(record)


@router.get("/round", responses=error_responses(401, 403, 404))
async def round_page(request: Request, _user: RoundViewer, round_id: RoundIdQuery) -> dict[str, Any]:
    """A round: what it is, its replay (solo: the player's view after each step), its ledger
    entries, its wallet transactions and calls with the operator (``wallet``; None for a
    round of no operator's player) and its audit record (once settled; a live round's has every seat)."""
    services = services_of(request)
    about, record = await _record(services, round_id)
    replay = None
    if about["kind"] == "solo":
        replay = await services.rounds.replay(about["player_id"], round_id)
    async with services.database.reading() as connection:
        ledger = await _entries(connection, round_id)
    wallet = await round_wallet(services.database, round_id)
    return {"round": about, "replay": replay, "ledger": ledger, "record": record,
            "wallet": wallet if wallet["transactions"] else None}


@router.get("/round/verification", responses=error_responses(401, 403, 404, 409))
async def verify(request: Request, _user: RoundVerifier, round_id: RoundIdQuery) -> dict[str, Any]:
    """Every check of the round's fairness record (``dealerpoker verify``), with the result."""
    services = services_of(request)
    _about, record = await _record(services, round_id)
    if record is None:
        return {"round_id": round_id, "verified": None, "findings": [],
                "reason": "the round is not settled: its server seed is not revealed yet"}
    async with services.database.reading() as connection:
        approved = await approved_rules(connection, str(record.get("rules_fingerprint")))
    findings = verify_record(record, public_key=services.signer.public_key, approved_rules=approved)
    return {"round_id": round_id, "verified": all(f.ok for f in findings),
            "findings": [f.to_dict() for f in findings]}
