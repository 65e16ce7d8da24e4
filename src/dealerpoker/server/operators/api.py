"""The operators' endpoints (``/operator/v1/...``): each request is signed (``X-Signature``, the
hex HMAC-SHA256 of the raw body; ``X-Operator-Id`` names the operator) and refused with 401,
nothing done, when it is not."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from sqlalchemy import select

from dealerpoker.games import GAMES
from dealerpoker.games.currency import UnknownCurrencyError
from dealerpoker.server.api.deps import PlayerDep, ServicesDep
from dealerpoker.server.db import Database
from dealerpoker.server.errors import NotFoundError, UnknownParameterError
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.operators.launch import Launch, create_launch_token, launch_url
from dealerpoker.server.operators.reconcile import moment, transactions
from dealerpoker.server.operators.signing import OPERATOR_HEADER, SIGNATURE_HEADER, SignatureError, verify
from dealerpoker.server.schema import wallet_calls, wallet_transactions
from dealerpoker.server.services import Services

router = APIRouter(prefix="/operator/v1", tags=["operators"])
player_router = APIRouter()


class LaunchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player: str = Field(min_length=1, max_length=64, description="the operator's id of its player")
    currency: str = Field(min_length=1, max_length=8)
    mode: Literal["real", "demo"] = "real"
    token: str | None = Field(
        default=None,
        min_length=1,
        max_length=512,
        description="the operator's session token (sent back in each wallet call)",
    )
    game: str | None = Field(
        default=None, max_length=32, description="a solo game: texas-bonus or casino-holdem"
    )
    table: str | None = Field(default=None, max_length=40, description="a live table's id")
    language: str | None = Field(default=None, max_length=16)
    lobby_url: str | None = Field(default=None, max_length=2000, pattern=r"^https?://")

    @model_validator(mode="after")
    def _one_place(self) -> LaunchIn:
        if (self.game is None) == (self.table is None):
            raise ValueError("expected exactly one of game and table")
        if self.mode == "real" and self.token is None:
            raise ValueError("token: the operator's session token is required in real mode")
        return self


def operator_of(services: Services, request: Request, body: bytes) -> Operator:
    """The operator a request is from, once its signature checks (else 401)."""
    operator = services.operators.get(request.headers.get(OPERATOR_HEADER, ""))
    if operator is None:
        raise SignatureError(f"unknown or missing {OPERATOR_HEADER}")
    if not verify(operator.secret, body, request.headers.get(SIGNATURE_HEADER)):
        raise SignatureError(
            f"missing or wrong {SIGNATURE_HEADER}: expected the hex HMAC-SHA256 of the "
            "raw body under the operator's secret"
        )
    return operator


def parse(model: type[BaseModel], body: bytes) -> Any:
    try:
        return model.model_validate_json(body or b"{}")
    except ValidationError as error:
        raise RequestValidationError(error.errors(include_url=False, include_context=False)) from None


@router.post("/launch")
async def launch(request: Request) -> JSONResponse:
    """A one-time launch address (valid 60 s, usable once) for one of the operator's players."""
    services: Services = request.app.state.services
    body = await request.body()
    operator = operator_of(services, request, body)
    found: LaunchIn = parse(LaunchIn, body)
    if found.currency not in operator.currencies:
        raise UnknownCurrencyError(
            f"currency {found.currency!r}: not one of operator {operator.id}'s "
            f"currencies ({', '.join(operator.currencies)})"
        )
    services.offer.currencies[found.currency]  # offered here (checked at start as well)
    if found.game is not None and found.game not in GAMES:
        raise NotFoundError(f"game {found.game!r}: unknown (games: {', '.join(GAMES)})")
    if found.table is not None:
        tables = _live_tables(request.app)
        if found.table not in tables:
            raise NotFoundError(f"table {found.table!r}: no such live table (tables: {', '.join(tables)})")
    entry = Launch(
        operator.id,
        found.player,
        found.currency,
        found.mode,
        found.token,
        found.game,
        found.table,
        found.language,
        found.lobby_url,
    )
    token, expires = await create_launch_token(services.database, entry, now=services.clock())
    return JSONResponse(
        {
            "url": launch_url(str(request.base_url), entry, token),
            "launch_token": token,
            "expires_at": int(expires.timestamp()),
        }
    )


@router.get("/transactions")
async def list_transactions(request: Request) -> JSONResponse:
    """The operator's wallet transactions created in [since, until) (``YYYY-MM-DD`` or ISO-8601
    times), each with its round, amount, status and attempts, and a summary per currency. A GET has
    no body: ``X-Signature`` signs its raw query string (``since=...&until=...``)."""
    services: Services = request.app.state.services
    operator = operator_of(services, request, request.url.query.encode())
    query = request.query_params
    unknown = sorted(set(query) - {"since", "until"})
    if unknown or "since" not in query or "until" not in query:
        raise UnknownParameterError(f"expected the query parameters since and until (got {sorted(query)})")
    since, until = moment(query["since"], "since"), moment(query["until"], "until")
    return JSONResponse(await transactions(services.database, operator.id, since, until))


def _live_tables(app: Any) -> Mapping[str, Any]:
    live = getattr(app.state, "live", None)
    return {} if live is None else live.runners


def install_operators_api(app: FastAPI, services: Services) -> None:
    """The ``/operator/v1`` routes, when the server has operators."""
    if services.operators:
        from dealerpoker.server.operators.players import router as players_router  # it imports this module

        app.include_router(router)
        app.include_router(players_router)
        app.include_router(player_router)


async def round_wallet(database: Database, round_id: str) -> dict[str, Any]:
    """A round's wallet transactions and every call made for them, as kept (the audit record of
    its money with the operator), and whether a credit it owes is still pending."""
    async with database.reading() as connection:
        found = await connection.execute(
            select(wallet_transactions)
            .where(wallet_transactions.c.round_id == round_id)
            .order_by(wallet_transactions.c.created_at)
        )
        transactions = [dict(row) for row in found.mappings()]
        ids = [row["transaction_id"] for row in transactions]
        calls = []
        if ids:
            found = await connection.execute(
                select(wallet_calls).where(wallet_calls.c.transaction_id.in_(ids)).order_by(wallet_calls.c.id)
            )
            calls = [{**dict(row), "request": json.loads(row["request"])} for row in found.mappings()]
    pending = [
        row["transaction_id"] for row in transactions if row["kind"] == "win" and row["status"] == "pending"
    ]
    return {
        "round": round_id,
        "credit_pending": bool(pending),
        "pending": pending,
        "transactions": transactions,
        "calls": calls,
    }


@player_router.get("/api/rounds/{round_id}/wallet", tags=["rounds"])
async def get_round_wallet(round_id: str, services: ServicesDep, player: PlayerDep) -> JSONResponse:
    """The round's money with the operator's wallet: each transaction and each call with its
    answer; ``credit_pending`` while a win it owes is not yet delivered."""
    await services.rounds.get(player, round_id)  # the player's own round
    return JSONResponse(await round_wallet(services.database, round_id))
