"""Request bodies bounded before they are read: a pure ASGI middleware in front of everything
(the fast path, FastAPI, authentication).

A ``Content-Length`` over the limit is answered 413 at once, without reading a byte of the
body; a body without one (chunked) is counted as its chunks arrive and answered 413 as soon as
it passes the limit. Either way the server never holds more than the limit. A JSON body nested
deeper than ``jsonin.MAX_DEPTH`` is answered 422 before anything parses it. What passes is
handed on unchanged (the chunks already read are replayed).
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dealerpoker.server import jsonin

_METHODS_WITHOUT_BODY = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})


def refusal(status: int, code: str, message: str, *, headers: list[tuple[bytes, bytes]] | None = None,
            **extra: object) -> tuple[Message, Message]:
    """The two ASGI messages of a JSON error answer (the API's ``{"error", "message"}`` shape)."""
    body = json.dumps({"error": code, "message": message, **extra}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close"), *(headers or ())]
    return ({"type": "http.response.start", "status": status, "headers": headers},
            {"type": "http.response.body", "body": body})


async def send_refusal(send: Send, status: int, code: str, message: str, *,
                       headers: list[tuple[bytes, bytes]] | None = None, **extra: object) -> None:
    for message_ in refusal(status, code, message, headers=headers, **extra):
        await send(message_)


class BodyLimit:
    """ASGI middleware: 413 for a body over ``max_bytes``, 422 for JSON nested too deeply."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length, is_json = _length_and_type(scope["headers"])
        if length is not None and length > self.max_bytes:
            await self._too_large(send)
            return
        if length == 0 or (length is None and scope["method"] in _METHODS_WITHOUT_BODY):
            await self.app(scope, receive, send)
            return
        body, messages, complete = await read_body(receive, self.max_bytes)
        if not complete and messages[-1]["type"] == "http.request":
            await self._too_large(send)
            return
        if is_json and body and jsonin.too_deep(body):
            await send_refusal(send, 422, "too_deep",
                               f"the body is JSON nested deeper than {jsonin.MAX_DEPTH} levels")
            return
        await self.app(scope, replaying(messages, receive), send)

    async def _too_large(self, send: Send) -> None:
        await send_refusal(send, 413, "too_large",
                           f"the request body is larger than {self.max_bytes} bytes", limit=self.max_bytes)


async def read_body(receive: Receive, limit: int) -> tuple[bytes, list[Message], bool]:
    """The request body, the messages it came in, and whether it is all there (False: over
    ``limit`` bytes, or a message other than the body's, such as a disconnect). Reading stops at
    the first chunk past the limit."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            complete = False
            break
        size += len(message.get("body", b""))
        if size > limit:
            complete = False
            break
        if not message.get("more_body", False):
            complete = True
            break
    body = b"".join(message.get("body", b"") for message in messages if message["type"] == "http.request")
    return body, messages, complete


def _length_and_type(headers: list[tuple[bytes, bytes]]) -> tuple[int | None, bool]:
    """The declared length, and whether FastAPI would parse the body as JSON (it does when there
    is no content type)."""
    length: int | None = None
    is_json = True
    for name, value in headers:
        if name == b"content-length":
            try:
                length = int(value)
            except ValueError:
                length = None
        elif name == b"content-type":
            media = value.split(b";", 1)[0].strip().lower()
            is_json = media == b"application/json" or media.endswith(b"+json")
    return length, is_json


def replaying(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that first gives back the messages already read, then the real ones."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
