"""The server's one rule for text from outside, and the edge that enforces it.

Text the server takes may contain neither a NUL character (PostgreSQL cannot store U+0000 in a
text column: it answered 500 where SQLite stored the text) nor a lone surrogate (U+D800 to
U+DFFF without its pair: not encodable as UTF-8, so nothing can store, hash or answer it). A
request carrying either is refused with 422 ``invalid_text`` naming the field, identically on
every database, before any route, the round-step fast path or the database sees it:

- ``TextGuard`` (ASGI middleware, outside the fast path and FastAPI): the path, each query
  parameter, and every string and object key of a JSON body; on a WebSocket upgrade the path
  and the query;
- WebSocket messages (``dealerpoker.server.live.routes``) call ``check_json`` on each message.

JSON escapes a valid surrogate pair (``"\\ud83d\\ude00"``) into one character, so a surrogate
left in a decoded string is always a lone one.

>>> text_problem("ante"), text_problem("a\\x00b"), text_problem("ante\\ud800")
(None, 'a NUL character (U+0000)', 'a lone surrogate (U+D800)')
>>> check_json({"game": "texas-bonus", "bets": {"ante\\ud800": 100}})
Traceback (most recent call last):
...
dealerpoker.server.text.InvalidTextError: bets: the field name "ante\\ud800" contains a lone ...
>>> check_json({"idempotency_key": "k\\x00"})
Traceback (most recent call last):
...
dealerpoker.server.text.InvalidTextError: idempotency_key: contains a NUL character (U+0000)
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dealerpoker.errors import DealerPokerError
from dealerpoker.server import jsonin
from dealerpoker.server.edge.errors import domain_error_response

_FORBIDDEN = re.compile("[\x00\ud800-\udfff]")
TEXT_PATTERN = "^[^\\u0000]*$"
"""The OpenAPI ``pattern`` of any text the server takes: no NUL. A lone surrogate needs no
pattern: it is not a Unicode character, so no JSON Schema string holds one (and validators built
on UTF-8, such as schemathesis's, cannot compile a class that names surrogates and drop it)."""
_METHODS_WITHOUT_BODY = frozenset({"GET", "HEAD", "OPTIONS"})


class InvalidTextError(DealerPokerError, ValueError):
    """Text with a NUL character or a lone surrogate; ``field`` names where it was."""

    code = "invalid_text"
    status = 422

    def __init__(self, message: str, *, field: str = "body") -> None:
        super().__init__(message)
        self.field = field

    def details(self) -> dict[str, Any]:
        return {"field": self.field}


def text_problem(value: str) -> str | None:
    """What is wrong with ``value`` (its first forbidden character), or None."""
    found = _FORBIDDEN.search(value)
    if found is None:
        return None
    character = found.group()
    return "a NUL character (U+0000)" if character == "\x00" else f"a lone surrogate (U+{ord(character):04X})"


def shown(value: str) -> str:
    """``value`` as a JSON string (ASCII, every forbidden character escaped): safe in any answer."""
    return json.dumps(value)


def check_text(value: str, field: str) -> None:
    """Raise :class:`InvalidTextError` naming ``field`` when ``value`` breaks the rule."""
    problem = text_problem(value)
    if problem is not None:
        raise InvalidTextError(f"{field}: contains {problem}", field=field)


def check_json(data: Any, where: str = "") -> None:
    """Every string and object key in decoded JSON ``data`` (``where``: the path to it)."""
    if isinstance(data, str):
        check_text(data, where or "body")
    elif isinstance(data, dict):
        for key, value in data.items():
            problem = text_problem(key)
            if problem is not None:
                field = where or "body"
                raise InvalidTextError(f"{field}: the field name {shown(key)} contains {problem}",
                                       field=field)
            check_json(value, f"{where}.{key}" if where else key)
    elif isinstance(data, list):
        for index, item in enumerate(data):
            check_json(item, f"{where}[{index}]")


def check_url(scope: Scope) -> None:
    """The request's path and each query parameter (as the app will read them)."""
    check_text(scope["path"], "path")
    query: bytes = scope.get("query_string", b"")
    if query:
        for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
            if text_problem(name) is not None:
                raise InvalidTextError(f"query: the parameter name {shown(name)} contains "
                                       f"{text_problem(name)}", field="query")
            check_text(value, f"query parameter {name!r}")


def check_body(body: bytes) -> None:
    """A JSON body's strings and keys. Text with no escape (``\\u``) cannot hold a forbidden
    character as valid JSON (a raw NUL or an unpaired surrogate's bytes are not JSON), so only
    a body with one is decoded; a body that is not JSON is left to the route (400)."""
    if b"\\u" not in body:
        return
    try:
        data = jsonin.loads(body)  # the edge refused deeper nesting already
    except (ValueError, RecursionError):
        return
    check_json(data)


class TextGuard:
    """ASGI middleware: 422 ``invalid_text`` for a path, query or JSON body breaking the rule; a
    WebSocket upgrade whose path or query breaks it is refused (422 where the server can answer
    an upgrade with a response, else closed with 1007)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        try:
            check_url(scope)
        except InvalidTextError as error:
            await _refuse(scope, receive, send, error)
            return
        if kind == "websocket" or scope["method"] in _METHODS_WITHOUT_BODY:
            await self.app(scope, receive, send)
            return
        messages = await _read(receive)
        try:
            check_body(b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request"))
        except InvalidTextError as error:
            await _refuse(scope, receive, send, error)
            return
        await self.app(scope, _replaying(messages, receive), send)


async def _read(receive: Receive) -> list[Message]:
    """The request's messages up to the end of its body (or a disconnect)."""
    messages: list[Message] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body", False):
            return messages


def _replaying(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay


async def _refuse(scope: Scope, receive: Receive, send: Send, error: InvalidTextError) -> None:
    response = domain_error_response(error)
    if scope["type"] == "http":
        await response(scope, receive, send)
        return
    await receive()  # websocket.connect
    if "websocket.http.response" in scope.get("extensions", {}):
        await send({"type": "websocket.http.response.start", "status": response.status_code,
                    "headers": response.raw_headers})
        await send({"type": "websocket.http.response.body", "body": response.body})
    else:
        await send({"type": "websocket.close", "code": 1007, "reason": str(error)[:120]})
