"""Live tables under load: N simulated players (WebSocket clients on loopback) at one table.

Each simulated player bets after a random think time within the first half of the betting window,
and answers each decision at random within the first half of its timer. For each player count
it starts a real `dealerpoker serve` (SQLite in a temporary directory, one texas-bonus table),
creates N demo players, connects them all to the table and plays several rounds. It measures,
over the rounds that started after everyone was connected:

- connected players;
- event delivery latency, p50 / p99 / max: the server's ``sent_at`` stamp (set when the message
  is serialised, once per broadcast) -> the client's receipt (the moment the client's event loop
  read the bytes of the frame off the socket); and the p99 to the moment the simulated player's
  code gets the message (its JSON parsed: right after, since the players' sockets are lean
  ``asyncio`` protocols, ``_lean_socket.py``, which hand each message on as it is read);
- settlement: from the reveal broadcast to the server's settlement commit (the ``settled``
  event follows the commit) and to the moment every player had received their own settlement.

Targets (issue 6): 2,000 players at one table with p99 delivery < 500 ms and every settlement
committed within 2 s of the reveal. The largest count that holds, with every smaller count
measured, is reported (and, with --keep-going, which larger counts held or not).

    .venv/bin/python benchmarks/live.py          # 500 ... 4000 players, up to the first that fails
    .venv/bin/python benchmarks/live.py --players 2000 --rounds 3 --no-write

Across processes (the table's owner computes, every other process fans its events out to its own
sockets through Redis): ``--workers 4 --postgres ADMIN_URL --redis URL`` serves from
``dealerpoker serve --workers 4`` on a scratch PostgreSQL database; ``--client-processes K``
drives the sockets from K load processes (each its share of the players; this process keeps the
observer and gathers their figures), for counts one process cannot drive. Each load process's CPU
is reported beside the figures.

    .venv/bin/python benchmarks/live.py --players 4000 10000 --workers 4 --client-processes 4 \
        --postgres postgresql://postgres@127.0.0.1:5432/test --redis redis://127.0.0.1:6379/0

Bounded: loopback only, at most --max-players clients, each level stops after --level-timeout s.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).parent))
from _lean_socket import LeanSocket, open_socket
from _processes import free_port, postgres_database
from _results import machine, write_section

TABLES = """
[[tables]]
id = "bench"
game = "texas-bonus"
betting_seconds = {betting}
decision_seconds = {decision}
pause_seconds = {pause}
"""
LATENCY_TARGET = 0.5
SETTLE_TARGET = 2.0
CONNECT_ATTEMPTS = 5  # a player's socket is opened again up to this many times, as the page retries


def idle_penalty_ms(idle: float = 2.0) -> tuple[float, float]:
    """A pass over 20,000 small objects, hot and then after ``idle`` s asleep (median of 3 each).

    On a shared virtual machine the caches are taken over while a process sleeps, and its first
    pass over the same memory afterwards can be many times slower: the first message after a
    quiet betting window (``no_more_bets``) pays this in the server. Reported with the results."""
    objects = [{"n": [i] * 4, "s": str(i)} for i in range(20_000)]

    def one_pass() -> float:
        began = time.perf_counter()
        sum(len(o["n"]) for o in objects)
        return (time.perf_counter() - began) * 1000

    hot = sorted(one_pass() for _ in range(3))[1]
    cold = []
    for _ in range(3):
        time.sleep(idle)
        cold.append(one_pass())
    return hot, sorted(cold)[1]


@dataclass
class Level:
    players: int
    connected: int = 0
    failed: int = 0  # players whose socket never opened, after CONNECT_ATTEMPTS tries
    retries: int = 0  # openings tried again (refused or timed out, as a page would retry)
    first_measured: int | None = None
    latencies: list[float] = field(default_factory=list)  # sent_at -> arrival at the client
    handled: list[float] = field(default_factory=list)    # sent_at -> the client's code gets it
    reveal_at: dict[int, float] = field(default_factory=dict)
    settled_at: dict[int, float] = field(default_factory=dict)
    seated: dict[int, int] = field(default_factory=dict)
    own_settled: dict[int, list[float]] = field(default_factory=dict)
    rounds_done: int = 0
    errors: list[str] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)
    # (round, "bet" | "decide", seconds): an intent sent -> its reply (once written) received
    acks: list[tuple[int, str, float]] = field(default_factory=list)
    # (round, code): the server's refusals (no_decision_open: a decision that reached the table
    # after its timer closed), by the round the player last heard of
    refusals: list[tuple[int, str]] = field(default_factory=list)
    rounds_latencies: list[tuple[int, str, float, float]] = field(default_factory=list)
    """(round, kind, receipt latency, handled latency): kept by a load process (``keep_round``)."""
    client_cpu: list[float] = field(default_factory=list)  # each load process's CPU share of a core

    def measured(self, number: int) -> bool:
        return self.first_measured is not None and number >= self.first_measured

    def percentile(self, q: float, values: list[float] | None = None) -> float:
        ordered = sorted(self.latencies if values is None else values)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")

    def settle_commit(self) -> list[float]:
        return [self.settled_at[n] - self.reveal_at[n] for n in self.settled_at if n in self.reveal_at]

    def settle_all(self) -> list[float]:
        return [max(times) - self.reveal_at[n] for n, times in self.own_settled.items()
                if n in self.reveal_at and times]

    def complete(self) -> list[bool]:
        return [len(self.own_settled.get(n, ())) == seated for n, seated in self.seated.items()]

    def holds(self) -> bool:
        return (self.connected == self.players and self.rounds_done > 0 and all(self.complete())
                and self.percentile(0.99) < LATENCY_TARGET
                and all(t < SETTLE_TARGET for t in self.settle_all()))


def later(socket: LeanSocket, message: dict[str, Any], delay: float, sent: list[tuple[str, float]]) -> None:
    """Send after a player's think time (people do not all click in the same millisecond);
    ``sent`` gets its kind and the moment it was sent (for the acknowledgement time)."""
    def send() -> None:
        if socket.send_text(json.dumps(message)):  # not once the level ended
            sent.append((message["type"], time.time()))

    asyncio.get_running_loop().call_later(delay, send)


async def _open(url: str, token: str, level: Level, rng: random.Random,
                on_text: Callable[[str, float], None]) -> LeanSocket:
    """A player's socket, tried again after a moment if refused or timed out, as the page does."""
    for attempt in range(1, CONNECT_ATTEMPTS + 1):
        try:
            return await open_socket(url, token, on_text, timeout=60)
        except (OSError, TimeoutError):
            if attempt == CONNECT_ATTEMPTS:
                raise
            level.retries += 1
            await asyncio.sleep(rng.uniform(1.0, 3.0))
    raise AssertionError("unreachable")


