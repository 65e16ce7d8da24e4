"""A hostile seamless wallet, as a real process over loopback: it answers ``/balance``, ``/bet``,
``/win`` and ``/rollback`` as a well-behaved wallet would (every bet taken, balance 100,000)
until told to misbehave with ``PUT /mode`` ``{"mode": ...}``:

* ``redirect``: 302 to ``{"location": ...}`` (a GET elsewhere); ``redirect307``: 307 there (the
  signed body re-sent); each request that reaches ``/collect`` is counted (``GET /collected``);
* ``huge``: a 200 answer of ``size`` bytes (default 5 MB) of valid-looking JSON padding;
* ``garbage``: 200 with bytes that are not JSON; ``deep``: JSON nested 100,000 deep;
* ``balance``: ``{"status": "OK", "balance": <value>}`` (e.g. 2**63, or -5).

Standard library only, so it is nothing but bytes on a socket to the server under test.

    with HostileWallet() as wallet:
        wallet.set("redirect", location=f"{game_url}/metrics")

Run as a script it prints ``hostile-wallet on http://127.0.0.1:PORT`` and serves until killed.
"""

from __future__ import annotations

import http.client
import json
import re
import select
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

_STATE: dict[str, Any] = {"mode": "ok", "collected": 0}
_LOCK = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def do_GET(self) -> None:
        if self.path == "/collected":
            self._send(200, json.dumps({"collected": _STATE["collected"]}).encode())
        elif self.path.startswith("/collect"):
            with _LOCK:
                _STATE["collected"] += 1
            self._send(200, b'{"status": "OK", "balance": 1}')
        else:
            self._send(200, b'{"status": "ok"}')

    def do_PUT(self) -> None:
        settings = json.loads(self._body() or b"{}")
        with _LOCK:
            _STATE.update(settings)
        self._send(200, json.dumps(_STATE).encode())

    def do_POST(self) -> None:
        self._body()
        if self.path.startswith("/collect"):
            with _LOCK:
                _STATE["collected"] += 1
            self._send(200, b'{"status": "OK", "balance": 1}')
            return
        mode = _STATE["mode"]
        if mode in ("redirect", "redirect307"):
            self._send(302 if mode == "redirect" else 307, b"", {"Location": str(_STATE["location"])})
        elif mode == "huge":
            size = int(_STATE.get("size", 5_000_000))
            padding = b" " * max(size - 40, 0)
            self._send(200, b'{"status": "OK", "balance": 5' + padding + b"}")
        elif mode == "garbage":
            self._send(200, b"\x00<html>not json at all</html>" * 10)
        elif mode == "deep":
            self._send(200, b"[" * 100_000 + b"]" * 100_000)
        elif mode == "balance":
            self._send(200, json.dumps({"status": "OK", "balance": _STATE["balance"]}).encode())
        else:
            self._send(200, b'{"status": "OK", "balance": 100000}')


_LISTENING = re.compile(r"on http://127\.0\.0\.1:(\d+)")


class HostileWallet:
    """The hostile wallet as a subprocess on a free loopback port."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-P", __file__], stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        found = _LISTENING.search(self.process.stdout.readline() if ready else "")
        if not found:
            self.stop()
            raise RuntimeError("the hostile wallet did not start")
        self.port = int(found.group(1))
        self.url = f"http://127.0.0.1:{self.port}"

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body))
            return json.loads(connection.getresponse().read())
        finally:
            connection.close()

    def set(self, mode: str, **settings: Any) -> None:
        self._request("PUT", "/mode", {"mode": mode, **settings})

    def collected(self) -> int:
        return int(self._request("GET", "/collected")["collected"])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)
        if self.process.stdout is not None:
            self.process.stdout.close()

    def __enter__(self) -> HostileWallet:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    print(f"hostile-wallet on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
