"""The back office's reports page: ``GET /admin/api/reports`` (JSON, or CSV with ``format=csv``)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from dealerpoker.server.api.deps import error_responses, reject_unknown_query
from dealerpoker.server.backoffice import reports
from dealerpoker.server.backoffice.analyses import Analyses
from dealerpoker.server.backoffice.deps import ReportViewer, services_of
from dealerpoker.server.promotions import use_of

router = APIRouter(prefix="/admin/api", tags=["back office"], dependencies=[Depends(reject_unknown_query)])
Day = Annotated[str | None, Query(max_length=10, description="a UTC day, 2026-11-29 (empty: the default)",
                                  json_schema_extra={"anyOf": [{"type": "string", "format": "date"},
                                                               {"type": "string", "enum": [""]},
                                                               {"type": "null"}]})]


def analyses(request: Request) -> Analyses:
    found = getattr(request.app.state, "analyses", None)
    if found is None:
        services = services_of(request)
        found = request.app.state.analyses = Analyses(services.database, services.analysis_cache)
    return found


@router.get("/reports", responses={
    200: {"content": {"application/json": {}, "text/csv": {}}, "description": "the report (format=csv: CSV)"},
    **error_responses(401, 403, 422)})
async def report(
    request: Request, _user: ReportViewer,
    since: Day = None, until: Day = None,
    period: Annotated[Literal["day", "week", "month"], Query()] = "day",
    game: Annotated[str | None, Query(max_length=32)] = None,
    table: Annotated[str | None, Query(max_length=40, description="a live table, or solo")] = None,
    currency: Annotated[str | None, Query(max_length=8)] = None,
    operator: Annotated[str | None, Query(max_length=32, description="an operator, or embedded")] = None,
    jurisdiction: Annotated[str | None, Query(max_length=8, description=(
        "a jurisdiction (default: also rounds from before jurisdictions)"))] = None,
    group: Annotated[Literal["all", "period", "game", "table", "currency", "operator", "jurisdiction"], Query(
        description=(
        "rows by every dimension (all), or rolled up to period, game, table, currency, operator "
        "or jurisdiction"))] = "all",
    format: Annotated[Literal["json", "csv"], Query()] = "json",
) -> Any:
    """Rounds settled from ``since`` (default: 30 days before ``until``) to ``until`` (exclusive;
    default: tomorrow, UTC) by period, game, table, currency, operator (``embedded``: the
    embedded demo players) and jurisdiction (``group``: rolled up to one of them), with a totals
    row per currency; every RTP per unit staked
    (``rtp_basis``); misdeals apart in their rows; rounds opened then and still open apart
    (``open_rounds``)."""
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
        still_open = await reports.open_rounds(connection, since=start, until=end)
    chosen = {"game": game or None, "table": table or None, "currency": currency or None,
              "operator": operator or None}
    found = await reports.report_of(groups, analyses(request).moments, **chosen,
                                    jurisdiction=jurisdiction or None, group=group)
    if format == "csv":
        return Response(reports.csv_text([*found["rows"], *found["totals"]]), media_type="text/csv", headers={
            "Content-Disposition": f'attachment; filename="dealerpoker-{period}-{start}-{end}.csv"'})
    still_open = [row for row in still_open
                  if all(value is None or row[name] == value for name, value in chosen.items())]
    return {"since": start, "until": end, "period": period, "rtp_basis": "staked", **found,
            "open_rounds": still_open,
            "promotional": await promotional(services, start, end, currency=chosen["currency"],
                                             operator=chosen["operator"])}


async def promotional(services: Any, since: str, until: str, *, currency: str | None,
                      operator: str | None) -> list[dict[str, Any]]:
    """The free rounds settled in the period, apart from real money: per campaign and currency."""
    if services.promotions is None:
        return []
    owners = {c["id"]: c for c in await services.promotions.campaigns(None, limit=100_000)}
    used = await use_of(services.database, since=since, until=until)
    return [{"campaign": campaign_id, "campaign_external_id": owners[campaign_id]["external_id"],
             "operator": owners[campaign_id]["operator"], "currency": code, **sums}
            for campaign_id, by_currency in sorted(used.items()) for code, sums in sorted(by_currency.items())
            if currency in (None, code) and operator in (None, owners[campaign_id]["operator"])]