def _arrived(level: Level, all_in: asyncio.Event) -> None:
    """Every player has connected, or failed to: the measured rounds may begin."""
    if level.connected + level.failed == level.players:
        all_in.set()


class Player:
    """One simulated player's part: what it measures of each message, and when it bets and
    decides. Called for each message as its socket reads it (``_lean_socket``)."""

    def __init__(self, level: Level, all_in: asyncio.Event, rng: random.Random, think: tuple[float, float],
                 keep_round: bool) -> None:
        self.level, self.all_in, self.rng, self.think, self.keep_round = level, all_in, rng, think, keep_round
        self.socket: LeanSocket | None = None
        self.answered: set[tuple[int | None, int]] = set()
        self.sent: list[tuple[str, float]] = []
        self.round = 0  # the last round this player heard of

    def on_text(self, raw: str, received: float) -> None:
        level, socket = self.level, self.socket
        if socket is None:  # a message before the opening returned (none: the server waits for it)
            return
        handled = time.time()
        message = json.loads(raw)
        number = _number(message.get("round"))
        kind, event = message["type"], message.get("event")
        if number is not None:
            self.round = number
        if number is not None and self.keep_round:
            level.rounds_latencies.append((number, f"{kind}:{event or message.get('phase')}",
                                           received - message["sent_at"], handled - message["sent_at"]))
        elif number is not None and level.measured(number):
            level.latencies.append(received - message["sent_at"])
            level.handled.append(handled - message["sent_at"])
            level.by_kind.setdefault(f"{kind}:{event or message.get('phase')}", []).append(
                received - message["sent_at"])
        # The reply to a bet (a seat in the betting phase) or a decision (a pending action)
        # is sent once it is written: the acknowledgement.
        seat = message.get("seat") if kind == "you" else None
        if self.sent and seat and (message.get("phase") == "betting" or seat.get("pending")):
            intent, sent = self.sent.pop()
            level.acks.append((self.round, intent, received - sent))
        if kind == "table" and event == "betting_open" and self.all_in.is_set():
            if level.first_measured is None:
                level.first_measured = number
            bets = {"ante": 100, "bonus": 100} if self.rng.random() < 0.3 else {"ante": 100}
            later(socket, {"type": "bet", "bets": bets}, self.rng.uniform(0, self.think[0]), self.sent)
        elif kind == "you" and seat and seat["legal_actions"] \
                and (number, len(seat["steps"])) not in self.answered:
            self.answered.add((number, len(seat["steps"])))  # one answer per decision
            action = self.rng.choice(seat["legal_actions"])
            later(socket, {"type": "decide", "action": action}, self.rng.uniform(0, self.think[1]), self.sent)
        elif kind == "you" and message.get("phase") == "pause" and seat \
                and number is not None and level.measured(number):
            level.own_settled.setdefault(number, []).append(received)
        elif kind == "error":
            level.refusals.append((self.round, message["error"]))
            if self.sent:
                self.sent.pop()  # refused: no acknowledgement to time


