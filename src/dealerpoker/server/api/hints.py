"""The strategy hint of a solo round (``server.hints``): refused unless the deployment offers it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse

from dealerpoker.server.api.deps import PlayerDep, ServicesDep, error_responses, reject_unknown_query
from dealerpoker.server.hints import HintOffError, Hints
from dealerpoker.server.services import Services

router = APIRouter(tags=["rounds"], dependencies=[Depends(reject_unknown_query)])


def hints_of(request: Request) -> Hints:
    found: Hints | None = getattr(request.app.state, "hints", None)
    if found is None:
        found = request.app.state.hints = Hints(request.app.state.services.analysis_cache)
    return found


async def check_hint_offered(services: Services, player: str) -> None:
    """Refuse the hint unless the deployment offers it (``403 hint_off``) and the player's
    jurisdiction allows it (``403 jurisdiction``, rule ``strategy_hint``)."""
    if not services.settings.strategy_hint:
        raise HintOffError(key="error.hint.off")
    if services.jurisdictions is not None:
        market = await services.jurisdictions.of(player)
        services.jurisdictions.refuse_unless(bool(market.value("strategy_hint")), market, "strategy_hint",
                                             "the strategy hint is not offered")


@router.get("/api/rounds/{round_id}/advice", responses=error_responses(401, 403, 404, 409, 422))
async def advice(round_id: Annotated[str, Path(max_length=40, description="the round's id")],
                 request: Request, services: ServicesDep, player: PlayerDep) -> Any:
    """The best decision at the round's open decision and the exact EV (per unit ante, whole
    round) of each choice, from the cards the player sees; ``403 hint_off`` unless the server
    offers the hint (``serve --strategy-hint``), ``409 no_decision`` once the round is settled."""
    await check_hint_offered(services, player)
    view, rules = await services.rounds.decision(player, round_id)
    return JSONResponse(await hints_of(request).advice(round_id, view, rules))
