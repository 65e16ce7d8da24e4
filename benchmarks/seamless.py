"""Solo rounds per second with the seamless wallet (an operator's players, every bet and win a
signed call to the reference operator over loopback) beside the embedded wallet (demo players).

Starts ``dealerpoker operator-demo`` (no faults) and ``dealerpoker serve`` on a fresh SQLite file
(or a PostgreSQL database created for the run, ``--postgres``), then runs ``--clients`` players for
``--seconds`` each way on the same server: demo players (``POST /api/session``: the embedded
ledger) and the operator's players (launched: ``/bet`` before each stake, ``/win`` through the
outbox). Casino Hold'em rounds, ``call`` (2 requests, one or two bets, one win). Figures go to
``benchmarks/RESULTS.md`` ("Seamless wallet").

    .venv/bin/python benchmarks/seamless.py --seconds 20 --clients 8
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _processes import free_port, tree_cpu_seconds
from _results import machine, write_section
from server import Connection

SECRET = "benchmark-operator-secret-0123"
BIN = Path(sys.executable).parent / "dealerpoker"


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> Any:
    raw = json.dumps(body).encode()
    request = urllib.request.Request(url, raw, {"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def wait_for(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.2)
        if process.poll() is not None:
            raise SystemExit(f"{url}: the process exited")
    raise SystemExit(f"{url} did not answer")


def launch(game_url: str, operator_url: str, name: str) -> str:
    """An operator's player with a large balance, launched: its dealerpoker bearer token."""
    token = post(f"{operator_url}/admin/players", {"player": name, "currency": "EUR", "balance": 10**12})[
        "token"
    ]
    raw = json.dumps(
        {"player": name, "currency": "EUR", "game": "casino-holdem", "token": token, "mode": "real"}
    ).encode()
    signature = hmac.new(SECRET.encode(), raw, hashlib.sha256).hexdigest()
    request = urllib.request.Request(
        f"{game_url}/operator/v1/launch",
        raw,
        {"Content-Type": "application/json", "X-Operator-Id": "bench", "X-Signature": signature},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        launched = json.loads(response.read())
    return str(post(f"{game_url}/api/session", {"launch": launched["launch_token"]})["token"])


async def player(port: int, token: str, stop_at: float, tally: dict[str, Any]) -> None:
    connection = await Connection.open(port)
    try:
        while time.perf_counter() < stop_at:
            began = time.perf_counter()
            status, view = await connection.request(
                "POST", "/api/rounds", {"game": "casino-holdem", "bets": {"ante": 100}}, token
            )
            if status != 200:
                tally["errors"] += 1
                continue
            status, view = await connection.request(
                "POST", f"/api/rounds/{view['id']}/actions", {"action": "call", "step": 1}, token
            )
            if status != 200 or view.get("status") != "settled":
                tally["errors"] += 1
                continue
            tally["rounds"] += 1
            tally["latencies"].append(time.perf_counter() - began)
    finally:
        connection.close()


def measure(label: str, port: int, tokens: list[str], seconds: float, server_pid: int) -> dict[str, Any]:
    async def run(duration: float) -> dict[str, Any]:
        tally: dict[str, Any] = {"rounds": 0, "errors": 0, "latencies": []}
        stop_at = time.perf_counter() + duration
        await asyncio.gather(*(player(port, token, stop_at, tally) for token in tokens))
        return tally

    asyncio.run(run(2.0))  # warm up
    cpu, began = tree_cpu_seconds(server_pid), time.perf_counter()
    tally = asyncio.run(run(seconds))
    elapsed, cpu = time.perf_counter() - began, tree_cpu_seconds(server_pid) - cpu
    rounds = tally["rounds"]
    latencies = sorted(tally["latencies"]) or [0.0]
    return {
        "label": label,
        "rounds": rounds,
        "rate": rounds / elapsed,
        "errors": tally["errors"],
        "p50": statistics.median(latencies) * 1000,
        "cpu": cpu * 1000 / max(rounds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument(
        "--postgres", default=None, metavar="URL", help="measure on PostgreSQL instead of SQLite"
    )
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        results = run_all(Path(scratch), f"sqlite:///{scratch}/bench.db", args)
    load = os.getloadavg()
    rows = "\n".join(
        f"| {r['label']} | {args.clients} | {r['rounds']} | {r['rate']:.0f} | {r['p50']:.1f} | "
        f"{r['errors']} | {r['cpu']:.1f} |"
        for r in results
    )
    database = "SQLite"
    body = (
        f"Measured {machine()}, {database}, {args.seconds:.0f} s per wallet, load average "
        f"{load[0]:.1f} / {load[1]:.1f} at the end (the 2-core machine was shared with other sessions' "
        f"tests: the figures are low and vary).\n\n"
        f"    .venv/bin/python benchmarks/seamless.py --seconds {args.seconds:.0f} --clients {args.clients}"
        f"{' --postgres URL' if args.postgres else ''}\n\n"
        "One `dealerpoker serve --operators` process, the reference operator (`operator-demo`, no faults) "
        "on loopback. Casino Hold'em rounds (deal, call): the embedded wallet's demo players, then the "
        "operator's players (each stake a signed `/bet` answered before it is placed, each round's win "
        "owed in the outbox and delivered by its task). Target: at least 200 rounds/s with the "
        "seamless wallet.\n\n"
        "| wallet | clients | rounds | rounds/s | p50 ms/round | errors | server CPU ms/round |\n"
        "|---|---:|---:|---:|---:|---:|---:|\n" + rows
    )
    print(body)
    if not args.no_write:
        write_section(f"Seamless wallet ({database})", body)


def run_all(scratch: Path, database_url: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    operator = subprocess.Popen(
        [
            str(BIN),
            "operator-demo",
            "--port",
            "0",
            "--db",
            str(scratch / "operator.db"),
            "--secret",
            SECRET,
            "--operator-id",
            "bench",
            "--game-url",
            "http://127.0.0.1:1",
            "--log-level",
            "warning",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert operator.stdout is not None
        found = re.search(r"on http://127\.0\.0\.1:(\d+)", operator.stdout.readline())
        if not found:
            raise SystemExit("operator-demo did not start")
        operator_url = f"http://127.0.0.1:{found.group(1)}"
        (scratch / "operators.toml").write_text(
            f'[[operators]]\nid = "bench"\nsecret = "{SECRET}"\n'
            f'wallet_url = "{operator_url}"\ncurrencies = ["EUR"]\n'
        )
        port = free_port()
        server = subprocess.Popen(
            [
                str(BIN),
                "serve",
                "--port",
                str(port),
                "--database",
                database_url,
                "--no-rtp",
                "--starting-balance",
                str(10**12),
                "--log-level",
                "warning",
                "--operators",
                str(scratch / "operators.toml"),
            ]
        )
        try:
            game_url = f"http://127.0.0.1:{port}"
            wait_for(f"{game_url}/healthz", server)
            demo = [str(post(f"{game_url}/api/session", {})["token"]) for _ in range(args.clients)]
            remote = [launch(game_url, operator_url, f"bench-{n}") for n in range(args.clients)]
            return [
                measure("embedded (demo players)", port, demo, args.seconds, server.pid),
                measure("seamless (operator's players)", port, remote, args.seconds, server.pid),
            ]
        finally:
            server.terminate()
            server.wait(30)
    finally:
        operator.terminate()
        operator.wait(30)


if __name__ == "__main__":
    main()
