"""A lean WebSocket client (RFC 6455) for the simulated players of ``live.py``: thousands of
sockets in one load process, each an ``asyncio.Protocol`` whose frames are parsed in
``data_received`` and handed to the player's code at once, with the moment they arrived.

Why not the ``websockets`` library's client (the benchmark's client until 2026-12-07): each of
its messages goes through an assembler, a future and the reading task's wake-up, and at 10,000
players on this 2-core machine its four load processes took 0.3-0.8 of a core during the rounds,
beside the server they measure; a message waited behind its process's other messages before
it was even stamped as arrived. Here a message costs a slice of a buffer and a callback.

Deliberately small: text frames from the server (unmasked, never fragmented: the server sends
each message whole), pings answered, a close answered and the socket closed. The client's own
frames carry the mask bit with a key of zeros (the payload unchanged): valid frames, and masking
only guards proxies' caches, of which loopback has none.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
import time
from collections.abc import Callable
from urllib.parse import urlsplit

TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


class LeanSocket(asyncio.Protocol):
    """One client socket: ``opened`` resolves after the upgrade, ``closed`` when the socket ends;
    ``on_text(text, arrived)`` gets each text message the moment its bytes are read."""

    def __init__(self, request: bytes, on_text: Callable[[str, float], None]) -> None:
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.transport: asyncio.Transport | None = None
        self._request = request
        self._on_text = on_text
        self._buffer = bytearray()
        self._upgraded = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(self._request)  # type: ignore[union-attr]

    def data_received(self, data: bytes) -> None:
        arrived = time.time()
        buffer = self._buffer
        buffer += data
        if not self._upgraded:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buffer[:buffer.find(b"\r\n")])
            if not status.startswith(b"HTTP/1.1 101"):
                self._fail(ConnectionRefusedError(status.decode(errors="replace")))
                return
            del buffer[:end + 4]
            self._upgraded = True
            self.opened.set_result(None)
        while len(buffer) >= 2:
            size, start = buffer[1] & 0x7F, 2
            if size == 126:
                if len(buffer) < 4:
                    return
                size, start = int.from_bytes(buffer[2:4], "big"), 4
            elif size == 127:
                if len(buffer) < 10:
                    return
                size, start = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) < start + size:
                return
            opcode = buffer[0] & 0x0F
            payload = bytes(buffer[start:start + size])
            del buffer[:start + size]
            if opcode == TEXT:
                self._on_text(payload.decode(), arrived)
            elif opcode == PING:
                self._send(PONG, payload)
            elif opcode == CLOSE:
                self._send(CLOSE, payload[:2])
                self.close()
                return

    def send_text(self, text: str) -> bool:
        """Send ``text``; False when the socket is closing or closed (nothing sent)."""
        if self.transport is None or self.transport.is_closing() or not self._upgraded:
            return False
        self._send(TEXT, text.encode())
        return True

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(exc or ConnectionResetError("closed before the upgrade"))
        if not self.closed.done():
            self.closed.set_result(None)

    def _fail(self, error: BaseException) -> None:
        if not self.opened.done():
            self.opened.set_exception(error)
            self.opened.exception()  # retrieved: the opener may have given up waiting
            self.close()

    def _send(self, opcode: int, data: bytes) -> None:
        size = len(data)
        if size < 126:
            head = bytes((0x80 | opcode, 0x80 | size))
        else:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
        assert self.transport is not None
        self.transport.write(head + b"\0\0\0\0" + data)  # the mask bit, a key of zeros


async def open_socket(url: str, token: str, on_text: Callable[[str, float], None],
                      timeout: float) -> LeanSocket:
    """A player's socket to ``url`` (``ws://host:port/path``) with the bearer ``token``, upgraded
    within ``timeout`` s (else ``TimeoutError``; a refused upgrade raises ``ConnectionRefusedError``)."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
               f"Authorization: Bearer {token}\r\n\r\n").encode()
    loop = asyncio.get_running_loop()
    _, socket = await asyncio.wait_for(
        loop.create_connection(lambda: LeanSocket(request, on_text), host, port), timeout)
    try:
        await asyncio.wait_for(asyncio.shield(socket.opened), timeout)
    except BaseException:
        socket.close()
        raise
    return socket
