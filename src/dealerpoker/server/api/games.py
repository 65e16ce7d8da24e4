"""``GET /api/games``: both games with rules, betting fields, limits, chips, paytables and RTPs
(``server/menu.py`` builds each menu's body once)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse

from dealerpoker.server.accounts import bearer_token
from dealerpoker.server.api.deps import ServicesDep, error_responses, reject_unknown_query
from dealerpoker.server.api.models import GamesOut

router = APIRouter(dependencies=[Depends(reject_unknown_query)])


@router.get("/api/games", response_model=GamesOut, responses=error_responses(401, 422), tags=["games"])
async def list_games(
    services: ServicesDep,
    request: Request,
    currency: Annotated[str | None, Query(
        max_length=8, description="limits and chips in this currency "
        "(default: the player's, else the server's default currency)")] = None,
) -> JSONResponse:
    """The games this server deals, as configured (limits and paytables from the rules files, limits
    and chips of the currency asked for). Asked with a session's bearer token (optional), the
    limits and chips that player plays: an operator's player's are their operator's. (The token
    is optional, so the operation declares no security requirement.)"""
    operator = None
    token = bearer_token(request.headers.get("authorization"))
    if token is not None:
        player = await services.session_alive(token)
        player_currency, operator = await services.rounds.games_of(player)
        currency = player_currency if currency is None else currency
    code = services.offer.default_currency if currency is None else currency
    services.offer.currencies[code]
    document = services.games_documents[services.offer.menu_key(code, operator)]
    return JSONResponse({**document, "strategy_hint": services.settings.strategy_hint})
