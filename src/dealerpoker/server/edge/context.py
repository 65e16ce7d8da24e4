"""Each request's id, metrics and access log line, and ``/metrics``: the outermost layer of the
edge (``dealerpoker.server.edge``), so every answer is counted, refusals of the edge included.

The request id is the client's ``X-Request-Id`` when it is a sane one (1-64 of ``A-Za-z0-9._-``),
else a new random one; it is answered in ``X-Request-Id`` and carried by every log line written
while the request runs (``dealerpoker.server.observability.logs``).
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import Callable, Iterable, Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dealerpoker.server.observability import metrics
from dealerpoker.server.observability.logs import REQUEST_ID

access = logging.getLogger("dealerpoker.access")
_SANE_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")
_ACTION_PREFIX, _ACTION_SUFFIX = "/api/rounds/", "/actions"


def templates_of(paths: Iterable[str]) -> list[tuple[re.Pattern[str], str]]:
    """A matcher per path template of the OpenAPI document (``/api/rounds/{round_id}``).

    >>> [t for pattern, t in templates_of(["/api/rounds/{round_id}"]) if pattern.fullmatch("/api/rounds/r_1")]
    ['/api/rounds/{round_id}']
    """
    return [(re.compile(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path))), path) for path in paths]


Templates = Sequence[tuple[re.Pattern[str], str]]


def route_template(scope: Scope, templates: Callable[[], Templates] = tuple) -> str:
    """The route's template (``/api/rounds/{round_id}``): few distinct values, whatever the ids.
    A request the edge refused was never routed: its path is matched against ``templates()``,
    asked for only then (the round steps' fast path, never routed either, is known first)."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str) and path:
        return path
    requested: str = scope["path"]
    if requested == "/api/rounds":  # the fast path answers without routing
        return requested
    if requested.startswith(_ACTION_PREFIX) and requested.endswith(_ACTION_SUFFIX):
        return "/api/rounds/{round_id}/actions"
    if route is not None:
        return "/{static}"  # the web page's files (the mount at /)
    found = next((template for pattern, template in templates() if pattern.fullmatch(requested)), None)
    return found if found is not None else "unmatched"


def request_id(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == b"x-request-id" and _SANE_ID.fullmatch(value):
            return str(value.decode())
    return secrets.token_hex(8)


class RequestContext:
    """ASGI middleware: request id, metrics, access log; ``GET /metrics``."""

    def __init__(self, app: ASGIApp, *, serve_metrics: bool = True,
                 paths: Callable[[], Iterable[str]] = tuple) -> None:
        self.app = app
        self.serve_metrics = serve_metrics
        self._paths = paths
        self._templates: list[tuple[re.Pattern[str], str]] | None = None

    def templates(self) -> list[tuple[re.Pattern[str], str]]:
        """The matchers of ``paths()``, made at the first request refused before routing: reading
        the paths off the routes costs ~0.15 s of CPU, which every process (and every app a test
        makes) paid at its first request, though most never see such a request."""
        if self._templates is None:
            self._templates = templates_of(self._paths())
        return self._templates

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            token = REQUEST_ID.set(secrets.token_hex(8) if scope["type"] == "websocket" else None)
            try:
                await self.app(scope, receive, send)
            finally:
                REQUEST_ID.reset(token)
            return
        if self.serve_metrics and scope["path"] == "/metrics" and scope["method"] in ("GET", "HEAD"):
            await _metrics(send)
            return
        ident = request_id(scope)
        token = REQUEST_ID.set(ident)
        started = time.perf_counter()
        status = 500
        header = (b"x-request-id", ident.encode())

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            elapsed = time.perf_counter() - started
            method, route = scope["method"], route_template(scope, self.templates)
            metrics.HTTP_REQUESTS.labels(method=method, route=route, status=str(status)).inc()
            metrics.HTTP_LATENCY.labels(method=method, route=route).observe(elapsed)
            if status >= 500:
                metrics.ERRORS.labels(kind="http_5xx").inc()
            if access.isEnabledFor(logging.INFO):
                client = scope.get("client")
                access.info("%s %s %d", method, scope["path"], status, extra={
                    "method": method, "path": scope["path"], "route": route, "status": status,
                    "duration_ms": round(elapsed * 1000, 3), "client": client[0] if client else None})
            REQUEST_ID.reset(token)


async def _metrics(send: Send) -> None:
    body = metrics.exposition()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", metrics.CONTENT_TYPE.encode()),
                            (b"content-length", str(len(body)).encode()), (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})
