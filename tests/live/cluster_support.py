"""Two `dealerpoker serve` processes on one PostgreSQL database (a fresh one) and one Redis (a key
prefix of their own), for the tests of several processes; both need
DEALERPOKER_TEST_POSTGRES_URL and DEALERPOKER_TEST_REDIS_URL, and skip saying which is missing.

    pytestmark = CLUSTER_MARKS

    with two_processes(tmp_path, FAST_TABLES.format(betting=8, decision=15, pause=1)) as cluster:
        cluster.clients.append(player := LivePlayer(cluster.first.base, "texas-fast"))
        owner = cluster.lease_owner("texas-fast")  # the process id holding the table's clock
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.live.conftest import ServeProcess
from tests.support.databases import NO_POSTGRES, NO_REDIS, POSTGRES_URL, REDIS_URL, fresh_database

CLUSTER_MARKS = [
    pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow,
    pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES),
    pytest.mark.skipif(not REDIS_URL, reason=NO_REDIS),
]
"""A cluster test module's ``pytestmark``."""


def new_prefix() -> str:
    """A Redis key prefix of one test's own (``cleanup`` deletes its keys)."""
    return f"dptest:{secrets.token_hex(6)}:"


def lease_owner(prefix: str, table: str) -> str:
    """The process id holding ``table``'s clock under ``prefix`` ('' when nobody does)."""
    import redis

    client: Any = redis.Redis.from_url(str(REDIS_URL))
    try:
        value = client.get(f"{prefix}lease:{table}")
        return value.decode() if value else ""
    finally:
        client.close()


def cleanup(prefix: str) -> None:
    """Delete every Redis key under ``prefix``."""
    import redis

    client: Any = redis.Redis.from_url(str(REDIS_URL))
    try:
        for key in client.scan_iter(f"{prefix}*"):
            client.delete(key)
    finally:
        client.close()


@dataclass
class Cluster:
    first: ServeProcess
    second: ServeProcess
    database: str
    prefix: str
    clients: list[Any] = field(default_factory=list)
    """The test's WebSocket clients (players, dealers): closed before the processes stop."""

    def lease_owner(self, table: str) -> str:
        return lease_owner(self.prefix, table)


@contextmanager
def two_processes(directory: Path, tables: str, *, label: str = "live", extra: tuple[str, ...] = (),
                  more_tables: str = "") -> Iterator[Cluster]:
    """``first`` and ``second`` serving the tables file ``tables`` on a fresh database
    ``dp_{label}_...`` (``extra``: more ``serve`` options, e.g. ``--operators FILE``); on leaving,
    the clients closed, both stopped (a killed one too) and the prefix's keys deleted.

    ``more_tables``: tables only ``second`` serves. ``first``, started first, takes every lease
    of its tables; ``second`` takes these: each process then owns the clock of some tables."""
    prefix = new_prefix()
    paths = {"first": directory / "tables.toml", "second": directory / "tables-second.toml"}
    paths["first"].write_text(tables)
    paths["second"].write_text(tables + more_tables)
    with fresh_database(label) as database:
        started: list[ServeProcess] = []
        try:
            for name, path in paths.items():
                started.append(ServeProcess(directory, database, path, name, redis=REDIS_URL, prefix=prefix,
                                            extra=extra))
            cluster = Cluster(started[0], started[1], database, prefix)
            try:
                yield cluster
            finally:
                for client in cluster.clients:
                    client.close()
        finally:
            for process in started:
                process.stop()
            cleanup(prefix)
