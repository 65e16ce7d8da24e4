"""The server's edge: what every request and WebSocket passes before the application sees it,
wrapped around the whole app (FastAPI's error middleware and the round-step fast path included).

From the outside in: request ids, structured access logs, metrics and the security headers
(``context``), the rate limits (``ratelimit``), then the body limit (``bodylimit``). See
docs/operations.md, "Hardening".
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp

from dealerpoker.server.edge.bodylimit import BodyLimit
from dealerpoker.server.settings import Settings

Edge = Callable[[ASGIApp], ASGIApp]


def edge(settings: Settings) -> Edge:
    """What wraps the app's middleware stack (``ServerApp.build_middleware_stack``)."""

    def wrap(app: ASGIApp) -> ASGIApp:
        return BodyLimit(app, settings.max_body_bytes)

    return wrap
