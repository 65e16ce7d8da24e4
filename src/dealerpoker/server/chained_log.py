"""Hash-chained append-only logs: each row holds the hash of the row before it (``prev_hash``) and
its own (``row_hash``), so an edited, inserted or deleted row is found by walking the chain
(:func:`verify`; ``dealerpoker audit-log verify`` and the back office's Audit page run it).

The hash of a row is the hex SHA-256 of its *canonical encoding*: the UTF-8 JSON of
``{"prev": <prev_hash>, "row": {<column>: <value>, ...}}`` with the keys sorted, no spaces
(``separators=(",", ":")``), non-ASCII characters as themselves, every column of the table but
``id``, ``prev_hash`` and ``row_hash`` (strings, integers, null as stored). The first row's
``prev_hash`` is :data:`GENESIS` (64 zeros).

>>> first = row_hash(GENESIS, {"actor": "ann", "n": 1, "note": None})
>>> canonical(GENESIS, {"note": None, "n": 1, "actor": "ann"})[:20]
b'{"prev":"00000000000'
>>> first == row_hash(GENESIS, {"n": 1, "note": None, "actor": "ann"})  # the order of the columns
True
>>> first == row_hash(GENESIS, {"actor": "ann", "n": 2, "note": None})
False

Making a table a chained log is one line in each of two places: ``*chain_columns()`` in its
``Table(...)`` (``server.schema``) and ``make_chained_log("name")`` in its migration
(``migrations.append_only``: the columns, the existing rows chained, and triggers refusing every
rewrite). Then it is written with :func:`append`, and :data:`CHAINED` (every table of the schema
with the two columns) lists it for verification. Appends are serialised per table (SQLite is one
writer; on PostgreSQL a transaction-scoped advisory lock), so the chain never forks.

A chain cannot tell that its newest rows were removed (what is left is a valid chain): the check
reports the head (the newest row's id and hash); record it (the back office shows it) and compare
with ``audit-log verify --expect-head ID:HASH`` later. The database's triggers refuse the
deletion in the first place.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Table, bindparam, func, select, text
from sqlalchemy.sql import Insert, Select

from dealerpoker.server.db import Connection
from dealerpoker.server.schema import HASH_COLUMNS, metadata

GENESIS = "0" * 64
_BATCH = 5_000


def content_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """The columns of a row its hash covers."""
    return {key: value for key, value in row.items() if key != "id" and key not in HASH_COLUMNS}


def canonical(prev_hash: str, row: Mapping[str, Any]) -> bytes:
    """The bytes a row's hash is taken of (see the module's description)."""
    return json.dumps({"prev": prev_hash, "row": content_of(row)}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode()


def row_hash(prev_hash: str, row: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical(prev_hash, row)).hexdigest()


def lock_key(name: str) -> int:
    """The PostgreSQL advisory lock that serialises appends to the table ``name`` (a signed 63-bit
    number of its name)."""
    return int.from_bytes(hashlib.sha256(f"dealerpoker chained log {name}".encode()).digest()[:8], "big") >> 1


@dataclass(frozen=True)
class ChainedLog:
    """One chained table and its statements (compiled once by the connection)."""

    table: Table
    insert: Insert = field(init=False, repr=False)
    last: Select[Any] = field(init=False, repr=False)
    batch: Select[Any] = field(init=False, repr=False)
    newest: Select[Any] = field(init=False, repr=False)
    following: Select[Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        columns = self.table.c
        object.__setattr__(self, "insert", self.table.insert().inline())
        newest = select(func.max(columns.id)).scalar_subquery()
        object.__setattr__(self, "last", select(columns.row_hash).where(columns.id == newest))
        object.__setattr__(self, "newest", select(func.max(columns.id)))
        object.__setattr__(self, "following",
                           select(func.min(columns.id)).where(columns.id > bindparam("after")))
        object.__setattr__(self, "batch", select(self.table).where(
            columns.id > bindparam("after"), columns.id <= bindparam("upto")).order_by(columns.id))

    @property
    def name(self) -> str:
        return self.table.name


CHAINED: dict[str, ChainedLog] = {
    table.name: ChainedLog(table) for table in metadata.sorted_tables
    if all(name in table.c for name in HASH_COLUMNS)}
"""Every chained log by table name: each table with ``*chain_columns()`` (what ``audit-log
verify`` checks)."""


async def append(connection: Connection, table: Table, values: Mapping[str, Any]) -> str:
    """Insert one row into the chained log ``table`` (every content column in ``values``),
    chained to its newest row; the new row's hash."""
    log = CHAINED[table.name]
    if connection.dialect.name == "postgresql":
        await connection.execute(text(f"SELECT pg_advisory_xact_lock({lock_key(log.name)})"))
    last = await connection.one(log.last, {})
    prev = GENESIS if last is None or last["row_hash"] is None else str(last["row_hash"])
    digest = row_hash(prev, values)
    await connection.run(log.insert, {**values, "prev_hash": prev, "row_hash": digest})
    return digest


@dataclass
class ChainCheck:
    """The outcome of walking one chained log."""

    table: str
    rows: int = 0
    head_id: int | None = None
    head_hash: str = GENESIS
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "ok": self.ok, "rows": self.rows, "head_id": self.head_id,
                "head_hash": self.head_hash, "problems": self.problems}


async def verify(connection: Connection, log: ChainedLog, *, expect_head: tuple[int, str] | None = None,
                 limit_problems: int = 20) -> ChainCheck:
    """Walk ``log`` from its first row: every row's ``prev_hash`` must be the row before's
    ``row_hash`` (a row deleted or inserted between breaks this), and its ``row_hash`` the hash of
    its content (an edited row breaks this). ``expect_head``: a head recorded earlier (id, hash)
    that must still be there as it was (rows removed from the end are found so)."""
    check = ChainCheck(log.name)
    anchored = expect_head is None
    expected_prev, after = GENESIS, -1
    newest = await connection.scalar(log.newest)
    while newest is not None and after < int(newest):
        upto = after + _BATCH
        rows = await connection.rows(log.batch, {"after": after, "upto": upto})
        if not rows:  # a gap in the ids: on to the next row
            after = int(await connection.scalar(log.following, {"after": after})) - 1
            continue
        for row in rows:
            check.rows += 1
            identity = int(row["id"])
            if row["prev_hash"] != expected_prev:
                check.problems.append(
                    f"{log.name} row {identity}: its prev_hash is not the hash of the row before it "
                    f"(row {check.head_id if check.head_id is not None else 'none'}): a row was deleted, "
                    "inserted or changed there")
            recomputed = row_hash(str(row["prev_hash"]), row)
            if row["row_hash"] != recomputed:
                check.problems.append(f"{log.name} row {identity}: its content does not match its row_hash "
                                      "(the row was edited)")
            if expect_head is not None and identity == expect_head[0]:
                anchored = True
                if row["row_hash"] != expect_head[1]:
                    check.problems.append(f"{log.name} row {identity}: its hash is not the head recorded "
                                          "earlier (the log was rewritten since)")
            check.head_id, check.head_hash = identity, str(row["row_hash"])
            expected_prev = str(row["row_hash"])
        after = upto
    if not anchored and expect_head is not None:
        check.problems.append(f"{log.name} row {expect_head[0]} (the head recorded earlier) is missing: "
                              "rows were removed")
    if len(check.problems) > limit_problems:
        more = len(check.problems) - limit_problems
        check.problems = [*check.problems[:limit_problems], f"... and {more} more"]
    return check


async def verify_all(connection: Connection) -> list[ChainCheck]:
    """Every chained log, checked."""
    return [await verify(connection, log) for log in CHAINED.values()]