async def play(url: str, token: str, level: Level, all_in: asyncio.Event, rng: random.Random,
               think: tuple[float, float], keep_round: bool = False) -> None:
    player = Player(level, all_in, rng, think, keep_round)
    try:
        player.socket = await _open(url, token, level, rng, player.on_text)
    except asyncio.CancelledError:
        return
    except Exception as error:  # a player who never sat down counts as not held
        level.failed += 1
        level.errors.append(f"could not connect: {type(error).__name__}: {error}")
        _arrived(level, all_in)
        return
    level.connected += 1
    _arrived(level, all_in)
    try:
        await asyncio.shield(player.socket.closed)  # cancelled when the level ends
    except asyncio.CancelledError:
        pass
    finally:
        player.socket.close()


async def share(url: str, tokens: list[str], seed: int, think: tuple[float, float]) -> None:
    """A load process's players (``--child``): play until standard input closes, then print their
    figures as JSON (every measurement with its round number: the parent keeps the measured ones)."""
    level = Level(len(tokens))
    level.first_measured = 0  # every round; the parent keeps those from its first measured one
    all_in = asyncio.Event()
    rng = random.Random(seed)
    began = time.process_time()
    tasks = []
    for token in tokens:
        tasks.append(asyncio.create_task(play(url, token, level, all_in, rng, think, keep_round=True)))
        await asyncio.sleep(0)
    loop = asyncio.get_running_loop()
    reported = False
    while True:
        if not reported and all_in.is_set():
            print(f"connected {level.connected} {level.failed} {level.retries}", flush=True)
            reported = True
        line = await loop.run_in_executor(None, sys.stdin.readline) if reported else None
        if line == "":
            break
        if not reported:
            await asyncio.sleep(0.2)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({"connected": level.connected, "latencies": level.rounds_latencies,
                      "acks": level.acks, "own_settled": level.own_settled,
                      "refusals": level.refusals, "errors": collections.Counter(level.errors),
                      "cpu": time.process_time() - began}), flush=True)


def _number(round_id: Any) -> int | None:
    return int(round_id.rsplit("/", 1)[1]) if isinstance(round_id, str) else None


