"""WebSocket upgrades checked against the allowed origins.

A browser sends ``Origin`` with every WebSocket upgrade and lets any page open a socket to any
server: without this check a page elsewhere could open a table socket with a token it got hold
of, or make a visitor's browser do so. An upgrade is accepted when its ``Origin`` is this
server's own (the same host and port as its ``Host`` header) or one of the configured origins
(``Settings.websocket_origins``: ``allowed_origins`` and the operators' ``frame_ancestors``);
an upgrade without ``Origin`` comes from a program, not a browser page, and is accepted (its
token still has to be good). A refused upgrade is closed before it is accepted (HTTP 403).

>>> allowed_origin("http://127.0.0.1:8000", "127.0.0.1:8000", ())
True
>>> allowed_origin("https://evil.example", "casino.example", ("https://casino.example",))
False
>>> allowed_origin("https://lobby.example", "tables.example", ("https://lobby.example",))
True
>>> allowed_origin(None, "tables.example", ())
True
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

CLOSE_FORBIDDEN_ORIGIN = 4403


def allowed_origin(origin: str | None, host: str | None, allowed: Iterable[str]) -> bool:
    """Whether a WebSocket upgrade with this ``Origin`` header, to this ``Host``, is accepted."""
    if origin is None:
        return True
    origin = origin.strip().rstrip("/").lower()
    if origin in {entry.strip().rstrip("/").lower() for entry in allowed}:
        return True
    netloc = urlsplit(origin).netloc
    return bool(netloc) and host is not None and netloc == host.strip().lower()


class WebSocketOrigins:
    """ASGI middleware: a WebSocket upgrade from a page of another origin is refused."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = tuple(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            headers = {name: value.decode("latin-1") for name, value in reversed(scope["headers"])
                       if name in (b"origin", b"host")}
            if not allowed_origin(headers.get(b"origin"), headers.get(b"host"), self.allowed):
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": CLOSE_FORBIDDEN_ORIGIN,
                            "reason": "origin not allowed"})
                return
        await self.app(scope, receive, send)
