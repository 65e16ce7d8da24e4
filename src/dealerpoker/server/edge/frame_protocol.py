"""uvicorn's WebSocket protocol with the live fan-out's direct frames (``server.frames``): the
uvicorn setting ``ws`` names it (``frames.WS_PROTOCOL``), so that only a server imports uvicorn."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from dealerpoker.server.frames import BUFFER_LIMIT, FRAMES


class FrameWritingProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, whose scope offers ``FRAMES``."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope: Any = getattr(self, "scope", None)  # none when the upgrade was refused
        if scope is not None and not self.conn.extensions:
            scope["extensions"][FRAMES] = self.write_frame

    def write_frame(self, frame: bytes) -> bool:
        if not self.handshake_complete or self.close_sent or self.disconnected \
                or self.initial_response is not None or self.transport.is_closing() \
                or self.transport.get_write_buffer_size() > BUFFER_LIMIT:
            return False
        self.transport.write(frame)
        return True
