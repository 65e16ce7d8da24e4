"""The server's edge: what every request and WebSocket passes before the application sees it,
wrapped around the whole app (FastAPI's error middleware and the round-step fast path included).

From the outside in: the security headers (``headers``); request ids, metrics, access logs and
``/metrics`` (``context``); the rate limits (``ratelimit``); the body limit (``bodylimit``). See
docs/operations.md, "Hardening" and "Metrics and logs".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.routing import APIRoute, iter_route_contexts
from starlette.types import ASGIApp

from dealerpoker.server.edge.bodylimit import BodyLimit
from dealerpoker.server.edge.context import RequestContext
from dealerpoker.server.edge.headers import SecurityHeaders, origin_of, security_headers
from dealerpoker.server.edge.ratelimit import RateLimit
from dealerpoker.server.settings import Settings

Edge = Callable[[ASGIApp, Any], ASGIApp]
"""(the app's middleware stack, the app) -> the stack with the edge around it."""


def edge(settings: Settings) -> Edge:
    """What wraps the app's middleware stack (``ServerApp.build_middleware_stack``, when the
    first request comes: the extensions are installed by then)."""

    def wrap(stack: ASGIApp, app: Any) -> ASGIApp:
        stack = BodyLimit(stack, settings.max_body_bytes)
        if app.state.services.limiter is not None:
            stack = RateLimit(stack, app.state.services.limiter)
        stack = RequestContext(stack, serve_metrics=settings.metrics, paths=lambda: documented_paths(app))
        return SecurityHeaders(stack, security_headers(settings.frame_ancestors, video_origins(app)))

    return wrap


def documented_paths(app: Any) -> list[str]:
    """The path templates of the app's OpenAPI document (``/api/rounds/{round_id}``), read off its
    routes: building the document itself takes ~0.45 s of CPU. Each once, in the routes' order (a
    path may have several methods)."""
    return list(dict.fromkeys(str(route.path_format) for route in iter_route_contexts(app.routes)
                              if isinstance(route.original_route, APIRoute) and route.include_in_schema))


def video_origins(app: Any) -> set[str]:
    """The origins of the live tables' studio videos (the CSP's ``media-src`` and ``frame-src``)."""
    live = getattr(app.state, "live", None)
    tables = live.settings.tables if live is not None else ()
    return {origin for table in tables if table.video_url and (origin := origin_of(table.video_url))}
