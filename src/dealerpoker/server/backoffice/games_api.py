"""The back office's games and paytables page: the configured rules of each game and live table
with each bet's exact RTP, an admin's draft with its exact house edge, saved versions, and the
four-eyes way of making one live (``rules_changes``) and of changing the jurisdictions it is
approved for (``paytable_approvals``)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict

from dealerpoker.games.rules import GameId
from dealerpoker.server.api.deps import error_responses, reject_unknown_query
from dealerpoker.server.backoffice import paytable_approvals, paytables, rules_changes
from dealerpoker.server.backoffice.deps import GameEditor, GameViewer, services_of
from dealerpoker.server.backoffice.reports_api import analyses
from dealerpoker.server.errors import UnknownGameError
from dealerpoker.server.services import Services

router = APIRouter(prefix="/admin/api", tags=["back office"], dependencies=[Depends(reject_unknown_query)])
GameName = Annotated[GameId, Path(description="one of the games")]


VersionNumber = Annotated[int, Path(ge=1, le=2**53)]


LiveFrom: JsonDict = {"anyOf": [{"type": "string", "format": "date-time", "maxLength": 40},
                      {"type": "string", "enum": [""]}, {"type": "null"}]}
"""A moment a version goes live: an ISO-8601 time (empty or none: at approval)."""


class DraftIn(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a field it does not take is refused, not ignored

    changes: dict[str, Any] = Field(description="rules entries merged over the rules in force")


class VersionIn(DraftIn):
    live_from: str | None = Field(
        None, max_length=40, json_schema_extra=LiveFrom,
        description="ISO-8601 time with a zone from which it is live once approved; none: at approval")


class RestoreIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    live_from: str | None = Field(None, max_length=40, json_schema_extra=LiveFrom)


class ApprovalsIn(BaseModel):
    version: int | None = Field(None, ge=1, le=2**53, description="the version; none: the one in force")
    jurisdictions: list[Annotated[str, Field(max_length=8)]] | None = Field(
        max_length=200, description="the jurisdictions it is approved for ([]: none); null: not restricted")


def install_restore(services: Services) -> None:
    """At start the version in force applies again; then each process polls for the next one."""
    tasks: list[asyncio.Task[None]] = []

    async def restore() -> None:
        await rules_changes.apply_due(services)
        tasks.append(asyncio.create_task(rules_changes.keep_applying(services)))

    async def stop() -> None:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    services.startup.append(restore)
    services.shutdown.append(stop)


@router.get("/games", responses=error_responses(401, 403))
async def games(request: Request, _user: GameViewer) -> dict[str, Any]:
    """Each game's rules in force (default currency) with each bet's exact RTP and its saved
    versions; each live table's rules and timers."""
    services = services_of(request)
    await rules_changes.apply_due(services)  # a scheduled version whose time has come
    found = []
    async with services.database.reading() as connection:
        history = {name: await rules_changes.versions(connection, name) for name in services.games}
        waiting = {name: await rules_changes.pending(connection, name) for name in services.games}
        approving = {name: await paytable_approvals.pending(connection, name) for name in services.games}
    for name, engine in services.games.items():
        found.append({**paytables.engine_summary(engine),
                      "changes": paytables.current_changes(services, name),
                      "figures": await paytables.figures(analyses(request), engine.rules),
                      "versions": history[name], "pending": waiting[name],
                      "pending_jurisdictions": approving[name]})
    live = getattr(request.app.state, "live", None)
    tables = [] if live is None else [
        {**runner.table.to_dict(), "fingerprint": runner.table.rules.fingerprint(),
         "currency": runner.currency}
        for runner in live.runners.values()]
    low, high = services.settings.rtp_bounds
    markets = services.jurisdictions
    return {"games": found, "tables": tables, "fixed": list(paytables.FIXED),
            "jurisdictions": [] if markets is None else markets.known(),
            "rtp_bounds": {"low": str(low), "high": str(high),
                           "low_float": float(low), "high_float": float(high)}}


def _known(services: Services, game: str) -> str:
    if game not in services.games:
        raise UnknownGameError(f"unknown game {game!r} (games: {', '.join(services.games)})")
    return game