async def observe(url: str, token: str, level: Level, rounds: int, stop: asyncio.Event,
                  all_in: asyncio.Event | None = None) -> None:
    """One more client that only watches: reveal and settled stamps, seat counts, rounds done."""
    async with connect(url, additional_headers={"Authorization": f"Bearer {token}"}, max_queue=None,
                       ping_interval=None) as ws:
        while not stop.is_set():
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=1.0))
            except TimeoutError:
                continue
            number = _number(message.get("round"))
            if all_in is not None and all_in.is_set() and level.first_measured is None \
                    and message.get("event") == "betting_open" and number is not None:
                level.first_measured = number  # the players are in other processes
            if message["type"] != "table" or number is None or not level.measured(number):
                continue
            if message.get("event") == "reveal":
                level.reveal_at[number] = message["sent_at"]
                level.seated[number] = message["seated"]
            elif message.get("event") == "settled":
                level.settled_at[number] = message["sent_at"]
                level.rounds_done += 1
                if level.rounds_done >= rounds:
                    await asyncio.sleep(1.0)  # the players' own settlements are still arriving
                    stop.set()


SESSION_TRIES = 5


async def sessions(base: str, count: int) -> list[str]:
    limits = httpx.Limits(max_connections=32)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
        semaphore = asyncio.Semaphore(32)

        async def one() -> str:
            async with semaphore:
                for attempt in range(SESSION_TRIES):
                    try:
                        response = await client.post("/api/session", json={})
                        break
                    except httpx.TransportError:
                        # A keep-alive connection the server closed as it was reused (seen once
                        # in 10,000 on 2026-12-06): try again; at worst one demo player too many.
                        if attempt == SESSION_TRIES - 1:
                            raise
                response.raise_for_status()
                token: str = response.json()["token"]
                return token

        return list(await asyncio.gather(*(one() for _ in range(count))))


async def run_level(players: int, rounds: int, timeout: float, timers: tuple[float, float, float],
                    options: argparse.Namespace | None = None) -> Level:
    level = Level(players)
    workers = getattr(options, "workers", 1)
    postgres = getattr(options, "postgres", None)
    redis = getattr(options, "redis", None)
    client_processes = max(1, getattr(options, "client_processes", 1))
    scratch_database = None
    with tempfile.TemporaryDirectory() as tmp:
        tables = Path(tmp) / "tables.toml"
        tables.write_text(TABLES.format(betting=timers[0], decision=timers[1], pause=timers[2]))
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        exe = Path(sys.executable).parent / "dealerpoker"
        database = f"sqlite:///{tmp}/bench.db"
        if postgres:
            from sqlalchemy.engine import make_url

            scratch_database = f"dp_live_{random.getrandbits(32):08x}"
            await asyncio.to_thread(postgres_database, postgres, "create", scratch_database)
            database = make_url(postgres).set(database=scratch_database).render_as_string(hide_password=False)
        cluster = ["--redis", redis] if redis else []
        if workers > 1:
            cluster += ["--workers", str(workers)]
        server = subprocess.Popen(
            [str(exe), "serve", "--port", str(port), "--database", database,
             "--tables", str(tables), "--log-level", "warning", "--no-rtp", *cluster,
             # one address drives every player: exempt from the rate limits (not edited)
             "--rate-limit-exempt", "127.0.0.1"],
            stdout=subprocess.DEVNULL, stderr=open(Path(tmp) / "server.log", "w"),  # noqa: SIM115
            env={**os.environ, "DEALERPOKER_REDIS_PREFIX": f"dp_live_{random.getrandbits(32):08x}:"})
        children: list[subprocess.Popen[str]] = []
        try:
            async with httpx.AsyncClient() as probe:
                for _ in range(1200):
                    try:
                        if (await probe.get(f"{base}/healthz")).status_code == 200:
                            break
                    except httpx.HTTPError:
                        await asyncio.sleep(0.1)
            tokens = await sessions(base, players + 1)
            url = f"ws://127.0.0.1:{port}/ws/tables/bench"
            stop, all_in = asyncio.Event(), asyncio.Event()
            rng = random.Random(players)
            # Think time: bets within the first half of the window, decisions in the first half
            # of their timer.
            think = (timers[0] / 2, timers[1] / 2)
            tasks = [asyncio.create_task(observe(url, tokens[-1], level, rounds, stop, all_in))]
            began = time.perf_counter()
            if client_processes == 1:
                client_cpu = time.process_time()
                for token in tokens[:-1]:
                    tasks.append(asyncio.create_task(play(url, token, level, all_in, rng, think)))
                    await asyncio.sleep(0)  # let connections open as they are created
            else:
                children = _start_children(url, tokens[:-1], client_processes, think, Path(tmp))
                await _all_connected(children, level, all_in, timeout)
            try:
                await asyncio.wait_for(stop.wait(), timeout)
            except TimeoutError:
                level.errors.append(f"level timed out after {timeout:.0f} s")
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            elapsed = time.perf_counter() - began
            if client_processes == 1:
                level.client_cpu.append((time.process_time() - client_cpu) / elapsed)
            else:
                _gather_children(children, level, elapsed)
        finally:
            for child in children:
                if child.poll() is None:
                    child.kill()
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
            if scratch_database and postgres:
                await asyncio.to_thread(postgres_database, postgres, "drop", scratch_database)
            log = (Path(tmp) / "server.log").read_text()
            if "Traceback" in log or level.errors:  # the server's side of what went wrong
                level.errors.append("server log: see /tmp/dealerpoker-live-bench-server.log")
                Path("/tmp/dealerpoker-live-bench-server.log").write_text(log)
    return level


