"""The back office's operators page: each operator's settings (no secret) and its wallet's
health over the last hours (``operator_health``): ``GET /admin/api/operators?hours=``."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from dealerpoker.server.api.deps import error_responses, reject_unknown_query
from dealerpoker.server.backoffice import operator_health
from dealerpoker.server.backoffice.deps import OperatorViewer, services_of
from dealerpoker.server.clock import timestamp

router = APIRouter(prefix="/admin/api", tags=["back office"], dependencies=[Depends(reject_unknown_query)])


@router.get("/operators", responses=error_responses(401, 403, 422))
async def operators(
    request: Request, _user: OperatorViewer,
    hours: Annotated[int, Query(ge=1, le=24 * 90, description="the window: the last N hours")] = 24,
) -> dict[str, Any]:
    """Every operator of this server: its settings (never its secret) and its wallet's calls over
    the last ``hours`` (each outcome's count and rate, latencies, rollbacks, retries) and what it
    is owed now."""
    services = services_of(request)
    now = services.clock()
    since, until = timestamp(now - timedelta(hours=hours)), timestamp(now)
    found = []
    async with services.database.reading() as connection:
        for operator in services.operators.values():
            found.append({"settings": operator_health.settings_of(operator),
                          "health": await operator_health.health(connection, operator.id, since=since,
                                                                  until=until)})
    return {"hours": hours, "since": since, "until": until, "operators": found}
