"""A process asked to stop (SIGTERM: a rolling restart, a deploy) drains first, so nobody playing
notices: it stops listening (a proxy sends new connections to the other processes), the live
tables whose clocks it runs finish their round and hand their clocks to another process, and
only then does the server stop as it always did (requests in flight finished; open WebSockets
closed with 1012 "service restart", which the pages answer by reconnecting and resuming their
seat, through the proxy, at another process).

``Drain`` holds what draining does (extensions add hooks; the live tables add theirs) and whether
it has begun (``/healthz`` then answers 503 "draining", for load balancers that look).
``on_sigterm`` puts it in front of the server's own SIGTERM handler (uvicorn's), for
``Settings.drain_seconds`` at most; a second SIGTERM stops at once.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("dealerpoker.draining")

Hook = Callable[[], Awaitable[None]]


@dataclass
class Drain:
    seconds: float = 90.0
    hooks: list[Hook] = field(default_factory=list)
    begun: bool = False

    async def __call__(self) -> None:
        """Run the hooks, at most ``seconds`` in all (then the process stops anyway: a live round
        not finished by then resumes from its last commit in the process that takes its table)."""
        if self.begun:
            return
        self.begun = True
        log.info("draining: no new connections; live tables hand over after their round")
        try:
            async with asyncio.timeout(self.seconds):
                for hook in self.hooks:
                    await hook()
        except TimeoutError:
            log.warning("draining: not done within %g s; stopping anyway", self.seconds)
        log.info("drained: stopping")


def on_sigterm(drain: Drain, loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """Drain on SIGTERM, then hand the signal to the handler installed before (the server's, which
    stops it). Returns what undoes this. Does nothing outside the main thread (a server in a
    test's thread) or where SIGTERM has no Python handler to pass on to."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGTERM)
    if not callable(previous):
        return lambda: None
    asked: list[int] = []
    running: set[asyncio.Task[None]] = set()

    def handler(number: int, frame: Any) -> None:
        if asked:  # asked twice: stop now
            previous(number, frame)
            return
        asked.append(number)

        def begin() -> None:
            _stop_listening(previous)
            task = asyncio.ensure_future(drain())
            running.add(task)
            task.add_done_callback(stop)

        def stop(task: asyncio.Task[None]) -> None:
            running.discard(task)
            previous(number, frame)

        loop.call_soon_threadsafe(begin)

    signal.signal(signal.SIGTERM, handler)

    def undo() -> None:
        if signal.getsignal(signal.SIGTERM) is handler:
            signal.signal(signal.SIGTERM, previous)

    return undo


def _stop_listening(server_handler: Callable[..., Any]) -> None:
    """Close the listening sockets of the server whose SIGTERM handler this is (uvicorn's
    ``Server.handle_exit``: its ``servers``), so no new connection comes here while it drains;
    the connections open now stay open. Another server: its connections keep coming until it stops."""
    server = getattr(server_handler, "__self__", None)
    for listener in getattr(server, "servers", ()):
        listener.close()
