"""The back office's session and audit-log endpoints, and the extension that installs every
back-office router under ``/admin/api`` (the pages are static files under ``/admin/``)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request, Response
from pydantic import BaseModel, Field

from dealerpoker.server import chained_log
from dealerpoker.server.api.deps import error_responses
from dealerpoker.server.backoffice import audit, staff
from dealerpoker.server.backoffice.access import PERMISSIONS
from dealerpoker.server.backoffice.deps import COOKIE, AuditViewer, SessionDep, services_of
from dealerpoker.server.services import Services

router = APIRouter(prefix="/admin/api", tags=["back office"])


class SignIn(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    password: str = Field(min_length=1, max_length=200)
    code: str | None = Field(default=None, max_length=12, description="the TOTP code, if the user has one")


class NewPassword(BaseModel):
    current: str = Field(min_length=1, max_length=200)
    new: str = Field(min_length=1, max_length=200)


def describe(session: staff.Session, services: Services) -> dict[str, Any]:
    """The member, their role's permissions, the CSRF token, and the formats of the currencies
    offered here (``currencies``: each ``{code, exponent, symbol}``), which every page's amounts use."""
    user = session.user
    return {"name": user.name, "role": user.role, "permissions": sorted(PERMISSIONS[user.role]),
            "must_change_password": user.must_change_password, "totp": user.totp, "csrf": session.csrf,
            "currencies": services.offer.currency_formats(),
            "default_currency": services.offer.default_currency}


@router.post("/session", responses=error_responses(401, 422, 429))
async def sign_in(body: SignIn, request: Request, response: Response) -> dict[str, Any]:
    """Sign in: sets the session cookie (HttpOnly, SameSite=Strict) and answers the CSRF token."""
    services = services_of(request)
    now = services.clock()
    address = request.client.host if request.client else "unknown"
    async with services.database.reading() as connection:
        await staff.lock_of(connection, body.name, address, now=now)  # known name or not
        row = await staff.find(connection, body.name)
    good = await asyncio.to_thread(staff.check, row, body.password, body.code, now=now)
    async with services.database.transaction() as connection:
        if row is None or not good:
            await staff.failed(connection, body.name, address, now=now, known=row is not None)
            session = None
        else:
            session = await staff.open_session(connection, row, body.password, address=address, now=now)
    if session is None or session.token is None:
        raise staff.LoginFailedError("wrong name, password or code")
    response.set_cookie(COOKIE, session.token, max_age=staff.SESSION_HOURS * 3600, path="/admin",
                        httponly=True, samesite="strict", secure=request.url.scheme == "https")
    return describe(session, services)


@router.get("/session", responses=error_responses(401))
async def whoami(request: Request, session: SessionDep) -> dict[str, Any]:
    """The signed-in staff member, their role's permissions, the CSRF token and the currencies'
    formats."""
    return describe(session, services_of(request))


@router.delete("/session", responses=error_responses(401, 403))
async def sign_out(request: Request, response: Response, _session: SessionDep) -> dict[str, Any]:
    services = services_of(request)
    async with services.database.transaction() as connection:
        await staff.sign_out(connection, request.cookies.get(COOKIE, ""))
    response.delete_cookie(COOKIE, path="/admin")
    return {"signed_out": True}


@router.post("/password", responses=error_responses(401, 403, 422))
async def change_password(body: NewPassword, request: Request, session: SessionDep) -> dict[str, Any]:
    """Replace the password (the one-time password first of all)."""
    services = services_of(request)
    async with services.database.reading() as connection:
        hashed = await staff.password_hash(connection, session.user)
    new_hash = await asyncio.to_thread(staff.new_password_hash, hashed, body.current, body.new)
    async with services.database.transaction() as connection:
        ended = await staff.set_password(connection, session.user, new_hash, at=services.now(),
                                         keep_token=request.cookies.get(COOKIE))
    return {"changed": True, "other_sessions_ended": ended}


@router.get("/audit", responses=error_responses(401, 403))
async def audit_log(
    request: Request, _user: AuditViewer,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    before: Annotated[int | None, Query(ge=1, le=2**63 - 1,
                                        description="an entry id: only older entries")] = None,
    action: Annotated[str | None, Query(max_length=40)] = None,
    actor: Annotated[str | None, Query(max_length=64)] = None,
) -> dict[str, Any]:
    """The admin audit log, newest first (admins and auditors)."""
    async with services_of(request).database.transaction() as connection:
        entries = await audit.read(connection, limit=limit, before_id=before, action=action, actor=actor)
    return {"entries": entries}


@router.get("/audit/verify", responses=error_responses(401, 403))
async def verify_logs(request: Request, _user: AuditViewer) -> dict[str, Any]:
    """Walk every hash-chained log (the admin audit log, the responsible-gaming events) as
    ``dealerpoker audit-log verify`` does: each log's rows, its head (id and hash: record it) and
    every row found edited, deleted or inserted (admins and auditors)."""
    async with services_of(request).database.reading() as connection:
        checks = await chained_log.verify_all(connection)
    return {"ok": all(check.ok for check in checks), "logs": [check.to_json() for check in checks]}


def install_backoffice(app: FastAPI, services: Services) -> None:
    """Every back-office router (the extension ``create_app`` always installs)."""
    from dealerpoker.server.backoffice import (
        games_api,
        jackpot_api,
        monitor,
        operators_api,
        players_api,
        promotions_api,
        reports_api,
        rounds_api,
    )

    games_api.install_restore(services)
    for module_router in (router, monitor.router, monitor.sockets, rounds_api.router, players_api.router,
                          reports_api.router, games_api.router, jackpot_api.router, promotions_api.router,
                          operators_api.router):
        app.include_router(module_router)

