"""The back office's jackpot page: ``GET /admin/api/jackpot``: the pool now, checked against its
events (seeds + contributions - awards), the bet's exact return at the pool now and the pool
at which it breaks even (``analysis.jackpot``), and the pool's history, newest first."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request

from dealerpoker.server import jackpot
from dealerpoker.server.api.deps import error_responses, reject_unknown_query
from dealerpoker.server.backoffice.deps import ReportViewer, services_of

if TYPE_CHECKING:
    from dealerpoker.analysis.jackpot import JackpotFigures

router = APIRouter(prefix="/admin/api", tags=["back office"], dependencies=[Depends(reject_unknown_query)])


async def figures(request: Request, offered: jackpot.Jackpot) -> JackpotFigures:
    """The bet's exact figures (one jackpot bet per hit), computed once per process."""
    # Imported at the first jackpot page, not when the server starts: it brings numba (0.24 s of
    # every `serve` start, and most servers never show this page).
    from dealerpoker.analysis.jackpot import jackpot_figures

    found: JackpotFigures | None = getattr(request.app.state, "jackpot_figures", None)
    if found is None or found.rules != offered.rules:
        found = await asyncio.to_thread(jackpot_figures, offered.rules)
        request.app.state.jackpot_figures = found
    return found


@router.get("/jackpot", responses=error_responses(401, 403, 422))
async def jackpot_page(
    request: Request, _user: ReportViewer,
    kind: Annotated[Literal["seed", "contribution", "award"] | None, Query()] = None,
    before: Annotated[int | None, Query(ge=1, description="events before this id (the next page)")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> dict[str, Any]:
    """The pool, its audit, the exact return at the pool now and the pool's events."""
    services = services_of(request)
    offered = services.jackpot
    if offered is None:
        raise jackpot.JackpotNotOfferedError("this server offers no jackpot bet (serve --jackpot FILE)")
    async with services.database.reading() as connection:
        audit = await jackpot.audit_pool(connection)
        events = await jackpot.history(connection, limit=limit, before=before,
                                       kinds=None if kind is None else (kind,))
    exact = await figures(request, offered)
    at_pool = exact.return_at(audit.amount)
    return {
        "pool": audit.amount, "currency": offered.rules.currency, "rules": offered.rules.to_dict(),
        "audit": {"seeds": audit.seeds, "contributions": audit.contributions, "awards": audit.awards,
                  "ok": audit.ok},
        "return": {"at_pool": {"exact": str(at_pool), "value": float(at_pool)},
                   "break_even_pool": {"exact": str(exact.break_even_pool),
                                       "value": float(exact.break_even_pool)},
                   "fixed_awards": {"exact": str(exact.fixed_return), "value": float(exact.fixed_return)},
                   "long_run": {"exact": str(exact.long_run_return), "value": float(exact.long_run_return)},
                   "hit_frequency": {"exact": str(exact.hit_frequency), "value": float(exact.hit_frequency)},
                   "sharers": exact.sharers},
        "events": events,
    }
