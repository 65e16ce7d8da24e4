"""The strategy hint at a live table: ``GET /api/tables/{id}/advice`` answers the asking player's
open decision there as ``GET /api/rounds/{id}/advice`` answers a solo round's (``server.hints``,
one computation for both), and is refused the same way unless the deployment offers the hint.

Why an HTTP request and not a field of the seat's WebSocket messages: the hint costs an
enumeration (tens of milliseconds, more at Texas Hold'em Bonus's pre-flop), which must not delay
the table's fan-out nor run for players who never asked. The request may reach any process: it
asks the table's owner for the player's own view of their decision (the ``decision`` intent,
forwarded over Redis like a bet when another process owns the table; ``tables.views.decision_view``:
the shared hole cards, the board shown, their own bets and steps, never a card still hidden) and
computes the advice where it was asked, in a worker thread.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import JSONResponse

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.api.deps import PlayerDep, ServicesDep, error_responses, reject_unknown_query
from dealerpoker.server.api.hints import check_hint_offered, hints_of
from dealerpoker.server.errors import NotFoundError

router = APIRouter(tags=["live"], dependencies=[Depends(reject_unknown_query)])


class TableUnavailableError(DealerPokerError, ValueError):
    """The table's owner did not answer (its clock is moving to another process)."""

    code = "table_unavailable"
    status = 503


@router.get("/api/tables/{table_id}/advice", responses=error_responses(401, 403, 404, 409, 503))
async def table_advice(table_id: Annotated[str, Path(max_length=80, description="the table's id")],
                       request: Request, services: ServicesDep, player: PlayerDep) -> Any:
    """The best decision at the player's open decision at this live table and the exact EV (per
    unit ante, whole round) of each choice, from the cards they see; ``403 hint_off`` unless the
    server offers the hint, ``409 no_decision`` when they have no decision open there."""
    await check_hint_offered(services, player)
    live = request.app.state.live
    if table_id not in live.runners:
        raise NotFoundError(f"no live table {table_id!r}")
    view = await live.intent(table_id, player, {"type": "decision"})
    if view.get("type") == "error":  # the owner's move to another process (the only refusal)
        raise TableUnavailableError(key="error.live.table_moved")
    rules = await live.limits.rules_for(live.runners[table_id].table, player)
    return JSONResponse(await hints_of(request).advice(view["round"], view, rules))
