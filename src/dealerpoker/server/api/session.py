"""``POST /api/session`` (a demo player and its token), ``POST /api/session/logout`` and
``/revoke-all`` (``server.sessions``), ``GET /api/balance``, ``GET /healthz``."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from sqlalchemy import text

from dealerpoker.server.api.deps import (
    PlayerDep,
    ServicesDep,
    TokenDep,
    error_responses,
    reject_unknown_query,
)
from dealerpoker.server.api.models import BalanceOut, EndedOut, SessionIn, SessionOut
from dealerpoker.server.errors import UnknownParameterError
from dealerpoker.server.operators.launch import redeem

router = APIRouter(dependencies=[Depends(reject_unknown_query)])


@router.post("/api/session", response_model=SessionOut, responses=error_responses(400, 401, 422),
             tags=["players"])
async def create_session(services: ServicesDep, body: SessionIn | None = None) -> SessionOut:
    """A new demo player with the configured starting balance, in the currency asked for (default:
    the server's default currency). Keep the token: it is shown once. With ``launch`` (an
    operator's one-time launch token): a session of that operator's player instead."""
    if body is not None and body.launch is not None:
        if body.currency is not None:
            raise UnknownParameterError("currency: a launched session plays in the launch's currency")
        launched = await redeem(services.database, body.launch, now=services.clock(),
                                starting_balance=services.starting_balance,
                                new_client_seed=services.new_client_seed)
        amount, currency = await services.rounds.account(launched.player_id)
        operator = services.operators.get(launched.launch.operator_id)
        return SessionOut(token=launched.token, player_id=launched.player_id, balance=amount,
                          currency=currency, lobby_url=launched.launch.lobby_url,
                          cashier_url=launched.launch.cashier_url,
                          frame_origins=[] if operator is None else list(operator.frame_ancestors))
    player = await services.create_player(None if body is None else body.currency)
    return SessionOut(token=player.token, player_id=player.player_id, balance=player.balance,
                      currency=player.currency)


@router.post("/api/session/logout", response_model=EndedOut, responses=error_responses(401), tags=["players"])
async def logout(services: ServicesDep, token: TokenDep) -> EndedOut:
    """End this session: its token is refused from now on (401, ``reason`` ``ended``)."""
    assert services.sessions is not None
    return EndedOut(ended=await services.sessions.end(token))


@router.post("/api/session/revoke-all", response_model=EndedOut, responses=error_responses(401),
             tags=["players"])
async def revoke_all(services: ServicesDep, player: PlayerDep) -> EndedOut:
    """End every session of your player, this one included (a token you lost, another device)."""
    assert services.sessions is not None
    return EndedOut(ended=await services.sessions.end_all(player))


@router.get("/api/balance", response_model=BalanceOut, responses=error_responses(401), tags=["players"])
async def balance(services: ServicesDep, player: PlayerDep) -> BalanceOut:
    amount, currency = await services.rounds.account(player)
    return BalanceOut(balance=amount, currency=currency)


@router.get("/healthz", tags=["operations"])
async def healthz(services: ServicesDep) -> JSONResponse:
    """Liveness, database reachability and the software verification (``software``: ``state`` ok,
    mismatch -- play halted, the files named -- or unverified, a development checkout); 503
    ``draining`` once the process was asked to stop (``server.draining``): send players elsewhere."""
    if services.drain.begun:
        return JSONResponse({"status": "draining"}, status_code=503)
    async with services.database.transaction() as connection:
        await connection.execute(text("SELECT 1"))
    integrity = services.integrity
    if integrity is None:
        return JSONResponse({"status": "ok"})
    software = integrity.health()
    halted = software["state"] == "mismatch"
    return JSONResponse({"status": "halted" if halted else "ok", "software": software},
                        status_code=503 if halted else 200)
