"""Free bets over the operators' API (each request signed: :data:`SignedByOperator`) and the
player's free rounds (``GET /api/free-rounds``): docs/operators.md#free-bets."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from dealerpoker.games import GAMES
from dealerpoker.games.currency import UnknownCurrencyError
from dealerpoker.games.money import MAX_AMOUNT
from dealerpoker.games.rules import GameId
from dealerpoker.server.api.deps import PlayerDep, ServicesDep, error_responses
from dealerpoker.server.clock import timestamp
from dealerpoker.server.errors import UnknownParameterError
from dealerpoker.server.operators.api import parse, signed_operation
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.operators.signing import SignedByOperator
from dealerpoker.server.promotions import ANTE_FIELD, MAX_ROUNDS, CampaignIn, Promotions
from dealerpoker.server.services import Services

router = APIRouter(prefix="/operator/v1/campaigns", tags=["operators"])
player_router = APIRouter()

Amounts = Annotated[dict[str, Annotated[int, Field(ge=1, le=MAX_AMOUNT)]], Field(min_length=1)]
PlayerId = Annotated[str, Field(min_length=1, max_length=64)]


class CampaignBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    campaign_id: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9._:-]+$",
                             description="the operator's id of the campaign: its idempotency id")
    name: str | None = Field(default=None, max_length=200)
    games: list[GameId] = Field(min_length=1, max_length=len(GAMES), json_schema_extra={"uniqueItems": True})
    ante: Amounts = Field(description="currency -> the free ante in minor units")
    rounds: int = Field(ge=1, le=MAX_ROUNDS, description="free rounds per player")
    valid_from: datetime
    valid_until: datetime
    max_win: Amounts | None = Field(default=None, description="currency -> the most a player may win with "
                                    "the campaign's free rounds (minor units); none: no cap")

    @field_validator("games")
    @classmethod
    def _games(cls, games: list[str]) -> list[str]:
        unknown = [game for game in games if game not in GAMES]
        if unknown or len(set(games)) != len(games):
            raise ValueError(f"expected distinct games among {', '.join(GAMES)}, got {games}")
        return games

    @field_validator("ante", "max_win")
    @classmethod
    def _amounts(cls, amounts: Amounts | None) -> Amounts | None:
        if amounts is None:
            return None
        if not amounts:
            raise ValueError("expected at least one currency")
        for currency, amount in amounts.items():
            if isinstance(amount, bool) or not 1 <= amount <= MAX_AMOUNT:
                raise ValueError(f"{currency}: expected minor units 1..{MAX_AMOUNT}, got {amount!r}")
        return amounts

    @field_validator("valid_from", "valid_until", mode="before")
    @classmethod
    def _text(cls, moment: Any) -> Any:
        """A moment is a text, as the schema says (pydantic alone reads a number as Unix time)."""
        if not isinstance(moment, str):
            raise ValueError(f"expected an ISO-8601 time with its zone as a string, got {moment!r}")
        return moment

    @field_validator("valid_from", "valid_until")
    @classmethod
    def _zoned(cls, moment: datetime) -> datetime:
        if moment.tzinfo is None:
            raise ValueError("expected an ISO-8601 time with its zone (e.g. 2026-12-24T00:00:00Z)")
        return moment.astimezone(UTC)

    @model_validator(mode="after")
    def _window(self) -> CampaignBody:
        if self.valid_until <= self.valid_from:
            raise ValueError("valid_until: must be after valid_from")
        if self.max_win is not None and set(self.max_win) - set(self.ante):
            extra = sorted(set(self.max_win) - set(self.ante))
            raise ValueError(f"max_win: currencies without an ante: {extra}")
        return self


class GrantIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    players: list[PlayerId] = Field(min_length=1, max_length=1000,
                               description="the operator's ids of the players the campaign is granted to")

    @field_validator("players")
    @classmethod
    def _ids(cls, players: list[str]) -> list[str]:
        bad = [p for p in players if not isinstance(p, str) or not 1 <= len(p) <= 64]
        if bad:
            raise ValueError(f"expected player ids of 1 to 64 characters, got {bad[:3]}")
        return players


def _promotions(request: Request) -> tuple[Services, Promotions]:
    services: Services = request.app.state.services
    assert services.promotions is not None
    return services, services.promotions


def _check_offered(services: Services, operator: Operator, body: CampaignBody) -> None:
    """Each free ante a bet the operator's players may place in each game (its currency one of
    the operator's, within the game's ante limits for them)."""
    for currency, ante in body.ante.items():
        if currency not in operator.currencies:
            raise UnknownCurrencyError(f"ante: currency {currency!r} is not one of operator {operator.id}'s "
                                       f"currencies ({', '.join(operator.currencies)})")
        for game in body.games:
            services.offer.game(game, currency, operator.id).validate_bets({ANTE_FIELD: ante})


@router.post("", responses={201: {"description": "the campaign, created now"}, **error_responses(401, 409)},
             openapi_extra=signed_operation(CampaignBody))
async def create_campaign(request: Request, signed: SignedByOperator) -> JSONResponse:
    """A free-bet campaign, created once per ``campaign_id``: sent again with the same body it
    answers the first (200), with another body it is refused (409); created now: 201."""
    services, promotions = _promotions(request)
    body: CampaignBody = parse(CampaignBody, signed.body)
    _check_offered(services, signed.operator, body)
    found, created = await promotions.create(signed.operator.id, CampaignIn(
        body.campaign_id, tuple(body.games), body.ante, body.rounds, timestamp(body.valid_from),
        timestamp(body.valid_until), body.max_win, body.name), signed.body)
    return JSONResponse(found, status_code=201 if created else 200)


@router.get("", responses=error_responses(401), openapi_extra=signed_operation())
async def list_campaigns(request: Request, signed: SignedByOperator) -> JSONResponse:
    """The operator's campaigns, newest first (``?status=active|cancelled``), with their use."""
    _, promotions = _promotions(request)
    status = request.query_params.get("status")
    if set(request.query_params) - {"status"} or status not in (None, "active", "cancelled"):
        raise UnknownParameterError(
            f"expected only ?status=active or ?status=cancelled, got {dict(request.query_params)}")
    return JSONResponse({"campaigns": await promotions.campaigns(signed.operator.id, status=status)})


