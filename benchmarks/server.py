"""Complete solo rounds per second through the HTTP API, with p50/p99 request latency.

Starts the real server (``dealerpoker serve``) on a free loopback port with a fresh database
(SQLite file, or a PostgreSQL database created for the run and dropped afterwards), then runs
``--clients`` concurrent players for ``--seconds``. Each player opens rounds and plays them to
the end over keep-alive HTTP/1.1 connections (a minimal client, so the load generator costs
little CPU on the shared machine): Casino Hold'em ``raise`` (2 requests per round) and Texas
Hold'em Bonus ``bet``, ``check``, ``check`` (4 requests), alternately. The results go to
``benchmarks/RESULTS.md`` ("Server").

    .venv/bin/python benchmarks/server.py --seconds 20 --clients 8 \
        --postgres postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _results import machine, write_section

PLAYS = {"casino-holdem": ("raise",), "texas-bonus": ("bet", "check", "check")}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Connection:
    """One keep-alive HTTP/1.1 connection sending JSON requests."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(payload)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        if token:
            head.append(f"Authorization: Bearer {token}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        data = await self.reader.readexactly(length)
        return status, json.loads(data) if data else None

    def close(self) -> None:
        self.writer.close()


@dataclass
class Tally:
    rounds: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)


async def player(port: int, stop_at: float, tally: Tally, number: int) -> None:
    connection = await Connection.open(port)
    try:
        _, session = await connection.request("POST", "/api/session", {})
        token = session["token"]
        games = list(PLAYS)
        turn = number
        while time.perf_counter() < stop_at:
            game = games[turn % 2]
            turn += 1
            began = time.perf_counter()
            status, view = await connection.request(
                "POST", "/api/rounds", {"game": game, "bets": {"ante": 100}}, token)
            tally.latencies.append(time.perf_counter() - began)
            if status != 200:
                tally.errors += 1
                continue
            for action in PLAYS[game]:
                if view["status"] != "open":
                    break
                began = time.perf_counter()
                status, view = await connection.request(
                    "POST", f"/api/rounds/{view['id']}/actions", {"action": action}, token)
                tally.latencies.append(time.perf_counter() - began)
                if status != 200:
                    tally.errors += 1
                    break
            else:
                tally.rounds += 1
    finally:
        connection.close()


async def load(port: int, clients: int, seconds: float) -> tuple[Tally, float]:
    tally = Tally()
    began = time.perf_counter()
    await asyncio.gather(*(player(port, began + seconds, tally, n) for n in range(clients)))
    return tally, time.perf_counter() - began


def start_server(database_url: str, port: int) -> subprocess.Popen[bytes]:
    command = [str(Path(sys.executable).parent / "dealerpoker"), "serve", "--port", str(port),
               "--database", database_url, "--starting-balance", str(10**12), "--log-level", "warning",
               "--no-rtp"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as response:
                if response.status == 200:
                    return process
        except OSError:
            time.sleep(0.2)
        if process.poll() is not None:
            raise SystemExit(f"server exited: {process.stderr.read().decode() if process.stderr else ''}")
    process.kill()
    raise SystemExit("server did not start within 60 s")


def run_one(label: str, database_url: str, clients: int, seconds: float) -> dict[str, Any]:
    port = free_port()
    server = start_server(database_url, port)
    try:
        asyncio.run(load(port, clients, 2.0))  # warm up (imports, JIT, caches, connections)
        tally, elapsed = asyncio.run(load(port, clients, seconds))
    finally:
        server.terminate()
        server.wait(timeout=30)
    latencies = sorted(tally.latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return {"database": label, "clients": clients, "rounds": tally.rounds,
            "errors": tally.errors, "seconds": elapsed, "rounds_per_s": tally.rounds / elapsed,
            "requests_per_s": len(latencies) / elapsed,
            "p50_ms": statistics.median(latencies) * 1000, "p99_ms": p99 * 1000}


def postgres_database(admin_url: str, action: str, name: str) -> None:
    import asyncpg
    from sqlalchemy.engine import make_url

    parsed = make_url(admin_url)

    async def run() -> None:
        connection = await asyncpg.connect(user=parsed.username, password=parsed.password, host=parsed.host,
                                           port=parsed.port, database=parsed.database)
        try:
            statement = f'CREATE DATABASE "{name}"' if action == "create" else \
                f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'
            await connection.execute(statement)
        finally:
            await connection.close()

    asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--postgres", default=os.environ.get("DEALERPOKER_TEST_POSTGRES_URL"),
                        help="an admin URL to create a scratch database on (skipped when absent)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()

    results = []
    with tempfile.TemporaryDirectory() as scratch:
        results.append(run_one("SQLite", f"sqlite:///{scratch}/bench.db", args.clients, args.seconds))
        print(results[-1], flush=True)
    if args.postgres:
        from sqlalchemy.engine import make_url

        name = f"dp_bench_{secrets.token_hex(4)}"
        postgres_database(args.postgres, "create", name)
        try:
            url = make_url(args.postgres).set(database=name).render_as_string(hide_password=False)
            results.append(run_one("PostgreSQL", url, args.clients, args.seconds))
            print(results[-1], flush=True)
        finally:
            postgres_database(args.postgres, "drop", name)

    command = " ".join(["python benchmarks/server.py", *sys.argv[1:]])
    rows = "\n".join(
        f"| {r['database']} | {r['clients']} | {r['rounds']:,} | {r['rounds_per_s']:,.0f} | "
        f"{r['requests_per_s']:,.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['errors']} |"
        for r in results)
    body = f"""Measured {machine()} with `{command}`.
Complete solo rounds through the HTTP API on loopback (`dealerpoker serve`, a fresh database per
run): each client alternates Casino Hold'em (deal + raise: 2 requests) and Texas Hold'em Bonus
(deal + bet, check, check: 4 requests). The load generator runs on the same machine. The
machine's 2 cores are shared with other helpers' builds and tests while this ran, so the figures
are pessimistic. Target: >= 200 rounds/s with p99 < 100 ms.

| database | clients | rounds | rounds/s | requests/s | p50 ms | p99 ms | errors |
|---|---:|---:|---:|---:|---:|---:|---:|
{rows}
"""
    print(body)
    if not args.no_write:
        write_section("Server", body)


if __name__ == "__main__":
    main()
