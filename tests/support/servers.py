"""Real servers on free loopback ports: the app served by uvicorn in a thread of the test
process, or ``dealerpoker serve`` as a process of its own (which a test may kill with SIGKILL).

Both wait for the server to answer, with generous timeouts (the machine may be heavily loaded),
and fail with the server's own log when it exits instead. Only the standard library is used
here, so ``scripts/screenshots.py`` can use it too.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dealerpoker.server.frames import UVICORN_WEBSOCKETS, WS_PROTOCOL

DEALERPOKER = str(Path(sys.executable).parent / "dealerpoker")
DRAIN_SECONDS = "DEALERPOKER_DRAIN_SECONDS"  # how long SIGTERM lets live rounds finish (server.draining)
START_TIMEOUT = 90.0  # seconds: cold imports and migrations under load average 10+


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ThreadServer:
    """``app`` served by uvicorn on a free loopback port in a daemon thread of this process, with
    WebSockets as ``dealerpoker serve`` has them (the pages open the jackpot's ticker; the live
    fan-out writes its frames directly: ``server.frames``).

    The port's socket is bound here and handed to uvicorn, never closed in between: a port
    found free and bound again later could be taken meanwhile (CI saw "address already in use"
    when another worker's client socket got it as its ephemeral port)."""

    def __init__(self, app: Any, *, ws: str = WS_PROTOCOL, port: int | None = None) -> None:
        import uvicorn

        self.app = app
        self.socket = socket.socket()
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart on the same port
        self.socket.bind(("127.0.0.1", port or 0))
        self.port: int = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                access_log=False, lifespan="on", **{**UVICORN_WEBSOCKETS, "ws": ws})
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]},
                                       name=f"dealerpoker-test-{self.port}", daemon=True)

    def start(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the dealerpoker server thread ended before it started serving")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the dealerpoker server did not start within {START_TIMEOUT:.0f} s")
            time.sleep(0.02)  # poll until the deadline
        return self

    def stop(self) -> None:
        """Lifespan shutdown (live tables stop their clocks), then the thread ends."""
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.socket.close()


async def bare_lifespan(receive: Any, send: Any) -> None:
    """The lifespan protocol answered for a bare ASGI test app served by ``serving``."""
    await receive()
    await send({"type": "lifespan.startup.complete"})
    await receive()
    await send({"type": "lifespan.shutdown.complete"})


@contextmanager
def serving(app: Any, *, ws: str = WS_PROTOCOL, port: int | None = None) -> Iterator[ThreadServer]:
    """``app`` served in a thread (on ``port``, when a process started before must know it)."""
    server = ThreadServer(app, ws=ws, port=port).start()
    try:
        yield server
    finally:
        server.stop()


def answers(url: str) -> bool:
    """Whether ``GET {url}/healthz`` answers 200 now."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


class ServeProcess:
    """``dealerpoker serve --port P --database URL [extra...]`` as a real process.

    Its output goes to ``log`` (a file), shown when it exits before answering. ``port`` may be
    given to restart a server where clients expect it.
    """

    def __init__(self, database: str, *, log: Path, extra: Sequence[str] = (), port: int | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database = database
        self.log_path = log
        command = [DEALERPOKER, "serve", "--port", str(self.port), "--database", database,
                   "--log-level", "warning", *extra]
        # stop() does not wait for the live rounds in play (up to a round at a table nobody
        # watches any more); a test of draining sets the drain's time in ``env``.
        env = {DRAIN_SECONDS: "0", **(os.environ if env is None else env)}
        with log.open("a") as output:
            self.process = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while not answers(self.url):
            if self.process.poll() is not None:
                raise RuntimeError(f"dealerpoker serve exited ({self.process.returncode}):\n{self.output()}")
            if time.monotonic() > deadline:
                self.dump_stacks()
                self.kill()
                raise RuntimeError(f"dealerpoker serve did not answer within {START_TIMEOUT:.0f} s "
                                   f"(its threads' stacks at the end):\n{self.output()}")
            time.sleep(0.1)  # poll until the deadline

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-6000:]

    def dump_stacks(self) -> None:
        """Ask the process for its threads' Python stacks (``dealerpoker`` writes them to its log on
        SIGUSR1) and wait a little for them: where a server that does not answer is stuck."""
        if self.process.poll() is not None:
            return
        size = self.log_path.stat().st_size
        self.process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not self.stacks_written(since=size):
            time.sleep(0.1)  # poll until the stacks are written or the deadline

    def stacks_written(self, *, since: int) -> bool:
        """Whether the log has a thread's stack after ``since`` ("Thread 0x..." or "Current thread 0x...")."""
        return "thread 0x" in self.log_path.read_text(errors="replace")[since:].lower()

    def kill(self) -> None:
        """kill -9: no shutdown, no flush."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        """A clean shutdown (SIGTERM), or SIGKILL if it does not end within 30 s."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()


def worker_pids(parent: int) -> list[int]:
    """The worker processes of ``dealerpoker serve --workers N`` running as ``parent``: its children
    started by multiprocessing (``spawn_main``); [] once it has none (or is gone)."""
    try:
        children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
    except OSError:
        return []
    found = []
    for pid in children:
        try:
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:  # it has just ended
            continue
    return found
