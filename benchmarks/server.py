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

    .venv/bin/python benchmarks/server.py --seconds 10 --postgres-workers 1 \
        --postgres postgresql://postgres@127.0.0.1:5432/test

By default it sweeps the concurrency a deployment sees, ``--clients 8,32,128,256`` players, with
both wallets (``--wallets embedded,seamless``: the seamless runs start ``dealerpoker operator-demo``
as the operator's wallet, as ``operator_wallet.py`` does), and reports for each database and
wallet whether the rounds/s at the largest count hold at least 90% of the best at any smaller one
(no collapse under concurrency; medians over ``--repeat N`` repetitions, whose order of the
counts alternates: ascending, then descending), p99 beside each. The load generator's own CPU (a share of one
core) is printed beside each figure: it must not be the bottleneck. The rate limits are the
deployment's defaults, with the load's address exempt (``serve --rate-limit-exempt 127.0.0.1``).

PostgreSQL is measured with one server process and, when Redis is available (``--redis``, or
``DEALERPOKER_TEST_REDIS_URL``, which several workers need for the live tables), also with two
(``--postgres-workers 1,2``).

On a shared machine whose speed drifts within a minute, ``--slice SECONDS`` measures the counts
against one server per database and wallet, in turn, in slices of SECONDS (``--seconds`` in all
for each count), so that a slow spell weighs on every count alike. The players' sessions are
opened once per server, before its warm-up, as a deployment's players keep theirs: a slice of n
players plays on the first n. (New players for every slice, as before 2026-12-07, made each
256-player slice start 256 players cold: 1-12% more server CPU per round than at 32 and three
times the p99; RESULTS.md, "Issue 29: what grew with the players".)

    .venv/bin/python benchmarks/server.py --seconds 20 --slice 5 --repeat 2 \\
        --postgres postgresql://postgres@127.0.0.1:5432/test --redis redis://127.0.0.1:6379/2

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
import math
import os
import secrets
import shlex
import statistics
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import operator_wallet
from _processes import (
    Code,
    checkout,
    head,
    postgres_backends,
    postgres_database,
    reference_cpu_ms,
)
from _results import machine, write_section

SPECIAL_PATHS = ("fast_path", "postgres_store", "known_rows")
"""The server's special paths for speed (``DEALERPOKER_WITHOUT`` leaves them out)."""