@router.post("/games/{game}/draft", responses=error_responses(401, 403, 404, 422))
async def draft(game: GameName, body: DraftIn, request: Request, _user: GameEditor) -> dict[str, Any]:
    """The exact figures of the rules with ``changes``: nothing is saved."""
    services = services_of(request)
    rules = paytables.draft_rules(services, _known(services, game), body.changes)
    found = await paytables.figures(analyses(request), rules)
    return {"rules": rules.to_dict(), **found,
            "out_of_bounds": paytables.out_of_bounds(found, services.settings.rtp_bounds)}


@router.post("/games/{game}/versions", responses=error_responses(401, 403, 404, 422))
async def save(game: GameName, body: VersionIn, request: Request, user: GameEditor) -> dict[str, Any]:
    """Save ``changes`` as the game's new version and ask for it to go live (at ``live_from``, or
    at approval): it is live only once another admin approved it. Refused, nothing saved, if an
    entry is unknown or an exact RTP is outside the deployment's bounds."""
    services = services_of(request)
    return await rules_changes.propose(services, analyses(request), _known(services, game), body.changes,
                                       actor=user.name, live_from=body.live_from)


@router.post("/games/{game}/versions/{version}/restore", responses=error_responses(401, 403, 404, 409, 422))
async def restore(game: GameName, version: VersionNumber, body: RestoreIn, request: Request,
                  user: GameEditor) -> dict[str, Any]:
    """Ask for an earlier version to go live again as itself (its own fingerprint), under approval."""
    services = services_of(request)
    return await rules_changes.request_restore(services, analyses(request), _known(services, game), version,
                                               actor=user.name, live_from=body.live_from)


@router.post("/games/{game}/requests/{request_id}/approve",
             responses=error_responses(401, 403, 404, 409, 422))
async def approve(game: GameName, request_id: VersionNumber, request: Request,
                  user: GameEditor) -> dict[str, Any]:
    """Approve another admin's request: the version goes live at once, or at its scheduled time."""
    services = services_of(request)
    return await rules_changes.decide(services, analyses(request), _known(services, game), request_id,
                                      actor=user.name, approve=True)


@router.post("/games/{game}/requests/{request_id}/reject", responses=error_responses(401, 403, 404, 409))
async def reject(game: GameName, request_id: VersionNumber, request: Request,
                 user: GameEditor) -> dict[str, Any]:
    """Reject a request (its author may withdraw their own)."""
    services = services_of(request)
    return await rules_changes.decide(services, analyses(request), _known(services, game), request_id,
                                      actor=user.name, approve=False)


@router.post("/games/{game}/jurisdictions", responses=error_responses(401, 403, 404, 422))
async def approve_for(game: GameName, body: ApprovalsIn, request: Request,
                      user: GameEditor) -> dict[str, Any]:
    """Ask for the jurisdictions a version (none given: the one in force) is approved for to
    change (null: not restricted); it changes once another admin approves the request. Then a
    player of a jurisdiction it is not approved for is refused its rounds (rule ``paytables``)."""
    services = services_of(request)
    return await paytable_approvals.request(services, analyses(request), _known(services, game),
                                            body.version, body.jurisdictions, actor=user.name)


@router.post("/games/{game}/jurisdiction-requests/{request_id}/approve",
             responses=error_responses(401, 403, 404, 409))
async def approve_jurisdictions(game: GameName, request_id: VersionNumber, request: Request,
                                user: GameEditor) -> dict[str, Any]:
    """Approve another admin's change of a version's jurisdictions: it holds from now on."""
    services = services_of(request)
    return await paytable_approvals.decide(services, _known(services, game), request_id,
                                           actor=user.name, approve=True)


@router.post("/games/{game}/jurisdiction-requests/{request_id}/reject",
             responses=error_responses(401, 403, 404, 409))
async def reject_jurisdictions(game: GameName, request_id: VersionNumber, request: Request,
                               user: GameEditor) -> dict[str, Any]:
    """Reject a change of a version's jurisdictions (its author may withdraw their own)."""
    services = services_of(request)
    return await paytable_approvals.decide(services, _known(services, game), request_id,
                                           actor=user.name, approve=False)
