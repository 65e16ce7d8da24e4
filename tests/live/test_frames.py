"""The live fan-out's direct frames (``server.frames``): their bytes, the hub's use of them, and a
real uvicorn socket that takes them and refuses them once its client stops reading."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from tests.support.servers import bare_lifespan, serving
from websockets.frames import Frame, Opcode
from websockets.sync.client import connect

from dealerpoker.server.frames import BUFFER_LIMIT, FRAMES, FrameWriter, text_frame
from dealerpoker.server.live.hub import Connection, LocalHub


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
def test_a_text_frame_is_what_the_websockets_library_writes(size: int) -> None:
    text = ("é" * size)[: max(0, size // 2)] + "x" * (size - 2 * (size // 2))
    expected = Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[])
    assert text_frame(text) == expected


def test_a_table_event_is_framed_once_for_every_socket() -> None:
    hub = LocalHub(lambda: 1000.0)
    written: list[tuple[str, bytes]] = []

    def writer(player: str) -> FrameWriter:
        def write(frame: bytes) -> bool:
            written.append((player, frame))
            return True
        return write

    for player in ("p1", "p2", "p3"):
        hub.join(Connection(player, "t", writer(player)))
    asyncio.run(hub.to_table("t", {"type": "table", "event": "betting_open"}))
    assert sorted(p for p, _ in written) == ["p1", "p2", "p3"]
    frames = {id(frame) for _, frame in written}
    assert len(frames) == 1  # one frame object handed to all
    assert written[0][1] == text_frame('{"type":"table","event":"betting_open","sent_at":1000.0}')


def test_a_socket_that_takes_no_more_frames_is_closed_as_too_slow_and_sent_nothing_else() -> None:
    offered: list[bytes] = []

    def full(frame: bytes) -> bool:
        offered.append(frame)
        return False

    connection = Connection("p1", "t", full)
    connection.push("one")
    connection.push("two")
    assert connection.dropped
    assert offered == [text_frame("one")]  # nothing offered once dropped
    assert connection.queue.get_nowait() is None  # the sender task closes the socket (4408)


def test_a_queued_socket_that_falls_too_far_behind_is_closed_as_too_slow() -> None:
    async def scenario() -> None:
        connection = Connection("p1", "t")
        for number in range(connection.queue.maxsize + 1):
            connection.push(str(number))
        assert connection.dropped
        assert connection.queue.get_nowait() is None
        assert connection.queue.empty()

    asyncio.run(scenario())


class _Writer:
    """An ASGI app whose only WebSocket writes the frames it is told to, through ``FRAMES``."""

    def __init__(self) -> None:
        self.frames: Any = None
        self.ready = threading.Event()
        self.loop: asyncio.AbstractEventLoop | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await bare_lifespan(receive, send)
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        self.frames, self.loop = scope["extensions"].get(FRAMES), asyncio.get_running_loop()
        self.ready.set()
        await receive()  # until the client leaves

    def write(self, frame: bytes) -> bool:
        """The writer called on the server's loop, as the hub calls it."""
        assert self.loop is not None
        return bool(asyncio.run_coroutine_threadsafe(self._write(frame), self.loop).result(timeout=30))

    async def _write(self, frame: bytes) -> bool:
        return bool(self.frames(frame))


def test_the_server_socket_carries_the_frames_and_refuses_them_once_its_client_stops_reading() -> None:
    app = _Writer()
    with serving(app) as server, connect(f"ws://127.0.0.1:{server.port}/", max_size=None) as client:
        assert app.ready.wait(30)
        assert app.frames is not None, "the protocol offers the frames extension"
        texts = ["short", "m" * 300, "L" * 70_000]  # each of the three length encodings
        for text in texts:
            assert app.write(text_frame(text))
        assert [client.recv(timeout=30) for _ in texts] == texts
        # The client reads no more: the kernel's buffers fill, then the transport's beyond
        # BUFFER_LIMIT, and the writer refuses.
        big = text_frame("B" * 100_000)
        taken = 0
        while app.write(big):
            taken += 1
            assert taken < 2_000, "200 MB went to a client that reads nothing"
        assert taken * len(big) > BUFFER_LIMIT