TABLE_HEAD = ("| database | wallet | code | clients | rounds | rounds/s | p50 ms | p99 ms | errors "
              "| server CPU ms/round | database CPU ms/round | load generator CPU ms/round "
              "| load generator, share of a core | load (1 min) "
              "| target |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
HOLD = 0.9
"""The rounds/s at the largest player count must be at least this share of the best at a smaller one."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", default="8,32,128,256", metavar="N,N",
                        help="the player counts to sweep (default 8,32,128,256)")
    parser.add_argument("--wallets", default="embedded,seamless", metavar="W,W",
                        help="the wallets to measure (default embedded,seamless: the seamless one with "
                             "dealerpoker operator-demo as the operator)")
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
    parser.add_argument("--slice", type=float, default=0.0, metavar="SECONDS",
                        help="measure the player counts in turn against one server per database and "
                             "wallet, in slices of SECONDS (--seconds in all for each count), instead "
                             "of a fresh server per count")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()
    if args.slice < 0:
        parser.error(f"--slice {args.slice}: expected seconds > 0")
    extra = args.serve_args.split()
    try:
        args.clients = [int(n) for n in str(args.clients).split(",") if n]
    except ValueError:
        parser.error(f"--clients {args.clients!r}: expected numbers such as 8,32,128,256")
    args.wallets = [w for w in args.wallets.split(",") if w]
    if not args.wallets or set(args.wallets) - {"embedded", "seamless"}:
        parser.error(f"--wallets {args.wallets!r}: expected embedded, seamless or both")
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
        f"| {r['database']} | {r['wallet']} | {r['code']} | {r['clients']} | {r['rounds']:,} | "
        f"{r['rounds_per_s']:,.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['errors']} | "
        f"{r['server_cpu_ms_per_round']:.2f} | "
        f"{_database_cpu(r['database_cpu_ms_per_round'])} | "
        f"{r['client_cpu_ms_per_round']:.2f} | {r['client_cpu_share']:.0%} | {r['loadavg']:.1f} | "
        f"{'met' if r['rounds_per_s'] >= 200 and r['p99_ms'] < 100 and not r['errors'] else 'not met'} |"
        for r in results)
    servers = "; ".join(dict.fromkeys(
        f"{r['database']}: `dealerpoker serve {' '.join(r['serve_args']) or '(defaults)'}`" for r in results))
    body = f"""Measured {machine()} with `{command}`.
Servers: {servers} (plus `--starting-balance 10**12 --no-rtp --log-level warning
--rate-limit-exempt 127.0.0.1`: the default rate limits, the load's address exempt). Load average
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
"wallet": embedded (the server's ledger) or seamless (each bet and win a signed HTTP call to
`dealerpoker operator-demo`, a fresh ledger per run). "load generator, share of a core": this
process's CPU time over the run's wall-clock time (well under 100%: it is not the bottleneck).
Targets: >= 200 rounds/s with p99 < 100 ms; and no collapse under concurrency: at the largest
player count at least {HOLD:.0%} of the best rounds/s at a smaller one.{_sliced(args.slice)}

{TABLE_HEAD}
{rows}

{_concurrency(results)}
{_ratios(results)}"""
    print(body)
    if not args.no_write:  # a sweep of player counts is its own section
        write_section("Concurrency" if len(args.clients) > 1 else "Server", body)


def measure(args: argparse.Namespace, codes: list[Code], extra: list[str], postgres_workers: list[int],
            scratch: Path) -> list[dict[str, Any]]:
    """Every (database, wallet, players, code) run, the codes alternating within each repetition;
    with ``--slice``, the player counts interleaved against one server per (database, wallet, code)."""
    databases: list[tuple[str, list[str], str | None]] = []  # label, serve options, PostgreSQL name
    if not args.no_sqlite:
        databases.append(("SQLite", [], None))
    for workers in postgres_workers if args.postgres else []:
        options = ["--workers", str(workers), "--redis", str(args.redis)] if workers > 1 else []
        databases.append(("PostgreSQL" if workers == 1 else f"PostgreSQL, {workers} workers", options, ""))
    results = []
    for repetition in range(args.repeat):
        for label, options, postgres in databases:
            for wallet in args.wallets:
                if args.slice:
                    for code in codes:
                        with _scratch_database(args.postgres if postgres is not None else None,
                                               scratch) as (url, pids):
                            results += interleaved(label, wallet, url, args.clients, args.seconds,
                                                   args.slice, [*extra, *options], pids, code, scratch)
                    continue
                for clients in _order(args.clients, repetition):
                    for code in codes:
                        with _scratch_database(args.postgres if postgres is not None else None,
                                               scratch) as (url, pids):
                            results.append(_run(label, wallet, url, clients, args.seconds,
                                                [*extra, *options], pids, code, scratch))
                        print(results[-1], flush=True)
    return results


@contextmanager
def _scratch_database(postgres: str | None, scratch: Path) -> Iterator[tuple[str, Any]]:
    """A new database for a run: a SQLite file, or (with ``postgres``, an admin URL) a PostgreSQL
    database dropped afterwards, with the function listing its backends' process ids."""
    from sqlalchemy.engine import make_url

    if postgres is None:
        yield f"sqlite:///{scratch}/bench-{secrets.token_hex(4)}.db", None
        return
    name = f"dp_bench_{secrets.token_hex(4)}"
    postgres_database(postgres, "create", name)
    try:
        def pids() -> list[int]:
            return postgres_backends(postgres, name)
        yield make_url(postgres).set(database=name).render_as_string(hide_password=False), pids
    finally:
        postgres_database(postgres, "drop", name)


def interleaved(label: str, wallet: str, url: str, counts: list[int], seconds: float, slice_seconds: float,
                serve: list[str], pids: Any, code: Code, scratch: Path) -> list[dict[str, Any]]:
    """Every player count against one server, in slices of ``slice_seconds`` taken in turn (the
    counts ascending, then descending), ``seconds`` in all for each: a drift of the machine's speed
    weighs on every count alike. A row per count, its figures over all its slices."""
    slices = max(1, math.ceil(seconds / slice_seconds))
    measured = {clients: operator_wallet.Measured() for clients in counts}
    with operator_wallet.serving(wallet, url, max(counts), scratch, code, tuple(serve)) as served:
        for turn in range(slices):
            for clients in _order(counts, turn):
                operator_wallet.measure_slice(served, clients, slice_seconds, measured[clients], pids)
    rows = []
    for clients in counts:
        row = operator_wallet.result(label, wallet, clients, measured[clients], code=code,
                                     serve=tuple(serve), database_pids=pids)
        row["serve_args"] = serve
        print(row, flush=True)
        rows.append(row)
    return rows


def _order(counts: list[int], repetition: int) -> list[int]:
    """The player counts in the order a repetition measures them: ascending, then descending, in
    turn. This machine's speed drifts (the reference loop took 68-98 ms, idle, within one minute
    on 2026-12-07): the counts measured last would take more than their share of a slow spell.

    >>> _order([8, 32, 256], 0), _order([8, 32, 256], 1)
    ([8, 32, 256], [256, 32, 8])
    """
    return counts if repetition % 2 == 0 else counts[::-1]


def _run(label: str, wallet: str, url: str, clients: int, seconds: float, serve: list[str], pids: Any,
         code: Code, scratch: Path) -> dict[str, Any]:
    result: dict[str, Any] = operator_wallet.run_one(label, wallet, url, clients, seconds, scratch,
                                                    database_pids=pids, code=code, serve=tuple(serve))
    result["serve_args"] = serve
    return result


def _concurrency(results: list[dict[str, Any]]) -> str:
    """Per database, wallet and code: the largest player count's median rounds/s against the best
    median at a smaller count (no collapse: at least ``HOLD`` of it), p99 beside each."""
    lines = []
    for key in dict.fromkeys((r["database"], r["wallet"], r["code"]) for r in results):
        runs = [r for r in results if (r["database"], r["wallet"], r["code"]) == key]
        counts = sorted({r["clients"] for r in runs})
        if len(counts) < 2:
            continue
        by_count = {n: [r for r in runs if r["clients"] == n] for n in counts}
        rate = {n: _median(by_count[n], "rounds_per_s") for n in counts}
        p99 = {n: _median(by_count[n], "p99_ms") for n in counts}
        top = counts[-1]
        best = max(counts[:-1], key=lambda n: rate[n])
        share = rate[top] / rate[best] if rate[best] else float("nan")
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | "
                     f"{best}: {rate[best]:,.0f} (p99 {p99[best]:,.0f} ms) | "
                     f"{top}: {rate[top]:,.0f} (p99 {p99[top]:,.0f} ms) | {share:.0%} | "
                     f"{'holds' if share >= HOLD else '**collapses**'} |")
    if not lines:
        return ""
    return ("No collapse under concurrency (medians; rounds/s, p99 of a request):\n\n"
            "| database | wallet | code | best smaller count | largest count | share | verdict |\n"
            "|---|---|---|---|---|---:|---|\n" + "\n".join(lines) + "\n")


def _ratios(results: list[dict[str, Any]]) -> str:
    """Each code's median rounds/s and CPU per round relative to the first code's, per database."""
    first = results[0]["code"] if results else None
    lines = []
    for database in dict.fromkeys((r["database"], r["wallet"], r["clients"]) for r in results):
        runs = [r for r in results if (r["database"], r["wallet"], r["clients"]) == database]
        base = [r for r in runs if r["code"] == first]
        for code in dict.fromkeys(r["code"] for r in runs if r["code"] != first):
            mine = [r for r in runs if r["code"] == code]
            lines.append(f"| {', '.join(map(str, database))} | {code} vs {first} | "
                         f"{_median(mine, 'rounds_per_s') / _median(base, 'rounds_per_s'):.2f}x | "
                         f"{_median(mine, 'cpu') / _median(base, 'cpu'):.2f}x |")
    if not lines:
        return ""
    return ("\nRatios of medians (rounds/s: higher is better; CPU per round, server + database: lower is "
            "better):\n\n| database, wallet, players | codes | rounds/s | CPU per round |\n"
            "|---|---|---:|---:|\n"
            + "\n".join(lines) + "\n")


def _median(runs: list[dict[str, Any]], key: str) -> float:
    if key == "cpu":
        return float(statistics.median(r["server_cpu_ms_per_round"] + (r["database_cpu_ms_per_round"] or 0)
                                       for r in runs))
    return float(statistics.median(float(r[key]) for r in runs))


def _sliced(seconds: float) -> str:
    if not seconds:
        return ""
    return (f"\nInterleaved (`--slice {seconds:g}`): one server and database per database, wallet and code, "
            f"the player counts played against it in turn, in slices of {seconds:g} s (ascending, then "
            "descending), `--seconds` in all for each count: a drift of the machine's speed weighs on "
            "every count alike; each row adds up its count's slices. The players' sessions are opened "
            "once per server: a slice of n players plays on the first n.")


def _database_cpu(value: float | None) -> str:
    return "(in the server)" if value is None else f"{value:.2f}"


def _loads(values: tuple[float, float, float]) -> str:
    return ", ".join(f"{value:.1f}" for value in values)


if __name__ == "__main__":
    main()
