"""The back office's games and paytables page: the configured rules of each game and live table
with each bet's exact RTP, an admin's draft with its exact house edge, saved versions."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from pydantic import BaseModel, Field

from dealerpoker.server.api.deps import error_responses, reject_unknown_query
from dealerpoker.server.backoffice import paytables
from dealerpoker.server.backoffice.deps import GameEditor, GameViewer, services_of
from dealerpoker.server.backoffice.reports_api import analyses
from dealerpoker.server.errors import UnknownGameError
from dealerpoker.server.services import Services

router = APIRouter(prefix="/admin/api", tags=["back office"], dependencies=[Depends(reject_unknown_query)])
GameName = Annotated[str, Path(max_length=32)]


class DraftIn(BaseModel):
    changes: dict[str, Any] = Field(description="rules entries merged over the game's configured rules")


def install_restore(services: Services) -> None:
    async def restore() -> None:
        await paytables.restore(services)

    services.startup.append(restore)


@router.get("/games", responses=error_responses(401, 403))
async def games(request: Request, _user: GameViewer) -> dict[str, Any]:
    """Each game's rules in force (default currency) with each bet's exact RTP and its saved
    versions; each live table's rules and timers."""
    services = services_of(request)
    found = []
    async with services.database.reading() as connection:
        history = {name: await paytables.versions(connection, name) for name in services.games}
    for name, engine in services.games.items():
        found.append({**paytables.engine_summary(engine),
                      "changes": paytables.current_changes(services, name),
                      "figures": await paytables.figures(analyses(request), engine.rules),
                      "versions": history[name]})
    live = getattr(request.app.state, "live", None)
    tables = [] if live is None else [
        {**runner.table.to_dict(), "fingerprint": runner.table.rules.fingerprint(),
         "currency": runner.currency}
        for runner in live.runners.values()]
    return {"games": found, "tables": tables, "fixed": list(paytables.FIXED)}


def _known(services: Services, game: str) -> str:
    if game not in services.games:
        raise UnknownGameError(f"unknown game {game!r} (games: {', '.join(services.games)})")
    return game


@router.post("/games/{game}/draft", responses=error_responses(401, 403, 404, 422))
async def draft(game: GameName, body: DraftIn, request: Request, _user: GameEditor) -> dict[str, Any]:
    """The exact figures of the rules with ``changes``: nothing is saved."""
    services = services_of(request)
    rules = paytables.draft_rules(services, _known(services, game), body.changes)
    return {"rules": rules.to_dict(), **await paytables.figures(analyses(request), rules)}


@router.post("/games/{game}/versions", responses=error_responses(401, 403, 404, 422))
async def save(game: GameName, body: DraftIn, request: Request, user: GameEditor) -> dict[str, Any]:
    """Save ``changes`` as the game's new version: new rounds are opened under it from now on."""
    services = services_of(request)
    return await paytables.save(services, analyses(request), _known(services, game), body.changes,
                                actor=user.name)
