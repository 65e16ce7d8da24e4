"""The operators' endpoints (``/operator/v1/...``): each request is signed (method, path with
query, timestamp, nonce and body: :mod:`dealerpoker.operator_signature`; ``X-Operator-Id`` names
the operator) and refused with 401, nothing done, when it is not (:data:`SignedByOperator`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from sqlalchemy import select

from dealerpoker.games import GAMES
from dealerpoker.games.currency import UnknownCurrencyError
from dealerpoker.server.api.deps import PlayerDep, ServicesDep, error_responses
from dealerpoker.server.db import Database
from dealerpoker.server.errors import NotFoundError, UnknownParameterError
from dealerpoker.server.jurisdiction import check_launch
from dealerpoker.server.operators.launch import Launch, create_launch_token, launch_url
from dealerpoker.server.operators.reconcile import moment, transactions
from dealerpoker.server.operators.signing import SignedByOperator
from dealerpoker.server.schema import wallet_calls, wallet_transactions
from dealerpoker.server.services import Services

router = APIRouter(prefix="/operator/v1", tags=["operators"])
player_router = APIRouter()


class LaunchIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"allOf": [
        # exactly one of game and table (the other absent or null)
        {"oneOf": [{"required": ["game"],
                    "properties": {"game": {"type": "string"}, "table": {"type": "null"}}},
                   {"required": ["table"],
                    "properties": {"table": {"type": "string"}, "game": {"type": "null"}}}]},
        # real mode (the default) needs the operator's session token
        {"anyOf": [{"required": ["mode"], "properties": {"mode": {"const": "demo"}}},
                   {"required": ["token"], "properties": {"token": {"type": "string"}}}]}]})

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
    jurisdiction: str | None = Field(
        default=None, pattern=r"^[A-Z]{2}(-[A-Z0-9]{1,3})?$",
        description="the player's market: ISO 3166-1 alpha-2 (GB) or ISO 3166-2 (CA-ON); one of "
        "the operator's jurisdictions (none: the deployment's default profile)",
    )
    lobby_url: str | None = Field(default=None, max_length=2000, pattern=r"^https?://")
    cashier_url: str | None = Field(default=None, max_length=2000, pattern=r"^https?://",
                                    description="the casino's cashier: where the page's cashier message "
                                    "sends the player (docs/operators.md#page-events)")

    @model_validator(mode="after")
    def _one_place(self) -> LaunchIn:
        if (self.game is None) == (self.table is None):
            raise ValueError("expected exactly one of game and table")
        if self.mode == "real" and self.token is None:
            raise ValueError("token: the operator's session token is required in real mode")
        return self


SIGNATURE_SCHEME = "operatorSignature"
"""The OpenAPI security scheme of the operators' endpoints (``components.securitySchemes``)."""


def signed_operation(body: type[BaseModel] | None = None, *query: dict[str, Any]) -> dict[str, Any]:
    """What the OpenAPI document says of a signed operator endpoint (its ``openapi_extra``): the
    operators' signature as its security, the JSON body it parses from the signed bytes, and its
    query parameters (the endpoint reads both itself: it must see the exact bytes signed)."""
    extra: dict[str, Any] = {"security": [{SIGNATURE_SCHEME: []}]}
    if body is not None:
        schema = body.model_json_schema(ref_template="#/components/schemas/{model}")
        extra["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    if query:
        extra["parameters"] = list(query)
    return extra


def query_parameter(name: str, description: str, **schema: Any) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": True, "description": description,
            "schema": {"type": "string", **schema}}


def parse(model: type[BaseModel], body: bytes) -> Any:
    """The signed body as ``model`` (a body is required, as the OpenAPI document says: ``{}`` for
    none of its fields), else 422 naming what is wrong."""
    if not body:
        raise RequestValidationError([{"type": "missing", "loc": ("body",), "msg": "Field required",
                                       "input": None}])
    try:
        return model.model_validate_json(body)
    except ValidationError as error:
        raise RequestValidationError(error.errors(include_url=False, include_context=False)) from None


@router.post("/launch", responses=error_responses(401, 403, 404),
             openapi_extra=signed_operation(LaunchIn))
async def launch(request: Request, signed: SignedByOperator) -> JSONResponse:
    """A one-time launch address (valid 60 s, usable once) for one of the operator's players."""
    services: Services = request.app.state.services
    operator = signed.operator
    found: LaunchIn = parse(LaunchIn, signed.body)
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
    assert services.jurisdictions is not None
    market = services.jurisdictions.for_launch(operator, found.jurisdiction)
    check_launch(market, found.currency, found.game, _table_of(request.app, found.table))
    language = found.language
    languages = market.value("languages")
    if languages and language not in languages:
        language = languages[0]  # the market's language (the page offers the others it has)
    entry = Launch(
        operator.id,
        found.player,
        found.currency,
        found.mode,
        found.token,
        found.game,
        found.table,
        language,
        found.lobby_url,
        None if found.jurisdiction is None else market.id,
        found.cashier_url,
    )
    token, expires = await create_launch_token(services.database, entry, now=services.clock())
    return JSONResponse(
        {
            "url": launch_url(services.settings.public_url or "", entry, token),
            "launch_token": token,
            "expires_at": int(expires.timestamp()),
        }
    )


PERIOD_BOUND = {"anyOf": [{"format": "date"}, {"format": "date-time"}]}


