"""The live cluster's Redis messages alone: forwarded intents and players' own messages.

With several ``serve`` processes, a bet or decision that reaches a process which does not own
the table is forwarded to the owner through Redis, and the owner's messages for each player go
to every process in one batch (``server/live/cluster.py``). At 10,000 players both are paid
thousands of times a round. This measures them without sockets, tables or a database: two
``RedisCluster`` objects in one process (the owner and a process forwarding to it), on a real
Redis, with a handler that answers at once.

- **Forwarded intents**: ``--burst`` intents forwarded together; wall time until every reply
  is back, and CPU time per intent (both sides: they share the process).
- **Players' messages**: the owner sends ``--players`` players' own messages (the size of a
  ``you`` message), in stamped batches as the table does; the owner's CPU time to serialise
  and publish them, and the CPU time the other process spends reading every batch and handing
  it to its connections (a quarter of the players connected there), from each batch's arrival.
  Twice: each player's message a different one (the worst case), and the players in three
  groups that played alike, sharing their message, with their own balances apart (a table's
  settlement as the runner sends it; a revision before the balances went apart gets them
  inside each player's message).

Before and after a change, in the same run: ``--compare REVISION`` runs a git revision's
``src`` too, alternating with this checkout's.

    .venv/bin/python benchmarks/cluster_messages.py --redis redis://127.0.0.1:6379/0 --compare HEAD~1
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _processes import THIS_CHECKOUT, Code, checkout, head

YOU = {"type": "you", "event": "decision", "seat": {"bets": {"ante": 100, "bonus": 50}, "state": "preflop",
                                                      "hole": ["As", "Kd"], "decided": None},
       "balance": 987_650, "currency": "EUR", "options": ["bet", "fold"], "deadline": 1_765_000_000.25}


async def _measure(redis_url: str, burst: int, players: int, rounds: int) -> dict[str, list[float]]:
    from dealerpoker.server.live.cluster import RedisCluster
    from dealerpoker.server.live.hub import FANOUT_BATCH, Connection, LocalHub

    async def nothing(*_args: Any) -> None:
        return None

    async def handle(table_id: str, player: str, message: Any, checked: Any = None) -> dict[str, Any]:
        return {**YOU, "player": player, "n": message["n"]}

    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    owner = RedisCluster(redis_url, LocalHub(time.time), prefix=prefix)
    asker = RedisCluster(redis_url, LocalHub(time.time), prefix=prefix)
    names = [f"p_{number:016x}" for number in range(players)]
    for name in names[::4]:  # a quarter of the table's players connected to the other process
        asker.hub.join(Connection(name, "t"))
    reading: list[float] = []
    arrived = asyncio.Event()
    dispatch = asker._dispatch
    batches = -(-players // FANOUT_BATCH)

    async def timed(kind: str, name: str, data: str) -> None:
        started = time.process_time()
        await dispatch(kind, name, data)
        if kind == "players":
            reading.append(time.process_time() - started)
            if len(reading) == batches:
                arrived.set()

    asker._dispatch = timed  # type: ignore[method-assign]
    figures: dict[str, list[float]] = {key: [] for key in (
        "forward_wall_ms", "forward_cpu_us", "players_send_ms", "players_read_ms",
        "alike_send_ms", "alike_read_ms")}
    distinct = {name: {**YOU, "player": name} for name in names}
    ways = [{**YOU, "way": way} for way in range(3)]  # the 'you' messages of three ways of playing
    alike = {name: ways[number % 3] for number, name in enumerate(names)}
    balances = {name: 1_000_000 + number for number, name in enumerate(names)}
    shares = "balances" in inspect.signature(owner.to_players).parameters
    try:
        await owner.start(("t",), nothing, nothing, handle)
        deadline = time.monotonic() + 10
        while not owner.owns("t"):
            if time.monotonic() > deadline:
                raise SystemExit("the owner never took the table's lease: is Redis up?")
            await asyncio.sleep(0.05)
        await asker.start(("t",), nothing, nothing, handle)
        for _ in range(rounds):
            cpu, wall = time.process_time(), time.perf_counter()
            replies = await asyncio.gather(*(asker.forward("t", name, {"type": "bet", "n": n})
                                             for n, name in enumerate(names[:burst])))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            if any(reply.get("type") != "you" for reply in replies):
                raise SystemExit(f"a forwarded intent was not answered: {replies[:3]}")
            figures["forward_wall_ms"].append(wall * 1000)
            figures["forward_cpu_us"].append(cpu * 1e6 / burst)
            for kind, messages in (("players", distinct), ("alike", alike)):
                reading.clear()
                arrived.clear()
                cpu = time.process_time()
                if kind == "players":
                    await owner.to_players("t", messages)
                elif shares:
                    await owner.to_players("t", messages, balances)
                else:
                    await owner.to_players("t", {name: {**message, "balance": balances[name]}
                                                 for name, message in messages.items()})
                # The reader's batches read meanwhile (the same process) are not the owner's.
                sent = time.process_time() - cpu - sum(reading)
                await asyncio.wait_for(arrived.wait(), 30)
                figures[f"{kind}_send_ms"].append(sent * 1000)
                figures[f"{kind}_read_ms"].append(sum(reading) * 1000)
    finally:
        await asker.stop()
        await owner.stop()
        import redis

        client = redis.Redis.from_url(redis_url)
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()
    return figures


def _run(code: Code, arguments: argparse.Namespace) -> dict[str, list[float]]:
    environment = {**os.environ, **dict(code.environment)}
    if code.source is not None:
        environment["PYTHONPATH"] = str(code.source)
    command = [sys.executable, __file__, "--inner", "--redis", arguments.redis, "--burst",
               str(arguments.burst), "--players", str(arguments.players), "--rounds", str(arguments.rounds)]
    answer = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    if answer.returncode:
        raise SystemExit(f"{code.label}: {answer.stderr[-2000:]}")
    figures: dict[str, list[float]] = json.loads(answer.stdout.splitlines()[-1])
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--redis", default=os.environ.get("DEALERPOKER_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--burst", type=int, default=5000, help="intents forwarded together (default 5000)")
    parser.add_argument("--players", type=int, default=10_000, help="players in the batch (default 10000)")
    parser.add_argument("--rounds", type=int, default=5, help="measurements per process (default 5)")
    parser.add_argument("--repeat", type=int, default=2, help="processes per code, alternating (default 2)")
    parser.add_argument("--compare", metavar="REVISION", action="append", default=[],
                        help="also run a git revision's src, alternating with this checkout's")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.inner:
        from dealerpoker.server.garbage import collect_less_often

        collect_less_often()  # as a ``serve`` process does before it serves
        print(json.dumps(asyncio.run(_measure(arguments.redis, arguments.burst, arguments.players,
                                              arguments.rounds))))
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        codes = [Code(f"{THIS_CHECKOUT.label} ({head()})")]
        codes += [checkout(revision, Path(tempfile.mkdtemp(dir=scratch))) for revision in arguments.compare]
        runs: dict[str, dict[str, list[float]]] = {code.label: {} for code in codes}
        for _ in range(arguments.repeat):
            for code in codes:
                for key, values in _run(code, arguments).items():
                    runs[code.label].setdefault(key, []).extend(values)
    machine = platform.processor() or platform.machine()
    print(f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; nproc {os.cpu_count()}; {machine}; "
          f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.1f}; "
          f"{arguments.repeat} processes x {arguments.rounds} measurements per code; medians (min-max).\n")
    print(f"| code | {arguments.burst:,} intents forwarded: wall ms | CPU per intent, µs | "
          f"{arguments.players:,} players' messages, all different: the owner's CPU to send them, ms | "
          "the other process's CPU to read them, ms | in three ways alike: to send, ms | to read, ms |")
    print("|---|---|---|---|---|---|---|")
    for label, figures in runs.items():
        cells = [f"{statistics.median(v):,.0f} ({min(v):,.0f}-{max(v):,.0f})" for v in
                 (figures["forward_wall_ms"], figures["forward_cpu_us"])]
        for key in ("players_send_ms", "players_read_ms", "alike_send_ms", "alike_read_ms"):
            values = figures[key]
            cells.append(f"{statistics.median(values):,.1f} ({min(values):,.1f}-{max(values):,.1f})")
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
