"""Measuring the processes a benchmark starts: free loopback ports, CPU time read from /proc, a
reference loop for how fast the machine runs Python now, and PostgreSQL scratch databases."""

from __future__ import annotations

import asyncio
import os
import socket
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


_TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU time of a process and all its live descendants (from /proc)."""
    stats: dict[int, tuple[int, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # The command name (field 2) may hold spaces: split after its closing parenthesis.
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICKS)
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
