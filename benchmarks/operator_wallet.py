"""Complete solo rounds per second with the seamless wallet (each bet and win a signed HTTP call
to the reference operator, ``dealerpoker operator-demo``, on loopback) beside the embedded wallet.

Each run starts fresh processes: ``dealerpoker serve`` on a new database (SQLite file, or a
PostgreSQL database created for the run and dropped afterwards) and, for the seamless wallet,
``dealerpoker operator-demo`` on a new ledger, named in the server's operators file. The
operator's players (one per client, 10**12 minor units each) are launched through the
operator's ``POST /launch`` (signed, server to server) and their sessions opened with
``POST /api/session {"launch"}``; the embedded runs use demo sessions. The clients are
benchmarks/server.py's: keep-alive HTTP/1.1, Casino Hold'em and Texas Hold'em Bonus alternately,
every response checked (status, steps, the balance after each step, a settled round).

Reported: rounds/s, request latency, and CPU time per round of the server, the operator and the
load generator (from /proc), with the reference loop and the load average; after each seamless
run, once the outbox has delivered every win, whether each player's balance in the operator's
ledger equals the one dealerpoker shows. Results go to ``benchmarks/RESULTS.md`` ("Seamless
wallet, fresh processes").

    .venv/bin/python benchmarks/operator_wallet.py --seconds 20 --clients 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
    start,
    start_server,
    tree_cpu_seconds,
)
from _results import machine, write_section
from _solo_client import Session, Start, Tally, open_sessions, player

TABLE_HEAD = ("| database | wallet | code | serve options | clients | rounds | rounds/s | p50 ms | p99 ms "
              "| errors "
              "| server CPU ms/round | database CPU ms/round | operator CPU ms/round "
              "| load generator CPU ms/round | ledgers agree | load (1 min) | target |\n"
              "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|")
SECRET = "benchmark-operator-secret-" + secrets.token_hex(8)
OPERATOR = "bench"


def _json(url: str, body: Any = None, method: str | None = None, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data, headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def start_operator(port: int, game_port: int, ledger: Path, code: Code) -> subprocess.Popen[bytes]:
    """``operator-demo`` on ``port`` running ``code``, its log beside its ledger (``.log``)."""
    arguments = ["operator-demo", "--port", str(port), "--db", str(ledger), "--secret", SECRET,
                 "--operator-id", OPERATOR, "--game-url", f"http://127.0.0.1:{game_port}",
                 "--log-level", "warning"]
    with ledger.with_suffix(".log").open("ab") as log:
        return start(arguments, f"http://127.0.0.1:{port}/healthz", code, log=log, name="operator-demo")


def launches(operator_url: str, clients: int) -> list[dict[str, Any]]:
    """One ``POST /api/session`` body per client: a launch of its operator player (new launch
    tokens each time: they are single-use; the same player launched again is the same account)."""
    bodies = []
    for number in range(clients):
        body = {"player": f"p{number}", "currency": "EUR", "language": "en", "game": "casino-holdem",
                "mode": "real"}
        launched = _json(f"{operator_url}/launch", body)
        bodies.append({"launch": launched["launch_token"]})
    return bodies


async def load(port: int, sessions: list[Session], seconds: float,
               on_start: Callable[[], None] = lambda: None) -> tuple[Tally, float]:
    """A player per session for ``seconds`` once all have connected (``on_start`` then)."""
    tally = Tally()
    start = Start(len(sessions), seconds, on_start)
    await asyncio.gather(*(player(port, 0.0, tally, number, session, start)
                           for number, session in enumerate(sessions)))
    return tally, time.perf_counter() - start.began


def ledgers_agree(operator_url: str, game_url: str, clients: int) -> str:
    """Once the operator's ledger stops moving (the outbox delivered the wins), each player's balance
    there against the one dealerpoker shows a new session of that player."""
    before, deadline = None, time.monotonic() + 60
    while time.monotonic() < deadline:
        now = _json(f"{operator_url}/admin/players")["players"]
        if now == before:
            break
        before = now
        time.sleep(2)
    bodies = launches(operator_url, clients)
    differing = []
    for number, body in enumerate(bodies):
        session = _json(f"{game_url}/api/session", body)
        shown = _json(f"{game_url}/api/balance", token=session["token"])["balance"]
        kept = before[f"p{number}"]["EUR"] if before else None
        if shown != kept:
            differing.append(f"p{number}: dealerpoker {shown}, operator {kept}")
    return "yes" if not differing else "NO: " + "; ".join(differing)


@dataclass
class Served:
    """A running server (and, for the seamless wallet, its operator) and its players' sessions,
    opened once: a slice of ``n`` players plays on the first ``n``."""

    game_port: int
    server: subprocess.Popen[bytes]
    operator: subprocess.Popen[bytes] | None
    operator_url: str
    sessions: list[Session] = field(default_factory=list)


@dataclass
class Measured:
    """What the players' slices of play added up to (``measure_slice`` adds each slice's)."""

    tally: Tally = field(default_factory=Tally)
    seconds: float = 0.0
    server_cpu: float = 0.0
    operator_cpu: float = 0.0
    database_cpu: float = 0.0
    client_cpu: float = 0.0
    slices: int = 0


@contextmanager
def serving(wallet: str, database_url: str, clients: int, scratch: Path, code: Code = THIS_CHECKOUT,
            serve: tuple[str, ...] = ()) -> Iterator[Served]:
    """``dealerpoker serve`` on ``database_url`` and, for the seamless wallet, ``operator-demo``
    with ``clients`` players, warmed up with them for 2 s; stopped on leaving."""
    game_port = free_port()
    extra: list[str] = []
    operator = None
    operator_url = ""
    if wallet == "seamless":
        operator_port = free_port()
        operator_url = f"http://127.0.0.1:{operator_port}"
        ledger = scratch / f"operator-{secrets.token_hex(4)}.db"
        operator = start_operator(operator_port, game_port, ledger, code)
        operators = scratch / "operators.toml"
        operators.write_text(f'[[operators]]\nid = "{OPERATOR}"\nsecret = "{SECRET}"\n'
                             f'wallet_url = "{operator_url}"\ncurrencies = ["EUR"]\n'
                             f'frame_ancestors = ["{operator_url}"]\n')
        extra = ["--operators", str(operators)]
    server = None
    try:
        server = start_server(database_url, game_port, [*serve, *extra], code)
        if operator is not None:
            for number in range(clients):
                _json(f"{operator_url}/admin/players", {"player": f"p{number}", "currency": "EUR",
                                                        "balance": 10**12})
        bodies = list(launches(operator_url, clients)) if operator is not None else [None] * clients
        served = Served(game_port, server, operator, operator_url,
                        asyncio.run(open_sessions(game_port, bodies)))
        asyncio.run(load(game_port, served.sessions, 2.0))  # warm up
        yield served
    finally:
        for process in (server, operator):
            if process is not None:
                process.terminate()
                process.wait(timeout=30)


def measure_slice(served: Served, clients: int, seconds: float, into: Measured,
                  database_pids: Any = None) -> None:
    """``clients`` players for ``seconds`` once all have connected, added to ``into``."""
    backends = database_pids() if database_pids else []
    before: dict[str, float] = {}

    def started() -> None:  # every player has connected: the measured run begins
        before.update(database=cpu_seconds(backends), server=tree_cpu_seconds(served.server.pid),
                      client=time.process_time(),
                      operator=tree_cpu_seconds(served.operator.pid) if served.operator else 0.0)

    tally, elapsed = asyncio.run(load(served.game_port, served.sessions[:clients], seconds, started))
    into.server_cpu += tree_cpu_seconds(served.server.pid) - before["server"]
    into.client_cpu += time.process_time() - before["client"]
    if served.operator is not None:
        into.operator_cpu += tree_cpu_seconds(served.operator.pid) - before["operator"]
    if database_pids:  # backends that connected during the run count whole
        backends = sorted({*backends, *database_pids()})
    into.database_cpu += cpu_seconds(backends) - before["database"]
    into.seconds += elapsed
    into.slices += 1
    into.tally.rounds += tally.rounds
    into.tally.errors += tally.errors
    into.tally.latencies += tally.latencies
    into.tally.problems += tally.problems[:5 - len(into.tally.problems)]


def result(label: str, wallet: str, clients: int, measured: Measured, *, code: Code = THIS_CHECKOUT,
           serve: tuple[str, ...] = (), database_pids: Any = None, agree: str = "-") -> dict[str, Any]:
    """A run's row: rates, latencies and CPU per round."""
    tally = measured.tally
    for problem in tally.problems:
        print(f"{label} {wallet}: {problem}", file=sys.stderr)
    latencies = sorted(tally.latencies) or [float("nan")]
    rounds = max(tally.rounds, 1)
    return {"database": label, "wallet": wallet, "code": code.label, "serve": " ".join(serve) or "-",
            "clients": clients, "rounds": tally.rounds, "slices": measured.slices,
            "errors": tally.errors, "rounds_per_s": tally.rounds / measured.seconds,
            "p50_ms": latencies[len(latencies) // 2] * 1000,
            "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
            "server_cpu_ms_per_round": measured.server_cpu * 1000 / rounds,
            "operator_cpu_ms_per_round": measured.operator_cpu * 1000 / rounds,
            "database_cpu_ms_per_round": measured.database_cpu * 1000 / rounds if database_pids else None,
            "client_cpu_ms_per_round": measured.client_cpu * 1000 / rounds,
            "client_cpu_share": measured.client_cpu / measured.seconds, "seconds": measured.seconds,
            "ledgers_agree": agree, "loadavg": os.getloadavg()[0]}


def run_one(label: str, wallet: str, database_url: str, clients: int, seconds: float, scratch: Path,
            database_pids: Any = None, code: Code = THIS_CHECKOUT,
            serve: tuple[str, ...] = ()) -> dict[str, Any]:
    measured = Measured()
    with serving(wallet, database_url, clients, scratch, code, serve) as served:
        measure_slice(served, clients, seconds, measured, database_pids)
        agree = ledgers_agree(served.operator_url, f"http://127.0.0.1:{served.game_port}", clients) \
            if served.operator else "-"
    return result(label, wallet, clients, measured, code=code, serve=serve, database_pids=database_pids,
                  agree=agree)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--postgres", default=None, metavar="URL",
                        help="also measure on PostgreSQL: an admin URL to create scratch databases on")
    parser.add_argument("--no-sqlite", action="store_true", help="measure PostgreSQL only")
    parser.add_argument("--wallets", default="embedded,seamless", metavar="W,W",
                        help="which wallets to measure (default embedded,seamless)")
    parser.add_argument("--serve-args", action="append", default=[], metavar="ARGS",
                        help="`dealerpoker serve` options of a run (e.g. '--workers 2 --redis URL'); "
                             "repeatable: each is measured in turn (default: none)")
    parser.add_argument("--compare", metavar="REVISION", action="append", default=[],
                        help="also run a git revision's code (server and operator), alternating with "
                             "this checkout's (repeatable)")
    parser.add_argument("--repeat", type=int, default=1, metavar="N", help="measure each pair N times")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    wallets = [wallet for wallet in args.wallets.split(",") if wallet]
    if not wallets or set(wallets) - {"embedded", "seamless"}:
        parser.error(f"--wallets {args.wallets!r}: expected embedded, seamless or both")
    serves = [tuple(options.split()) for options in args.serve_args] or [()]

    load_before, reference_before = os.getloadavg(), reference_cpu_ms()
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        codes = [checkout(revision, Path(tempfile.mkdtemp(dir=scratch))) for revision in args.compare]
        codes.append(Code(f"this checkout ({head()})"))
        results = measure(args, codes, wallets, serves, scratch)
    load_after, reference_after = os.getloadavg(), reference_cpu_ms()
    command = shlex.join([".venv/bin/python", "benchmarks/operator_wallet.py", *sys.argv[1:]])
    rows = "\n".join(
        f"| {r['database']} | {r['wallet']} | {r['code']} | {r['serve']} | {r['clients']} | "
        f"{r['rounds']:,} | "
        f"{r['rounds_per_s']:,.0f} | "
        f"{r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['errors']} | {r['server_cpu_ms_per_round']:.2f} | "
        f"{_optional(r['database_cpu_ms_per_round'])} | "
        f"{r['operator_cpu_ms_per_round']:.2f} | {r['client_cpu_ms_per_round']:.2f} | {r['ledgers_agree']} | "
        f"{r['loadavg']:.1f} | {'met' if r['rounds_per_s'] >= 200 and not r['errors'] else 'not met'} |"
        for r in results)
    body = f"""Measured {machine()} with `{command}`; the machine was shared with other work (load
average {load_before[0]:.1f} before, {load_after[0]:.1f} after; reference loop {reference_before:.0f} ms
before, {reference_after:.0f} ms after), so the wall-clock rates are pessimistic.
Solo rounds through the HTTP API on loopback, fresh processes per run: `dealerpoker serve` (a new
database) and, for the seamless wallet, `dealerpoker operator-demo` (a new ledger, no faults) as
the operator's wallet, each bet and win a signed HTTP call to it; clients as in "Server" (Casino
Hold'em 2 requests and Texas Hold'em Bonus 4 requests per round, alternately; every answer
checked). CPU time per complete round from /proc: the server (with its workers), the PostgreSQL
backends serving it (SQLite runs inside the server), the operator, the load generator (this
process). "code": which code served the run, server and operator (`--compare REVISION`: a git
revision's, alternating with this checkout's); "serve options": more `dealerpoker serve`
options. "ledgers agree": after the run, once the operator's ledger stopped moving, each
player's balance there equals the one dealerpoker shows. Target: >= 200 rounds/s with the
seamless wallet.

{TABLE_HEAD}
{rows}

{_ratios(results)}"""
    print(body)
    if not args.no_write:
        write_section("Seamless wallet, fresh processes", body)


