"""Solo rounds: open, act, show, history."""

from __future__ import annotations

import json
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse, Response

from dealerpoker.server.api.deps import PlayerDep, ServicesDep, error_responses, reject_unknown_query
from dealerpoker.server.api.models import ActionIn, ReplayOut, RoundIn, RoundsOut, RoundView
from dealerpoker.server.operators.api import round_wallet
from dealerpoker.server.operators.wallet import is_remote

router = APIRouter(tags=["rounds"], dependencies=[Depends(reject_unknown_query)])


def json_response(text: str) -> Response:
    """A JSON body the round service already rendered (the view it stored with the round)."""
    return Response(text, media_type="application/json")


RoundId = Annotated[str, Path(max_length=40, description="the round's id")]


@router.post("/api/rounds", response_model=RoundView, responses=error_responses())
async def open_round(body: RoundIn, services: ServicesDep, player: PlayerDep) -> Response:
    """Place the opening bets and deal. The stakes are debited before any card is dealt."""
    return json_response(await services.rounds.open_round(player, body.game, body.bets, body.idempotency_key,
                                                          body.free_round, jackpot=body.jackpot))


@router.post("/api/rounds/{round_id}/actions", response_model=RoundView, responses=error_responses())
async def act(round_id: RoundId, body: ActionIn, services: ServicesDep, player: PlayerDep) -> Response:
    """The player's decision. Its stake is debited before the next card is revealed."""
    return json_response(await services.rounds.act(player, round_id, body.action, step=body.step))


@router.get("/api/rounds/{round_id}", response_model=RoundView, responses=error_responses(401, 403, 404, 422))
async def get_round(round_id: RoundId, services: ServicesDep, player: PlayerDep) -> Response:
    """The round's view. An operator's real-money player's round also tells its wallet's state:
    ``wallet.credit_pending`` while a win it owes has not reached the operator yet."""
    view = await services.rounds.get(player, round_id)
    if services.operators and is_remote(player):
        found = await round_wallet(services.database, round_id)
        return JSONResponse({**json.loads(view), "wallet": {"credit_pending": found["credit_pending"],
                                                            "pending": found["pending"]}})
    return json_response(view)


@router.get("/api/rounds/{round_id}/replay", response_model=ReplayOut,
            responses=error_responses(401, 403, 404, 422))
async def replay(round_id: RoundId, services: ServicesDep, player: PlayerDep) -> Response:
    """Every step of the round again: the player's view of the table after each step (history replay)."""
    return JSONResponse(await services.rounds.replay(player, round_id))


@router.get("/api/rounds", response_model=RoundsOut, responses=error_responses(401, 403, 404, 422))
async def history(
    services: ServicesDep,
    player: PlayerDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    before: Annotated[str | None, Query(max_length=40, description="a round id: only older rounds")] = None,
    status: Annotated[Literal["open", "settled"] | None, Query()] = None,
) -> Response:
    """The player's rounds, newest first, each with every step. ``status=open``: rounds to finish."""
    views = await services.rounds.history(player, limit=limit, before=before, status=status)
    return json_response('{"rounds":[' + ",".join(views) + "]}")
