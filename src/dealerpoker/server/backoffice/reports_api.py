"""The back office's reports page: ``GET /admin/api/reports`` (JSON, or CSV with ``format=csv``)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from dealerpoker.server.api.deps import error_responses, reject_unknown_query
from dealerpoker.server.backoffice import reports
from dealerpoker.server.backoffice.analyses import Analyses
from dealerpoker.server.backoffice.deps import ReportViewer, services_of

router = APIRouter(prefix="/admin/api", tags=["back office"], dependencies=[Depends(reject_unknown_query)])
Day = Annotated[str | None, Query(max_length=10, description="a UTC day, 2026-11-29")]


def analyses(request: Request) -> Analyses:
    found = getattr(request.app.state, "analyses", None)
    if found is None:
        services = services_of(request)
        found = request.app.state.analyses = Analyses(services.database, services.analysis_cache)
    return found


@router.get("/reports", responses=error_responses(401, 403, 422))
async def report(
    request: Request, _user: ReportViewer,
    since: Day = None, until: Day = None,
    period: Annotated[str, Query(max_length=8, description="day, week or month")] = "day",
    game: Annotated[str | None, Query(max_length=32)] = None,
    table: Annotated[str | None, Query(max_length=40, description="a live table, or solo")] = None,
    currency: Annotated[str | None, Query(max_length=8)] = None,
    operator: Annotated[str | None, Query(max_length=32, description="an operator, or embedded")] = None,
    format: Annotated[str, Query(max_length=4, description="json or csv")] = "json",
) -> Any:
    """Rounds settled from ``since`` (default: 30 days before ``until``) to ``until`` (exclusive;
    default: tomorrow, UTC) by period, game, table, currency and operator (``embedded``: the
    embedded demo players)."""
    services = services_of(request)
    end = until or (services.clock().date() + timedelta(days=1)).isoformat()
    try:
        start = since or (date.fromisoformat(end) - timedelta(days=30)).isoformat()
    except ValueError:
        raise reports.ReportError(f"until: expected a day like 2026-11-29, got {end!r}") from None
    if format not in ("json", "csv"):
        raise reports.ReportError(f"format: expected json or csv, got {format!r}")
    async with services.database.reading() as connection:
        groups = await reports.collect(connection, since=start, until=end, period=period)
    rows = await reports.rows_of(groups, analyses(request).moments, game=game or None, table=table or None,
                                 currency=currency or None, operator=operator or None)
    if format == "csv":
        return Response(reports.csv_text(rows), media_type="text/csv", headers={
            "Content-Disposition": f'attachment; filename="dealerpoker-{period}-{start}-{end}.csv"'})
    return {"since": start, "until": end, "period": period, "rows": rows}
