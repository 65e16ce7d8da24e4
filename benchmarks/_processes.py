"""The processes a benchmark starts and measures: ``dealerpoker`` commands started fresh and
waited for (``start``, ``start_server``; a git revision's code, ``Code``), free loopback ports,
CPU time read from /proc, a reference loop for how fast the machine runs Python now, and
PostgreSQL scratch databases."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO


@dataclass(frozen=True)
class Code:
    """Which code a run serves: this checkout's, or a git revision's ``src`` (``source``)."""

    label: str
    source: Path | None = None
    environment: tuple[tuple[str, str], ...] = ()


THIS_CHECKOUT = Code("this checkout")


def checkout(revision: str, into: Path) -> Code:
    """The ``src`` tree of a git revision of this repository, unpacked into ``into``."""
    return Code(f"{revision} ({unpack(revision, into, 'src')})", into / "src")


def unpack(revision: str, into: Path, *paths: str) -> str:
    """``paths`` (default: everything) of a git revision of this repository, unpacked into
    ``into`` (no bytecode, no caches); the revision's short commit."""
    repository = Path(__file__).resolve().parent.parent
    commit = subprocess.run(["git", "-C", str(repository), "rev-parse", "--short", revision], check=True,
                            capture_output=True, text=True).stdout.strip()
    archive = subprocess.run(["git", "-C", str(repository), "archive", commit, *paths], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return commit


def head() -> str:
    """This checkout's commit (``+`` when its ``src`` differs from it)."""
    repository = Path(__file__).resolve().parent.parent
    commit = subprocess.run(["git", "-C", str(repository), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=False).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(repository), "diff", "--quiet", "HEAD", "--", "src"],
                           check=False).returncode
    return (commit or "unknown") + ("+" if dirty else "")


def start(arguments: list[str], health_url: str, code: Code, *, environment: dict[str, str] | None = None,
          log: IO[bytes] | None = None, name: str = "dealerpoker") -> subprocess.Popen[bytes]:
    """``dealerpoker ARGUMENTS`` in a fresh process running ``code``, once ``health_url`` answers
    200 (its standard error to ``log``, else kept to show if it exits first)."""
    command = [sys.executable, "-c", "import sys; from dealerpoker.cli import main; sys.exit(main())",
               *arguments]
    env = {**os.environ, **(environment or {}), **dict(code.environment)}
    if code.source is not None:
        env["PYTHONPATH"] = str(code.source)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log or subprocess.PIPE, env=env)
    # Generous: on the shared machine under load a PostgreSQL server's migrations took 45 s.
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(health_url, timeout=1) as response:
                if response.status == 200:
                    return process
        except OSError:
            time.sleep(0.2)
        if process.poll() is not None:
            said = process.stderr.read().decode() if process.stderr else "(see its log)"
            raise SystemExit(f"{name} exited: {said[-2000:]}")
    process.kill()
    raise SystemExit(f"{name} did not start within 180 s")


LOAD_ADDRESS = "127.0.0.1"
"""Where the load comes from: exempt from the deployment's rate limits (``serve
--rate-limit-exempt``, docs/operations.md#rate-limits), which stay as a deployment sets them."""


def start_server(database_url: str, port: int, extra: list[str], code: Code) -> subprocess.Popen[bytes]:
    """``dealerpoker serve`` on ``port`` with ``database_url`` (and ``extra`` options)."""
    # Its own Redis key prefix, in case the run uses Redis (several workers share live tables).
    # The load comes from one address and a few accounts: that address is exempt from the rate
    # limits, as a deployment would lift them for a load test (the limits are not edited).
    environment = {"DEALERPOKER_REDIS_PREFIX": f"dp_bench_{secrets.token_hex(4)}:",
                   "DEALERPOKER_RATE_LIMIT_EXEMPT": LOAD_ADDRESS}
    arguments = ["serve", "--port", str(port), "--database", database_url, "--starting-balance", str(10**12),
                 "--log-level", "warning", "--no-rtp", *extra]
    return start(arguments, f"http://127.0.0.1:{port}/healthz", code, environment=environment,
                 name="dealerpoker serve")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


_TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int, *, reaped: bool = False) -> float:
    """User + system CPU time of a process and all its live descendants (from /proc); with
    ``reaped``, their ended children's too (what each has waited for: a browser's closed tabs)."""
    stats: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # The command name (field 2) may hold spaces: split after its closing parenthesis.
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        ticks = sum(int(field) for field in fields[11:15 if reaped else 13])
        stats[int(entry.name)] = (int(fields[1]), ticks / _TICKS)
    total, frontier = 0.0, [root]
    while frontier:
        pid = frontier.pop()
        total += stats.get(pid, (0, 0.0))[1]
        frontier.extend(child for child, (parent, _) in stats.items() if parent == pid)
    return total


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes (0 for those gone)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / _TICKS
    return total


def reference_cpu_ms() -> float:
    """CPU time of a fixed pure-Python loop (best of 3): how fast this machine runs Python now.
    On a shared machine the CPU time of the same work grows with the load (cores shared with
    other processes' threads, cold caches), so CPU-per-round figures compare only with this."""
    best = float("inf")
    for _ in range(3):
        began = time.process_time()
        total = 0
        for number in range(1_000_000):
            total += number * number % 7
        best = min(best, time.process_time() - began)
    return best * 1000


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


def postgres_backends(admin_url: str, name: str) -> list[int]:
    """The process ids of the PostgreSQL backends connected to database ``name``."""
    import asyncpg
    from sqlalchemy.engine import make_url

    parsed = make_url(admin_url)

    async def run() -> list[int]:
        connection = await asyncpg.connect(user=parsed.username, password=parsed.password, host=parsed.host,
                                           port=parsed.port, database=parsed.database)
        try:
            rows = await connection.fetch("SELECT pid FROM pg_stat_activity WHERE datname = $1", name)
            return [int(row["pid"]) for row in rows]
        finally:
            await connection.close()

    return asyncio.run(run())
