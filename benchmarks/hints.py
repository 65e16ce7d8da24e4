"""How fast the strategy hint answers (``GET /api/rounds/{id}/advice``, issue 16 item 16): a fresh
``dealerpoker serve --strategy-hint`` process, rounds played over HTTP, each decision's advice asked
twice (the first answer is worked out, the second is the one kept for that decision), timed at the
client, per game and decision. The pre-flop of Texas Hold'em Bonus reads the analysis cache (as
``dealerpoker advise`` does); its first answer in a process loads the starting-hand table.

    .venv/bin/python benchmarks/hints.py --rounds 30 [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _processes import THIS_CHECKOUT, free_port, start_server
from _results import machine, write_section


def call(base: str, method: str, path: str, token: str | None = None, body: Any = None) -> tuple[Any, float]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=120) as response:
        answer = json.loads(response.read())
    return answer, (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="rounds per game")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    parser.add_argument("--write", action="store_true", help="write the section of RESULTS.md")
    args = parser.parse_args()
    port = args.port or free_port()
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(16)
    first: dict[str, list[float]] = {}
    again: list[float] = []
    with tempfile.TemporaryDirectory(prefix="hints-bench-") as folder:
        server = start_server(f"sqlite:///{folder}/bench.db", port, ["--strategy-hint"], THIS_CHECKOUT)
        try:
            token = call(base, "POST", "/api/session", body={})[0]["token"]
            for game in ("texas-bonus", "casino-holdem"):
                for _ in range(args.rounds):
                    bets = {"game": game, "bets": {"ante": 100}}
                    view = call(base, "POST", "/api/rounds", token, bets)[0]
                    while view["status"] == "open":
                        path = f"/api/rounds/{view['id']}/advice"
                        advice, took = call(base, "GET", path, token)
                        first.setdefault(f"{game} {advice['phase']}", []).append(took)
                        again.append(call(base, "GET", path, token)[1])
                        action = rng.choice(view["legal_actions"])
                        view = call(base, "POST", f"/api/rounds/{view['id']}/actions", token,
                                    {"action": action, "step": len(view["steps"])})[0]
        finally:
            server.terminate()
            server.wait(timeout=30)
    load = os.getloadavg()
    rows = ["| decision | answers | median ms | p95 ms | max ms |", "|---|---:|---:|---:|---:|"]
    for name, times in first.items():
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        median = statistics.median(times)
        rows.append(f"| {name} | {len(times)} | {median:.0f} | {p95:.0f} | {times[-1]:.0f} |")
    rows.append(f"| the same decision asked again | {len(again)} | {statistics.median(again):.1f} | "
                f"{sorted(again)[int(0.95 * (len(again) - 1))]:.1f} | {max(again):.1f} |")
    body = (f"Measured {machine()} with `.venv/bin/python benchmarks/hints.py --rounds {args.rounds}`; "
            f"load average at the end {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}.\n\n"
            "`GET /api/rounds/{id}/advice` on a fresh `dealerpoker serve --strategy-hint` (SQLite), timed at "
            "the client over loopback HTTP, random legal decisions. The flop and turn answers enumerate the "
            "unseen cards (about 2.1 million deals at the Texas flop, 1.1 million at the Casino flop); the "
            "Texas pre-flop reads the analysis cache; each answer is kept for its decision.\n\n"
            + "\n".join(rows))
    print(body)
    if args.write:
        write_section("Strategy hint", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
