"""The back office's free-bet campaigns (``GET /admin/api/campaigns``): every operator's
campaigns, what each costs the operator (the expected payout of a free ante under optimal play,
from the exact analysis, times its rounds) and their use so far (docs/backoffice.md#free-bets)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fastapi import APIRouter, Depends, Request

from dealerpoker.server.api.deps import error_responses, reject_unknown_query
from dealerpoker.server.backoffice.deps import ReportViewer, services_of
from dealerpoker.server.backoffice.reports_api import analyses
from dealerpoker.server.promotions import expected_cost, use_of

router = APIRouter(prefix="/admin/api", tags=["back office"], dependencies=[Depends(reject_unknown_query)])


def _amount(value: Fraction) -> dict[str, Any]:
    """An exact amount of minor units: its fraction and its value (for display)."""
    return {"exact": f"{value.numerator}/{value.denominator}", "value": float(value)}


@router.get("/campaigns", responses=error_responses(401, 403))
async def campaigns(request: Request, _user: ReportViewer) -> dict[str, Any]:
    """Every operator's campaigns, newest first, each with its cost per game and currency:
    ``per_round`` (the expected payout of its free ante under optimal play: the ante times one
    less the game's exact house edge per ante), ``granted`` (times the rounds of every player
    granted it) and ``played`` (times the free rounds opened), and its use: the free rounds settled,
    the antes the operator paid, the players' own stakes, the returns and the net to players."""
    services = services_of(request)
    if services.promotions is None:
        return {"campaigns": []}
    found = await services.promotions.campaigns(None)
    edges: dict[str, Fraction] = {}
    for name in sorted({game for campaign in found for game in campaign["games"]}):
        document = await analyses(request).document(services.games[name].rules)
        edges[name] = Fraction(document["rules"]["exact"]["house_edge"])
    used = await use_of(services.database)
    for campaign in found:
        granted_rounds = campaign["players"] * campaign["rounds"]
        campaign["cost"] = {
            game: {"house_edge": _amount(edges[game]), **{currency: {
                "per_round": _amount(per_round := expected_cost(ante, edges[game])),
                "granted": _amount(per_round * granted_rounds),
                "played": _amount(per_round * campaign["rounds_used"]),
            } for currency, ante in campaign["ante"].items()}}
            for game in campaign["games"]}
        campaign["use"] = used.get(campaign["id"], {})
    return {"campaigns": found}