def measure(args: argparse.Namespace, codes: list[Code], wallets: list[str], serves: list[tuple[str, ...]],
            scratch: Path) -> list[dict[str, Any]]:
    """Every (database, serve options, wallet, code) run, the codes alternating innermost."""
    from sqlalchemy.engine import make_url

    results = []
    for _ in range(args.repeat):
        for serve in serves:
            for wallet in wallets:
                for code in codes:
                    if not args.no_sqlite and "--workers" not in serve:  # SQLite: one process
                        path = scratch / f"bench-{secrets.token_hex(4)}.db"
                        results.append(run_one("SQLite", wallet, f"sqlite:///{path}", args.clients,
                                               args.seconds, scratch, code=code, serve=serve))
                        print(results[-1], flush=True)
                    if args.postgres:
                        name = f"dp_bench_{secrets.token_hex(4)}"
                        postgres_database(args.postgres, "create", name)
                        try:
                            url = make_url(args.postgres).set(database=name).render_as_string(
                                hide_password=False)
                            results.append(run_one(
                                "PostgreSQL", wallet, url, args.clients, args.seconds, scratch,
                                lambda name=name: postgres_backends(args.postgres, name), code=code,
                                serve=serve))
                            print(results[-1], flush=True)
                        finally:
                            postgres_database(args.postgres, "drop", name)
    return results


