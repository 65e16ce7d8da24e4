"""The progressive jackpot for players: ``GET /api/jackpot`` (the bet and the pool now) and the
ticker ``/ws/jackpot`` (the pool each time it changes).

The pool is one row in the database that every process changes (``server.jackpot``), so each
process's ticker reads it (once a second, while anyone listens) and sends every listener the new
figure when it moved: the same pool whatever process or table a player is on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from fastapi import APIRouter, Depends, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from dealerpoker.server.api.deps import ServicesDep, error_responses, reject_unknown_query
from dealerpoker.server.jackpot import Jackpot, JackpotNotOfferedError

router = APIRouter(dependencies=[Depends(reject_unknown_query)])
sockets = APIRouter()  # a WebSocket route takes no HTTP query check

TICK_SECONDS = 1.0
"""How often a process's ticker reads the pool while someone listens."""


def pool_document(jackpot: Jackpot, pool: int) -> dict[str, Any]:
    """The pool and the bet as players see them: in the pool's currency and in every currency
    the bet is offered in (at the configured rates, rounded down)."""
    rules = jackpot.rules
    return {
        "type": "jackpot",
        "pool": pool,
        "currency": rules.currency,
        "in_currency": {code: jackpot.to_player(pool, code) for code in rules.currencies},
        "stake": {code: jackpot.stake_in(code) for code in rules.currencies},
        "pool_category": rules.pool_category.slug,
        "awards": {code: {category.slug: jackpot.to_player(amount, code)
                          for category, amount in rules.awards.items()} for code in rules.currencies},
        "seed": rules.seed,
        "contribution": str(rules.contribution),
        "sharing": rules.sharing,
    }


@router.get("/api/jackpot", responses=error_responses(422), tags=["jackpot"])
async def jackpot_now(services: ServicesDep) -> JSONResponse:
    """The progressive jackpot bet (its stake and fixed awards in each currency it is offered in,
    the pool's hand) and the pool now. 422 ``jackpot_not_offered`` when the server offers none."""
    jackpot = _jackpot(services.jackpot)
    return JSONResponse(pool_document(jackpot, await jackpot.amount()))


@sockets.websocket("/ws/jackpot")
async def jackpot_ticker(websocket: WebSocket) -> None:
    """The pool now, then again each time it changes (the ``GET /api/jackpot`` document)."""
    services = websocket.app.state.services
    await websocket.accept()
    if services.jackpot is None:
        await websocket.close(code=4404, reason="this server offers no jackpot bet")
        return
    ticker: Ticker = websocket.app.state.jackpot_ticker
    queue = ticker.listen()
    try:
        receiving = asyncio.create_task(_until_closed(websocket))
        while not receiving.done():
            getting = asyncio.create_task(queue.get())
            done, _ = await asyncio.wait({getting, receiving}, return_when=asyncio.FIRST_COMPLETED)
            if getting in done:
                await websocket.send_text(getting.result())
            else:
                getting.cancel()
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        ticker.leave(queue)


async def _until_closed(websocket: WebSocket) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                return


class Ticker:
    """One reader of the pool per process, and the queues of its listeners."""

    def __init__(self, jackpot: Jackpot) -> None:
        self.jackpot = jackpot
        self._listeners: set[asyncio.Queue[str]] = set()
        self._task: asyncio.Task[None] | None = None
        self._last: str | None = None

    def listen(self) -> asyncio.Queue[str]:
        queue: asyncio.Queue[str] = asyncio.Queue(maxsize=8)
        self._listeners.add(queue)
        if self._last is not None:
            queue.put_nowait(self._last)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())
        return queue

    def leave(self, queue: asyncio.Queue[str]) -> None:
        self._listeners.discard(queue)

    async def _run(self) -> None:
        while self._listeners:
            pool = await self.jackpot.amount()
            text = json.dumps(pool_document(self.jackpot, pool), separators=(",", ":"))
            if text != self._last:
                self._last = text
                for queue in list(self._listeners):
                    if queue.full():  # a listener that does not read gets the newest figure only
                        queue.get_nowait()
                    queue.put_nowait(text)
            await asyncio.sleep(TICK_SECONDS)
        self._task = None

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def _jackpot(jackpot: Jackpot | None) -> Jackpot:
    if jackpot is None:
        raise JackpotNotOfferedError("this server offers no jackpot bet")
    return jackpot