@router.get("/transactions", responses=error_responses(401), openapi_extra=signed_operation(
    None, *(query_parameter(name, "YYYY-MM-DD (midnight UTC) or an ISO-8601 time", **PERIOD_BOUND)
            for name in ("since", "until"))))
async def list_transactions(request: Request, signed: SignedByOperator) -> JSONResponse:
    """The operator's wallet transactions created in [since, until) (``YYYY-MM-DD`` or ISO-8601
    times), each with its round, amount, status and attempts, and a summary per currency. The
    signature covers the query string (the path with it); the body is empty."""
    services: Services = request.app.state.services
    operator = signed.operator
    query = request.query_params
    unknown = sorted(set(query) - {"since", "until"})
    if unknown or "since" not in query or "until" not in query:
        raise UnknownParameterError(f"expected the query parameters since and until (got {sorted(query)})")
    since, until = moment(query["since"], "since"), moment(query["until"], "until")
    return JSONResponse(await transactions(services.database, operator.id, since, until))


@router.get("/rounds/wallet", responses=error_responses(401, 404), openapi_extra=signed_operation(
    None, query_parameter("round", "a solo round's id or a live round's table/number",
                          minLength=1, maxLength=80)))
async def operator_round_wallet(request: Request, signed: SignedByOperator) -> JSONResponse:
    """A round's money with this operator's wallet, for the operator (which never holds its
    player's session token): each transaction and each call with its answer, as
    ``GET /api/rounds/{id}/wallet`` gives the player, limited to this operator's players.
    ``?round=`` a solo round's id or a live round's ``table/number``; signed over the path with its
    query."""
    services: Services = request.app.state.services
    query = request.query_params
    if sorted(query) != ["round"] or not 0 < len(query["round"]) <= 80:
        raise UnknownParameterError(f"expected the query parameter round alone (got {sorted(query)})")
    found = await round_wallet(services.database, query["round"], operator_id=signed.operator.id)
    if not found["transactions"]:
        raise NotFoundError(f"no wallet transaction of round {query['round']!r} "
                            f"for operator {signed.operator.id!r}")
    return JSONResponse(found)


class SoftwareVerifyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: str = Field(min_length=2, max_length=256, pattern=r"^(?:[0-9a-fA-F]{2})+$",
                      description="the seed the lab or operator chooses, hex (1 to 128 bytes)")


@router.post("/software/verify", responses=error_responses(401, 404),
             openapi_extra=signed_operation(SoftwareVerifyIn))
async def verify_software(request: Request, signed: SignedByOperator) -> JSONResponse:
    """HMAC-SHA256 under the seed of each critical file of the running installation and over
    the whole manifest (docs/certification.md#software-verification-in-a-deployment), with the
    state of the manifest check it runs at the same time."""
    services: Services = request.app.state.services
    found: SoftwareVerifyIn = parse(SoftwareVerifyIn, signed.body)
    if services.integrity is None:
        raise NotFoundError("this server has no software verification")
    answer = await services.integrity.verify(found.seed)
    return JSONResponse({"operator": signed.operator.id, **answer})


def _table_of(app: Any, table_id: str | None) -> Any:
    """The configuration of live table ``table_id`` (None: a solo launch)."""
    return None if table_id is None else _live_tables(app)[table_id].table


def _live_tables(app: Any) -> Mapping[str, Any]:
    live = getattr(app.state, "live", None)
    return {} if live is None else live.runners


PLAYER_CALL_FIELDS = ("id", "transaction_id", "call", "request", "http_status", "at", "duration_ms")
"""What a player sees of each wallet call of their round: not the wallet's answer (a wallet's raw
answer may hold anything, even what a redirect pointed at; staff see it, bounded)."""


async def round_wallet(database: Database, round_id: str, *, operator_id: str | None = None,
                       staff: bool = True) -> dict[str, Any]:
    """A round's wallet transactions and every call made for them, as kept (the audit record of
    its money with the operator), and whether a credit it owes is still pending (``operator_id``:
    only that operator's players' transactions, as the operator may read them). ``staff=False``
    (the player's view): each call without the wallet's answer."""
    query = select(wallet_transactions).where(wallet_transactions.c.round_id == round_id)
    if operator_id is not None:
        query = query.where(wallet_transactions.c.operator_id == operator_id)
    async with database.reading() as connection:
        found = await connection.execute(query.order_by(wallet_transactions.c.created_at))
        transactions = [dict(row) for row in found.mappings()]
        ids = [row["transaction_id"] for row in transactions]
        calls = []
        if ids:
            found = await connection.execute(
                select(wallet_calls).where(wallet_calls.c.transaction_id.in_(ids)).order_by(wallet_calls.c.id)
            )
            calls = [{**dict(row), "request": json.loads(row["request"])} for row in found.mappings()]
    if not staff:
        calls = [{name: call[name] for name in PLAYER_CALL_FIELDS} for call in calls]
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


@player_router.get("/api/rounds/{round_id}/wallet", tags=["rounds"], responses=error_responses(401, 404))
async def get_round_wallet(round_id: str, services: ServicesDep, player: PlayerDep) -> JSONResponse:
    """The round's money with the operator's wallet: each transaction (its status and last
    outcome) and each call made (not the wallet's answer: staff see that); ``credit_pending``
    while a win it owes is not yet delivered."""
    await services.rounds.get(player, round_id)  # the player's own round
    return JSONResponse(await round_wallet(services.database, round_id, staff=False))
