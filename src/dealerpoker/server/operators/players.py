"""An operator's say over its players' play (issue 17), signed like every operator request:
``POST /operator/v1/players/{player}/restrictions`` puts a player on a self-exclusion or a cool-off
(or lifts it), ``PUT /operator/v1/players/{player}/limits`` sets the operator's limits (they apply
at once, raised or lowered; the player's own limits still hold beside them).

``player`` is the operator's own id of its player; the restriction and the limits apply to every
account that player has here (each currency, real or demo). A restricted player's open round
still completes; no new round opens (``403 responsible_gaming``, reason ``self_exclusion`` or
``cool_off``) and no live table takes their bets.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator
from sqlalchemy import select

from dealerpoker.server.api.deps import error_responses
from dealerpoker.server.api.models import Integer
from dealerpoker.server.api.responsible import LimitsIn
from dealerpoker.server.errors import NotFoundError
from dealerpoker.server.operators.api import parse, signed_operation
from dealerpoker.server.operators.signing import SignedByOperator, SignedRequest
from dealerpoker.server.schema import operator_players
from dealerpoker.server.services import Services

router = APIRouter(prefix="/operator/v1/players", tags=["operators"])


class RestrictionIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "not": {"required": ["until", "hours"],  # not both an end and a length
                "properties": {"until": {"type": "string"}, "hours": {"type": "integer"}}}})

    kind: Literal["self_exclusion", "cool_off", "none"] = Field(
        description='"none" lifts the restriction in force')
    until: AwareDatetime | None = Field(default=None, strict=True,  # a text, never a number of seconds
                                        description="when it ends (ISO-8601 with a zone), in the future")
    hours: Integer | None = Field(default=None, ge=1, le=24 * 365 * 10, description="or: how long from now")
    reason: str | None = Field(default=None, max_length=200)

    @model_validator(mode="after")
    def _one_end(self) -> RestrictionIn:
        if self.until is not None and self.hours is not None:
            raise ValueError("expected at most one of until and hours")
        return self


async def accounts_of(services: Services, operator_id: str, player: str) -> list[dict[str, Any]]:
    """Every account of the operator's ``player`` here (404 when it was never launched)."""
    async with services.database.reading() as connection:
        found = await connection.execute(
            select(operator_players.c.player_id, operator_players.c.currency, operator_players.c.mode)
            .where(operator_players.c.operator_id == operator_id, operator_players.c.external_id == player)
            .order_by(operator_players.c.currency, operator_players.c.mode))
        rows = [dict(row) for row in found.mappings()]
    if not rows:
        raise NotFoundError(f"player {player!r}: operator {operator_id} has launched no such player here")
    return rows


async def _signed(request: Request, signed: SignedRequest, model: type[BaseModel], player: str
                  ) -> tuple[Services, str, Any, list[dict[str, Any]]]:
    """A signed request about ``player``: the services, who signed it, its body and the accounts."""
    services: Services = request.app.state.services
    operator = signed.operator
    found = parse(model, signed.body)
    return services, f"operator:{operator.id}", found, await accounts_of(services, operator.id, player)


@router.post("/{player}/restrictions", responses=error_responses(401, 404),
             openapi_extra=signed_operation(RestrictionIn))
async def restrict(player: str, request: Request, signed: SignedByOperator) -> JSONResponse:
    """Self-exclusion or cool-off of the operator's player (every account of it), or its end."""
    services, by, found, accounts = await _signed(request, signed, RestrictionIn, player)
    until: datetime | None = found.until
    if found.hours is not None:
        until = services.clock() + timedelta(hours=found.hours)
    restriction = None
    for account in accounts:
        restriction = await services.responsible.restrict(
            account["player_id"], found.kind, until, by=by, reason=found.reason)
    return JSONResponse({"player": player, "accounts": accounts, "restriction": restriction})


@router.put("/{player}/limits", responses=error_responses(401, 404), openapi_extra=signed_operation(LimitsIn))
async def set_limits(player: str, request: Request, signed: SignedByOperator) -> JSONResponse:
    """The operator's limits for its player (every account; amounts in each account's currency)."""
    services, by, found, accounts = await _signed(request, signed, LimitsIn, player)
    changes = {name: getattr(found, name) for name in found.model_fields_set}
    for account in accounts:
        await services.responsible.set_limits(account["player_id"], changes, source="operator", by=by)
        account["limits"] = (await services.responsible.status(account["player_id"]))["limits"]
    return JSONResponse({"player": player, "accounts": accounts})
