"""WebSocket text frames written straight to the socket, for the live tables' fan-out.

Through ASGI, every message to every socket is a ``send`` call: a coroutine through the edge's
and Starlette's wrappers into uvicorn, which frames it and writes it, woken from a queue task of
its own. At 10,000 players a table event is 10,000 of these, and they were the largest single
cost of a ``serve`` process (py-spy, 2026-12-07: 17-20% of each worker's samples, ahead of the
table's own work). A table event is the same bytes for every player, so it is framed once
(``text_frame``) and each socket is handed the frame: a ``transport.write`` each.

``edge/frame_protocol.py: FrameWritingProtocol`` is uvicorn's WebSocket protocol
(``websockets-sansio``) with that one addition: the scope's extension ``FRAMES`` is a function
that writes an encoded frame to this socket at once and answers whether the socket took it
(``FrameWriter``). ``dealerpoker serve`` runs it (``WS_PROTOCOL``); under another server the
extension is absent and the fan-out sends through ASGI as before. Only text frames of complete
messages go this way, unmasked (a server's frames are), and only on a socket without
extensions (``serve`` negotiates none: no per-message compression), so the frame is exactly
what the protocol object would write; the handshake, closing, pings and what the client sends
stay the protocol's.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

FRAMES = "dealerpoker.frames"
"""The scope extension: a ``FrameWriter`` for the socket."""
WS_PROTOCOL = "dealerpoker.server.edge.frame_protocol:FrameWritingProtocol"
UVICORN_WEBSOCKETS: dict[str, object] = {"ws": WS_PROTOCOL, "ws_per_message_deflate": False}
"""uvicorn's settings for that protocol (``serve`` and the tests' servers). A socket that
negotiated compression would need each frame compressed for it alone: none is offered."""
BUFFER_LIMIT = 512 * 1024
"""Bytes a socket may have waiting to go out before it counts as too slow (the fan-out closes
it: the client reconnects and is sent the current state). A table event is 0.3-1 kB; a
welcome, with the game's rules, about 15 kB."""

FrameWriter = Callable[[bytes], bool]
"""Writes one encoded frame to the socket now: False when the socket takes no more (closed or
closing, or more than ``BUFFER_LIMIT`` waiting), and then nothing was written."""


def text_frame(text: str) -> bytes:
    """``text`` as one unmasked, final WebSocket text frame (RFC 6455, section 5.2).

    >>> text_frame("hi")
    b'\\x81\\x02hi'
    >>> text_frame("x" * 200)[:4]
    b'\\x81~\\x00\\xc8'
    """
    data = text.encode()
    size = len(data)
    if size < 126:
        return bytes((0x81, size)) + data
    if size < 1 << 16:
        return struct.pack("!BBH", 0x81, 126, size) + data
    return struct.pack("!BBQ", 0x81, 127, size) + data