@router.get("/{campaign_id}", responses=error_responses(401, 404), openapi_extra=signed_operation())
async def get_campaign(campaign_id: str, request: Request, signed: SignedByOperator) -> JSONResponse:
    """A campaign and every player's reward of it (rounds granted, used, left)."""
    _, promotions = _promotions(request)
    campaign = await promotions.campaign(signed.operator.id, campaign_id)
    return JSONResponse({**campaign, "rewards": await promotions.rewards(signed.operator.id, campaign_id)})


@router.post("/{campaign_id}/grants", responses=error_responses(401, 404, 409),
             openapi_extra=signed_operation(GrantIn))
async def grant(campaign_id: str, request: Request, signed: SignedByOperator) -> JSONResponse:
    """Grant the campaign to players (a player granted before keeps their reward)."""
    _, promotions = _promotions(request)
    found: GrantIn = parse(GrantIn, signed.body)
    return JSONResponse({"rewards": await promotions.grant(signed.operator.id, campaign_id, found.players)})


@router.post("/{campaign_id}/cancel", responses=error_responses(401, 404),
             openapi_extra=signed_operation())
async def cancel(campaign_id: str, request: Request, signed: SignedByOperator) -> JSONResponse:
    """No free round of the campaign opens from now on (one already open is played out)."""
    _, promotions = _promotions(request)
    return JSONResponse(await promotions.cancel(signed.operator.id, campaign_id))


@player_router.get("/api/free-rounds", tags=["rounds"], responses=error_responses(401))
async def free_rounds(services: ServicesDep, player: PlayerDep,
                      game: Annotated[GameId | None, Query()] = None,
                      ) -> JSONResponse:
    """The player's free rounds playable now (in their currency; ``?game=`` of one game): each
    with its reward id (``free_round`` when opening a round), ante, rounds left and end."""
    promotions = services.promotions
    found: list[dict[str, Any]] = [] if promotions is None else await promotions.offers(player, game)
    return JSONResponse({"free_rounds": found})
