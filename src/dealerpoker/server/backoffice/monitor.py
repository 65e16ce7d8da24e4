"""The back office's live monitor: every live table's phase, round, players seated and betting,
stakes in play and the last rounds' house result, updated live through the tables' fan-out
(``/admin/ws/tables/{id}``: the public table messages everyone at the table gets, never a hidden
card); an admin pauses a table after the current round, resumes or closes it, and sets the
timers of the next rounds (``live.controls``; audited)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import replace
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request, WebSocket
from pydantic import BaseModel, Field
from sqlalchemy import and_, func, select

from dealerpoker.server.api.deps import error_responses, reject_unknown_query
from dealerpoker.server.backoffice import audit, staff
from dealerpoker.server.backoffice.access import allowed
from dealerpoker.server.backoffice.deps import COOKIE, MonitorViewer, TableController, services_of
from dealerpoker.server.db import Connection
from dealerpoker.server.errors import NotFoundError
from dealerpoker.server.live import controls
from dealerpoker.server.live.dealer import DEALER
from dealerpoker.server.live.hub import Connection as Watcher
from dealerpoker.server.live.runner import TableControl, TableRunner
from dealerpoker.server.schema import live_rounds, live_seats
from dealerpoker.server.services import Services

router = APIRouter(prefix="/admin/api", tags=["back office"], dependencies=[Depends(reject_unknown_query)])
TableId = Annotated[str, Path(max_length=40)]
LAST_RESULTS = 5
MONITOR = "@monitor"  # the hub id of back-office watchers: no player's id (players' ids are p_...)


class StatusIn(BaseModel):
    status: Literal["open", "paused", "closed"] = Field(
        description="open (resume), paused (after the current round) or closed")


class TimersIn(BaseModel):
    betting_seconds: float | None = None
    decision_seconds: float | None = None
    pause_seconds: float | None = None


def _runners(request: Request | WebSocket) -> dict[str, TableRunner]:
    live = getattr(request.app.state, "live", None)
    return {} if live is None else dict(live.runners)


def _runner(request: Request, table_id: str) -> TableRunner:
    runner = _runners(request).get(table_id)
    if runner is None:
        raise NotFoundError(f"no live table {table_id!r}")
    return runner


async def house_results(connection: Connection, table_id: str,
                        limit: int = LAST_RESULTS) -> list[dict[str, Any]]:
    """The house's result (stakes less returns) of the table's last settled rounds, newest first."""
    last = (select(live_rounds.c.number, live_rounds.c.settled_at)
            .where(live_rounds.c.table_id == table_id, live_rounds.c.settled_at.is_not(None))
            .order_by(live_rounds.c.number.desc()).limit(limit)).subquery()
    rows = await connection.execute(
        select(last.c.number, last.c.settled_at, func.count(live_seats.c.player_id),
               func.coalesce(func.sum(live_seats.c.total_stake), 0),
               func.coalesce(func.sum(live_seats.c.total_returned), 0))
        .select_from(last.outerjoin(live_seats, and_(live_seats.c.table_id == table_id,
                                                     live_seats.c.number == last.c.number)))
        .group_by(last.c.number, last.c.settled_at).order_by(last.c.number.desc()))
    return [{"number": int(number), "settled_at": settled, "players": int(players), "staked": int(staked),
             "returned": int(returned), "house": int(staked) - int(returned)}
            for number, settled, players, staked, returned in rows]


async def summary(request: Request, table_id: str) -> dict[str, Any]:
    live = request.app.state.live
    runner = _runner(request, table_id)
    services = services_of(request)
    described = live.summary(table_id)
    rnd = runner.round
    async with services.database.reading() as connection:
        control = await controls.read(connection, table_id)
        results = await house_results(connection, table_id)
    seats = dict(rnd.seats) if rnd is not None and live.cluster.owns(table_id) else {}
    by_market: dict[str, list[str]] = {}
    if services.jurisdictions is not None and seats:  # the seated players' markets, one query
        for player, stored in (await services.jurisdictions.stored_of(list(seats))).items():
            by_market.setdefault(str(json.loads(stored)["id"]), []).append(player)
    return {**described, "currency": runner.currency,
            "jurisdictions": list(runner.table.jurisdictions),  # the markets it serves ([]: every one)
            "seated_by_jurisdiction": {code: len(players) for code, players in sorted(by_market.items())},
            "seated_players_by_jurisdiction": {code: sorted(players)
                                               for code, players in sorted(by_market.items())},
            "seated": len(seats), "betting": sum(1 for seat in seats.values() if seat.bets),
            "stakes": sum(seat.total_stake for seat in seats.values()),
            "control": {"status": "open" if control is None else control.status,
                        "timers": {name: getattr(runner.table, name) for name in controls.TIMERS}
                        if control is None or not control.timers else dict(control.timers)},
            "last_results": results,
            "studio": _studio_status(live, runner, table_id, described, services.clock().timestamp())}


def _studio_status(live: Any, runner: TableRunner, table_id: str, described: dict[str, Any],
                   now: float) -> dict[str, Any] | None:
    """A studio table's dealer: connected (to this process) or not, the deal's deadline while the
    table waits for cards (and the seconds left to it on the server's clock, which the page counts
    down), and how its last ended rounds ended (misdeals: void, bets returned)."""
    if runner.table.studio is None:
        return None
    ended = list(runner.last_rounds)
    dealing, deadline = described.get("phase") == "dealing", described.get("deadline")
    return {"dealer_connected": live.hub.connected(table_id, DEALER),
            "dealing": dealing, "deadline": deadline,
            "seconds_left": max(0.0, round(float(deadline) - now, 1)) if dealing and deadline else None,
            "deal_seconds": runner.table.studio.deal_seconds,
            "last_rounds": len(ended), "misdeals": sum(1 for r in ended if r.get("status") == "misdeal")}


@router.get("/tables", responses=error_responses(401, 403))
async def tables(request: Request, _user: MonitorViewer,
                 jurisdiction: Annotated[str | None, Query(max_length=8, description=(
                     "only the tables serving this jurisdiction or seating its players"))] = None,
                 ) -> dict[str, Any]:
    """Every live table as the monitor shows it, with the markets it serves and its seated players
    by jurisdiction; ``jurisdictions``: every one this deployment has a profile for (the page's
    filter offers them)."""
    found = [await summary(request, table_id) for table_id in _runners(request)]
    if jurisdiction:
        found = [table for table in found
                 if not table["jurisdictions"] or jurisdiction in table["jurisdictions"]
                 or jurisdiction in table["seated_by_jurisdiction"]]
    markets = services_of(request).jurisdictions
    return {"tables": found, "jurisdictions": [] if markets is None else markets.known()}


async def _control(request: Request, table_id: str, user: staff.StaffUser,
                   change: dict[str, Any]) -> dict[str, Any]:
    runner = _runner(request, table_id)
    services = services_of(request)
    async with services.database.transaction() as connection:
        before = await controls.read(connection, table_id) or TableControl(
            "open", {name: getattr(runner.table, name) for name in controls.TIMERS})
        after = replace(before, **change)
        await controls.write(connection, table_id, after, at=services.now())
        await audit.record(connection, at=services.now(), actor=user.name,
                           action="table.status" if "status" in change else "table.timers", target=table_id,
                           before={"status": before.status, "timers": before.timers},
                           after={"status": after.status, "timers": after.timers})
    runner.wakeup.set()  # a resumed table it owns opens its next round now (others: within a second)
    return await summary(request, table_id)


@router.post("/tables/{table_id}/status", responses=error_responses(401, 403, 404, 422))
async def set_status(table_id: TableId, body: StatusIn, request: Request,
                     user: TableController) -> dict[str, Any]:
    """Pause the table after the current round (``paused``), close it (``closed``) or resume (``open``)."""
    if body.status not in controls.STATUSES:
        known = ", ".join(controls.STATUSES)
        raise controls.ControlError(f"status: expected one of {known}, got {body.status!r}")
    return await _control(request, table_id, user, {"status": body.status})


@router.post("/tables/{table_id}/timers", responses=error_responses(401, 403, 404, 422))
async def set_timers(table_id: TableId, body: TimersIn, request: Request,
                     user: TableController) -> dict[str, Any]:
    """The timers of the next rounds (seconds in (0, 3600]); the round in play keeps its own."""
    runner = _runner(request, table_id)
    given = {name: value for name, value in body.model_dump().items() if value is not None}
    timers = {name: getattr(runner.table, name) for name in controls.TIMERS} | controls.checked_timers(given)
    return await _control(request, table_id, user, {"timers": timers})


sockets = APIRouter()


@sockets.websocket("/admin/ws/tables/{table_id}")
async def watch(websocket: WebSocket, table_id: str) -> None:
    """The table's public messages as they are fanned out, for the monitor (staff cookie)."""
    services: Services = websocket.app.state.services
    await websocket.accept()
    session = None
    token = websocket.cookies.get(COOKIE)
    if token:
        async with services.database.transaction() as connection:
            session = await staff.session_for(connection, token, now=services.clock())
    live = getattr(websocket.app.state, "live", None)
    if session is None or session.user.must_change_password or not allowed(session.user.role, "monitor.view"):
        await websocket.close(code=4401 if session is None else 4403)
        return
    if live is None or table_id not in live.runners:
        await websocket.close(code=4404)
        return
    watcher = Watcher(MONITOR, table_id, counted=False)
    live.hub.join(watcher)
    sender = asyncio.create_task(_send(websocket, watcher, live.hub.state_text(table_id, live.now())))
    try:
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass  # the monitor only listens
    finally:
        live.hub.leave(watcher)
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender


async def _send(websocket: WebSocket, watcher: Watcher, first: str | None) -> None:
    if first:
        await websocket.send_text(first)
    while True:
        text = await watcher.queue.get()
        if text is None:  # too slow to drain its queue: reconnect for the current state
            await websocket.close(code=4408)
            return
        await websocket.send_text(text)
