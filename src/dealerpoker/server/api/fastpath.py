"""The two requests of every round step, served without the framework's per-request work.

``POST /api/rounds`` and ``POST /api/rounds/{id}/actions`` are nearly all of a game server's
traffic. FastAPI's generic machinery (its middleware chain, matching the path against every
route, resolving dependencies, parsing the body) costs about as much CPU as the round step
itself: without this path a round costs the server 1.4x (SQLite) to 1.5x (PostgreSQL) the CPU
(``benchmarks/server.py --without fast_path``; ``benchmarks/RESULTS.md``). This ASGI middleware
serves those two requests directly when they are well-formed: a JSON body that the routes' own
request models accept, a known bearer token, no query string. It calls the same services, and
turns their errors into the same responses (``domain_error_response``).

Anything else goes on to FastAPI unchanged (the body it read is replayed): another path or
method, a query string, another content type, a missing or unknown token, a body that does not
parse or validate. FastAPI then answers exactly as it would have, errors included, so there is
one definition of every error. The routes stay in FastAPI and describe these operations in
the OpenAPI document; every test of the API (schemathesis included) goes through this
middleware.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from dealerpoker.errors import DealerPokerError
from dealerpoker.server import jsonin
from dealerpoker.server.accounts import AuthenticationError, bearer_token
from dealerpoker.server.api.models import ActionIn, RoundIn
from dealerpoker.server.edge.bodylimit import read_body, replaying
from dealerpoker.server.edge.errors import domain_error_response
from dealerpoker.server.services import Services

_ROUNDS = "/api/rounds"
_ACTION_PREFIX, _ACTION_SUFFIX = "/api/rounds/", "/actions"
_MAX_ROUND_ID = 40  # the route's Path(max_length=40)
_MAX_BODY = 16_384  # a round request is well under 1 KiB; larger ones take the general path
_JSON_HEADERS = [(b"content-type", b"application/json")]


class RoundStepFastPath:
    """ASGI middleware: open a round or act in one, else hand the request to the app."""

    def __init__(self, app: ASGIApp, services: Services) -> None:
        self.app = app
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["query_string"]:
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        round_id: str | None = None
        if path != _ROUNDS:
            round_id = _action_round_id(path)
            if round_id is None:
                await self.app(scope, receive, send)
                return
        token = _bearer_token_of_json_request(scope["headers"])
        if token is None:
            await self.app(scope, receive, send)
            return
        body, messages, complete = await read_body(receive, _MAX_BODY)
        replay = replaying(messages, receive)
        if not complete:
            await self.app(scope, replay, send)
            return
        try:
            data = jsonin.loads(body)
            request = RoundIn.model_validate(data) if round_id is None else ActionIn.model_validate(data)
            player = await self.services.authenticate(token)
        except (ValueError, RecursionError, ValidationError, AuthenticationError):
            await self.app(scope, replay, send)  # FastAPI gives the error response
            return
        except DealerPokerError as error:  # the account's requests (429), the database busy (503)
            await domain_error_response(error)(scope, receive, send)
            return
        rounds = self.services.rounds
        try:
            if isinstance(request, RoundIn):
                view = await rounds.open_round(player, request.game, request.bets, request.idempotency_key,
                                               request.free_round, jackpot=request.jackpot)
            else:
                assert round_id is not None and isinstance(request, ActionIn)
                view = await rounds.act(player, round_id, request.action, step=request.step)
        except DealerPokerError as error:
            await domain_error_response(error)(scope, receive, send)
            return
        content = view.encode()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [*_JSON_HEADERS, (b"content-length", str(len(content)).encode())]})
        await send({"type": "http.response.body", "body": content})


def _action_round_id(path: str) -> str | None:
    if not (path.startswith(_ACTION_PREFIX) and path.endswith(_ACTION_SUFFIX)):
        return None
    round_id = path[len(_ACTION_PREFIX):-len(_ACTION_SUFFIX)]
    if not round_id or "/" in round_id or len(round_id) > _MAX_ROUND_ID:
        return None
    return round_id


def _bearer_token_of_json_request(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The bearer token of a request with a JSON body, else None (as FastAPI reads them: the
    first header of each name; the scheme is case-insensitive)."""
    content_type = authorization = None
    for name, value in headers:
        if name == b"content-type" and content_type is None:
            content_type = value
        elif name == b"authorization" and authorization is None:
            authorization = value
    if content_type is None or authorization is None \
            or content_type.split(b";", 1)[0].strip().lower() != b"application/json":
        return None
    return bearer_token(authorization.decode("latin-1"))


def install(app: Any, services: Services) -> None:
    app.add_middleware(RoundStepFastPath, services=services)
