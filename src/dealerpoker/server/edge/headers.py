"""Security headers on every answer of the server: pages, API, errors, refusals of the edge.

- ``Content-Security-Policy``: scripts, styles, fonts and connections from this server only
  (``script-src 'self'``: the pages have no inline script or handler), images from it or
  ``data:``, a studio table's video (``media-src``, ``frame-src``) from the origins of the
  ``video_url`` of the configured tables, no plugins, and ``frame-ancestors 'self'`` plus the
  configured operator origins (``Settings.frame_ancestors``).
- ``X-Frame-Options: SAMEORIGIN`` for browsers without ``frame-ancestors`` (only when no operator
  origin may frame the pages: it cannot name one).
- ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``.
- ``Cache-Control: no-store`` on ``/api``, ``/admin/api`` and ``/operator`` answers (tokens,
  balances, rounds) unless the route set its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

NO_STORE_PREFIXES = ("/api/", "/admin/api/", "/operator")


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of an absolute http(s) URL, else None (a relative URL is ours).

    >>> origin_of("https://stream.example:8443/live/a.m3u8"), origin_of("/video/a.webm")
    ('https://stream.example:8443', None)
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}"


def content_security_policy(frame_ancestors: Iterable[str] = (), media: Iterable[str] = ()) -> str:
    """The policy of every answer.

    >>> content_security_policy(["https://casino.example"]).split("; ")[-1]
    "frame-ancestors 'self' https://casino.example"
    """
    media_sources = " ".join(["'self'", *sorted(set(media))])
    return "; ".join([
        "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
        "font-src 'self'", "connect-src 'self'", f"media-src {media_sources} blob:",
        f"frame-src {media_sources}", "object-src 'none'", "base-uri 'self'", "form-action 'self'",
        " ".join(["frame-ancestors 'self'", *frame_ancestors]),
    ])


def security_headers(frame_ancestors: Iterable[str] = (), media: Iterable[str] = ()
                     ) -> list[tuple[bytes, bytes]]:
    ancestors = list(frame_ancestors)
    headers = [
        (b"content-security-policy", content_security_policy(ancestors, media).encode("latin-1")),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
    ]
    if not ancestors:
        headers.append((b"x-frame-options", b"SAMEORIGIN"))
    return headers


def add_headers(message: Message, headers: list[tuple[bytes, bytes]], no_store: bool) -> None:
    """Add the security headers (and ``no-store``) to a ``http.response.start`` message."""
    present = list(message.get("headers", ()))
    names = {name.lower() for name, _ in present}
    present.extend(header for header in headers if header[0] not in names)
    if no_store and b"cache-control" not in names:
        present.append((b"cache-control", b"no-store"))
    message["headers"] = present


def wants_no_store(path: str) -> bool:
    return path.startswith(NO_STORE_PREFIXES) or path == "/api"


class SecurityHeaders:
    """ASGI middleware adding ``headers`` to every HTTP answer."""

    def __init__(self, app: ASGIApp, headers: list[tuple[bytes, bytes]]) -> None:
        self.app = app
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        no_store = wants_no_store(scope["path"])

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                add_headers(message, self.headers, no_store)
            await send(message)

        await self.app(scope, receive, send_with_headers)
