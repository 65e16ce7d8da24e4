"""The back office's players page: found by id or by operator and the operator's player id;
account, operator, history, responsible gaming, manual adjustments."""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, Field

from dealerpoker.games.money import MAX_AMOUNT
from dealerpoker.server.api.deps import error_responses, reject_unknown_query
from dealerpoker.server.backoffice import player_totals, players, search
from dealerpoker.server.backoffice.deps import PlayerAdjuster, PlayerViewer, services_of
from dealerpoker.server.backoffice.rounds_api import live_games
from dealerpoker.server.errors import NotFoundError

router = APIRouter(prefix="/admin/api", tags=["back office"], dependencies=[Depends(reject_unknown_query)])
HISTORY_KINDS = ("limit", "restriction")
"""The restriction history: every limit, self-exclusion and cool-off set (not the play sessions)."""
PlayerId = Annotated[str, Path(max_length=40, description="the player's id")]


class AdjustmentIn(BaseModel):
    amount: int = Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT, json_schema_extra={"not": {"const": 0}},
                        description="minor units: positive credits the player, negative debits them "
                                    "(at most 2**53 - 1 either way, and the balance after it as well)")
    reason: str = Field(min_length=players.REASON_LENGTH[0], max_length=players.REASON_LENGTH[1],
                        pattern=players.REASON_PATTERN,
                        description="why (mandatory, 3-200 characters, not only blanks; in the audit log)")
    key: str | None = Field(default=None, pattern=players.KEY.pattern,
                            description="idempotency key: the same key again moves nothing")


@router.get("/players", responses=error_responses(401, 403, 404, 422))
async def find_player(
    request: Request, _user: PlayerViewer,
    operator: Annotated[str, Query(min_length=1, max_length=32)],
    operator_player: Annotated[str, Query(min_length=1, max_length=64, description="its operator's id")],
) -> dict[str, Any]:
    """The accounts here of an operator's player (one per currency and mode; 404 for none)."""
    async with services_of(request).database.reading() as connection:
        found = await players.of_operator(connection, operator, operator_player)
    if not found:
        raise NotFoundError(f"operator {operator!r} has no player {operator_player!r} here")
    return {"operator": operator, "operator_player": operator_player, "accounts": found}


@router.get("/players/{player_id}", responses=error_responses(401, 403, 404))
async def player_page(player_id: PlayerId, request: Request, _user: PlayerViewer) -> dict[str, Any]:
    """A player's balance, operator (None: an embedded demo player), totals (today, 7 and 30
    days, lifetime: rounds, staked, returned, net, GGR, sessions, misdeals; and rounds open), newest rounds,
    responsible-gaming limits and restriction, their history (each change's who, when, before and
    after, newest first; ``rg_events``) and manual adjustments."""
    services = services_of(request)
    async with services.database.reading() as connection:
        found = await players.account(connection, player_id)
        rounds = await search.search(connection, search.RoundQuery(player_id=player_id, limit=20),
                                     live_games(request))
        adjusted = await players.adjustments(connection, player_id)
        operator = await players.operator_of(connection, player_id)
        summed = await player_totals.totals(connection, player_id, services.clock())
    return {"account": found, "operator": operator, "rounds": rounds, "adjustments": adjusted,
            "totals": summed,
            "responsible_gaming": await services.responsible.status(player_id),
            "restriction_history": await services.responsible.events(player_id, kinds=HISTORY_KINDS)}


@router.post("/players/{player_id}/adjustments", responses=error_responses(401, 403, 404, 422))
async def adjust(player_id: PlayerId, body: AdjustmentIn, request: Request,
                 user: PlayerAdjuster) -> dict[str, Any]:
    """An admin's manual adjustment of the player's balance (a ledger transfer, memo
    ``adjustment``), with its reason in the admin audit log."""
    services = services_of(request)
    async with services.database.transaction(lock_account=player_id) as connection:
        return await players.adjust(connection, player_id, body.amount, body.reason,
                                    key=body.key or secrets.token_hex(8), actor=user.name, at=services.now())
