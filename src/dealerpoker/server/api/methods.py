"""``OPTIONS`` and ``405`` answers that name exactly the methods of the resource.

The web page is mounted at ``/`` (``StaticFiles``): a request whose path is an API route's but
whose method is not reached that mount, which answered ``405`` with ``Allow: GET, HEAD`` (its
own methods), also to ``OPTIONS``, and ``404`` to a ``GET`` of a path only ``POST`` serves. This
middleware answers ``OPTIONS`` on a route's path with ``204`` and ``Allow`` listing the route
methods of that path, and turns a ``404`` or ``405`` to another method on such a path into
``405 method_not_allowed`` with the same ``Allow``. Only ``OPTIONS``, ``404`` and ``405`` answers
are looked at, so other requests cost nothing more.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from starlette.routing import BaseRoute, Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def allowed_methods(routes: Iterable[BaseRoute], scope: Scope) -> list[str]:
    """Every method of the routes (not mounts) whose path matches ``scope``'s, sorted; empty: none."""
    found: set[str] = set()
    for route in _flat(routes):
        if isinstance(route, Mount):
            continue
        match, _ = route.matches({**scope, "method": "GET", "type": "http"})
        methods = getattr(route, "methods", None)
        if match is not Match.NONE and methods:
            found.update(methods)
    if found:
        found.update({"HEAD"} if "GET" in found else set())
        found.add("OPTIONS")
    return sorted(found)


def _flat(routes: Iterable[Any]) -> Iterator[BaseRoute]:
    """The routes, those of included routers too (this FastAPI keeps an included router whole;
    the server includes every router without a prefix)."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from _flat(included.routes)
        else:
            yield route


class MethodAnswers:
    """ASGI middleware: ``OPTIONS`` answered ``204`` and ``405`` given the route path's ``Allow``."""

    def __init__(self, app: ASGIApp, routes: Callable[[], Iterable[BaseRoute]]) -> None:
        self.app = app
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            methods = allowed_methods(self.routes(), scope)
            if methods:
                await send({"type": "http.response.start", "status": 204,
                            "headers": [(b"allow", ", ".join(methods).encode())]})
                await send({"type": "http.response.body", "body": b""})
                return
            await self.app(scope, receive, send)
            return

        replaced = False

        async def answer(message: Message) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] in (404, 405):
                methods = allowed_methods(self.routes(), scope)
                if methods and scope["method"] not in methods:  # the web page's mount answered
                    replaced = True
                    body = json.dumps({"error": "method_not_allowed",
                                       "message": f"{scope['method']} is not allowed here "
                                                  f"(allowed: {', '.join(methods)})"}).encode()
                    await send({"type": "http.response.start", "status": 405, "headers": [
                        (b"allow", ", ".join(methods).encode()), (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode())]})
                    await send({"type": "http.response.body", "body": body})
                    return
            if replaced:
                return  # the original 405's body
            await send(message)

        await self.app(scope, receive, answer)