def _ratios(results: list[dict[str, Any]]) -> str:
    """Per database, code and serve options, the seamless runs' median rounds/s and server CPU per
    round against the embedded runs' (the CPU ratio depends much less on the load than the rates)."""
    lines = []
    for database, code, serve in dict.fromkeys((r["database"], r["code"], r["serve"]) for r in results):
        medians = {}
        for wallet in ("embedded", "seamless"):
            runs = [r for r in results if (r["database"], r["code"], r["serve"], r["wallet"])
                    == (database, code, serve, wallet)]
            if runs:
                medians[wallet] = (statistics.median(r["rounds_per_s"] for r in runs),
                                   statistics.median(r["server_cpu_ms_per_round"] for r in runs))
        if len(medians) == 2:
            (rate_e, cpu_e), (rate_s, cpu_s) = medians["embedded"], medians["seamless"]
            options = "" if serve == "-" else f", `{serve}`"
            lines.append(f"{database}, {code}{options}: the seamless wallet plays {rate_s / rate_e:.2f}x the "
                         f"embedded wallet's rounds/s, at {cpu_s / cpu_e:.1f}x its server CPU per round "
                         f"({cpu_s:.1f} ms against {cpu_e:.1f} ms; one server process on an idle core would "
                         "need under 5 ms for 200 rounds/s).")
    return "\n".join(lines) + "\n" if lines else ""


def _optional(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    main()
