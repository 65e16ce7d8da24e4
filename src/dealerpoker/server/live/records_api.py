"""Live rounds for their players: their history and the audit record of their part of a round.

``GET /api/live-rounds`` lists the player's settled live rounds (newest first), each with the
address of its record; ``GET /api/tables/{id}/rounds/{n}/record`` is the player's own part of a
settled round they had a seat in (check it with ``dealerpoker verify --round-file``). The whole
round with every seat is for auditors: ``dealerpoker export``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from dealerpoker.server.api.deps import PlayerDep, error_responses, reject_unknown_query
from dealerpoker.server.api.models import Open, Strict
from dealerpoker.server.live.audit import LiveRecords, store_table_rules
from dealerpoker.server.services import Services
from dealerpoker.tables.config import TableConfig

router = APIRouter(tags=["live"], dependencies=[Depends(reject_unknown_query)])


class LiveRoundRecordOut(Open):
    """The player's part of a live round (layout: ``dealerpoker.fairness.live_record``)."""

    record_version: int
    round_id: str
    game: str
    mode: str = Field(description='"table"')
    scope: str = Field(description='"player": your own seat and transfers only')
    table: dict[str, Any] = Field(description='{"id": table id, "number": round number}')
    player_id: str
    opened_at: str
    betting_closed_at: str | None
    settled_at: str
    reveals: list[dict[str, Any]]
    fairness: dict[str, Any]
    deck: list[int]
    dealt: dict[str, list[str]]
    seats: list[dict[str, Any]]
    ledger: list[dict[str, Any]]
    record_digest: str
    signature: dict[str, str] = Field(description='{"algorithm": "ed25519", "key_id", "value"}: the '
                                      "server's signature (GET /api/fairness/public-key)")


class LiveRoundItem(Strict):
    round_id: str = Field(description='"{table}/{number}"')
    table_id: str
    number: int
    game: str
    bets: dict[str, int]
    actions: list[dict[str, Any]] = Field(description="your decisions as in the record: point, action, "
                                          "source, reason, at, stake, txid")
    total_stake: int
    total_returned: int
    net: int
    settlement: dict[str, Any] | None
    settled_at: str
    jurisdiction: str | None = Field(description="the jurisdiction profile you played this seat under "
                                     "(null: rounds from before jurisdictions)")
    record: str = Field(description="the address of your part of the round's audit record")


class LiveRoundsOut(Strict):
    rounds: list[LiveRoundItem]


def _records(request: Request) -> LiveRecords:
    records: LiveRecords = request.app.state.live_records
    return records


_BEFORE = "only rounds settled before this time (the settled_at of the last round of the previous page)"
RecordsDep = Annotated[LiveRecords, Depends(_records)]


@router.get("/api/tables/{table_id}/rounds/{number}/record", response_model=LiveRoundRecordOut,
            responses=error_responses(401, 403, 404, 409, 422))
async def get_live_round_record(
    table_id: Annotated[str, Path(max_length=40)], number: Annotated[int, Path(ge=1, le=2**62)],
    records: RecordsDep, player: PlayerDep, request: Request,
) -> JSONResponse:
    """Your part of a settled live round, signed by the server: the table's seeds, deck, reveals
    and times, your bets, decisions (with time and source), ledger transfers and settlement. 403
    if you had no seat."""
    services: Services = request.app.state.services
    return JSONResponse(services.signer.sign(await records.player_record(player, table_id, number)))


@router.get("/api/live-rounds", response_model=LiveRoundsOut, responses=error_responses(401, 422))
async def live_history(
    records: RecordsDep,
    player: PlayerDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    before: Annotated[str | None, Query(max_length=32, description=_BEFORE)] = None,
) -> JSONResponse:
    """Your settled live rounds, newest first, each with the address of its audit record."""
    return JSONResponse({"rounds": await records.history(player, limit=limit, before=before)})


def install_live_records(app: FastAPI, services: Services, tables: Sequence[TableConfig]) -> None:
    """The routes above, and the tables' rules documents stored at startup (records cite them)."""
    app.state.live_records = LiveRecords(services.database)
    app.include_router(router)

    async def store_rules() -> None:
        await store_table_rules(services.database, tables, services.now())

    services.startup.insert(0, store_rules)
