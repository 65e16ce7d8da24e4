"""The back office's request checks: the staff session from its cookie, the role's permission,
the CSRF token on every change, and the one-time password replaced before anything else."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.accounts import AuthenticationError
from dealerpoker.server.backoffice import staff
from dealerpoker.server.backoffice.access import allowed
from dealerpoker.server.errors import ForbiddenError
from dealerpoker.server.services import Services

COOKIE = "dp_staff"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class CsrfError(DealerPokerError, ValueError):
    """A change without the session's CSRF token in ``X-CSRF-Token``."""

    code = "csrf_failed"
    status = 403


class PasswordChangeRequiredError(DealerPokerError, ValueError):
    """The one-time password must be replaced before anything else."""

    code = "password_change_required"
    status = 403


def services_of(request: Request) -> Services:
    found: Services = request.app.state.services
    return found


async def staff_session(request: Request) -> staff.Session:
    """The signed-in staff member (401 without a live session; 403 for a change without the
    session's CSRF token)."""
    token = request.cookies.get(COOKIE)
    services = services_of(request)
    session = None
    if token:
        async with services.database.transaction() as connection:
            session = await staff.session_for(connection, token, now=services.clock())
    if session is None:
        raise AuthenticationError("sign in to the back office first (POST /admin/api/session)")
    if request.method not in SAFE_METHODS and not same_token(request.headers.get(CSRF_HEADER), session.csrf):
        raise CsrfError(f"missing or wrong {CSRF_HEADER} header (the token given at sign-in)")
    return session


def same_token(given: str | None, expected: str) -> bool:
    """Whether a sent token is the expected one, compared in constant time (its bytes).

    >>> same_token("abc", "abc"), same_token("abd", "abc"), same_token(None, "abc"), same_token("é", "abc")
    (True, False, False, False)
    """
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


SessionDep = Annotated[staff.Session, Depends(staff_session)]


def require(permission: str) -> Callable[..., Awaitable[staff.StaffUser]]:
    """A dependency: the staff member, if their role holds ``permission`` (else 403)."""

    async def check(session: SessionDep) -> staff.StaffUser:
        user = session.user
        if user.must_change_password:
            raise PasswordChangeRequiredError(
                "replace the one-time password first (POST /admin/api/password)")
        if not allowed(user.role, permission):
            raise ForbiddenError(f"the {user.role} role may not do this ({permission})")
        return user

    return check


# The permission-checked staff member, per permission (``access.PERMISSIONS``).
MonitorViewer = Annotated[staff.StaffUser, Depends(require("monitor.view"))]
TableController = Annotated[staff.StaffUser, Depends(require("tables.control"))]
RoundViewer = Annotated[staff.StaffUser, Depends(require("rounds.view"))]
RoundVerifier = Annotated[staff.StaffUser, Depends(require("rounds.verify"))]
PlayerViewer = Annotated[staff.StaffUser, Depends(require("players.view"))]
PlayerAdjuster = Annotated[staff.StaffUser, Depends(require("players.adjust"))]
ReportViewer = Annotated[staff.StaffUser, Depends(require("reports.view"))]
GameViewer = Annotated[staff.StaffUser, Depends(require("games.view"))]
GameEditor = Annotated[staff.StaffUser, Depends(require("games.edit"))]
AuditViewer = Annotated[staff.StaffUser, Depends(require("audit.view"))]
OperatorViewer = Annotated[staff.StaffUser, Depends(require("operators.view"))]
