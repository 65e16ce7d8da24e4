"""Responsible gaming for the player: their limits, session and reality check, and a break.

``GET /api/responsible-gaming`` (what applies now), ``PUT /api/responsible-gaming/limits``
(a lower limit applies at once, a higher one after the profile's cooling-off),
``POST /api/responsible-gaming/reality-check`` (continue or leave), ``POST
/api/responsible-gaming/break`` (a cool-off the player cannot shorten). The operator's side
(limits and restrictions it sets) is in the operator API.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from pydantic import Field

from dealerpoker.server.api.deps import PlayerDep, ServicesDep, error_responses, reject_unknown_query
from dealerpoker.server.api.models import Integer, Strict

router = APIRouter(tags=["responsible gaming"], dependencies=[Depends(reject_unknown_query)])

_LIMIT = Field(default=None, ge=1, description="minor units of your currency; null: no limit")


class LimitsIn(Strict):
    """Only the limits named change; null removes one (after the cooling-off, as a raise does)."""

    model_config = Strict.model_config | {"extra": "forbid"}
    loss_day: Integer | None = _LIMIT
    loss_session: Integer | None = _LIMIT
    stake_day: Integer | None = _LIMIT
    stake_session: Integer | None = _LIMIT
    session_minutes: Integer | None = Field(default=None, ge=1, le=1440,
                                              description="minutes of play per session; null: no limit")


class RealityCheckIn(Strict):
    choice: Literal["continue", "leave"]


class BreakIn(Strict):
    hours: Integer = Field(ge=1, le=24 * 365,
                             description="no bets for this many hours (cannot be shortened)")


class StatusOut(Strict):
    model_config = Strict.model_config | {"extra": "allow"}
    currency: str
    profile: dict[str, Any]
    limits: dict[str, Any]
    restriction: dict[str, Any] | None
    session: dict[str, Any]
    day: dict[str, Any]
    server_time: str


@router.get("/api/responsible-gaming", response_model=StatusOut, responses=error_responses(401))
async def status(services: ServicesDep, player: PlayerDep) -> JSONResponse:
    """Your limits (yours, your operator's, what applies, raises waiting for their cooling-off), a
    restriction in force, and this play session: its time, stakes, net and next reality check."""
    return JSONResponse(await services.responsible.status(player))


@router.put("/api/responsible-gaming/limits", response_model=StatusOut, responses=error_responses(401))
async def set_limits(body: LimitsIn, services: ServicesDep, player: PlayerDep) -> JSONResponse:
    """Set your limits: lower ones apply at once, higher ones (or none) after the cooling-off."""
    changes = {name: getattr(body, name) for name in body.model_fields_set}
    await services.responsible.set_limits(player, changes, source="player", by="player")
    return JSONResponse(await services.responsible.status(player))


@router.post("/api/responsible-gaming/reality-check", response_model=StatusOut,
             responses=error_responses(401))
async def reality_check(body: RealityCheckIn, services: ServicesDep, player: PlayerDep) -> JSONResponse:
    """Answer the reality check: "continue" plays on until the next one; "leave" is recorded."""
    await services.responsible.answer_reality_check(player, body.choice)
    return JSONResponse(await services.responsible.status(player))


@router.post("/api/responsible-gaming/break", response_model=StatusOut, responses=error_responses(401))
async def take_break(body: BreakIn, services: ServicesDep, player: PlayerDep) -> JSONResponse:
    """Take a break: no bets for ``hours``. It cannot be shortened (a longer one replaces it)."""
    await services.responsible.take_break(player, body.hours)
    return JSONResponse(await services.responsible.status(player))