def _start_children(url: str, tokens: list[str], count: int, think: tuple[float, float],
                    scratch: Path) -> list[subprocess.Popen[str]]:
    """``count`` load processes, each with its share of the players' tokens."""
    children = []
    for number in range(count):
        mine = tokens[number::count]
        path = scratch / f"tokens-{number}.json"
        path.write_text(json.dumps(mine))
        children.append(subprocess.Popen(
            [sys.executable, __file__, "--child", url, str(path), str(number), f"{think[0]},{think[1]}"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    return children


async def _all_connected(children: list[subprocess.Popen[str]], level: Level, all_in: asyncio.Event,
                         timeout: float) -> None:
    """Wait until every load process says each of its players has connected or given up (then
    rounds are measured); one that says nothing within ``timeout`` counts its players as failed."""
    loop = asyncio.get_running_loop()
    level.connected = 0
    for number, child in enumerate(children):
        assert child.stdout is not None
        share_of = len(range(number, level.players, len(children)))
        try:
            line = await asyncio.wait_for(loop.run_in_executor(None, child.stdout.readline), timeout)
        except TimeoutError:
            line = ""
        words = line.split()
        if len(words) != 4 or words[0] != "connected":
            level.failed += share_of
            level.errors.append(f"load process {number}: its players neither connected nor failed "
                                f"within {timeout:.0f} s: {line!r}")
            continue
        level.connected += int(words[1])
        level.failed += int(words[2])
        level.retries += int(words[3])
    all_in.set()


def _gather_children(children: list[subprocess.Popen[str]], level: Level, elapsed: float) -> None:
    """The load processes' figures, the rounds before the first measured one left out."""
    first = level.first_measured if level.first_measured is not None else 1 << 60
    for child in children:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.close()
        found = json.loads(child.stdout.readline() or "{}")
        child.wait(60)
        level.client_cpu.append(found.get("cpu", float("nan")) / elapsed)
        for error, count in found.get("errors", {}).items():
            level.errors.extend([error] * count)
        for number, kind, received, handled in found.get("latencies", []):
            if number >= first:
                level.latencies.append(received)
                level.handled.append(handled)
                level.by_kind.setdefault(kind, []).append(received)
        level.acks.extend((number, kind, seconds) for number, kind, seconds in found.get("acks", []))
        level.refusals.extend((number, code) for number, code in found.get("refusals", []))
        for number, times in found.get("own_settled", {}).items():
            if int(number) >= first:
                level.own_settled.setdefault(int(number), []).extend(times)


def acknowledgements(level: Level) -> list[str]:
    """Over the measured rounds: how long each kind of intent took to be acknowledged, and what
    the server refused (before, the players were still connecting: counted apart)."""
    lines = []
    for intent in ("bet", "decide"):
        values = sorted(seconds for number, kind, seconds in level.acks
                        if kind == intent and level.measured(number))
        if values:
            lines.append(f"  acknowledgement of a {intent:6} (sent -> reply, once written) n={len(values):6} "
                         f"p50={values[len(values) // 2] * 1000:6.0f} ms "
                         f"p99={values[int(0.99 * len(values))] * 1000:6.0f} ms "
                         f"max={values[-1] * 1000:6.0f} ms")
    refused = collections.Counter(code for number, code in level.refusals if level.measured(number))
    earlier = sum(1 for number, _ in level.refusals if not level.measured(number))
    if refused or earlier:
        lines.append(f"  refused in the measured rounds: "
                     f"{', '.join(f'{code} x{n}' for code, n in refused.most_common()) or 'none'}"
                     f" (and {earlier} in the rounds before)")
    return lines


def describe(level: Level) -> str:
    commit = level.settle_commit()
    every = level.settle_all()
    return (f"| {level.players} | {level.connected} | {level.rounds_done} | {len(level.latencies)} | "
            f"{level.percentile(0.5) * 1000:.0f} | {level.percentile(0.99) * 1000:.0f} | "
            f"{max(level.latencies, default=float('nan')) * 1000:.0f} | "
            f"{level.percentile(0.99, level.handled) * 1000:.0f} | "
            f"{max(commit, default=float('nan')) * 1000:.0f} | "
            f"{max(every, default=float('nan')) * 1000:.0f} | "
            f"{'yes' if all(level.complete()) and level.complete() else 'no'} | "
            f"{', '.join(f'{share:.0%}' for share in level.client_cpu) or '-'} | {os.getloadavg()[0]:.1f} | "
            f"{'**holds**' if level.holds() else 'no'} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="*", default=[500, 1000, 2000, 3000, 4000])
    parser.add_argument("--keep-going", action="store_true", help="measure every count, even after one fails")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-players", type=int, default=5000)
    parser.add_argument("--level-timeout", type=float, default=240.0)
    parser.add_argument("--betting", type=float, default=8.0)
    parser.add_argument("--decision", type=float, default=4.0)
    parser.add_argument("--pause", type=float, default=2.0)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    parser.add_argument("--workers", type=int, default=1,
                        help="serve --workers N (needs --postgres, --redis)")
    parser.add_argument("--postgres", default=None, metavar="ADMIN_URL",
                        help="serve from a scratch PostgreSQL database created there (default SQLite)")
    parser.add_argument("--redis", default=None, metavar="URL", help="serve --redis URL (the live cluster)")
    parser.add_argument("--client-processes", type=int, default=1, metavar="K",
                        help="drive the players from K load processes (default 1: this one)")
    parser.add_argument("--child", nargs=4, metavar=("URL", "TOKENS", "SEED", "THINK"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        url, path, seed, think = args.child
        bet, decide = (float(value) for value in think.split(","))
        asyncio.run(share(url, json.loads(Path(path).read_text()), int(seed), (bet, decide)))
        return 0
    if args.workers > 1 and not (args.postgres and args.redis):
        parser.error("--workers above 1 needs --postgres and --redis")
    counts = [n for n in args.players if 0 < n <= args.max_players]
    header = ("| players | connected | rounds measured | messages | p50 ms | p99 ms | max ms "
              "| p99 ms, once the client's code has it | reveal -> settlement committed, max ms "
              "| reveal -> every player has own settlement, max ms | every bettor settled "
              "| load processes' CPU, share of a core each | load (1 min) | target |"
              "\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows, details, largest = [], [], 0
    held: list[int] = []
    failed: list[int] = []
    load_before = os.getloadavg()
    for count in counts:
        level = asyncio.run(run_level(count, args.rounds, args.level_timeout,
                                      (args.betting, args.decision, args.pause), args))
        rows.append(describe(level))
        print(rows[-1], flush=True)
        lines = []
        for kind, values in sorted(level.by_kind.items()):
            values.sort()
            p50, p99 = values[len(values) // 2] * 1000, values[int(0.99 * len(values))] * 1000
            lines.append(f"  {kind:24} n={len(values):6} p50={p50:6.0f} ms p99={p99:6.0f} ms "
                         f"max={values[-1] * 1000:6.0f} ms")
        lines.extend(acknowledgements(level))
        lines.append(f"  sockets: {level.connected} connected, {level.failed} never opened after "
                     f"{CONNECT_ATTEMPTS} tries, {level.retries} openings tried again")
        print("\n".join(lines), flush=True)
        details.append(f"{count} players, delivery by message kind:\n" + "\n".join(lines))
        if level.errors:
            counted = collections.Counter(level.errors).most_common(6)
            print(f"  errors ({len(level.errors)}): {', '.join(f'{error} x{n}' for error, n in counted)}",
                  flush=True)
        if level.holds():
            held.append(count)
            if not failed:
                largest = count
        else:
            failed.append(count)
            if not args.keep_going:
                break  # a larger count will not hold either
    load_after = os.getloadavg()
    hot, cold = idle_penalty_ms()
    load = "load average (1, 5, 15 min) {:.1f}, {:.1f}, {:.1f} before, {:.1f}, {:.1f}, {:.1f} after".format(
        *load_before, *load_after)
    body = (f"Measured {machine()}; {load} (the benchmark's own clients and server count in it; "
            f"above ~2 before, other work competed and the figures are pessimistic). Clients and "
            f"server share the same 2 cores. This machine after a pause: a pass over 20,000 small "
            f"objects took {hot:.1f} ms hot and {cold:.1f} ms after 2 s asleep (caches taken over "
            f"meanwhile: the first message after a quiet betting window pays it).\n\n"
            f"`.venv/bin/python benchmarks/live.py --players {' '.join(map(str, counts))} "
            f"--rounds {args.rounds}{' --keep-going' if args.keep_going else ''}{_options(args)}` "
            f"({_serving(args)}; one texas-bonus table, "
            f"timers {args.betting:g}/{args.decision:g}/{args.pause:g} s, "
            f"every player bets within the first half of the window and decides at random within the "
            f"first half of each timer).\n\n{header}\n" + "\n".join(rows) +
            f"\n\nTarget: 2,000 players, p99 < {LATENCY_TARGET * 1000:.0f} ms, settlement within "
            f"{SETTLE_TARGET:g} s of the reveal. **Largest count that holds (with every smaller count "
            f"measured): {largest or 'none'}.**")
    if failed:
        beyond = [str(count) for count in held if count > largest]
        body += f" Beyond it, held: {', '.join(beyond) or 'none'}; not held: {', '.join(map(str, failed))}."
    body += "\n\n```\n" + "\n\n".join(details) + "\n```\n"
    print(body)
    if not args.no_write:
        title = "Live tables" if args.workers == 1 and not args.postgres else \
            f"Live tables across processes ({args.workers})"
        write_section(title, body)
    return 0


def _serving(args: argparse.Namespace) -> str:
    database = "PostgreSQL" if args.postgres else "SQLite"
    processes = f"`serve --workers {args.workers}`" if args.workers > 1 else "one `serve` process"
    clients = f", players driven from {args.client_processes} load processes" \
        if args.client_processes > 1 else ""
    return f"{processes}, {database}{', Redis' if args.redis else ''}{clients}"


def _options(args: argparse.Namespace) -> str:
    options = ""
    if args.workers > 1:
        options += f" --workers {args.workers}"
    if args.postgres:
        options += " --postgres URL"
    if args.redis:
        options += " --redis URL"
    if args.client_processes > 1:
        options += f" --client-processes {args.client_processes}"
    return options


if __name__ == "__main__":
    raise SystemExit(main())
