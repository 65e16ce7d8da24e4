"""Complete solo rounds per second through the HTTP API, with p50/p99 request latency and CPU cost.

Starts the real server (``dealerpoker serve``) on a free loopback port with a fresh database
(SQLite file, or a PostgreSQL database created for the run and dropped afterwards), then runs
``--clients`` concurrent players for ``--seconds``. Each player opens rounds and plays them to
the end over keep-alive HTTP/1.1 connections (a minimal client, so the load generator costs
little CPU on the shared machine): Casino Hold'em ``raise`` (2 requests per round) and Texas
Hold'em Bonus ``bet``, ``check``, ``check`` (4 requests), alternately, checking every response
(status, step count, balance after each step, a settled round at the end).

Besides the rates it reports the CPU time per complete round of the server (and its workers),
of the PostgreSQL backends serving the run, and of the load generator, read from /proc, with a
reference loop's CPU time that shows how much the machine's load inflated CPU times. The
results go to ``benchmarks/RESULTS.md`` ("Server").

    .venv/bin/python benchmarks/server.py --seconds 20 --clients 8 \
        --postgres postgresql://postgres@127.0.0.1:5432/test

PostgreSQL is measured with one server process and, when Redis is available (``--redis``, or
``DEALERPOKER_TEST_REDIS_URL``, which several workers need for the live tables), also with two
(``--postgres-workers 1,2``).

Before and after a change, on the same run of the machine: ``--compare REVISION`` serves a git
revision's code (its ``src`` unpacked to a scratch directory, run with this virtualenv) in turn
with this checkout's, ``--repeat N`` times, and reports the ratios of the medians; ``--without
PATHS`` adds this checkout without some of its special paths for speed, to show what they buy:

    .venv/bin/python benchmarks/server.py --seconds 15 --postgres-workers 1 --repeat 3 \\
        --compare 2a651d9 --without fast_path --without postgres_store --without known_rows \\
        --postgres postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shlex
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _processes import (
    THIS_CHECKOUT,
    Code,
    checkout,
    cpu_seconds,
    free_port,
    head,
    postgres_backends,
    postgres_database,
    reference_cpu_ms,
    start_server,
    tree_cpu_seconds,
)
from _results import machine, write_section

PLAYS = {"casino-holdem": ("raise",), "texas-bonus": ("bet", "check", "check")}


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
    problems: list[str] = field(default_factory=list)

    def fail(self, problem: str) -> None:
        self.errors += 1
        if len(self.problems) < 5:
            self.problems.append(problem)


class Balance:
    """What a player's balance must be after each response: the previous one, less the step's
    stake, plus what it returned (so every response is checked, not just its status)."""

    def __init__(self, amount: int, exact: bool = True) -> None:
        self.amount, self.exact = amount, exact

    def check(self, view: Any) -> str | None:
        if not self.exact:  # another wallet's balance (an operator's: its wins arrive after the round)
            self.amount = view["balance"]
            return None
        step = view["steps"][-1]
        self.amount += int(step.get("returned", 0)) - int(step["stake"])
        if view["balance"] != self.amount:
            problem = f"balance {view['balance']} after step {step}, expected {self.amount}"
            self.amount = view["balance"]
            return problem
        return None


def check_view(view: Any, game: str, steps: int, balance: Balance) -> str | None:
    """None when ``view`` is the round of ``game`` after ``steps`` steps with the right balance."""
    if not isinstance(view, dict) or view.get("game") != game or len(view.get("steps", ())) != steps:
        return f"unexpected body {str(view)[:200]}"
    return balance.check(view)


def check_settled(view: Any) -> str | None:
    settlement = view.get("settlement")
    if view["status"] != "settled" or not settlement or len(view["dealer_cards"]) != 2 \
            or len(view["board"]) != 5 or view["fairness"]["server_seed"] is None:
        return f"round {view['id']} did not settle: {str(view)[:200]}"
    if settlement["total_stake"] != sum(step["stake"] for step in view["steps"]):
        return f"round {view['id']}: settlement stake {settlement['total_stake']} != steps' stakes"
    return None


async def player(port: int, stop_at: float, tally: Tally, number: int,
                 session_body: dict[str, Any] | None = None) -> None:
    """One client playing rounds until ``stop_at``, on a new demo session; with ``session_body``
    (an operator's ``{"launch": ...}``), on that session, its balance the operator's (not checked
    step by step: a round's win reaches the operator after the round)."""
    connection = await Connection.open(port)
    try:
        _, session = await connection.request("POST", "/api/session", session_body or {})
        token = session["token"]
        balance = Balance(session["balance"], exact=session_body is None)
        games = list(PLAYS)
        turn = number
        while time.perf_counter() < stop_at:
            game = games[turn % 2]
            turn += 1
            began = time.perf_counter()
            status, view = await connection.request(
                "POST", "/api/rounds", {"game": game, "bets": {"ante": 100}}, token)
            tally.latencies.append(time.perf_counter() - began)
            problem = f"deal: status {status} {str(view)[:200]}" if status != 200 \
                else check_view(view, game, 1, balance)
            if problem:
                tally.fail(problem)
                continue
            for number_of_steps, action in enumerate(PLAYS[game], start=2):
                if view["status"] != "open":
                    break
                began = time.perf_counter()
                status, view = await connection.request(
                    "POST", f"/api/rounds/{view['id']}/actions",
                    {"action": action, "step": number_of_steps - 1}, token)
                tally.latencies.append(time.perf_counter() - began)
                problem = f"{action}: status {status} {str(view)[:200]}" if status != 200 \
                    else check_view(view, game, number_of_steps, balance)
                if problem:
                    tally.fail(problem)
                    break
            else:
                problem = check_settled(view)
                if problem:
                    tally.fail(problem)
                else:
                    tally.rounds += 1
    finally:
        connection.close()


async def load(port: int, clients: int, seconds: float) -> tuple[Tally, float]:
    tally = Tally()
    began = time.perf_counter()
    await asyncio.gather(*(player(port, began + seconds, tally, n) for n in range(clients)))
    return tally, time.perf_counter() - began


SPECIAL_PATHS = ("fast_path", "postgres_store", "known_rows")
"""The server's special paths for speed (``DEALERPOKER_WITHOUT`` leaves them out)."""


TABLE_HEAD = ("| database | code | clients | rounds | rounds/s | requests/s | p50 ms | p99 ms | errors "
              "| server CPU ms/round | database CPU ms/round | load generator CPU ms/round | load (1 min) "
              "| target |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")


def run_one(label: str, database_url: str, clients: int, seconds: float, extra: list[str],
            database_pids: Any = None, code: Code = THIS_CHECKOUT) -> dict[str, Any]:
    """One measurement; ``database_pids()`` lists the database server's processes serving this
    run (PostgreSQL backends), whose CPU time is counted separately."""
    port = free_port()
    server = start_server(database_url, port, extra, code)
    try:
        asyncio.run(load(port, clients, 2.0))  # warm up (imports, JIT, caches, connections)
        backends = database_pids() if database_pids else []
        server_cpu, client_cpu = tree_cpu_seconds(server.pid), time.process_time()
        database_cpu = cpu_seconds(backends)
        tally, elapsed = asyncio.run(load(port, clients, seconds))
        server_cpu = tree_cpu_seconds(server.pid) - server_cpu
        client_cpu = time.process_time() - client_cpu
        # Backends that connected during the run count whole (their CPU time is all from it).
        if database_pids:
            backends = sorted({*backends, *database_pids()})
        database_cpu = cpu_seconds(backends) - database_cpu
    finally:
        server.terminate()
        server.wait(timeout=30)
    for problem in tally.problems:
        print(f"{label}: {problem}", file=sys.stderr)
    latencies = sorted(tally.latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    rounds = max(tally.rounds, 1)
    return {"database": label, "code": code.label, "clients": clients, "rounds": tally.rounds,
            "serve_args": extra,
            "errors": tally.errors, "seconds": elapsed, "rounds_per_s": tally.rounds / elapsed,
            "requests_per_s": len(latencies) / elapsed,
            "p50_ms": statistics.median(latencies) * 1000, "p99_ms": p99 * 1000,
            "server_cpu_ms_per_round": server_cpu * 1000 / rounds,
            "client_cpu_ms_per_round": client_cpu * 1000 / rounds,
            "database_cpu_ms_per_round": database_cpu * 1000 / rounds if database_pids else None,
            "server_cpu_share": server_cpu / elapsed, "loadavg": os.getloadavg()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--postgres", default=os.environ.get("DEALERPOKER_TEST_POSTGRES_URL"),
                        help="an admin URL to create a scratch database on (skipped when absent)")
    parser.add_argument("--no-sqlite", action="store_true", help="measure PostgreSQL only")
    parser.add_argument("--redis", default=os.environ.get("DEALERPOKER_TEST_REDIS_URL"), metavar="URL",
                        help="Redis for the live tables of several workers (default "
                             "$DEALERPOKER_TEST_REDIS_URL)")
    parser.add_argument("--postgres-workers", default=None, metavar="N,N",
                        help="one PostgreSQL run per `serve --workers N` (default: 1,2 with Redis, else 1; "
                             "SQLite is served by one process)")
    parser.add_argument("--serve-args", default="", metavar="ARGS",
                        help="more `dealerpoker serve` options for every run")
    parser.add_argument("--compare", metavar="REVISION", action="append", default=[],
                        help="also serve a git revision's code (e.g. main~3), alternating with this "
                             "checkout's on each database (repeatable)")
    parser.add_argument("--without", metavar="PATHS", action="append", default=[],
                        help="also serve this checkout without these special paths for speed "
                             f"(comma-separated, of {', '.join(SPECIAL_PATHS)}, or all; repeatable)")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="measure each (database, code) N times, alternating the codes")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    extra = args.serve_args.split()
    try:
        chosen = args.postgres_workers or ("1,2" if args.redis else "1")
        postgres_workers = [int(n) for n in chosen.split(",")]
    except ValueError:
        parser.error(f"--postgres-workers {args.postgres_workers!r}: expected numbers such as 1,2")
    if any(n > 1 for n in postgres_workers) and not args.redis:
        parser.error("--postgres-workers above 1 needs --redis URL (or DEALERPOKER_TEST_REDIS_URL)")

    with tempfile.TemporaryDirectory() as scratch:
        codes = [checkout(revision, Path(tempfile.mkdtemp(dir=scratch))) for revision in args.compare]
        codes.append(Code(f"this checkout ({head()})"))
        for paths in args.without:
            names = ",".join(SPECIAL_PATHS) if paths == "all" else paths
            codes.append(Code(f"this checkout without {paths}",
                              environment=(("DEALERPOKER_WITHOUT", names),)))
        load_before, reference_before = os.getloadavg(), reference_cpu_ms()
        results = measure(args, codes, extra, postgres_workers, Path(scratch))
        load_after, reference_after = os.getloadavg(), reference_cpu_ms()

    command = shlex.join([".venv/bin/python", "benchmarks/server.py", *sys.argv[1:]])
    rows = "\n".join(
        f"| {r['database']} | {r['code']} | {r['clients']} | {r['rounds']:,} | {r['rounds_per_s']:,.0f} | "
        f"{r['requests_per_s']:,.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['errors']} | "
        f"{r['server_cpu_ms_per_round']:.2f} | "
        f"{_database_cpu(r['database_cpu_ms_per_round'])} | "
        f"{r['client_cpu_ms_per_round']:.2f} | {r['loadavg'][0]:.1f} | "
        f"{'met' if r['rounds_per_s'] >= 200 and r['p99_ms'] < 100 and not r['errors'] else 'not met'} |"
        for r in results)
    servers = "; ".join(dict.fromkeys(
        f"{r['database']}: `dealerpoker serve {' '.join(r['serve_args']) or '(defaults)'}`" for r in results))
    body = f"""Measured {machine()} with `{command}`.
Servers: {servers} (plus `--starting-balance 10**12 --no-rtp --log-level warning`). Load average
{_loads(load_before)} before, {_loads(load_after)} after: the load generator and the server share
the machine's 2 cores; above ~2 other work competed with them and the wall-clock figures are
pessimistic. Reference loop (a fixed pure-Python loop, CPU time): {reference_before:.0f} ms before,
{reference_after:.0f} ms after (on a loaded machine the same work takes more CPU time; compare runs
by it).
Complete solo rounds through the HTTP API on loopback (`dealerpoker serve`, a fresh database per
run): each client alternates Casino Hold'em (deal + raise: 2 requests) and Texas Hold'em Bonus
(deal + bet, check, check: 4 requests) over keep-alive connections, and checks every response
(status 200, the round's game and step count, the balance after each step's stake and return,
and a settled round with the dealer's cards, the board, the settlement and the revealed seed).
"server CPU" is the user + system CPU time per complete round of the server process and its
workers, "database CPU" that of the PostgreSQL backends serving the run (SQLite runs inside the
server), both read from /proc. They depend much less on other work than the wall-clock rates,
though they too grow with the load like the reference loop. 200 rounds/s need server + database
+ load generator CPU per round well under 10 ms (2 cores), and one server process under 5 ms.
"code": which server code served the run (`--compare REVISION`: a git revision's, alternating
with this checkout's; "without ...": this checkout without special paths kept for speed, the
ASGI fast path, the PostgreSQL round store, its rows from the last write).
Target: >= 200 rounds/s with p99 < 100 ms.

{TABLE_HEAD}
{rows}
{_ratios(results)}"""
    print(body)
    if not args.no_write:
        write_section("Server", body)


def measure(args: argparse.Namespace, codes: list[Code], extra: list[str], postgres_workers: list[int],
            scratch: Path) -> list[dict[str, Any]]:
    """Every (database, code) run, the codes alternating within each repetition."""
    from sqlalchemy.engine import make_url

    results = []
    for repetition in range(args.repeat):
        for code in codes if not args.no_sqlite else []:
            path = scratch / f"bench-{repetition}-{secrets.token_hex(4)}.db"
            results.append(run_one("SQLite", f"sqlite:///{path}", args.clients, args.seconds, extra,
                                   code=code))
            print(results[-1], flush=True)
        for workers in postgres_workers if args.postgres else []:
            for code in codes:
                name = f"dp_bench_{secrets.token_hex(4)}"
                postgres_database(args.postgres, "create", name)
                try:
                    url = make_url(args.postgres).set(database=name).render_as_string(hide_password=False)
                    options = ["--workers", str(workers), "--redis", str(args.redis)] if workers > 1 else []
                    label = "PostgreSQL" if workers == 1 else f"PostgreSQL, {workers} workers"
                    results.append(run_one(
                        label, url, args.clients, args.seconds, [*extra, *options], code=code,
                        database_pids=lambda name=name: postgres_backends(args.postgres, name)))
                    print(results[-1], flush=True)
                finally:
                    postgres_database(args.postgres, "drop", name)
    return results


def _ratios(results: list[dict[str, Any]]) -> str:
    """Each code's median rounds/s and CPU per round relative to the first code's, per database."""
    first = results[0]["code"] if results else None
    lines = []
    for database in dict.fromkeys(r["database"] for r in results):
        runs = [r for r in results if r["database"] == database]
        base = [r for r in runs if r["code"] == first]
        for code in dict.fromkeys(r["code"] for r in runs if r["code"] != first):
            mine = [r for r in runs if r["code"] == code]
            lines.append(f"| {database} | {code} vs {first} | "
                         f"{_median(mine, 'rounds_per_s') / _median(base, 'rounds_per_s'):.2f}x | "
                         f"{_median(mine, 'cpu') / _median(base, 'cpu'):.2f}x |")
    if not lines:
        return ""
    return ("\nRatios of medians (rounds/s: higher is better; CPU per round, server + database: lower is "
            "better):\n\n| database | codes | rounds/s | CPU per round |\n|---|---|---:|---:|\n"
            + "\n".join(lines) + "\n")


def _median(runs: list[dict[str, Any]], key: str) -> float:
    if key == "cpu":
        return statistics.median(r["server_cpu_ms_per_round"] + (r["database_cpu_ms_per_round"] or 0)
                                 for r in runs)
    return statistics.median(float(r[key]) for r in runs)


def _database_cpu(value: float | None) -> str:
    return "(in the server)" if value is None else f"{value:.2f}"


def _loads(values: tuple[float, float, float]) -> str:
    return ", ".join(f"{value:.1f}" for value in values)


if __name__ == "__main__":
    main()
