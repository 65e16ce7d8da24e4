"""Dependencies of the API routes: the shared services and the authenticated player."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.requests import HTTPConnection

from dealerpoker.server.accounts import AuthenticationError, bearer_token
from dealerpoker.server.api.errors import ERROR_STATUSES
from dealerpoker.server.edge.errors import ErrorOut
from dealerpoker.server.errors import UnknownParameterError
from dealerpoker.server.services import Services


class _Bearer(HTTPBearer):
    """The OpenAPI bearer scheme, read by the server's one parser (``accounts.bearer_token``)."""

    async def __call__(self, request: HTTPConnection) -> HTTPAuthorizationCredentials | None:
        token = bearer_token(request.headers.get("authorization"))
        return None if token is None else HTTPAuthorizationCredentials(scheme="Bearer", credentials=token)


bearer = _Bearer(auto_error=False, description="the token from POST /api/session")


async def services(request: Request) -> Services:
    found: Services = request.app.state.services
    return found


async def current_token(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> str:
    """The bearer token of this request (not checked yet)."""
    if credentials is None or not credentials.credentials:
        raise AuthenticationError("missing bearer token: send Authorization: Bearer <token> "
                                  "(POST /api/session gives one)")
    return credentials.credentials


async def current_player(request: Request, token: Annotated[str, Depends(current_token)]) -> str:
    """The player whose bearer token (a live session's) authorises this request."""
    return await (await services(request)).authenticate(token)


async def reject_unknown_query(request: Request) -> None:
    """Unknown query parameters are an error (a typo such as ``?limt=5`` must not pass silently)."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    known = {param.alias for param in _all_query_params(dependant)}
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        listing = f" (known: {', '.join(sorted(known))})" if known else ""
        raise UnknownParameterError(f"unknown query parameter {unknown[0]!r}{listing}")


def _all_query_params(dependant: Any) -> list[Any]:
    found = list(dependant.query_params)
    for sub in dependant.dependencies:
        found.extend(_all_query_params(sub))
    return found


ServicesDep = Annotated[Services, Depends(services)]
PlayerDep = Annotated[str, Depends(current_player)]
TokenDep = Annotated[str, Depends(current_token)]


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses an operation can return.

    400 (malformed JSON) and 422 (invalid request) can happen on every operation.
    """
    return {status: {"model": ErrorOut} for status in sorted({*(statuses or ERROR_STATUSES), 400, 422})}
