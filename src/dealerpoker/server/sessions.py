"""Players' sessions: every bearer token expires when idle and after an absolute lifetime, and can
be ended (``POST /api/session/logout``) or revoked with all its player's others
(``POST /api/session/revoke-all``, ``dealerpoker admin revoke-sessions PLAYER``).

A token comes from ``POST /api/session`` (a demo player: ``players.token_hash``) or an operator's
launch (``operator_sessions``). The ``sessions`` table (migration 0013) keeps each token's life:
when it began (the row it came from), when it was last used, and when and why it ended. A token
gets its row the first time it authenticates, its idle time counted from when it was issued (a
token never used expires by idleness too); revoking all of a player's sessions writes the rows of
tokens never used yet too, so none of them can start afterwards.

Authentication is cached per process. A token's row is read the first time the process sees it;
after that its expiry is computed from memory, and the row is read again only when memory says
the session is over (another process may have seen a use since). Endings made elsewhere (a
logout or a revocation by another process or by ``dealerpoker admin``) are found by one read of
the sessions ended lately, every ``REFRESH_SECONDS`` per process (``ENDINGS_SKEW`` before the
last such read: another server's clock may lag), which makes this process forget those tokens.
A used token's last use is written at most every ``USE_WRITE_SECONDS``, so a busy token costs
one small write a minute, not one per request, and idle time (limits of minutes) is measured to
within that. The reads and writes due together go in one statement each (``batching.Batcher``): a
request's with those of the next few milliseconds, an open table socket's check with those of
the next ``RECHECK_WINDOW``. Before the endings were read this way, every open socket read its
token's row every ``REFRESH_SECONDS``: 2,000 rows a second at 10,000 players, 8-11% of each
``serve`` process's CPU (py-spy, 2026-12-07).

>>> from datetime import UTC, datetime, timedelta
>>> policy = Policy(idle_seconds=1800, max_seconds=43_200)
>>> start = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
>>> policy.expired(start, start + timedelta(minutes=20), start + timedelta(minutes=45)) is None
True
>>> policy.expired(start, start, start + timedelta(minutes=31))
'session expired: no request for more than 30 minutes (the idle limit)'
>>> policy.expired(start, start + timedelta(hours=12), start + timedelta(hours=12, seconds=1))
'session expired: older than 12 hours (the session limit)'
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from cachetools import LRUCache
from sqlalchemy import bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite

from dealerpoker.server.accounts import AuthenticationError, token_hash
from dealerpoker.server.batching import Batcher
from dealerpoker.server.clock import Clock, timestamp
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.schema import operator_sessions, players, sessions

REFRESH_SECONDS = 5.0
"""How often a process reads the sessions ended lately (a logout elsewhere counts here within this)."""
USE_WRITE_SECONDS = 60.0
"""At most how often a process writes a used token's last use. Every 5 s, at 10,000 players each
betting and deciding in every round, these writes were 9-14% of each ``serve`` worker's samples
(py-spy, 2026-12-07)."""
ENDINGS_SKEW = 60.0
"""Seconds before its last read of the endings that a process reads them from again: how far
behind another server's clock (which stamped the ending) may be."""
_CACHE_SIZE = 100_000
RECHECK_WINDOW = 0.25
"""How long an open socket's read of its session (memory says it is over) waits for others."""
_WRITE_LAST_SEEN = update(sessions).where(sessions.c.token_hash == bindparam("key"),
                                          sessions.c.last_seen_at < bindparam("seen")) \
    .values(last_seen_at=bindparam("seen"))


@dataclass(frozen=True, slots=True)
class Policy:
    """How long sessions last (``Settings.session_idle_seconds``, ``session_max_seconds``)."""

    idle_seconds: float
    max_seconds: float

    def expired(self, created: datetime, last_seen: datetime, now: datetime) -> str | None:
        """Why a session begun at ``created`` and last used at ``last_seen`` is over at ``now``."""
        if (now - created).total_seconds() > self.max_seconds:
            return f"session expired: older than {_duration(self.max_seconds)} (the session limit)"
        if (now - last_seen).total_seconds() > self.idle_seconds:
            idle = _duration(self.idle_seconds)
            return f"session expired: no request for more than {idle} (the idle limit)"
        return None


def _duration(seconds: float) -> str:
    for unit, size in (("hours", 3600), ("minutes", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit[:-1] if count == 1 else unit}"
    return f"{seconds:g} seconds"


@dataclass(slots=True)
class _Known:
    player_id: str
    created: datetime
    last_seen: datetime  # the last use this process knows of
    written: datetime  # the last use the row holds, as far as this process knows


class Sessions:
    """Authenticates bearer tokens and ends sessions (one per server process)."""

    def __init__(self, database: Database, clock: Clock, policy: Policy, *, operators: bool) -> None:
        self.database = database
        self.clock = clock
        self.policy = policy
        self.operators = operators
        self._known: LRUCache[str, _Known] = LRUCache(_CACHE_SIZE)
        # Tokens read together: a request's within milliseconds; an open socket's check
        # (``use=False``, nobody waiting on it) within ``RECHECK_WINDOW``.
        self._refresh = Batcher(self._refresh_many, merge=operator.or_)
        self._recheck = Batcher(self._refresh_many, window=RECHECK_WINDOW, most=2_000)
        self._uses = Batcher(self._write_uses)
        self._endings_read: datetime | None = None
        self._endings_reading: asyncio.Future[None] | None = None

    async def authenticate(self, token: str, *, use: bool = True) -> str:
        """The player of a live session's token; else ``AuthenticationError`` saying whether the
        token is unknown, expired (idle or too old) or ended (logged out, revoked). ``use=False``:
        only whether it is still live (an open WebSocket's check), not a use (idle time goes on)."""
        key, now = token_hash(token), self.clock()
        await self._forget_ended(now)
        known = self._known.get(key)
        if known is None or self.policy.expired(known.created, known.last_seen, now) is not None:
            # Not read here yet, or over as far as this process knows: the row says.
            return (await (self._refresh if use else self._recheck)(key, use)).player_id
        if use:
            known.last_seen = now
            if (now - known.written).total_seconds() >= USE_WRITE_SECONDS:
                await self._uses(key, now)
        return known.player_id

    async def _forget_ended(self, now: datetime) -> None:
        """Every ``REFRESH_SECONDS``, the tokens whose sessions ended lately (anywhere) forgotten
        here, so that their next use reads that they ended. Before the first read nothing is
        known here that could have ended."""
        since = self._endings_read
        if since is not None and (now - since).total_seconds() < REFRESH_SECONDS:
            return
        if since is None or not self._known:
            self._endings_read = now
            return
        # One read for every caller that finds the endings stale, all resumed together when it
        # ends: a lock handed on from one to the next took a turn of the event loop each, and at
        # 200 callers the uses they write next came in two batches on a loaded machine.
        if self._endings_reading is None:
            self._endings_reading = asyncio.ensure_future(self._read_endings(since, now))
            self._endings_reading.add_done_callback(self._endings_done)
        await asyncio.shield(self._endings_reading)

    async def _read_endings(self, since: datetime, now: datetime) -> None:
        async with self.database.reading() as connection:
            ended = await connection.execute(select(sessions.c.token_hash).where(
                sessions.c.ended_at >= timestamp(since - timedelta(seconds=ENDINGS_SKEW))))
            for (key,) in ended.all():
                self._known.pop(key, None)
        self._endings_read = now

    def _endings_done(self, reading: asyncio.Future[None]) -> None:
        """The read is over: the next stale caller starts another (after a failure too, which
        its callers were told of; nobody left to tell when all were cancelled)."""
        self._endings_reading = None
        if not reading.cancelled():
            reading.exception()

    async def _write_uses(self, uses: Mapping[str, datetime]) -> dict[str, None]:
        """The tokens' last uses written in one statement (never moving one back)."""
        async with self.database.transaction() as connection:
            await _write_last_uses(connection, uses)
        for key, seen in uses.items():
            known = self._known.get(key)
            if known is not None and known.written < seen:
                known.written = seen
        return dict.fromkeys(uses)

    async def _refresh_many(self, uses: Mapping[str, bool]) -> dict[str, _Known | AuthenticationError]:
        """The tokens' rows read in one statement (``uses``: token hash -> whether this is a use of
        it), each checked; a used one's last use written, all in one unit of work."""
        now = self.clock()
        found: dict[str, _Known | AuthenticationError] = {}
        unit = self.database.transaction() if any(uses.values()) else self.database.reading()
        async with unit as connection:
            read = select(sessions).where(sessions.c.token_hash.in_(list(uses)))
            rows = {row.token_hash: row for row in (await connection.execute(read)).all()}
            used: dict[str, datetime] = {}
            for key, use in uses.items():
                try:
                    known = await self._read(connection, key, rows.get(key), self._known.get(key))
                    self._check(key, known, now)
                except AuthenticationError as error:
                    found[key] = error
                    continue
                if use:
                    known.last_seen = known.written = now
                    used[key] = now
                self._known[key] = found[key] = known
            if used:
                await _write_last_uses(connection, used)
        return found

    def _check(self, key: str, known: _Known, now: datetime) -> None:
        why = self.policy.expired(known.created, known.last_seen, now)
        if why is not None:
            self._known.pop(key, None)
            raise AuthenticationError(f"{why}: create a new session with POST /api/session", reason="expired")

    async def _read(self, connection: Connection, key: str, row: Any, cached: _Known | None) -> _Known:
        """What the token's row (None: it has none yet) says of its session."""
        if row is None:
            begun = await self._origin(connection, key)
            if begun is None:
                raise AuthenticationError("unknown token: create a session with POST /api/session",
                                          reason="unknown")
            player_id, created = begun
            # Its idle clock runs from its issue: a token never used goes idle like any other.
            await connection.execute(_insert(connection).values(
                token_hash=key, player_id=player_id, created_at=created, last_seen_at=created)
                .on_conflict_do_nothing(index_elements=["token_hash"]))
            return _Known(player_id, _moment(created), _moment(created), _moment(created))
        if row.ended_at is not None:
            raise AuthenticationError(f"session ended ({row.end_reason}) at {row.ended_at}: create a new "
                                      "session with POST /api/session", reason="ended")
        written = last_seen = _moment(row.last_seen_at)
        if cached is not None and cached.last_seen > last_seen:
            last_seen = cached.last_seen
        return _Known(str(row.player_id), _moment(row.created_at), last_seen, written)

    async def _origin(self, connection: Connection, key: str) -> tuple[str, str] | None:
        """The player and beginning of a token never seen here: a demo player's or an operator's."""
        row = (await connection.execute(select(players.c.id, players.c.created_at)
                                        .where(players.c.token_hash == key))).first()
        if row is None and self.operators:
            row = (await connection.execute(
                select(operator_sessions.c.player_id, operator_sessions.c.created_at)
                .where(operator_sessions.c.token_hash == key))).first()
        return None if row is None else (str(row[0]), str(row[1]))

    async def end(self, token: str) -> int:
        """Log out: the session of ``token`` ends now (it must be a live one)."""
        await self.authenticate(token)
        key = token_hash(token)
        async with self.database.transaction() as connection:
            result = await connection.execute(
                update(sessions).where(sessions.c.token_hash == key, sessions.c.ended_at.is_(None))
                .values(ended_at=timestamp(self.clock()), end_reason="logout"))
        self._known.pop(key, None)
        return int(result.rowcount or 0)

    async def end_all(self, player_id: str, *, reason: str = "revoked") -> int:
        """Revoke every session of ``player_id`` (those never used yet too); the number ended."""
        count = await end_all_sessions(self.database, player_id, at=timestamp(self.clock()), reason=reason)
        for key in [key for key, known in self._known.items() if known.player_id == player_id]:
            del self._known[key]
        return count


async def end_all_sessions(database: Database, player_id: str, *, at: str, reason: str = "revoked") -> int:
    """End every session of a player: write the rows of its tokens never used, then end them all
    (also used by ``dealerpoker admin revoke-sessions``)."""
    async with database.transaction() as connection:
        demo = select(players.c.token_hash, players.c.created_at).where(players.c.id == player_id)
        launched = select(operator_sessions.c.token_hash, operator_sessions.c.created_at).where(
            operator_sessions.c.player_id == player_id)
        tokens = [*(await connection.execute(demo)).all(), *(await connection.execute(launched)).all()]
        for key, created in tokens:
            await connection.execute(_insert(connection).values(
                token_hash=key, player_id=player_id, created_at=created, last_seen_at=created)
                .on_conflict_do_nothing(index_elements=["token_hash"]))
        result = await connection.execute(
            update(sessions).where(sessions.c.player_id == player_id, sessions.c.ended_at.is_(None))
            .values(ended_at=at, end_reason=reason))
        return int(result.rowcount or 0)


async def _write_last_uses(connection: Connection, uses: Mapping[str, datetime]) -> None:
    """The tokens' last uses in one statement, in the tokens' order (two batches writing the same
    rows wait, never deadlock), never moving one back."""
    await connection.run(_WRITE_LAST_SEEN, [{"key": key, "seen": timestamp(seen)}
                                            for key, seen in sorted(uses.items())])


def _insert(connection: Connection) -> Any:
    dialect: Any = postgresql if connection.dialect.name == "postgresql" else sqlite
    return dialect.insert(sessions)


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text)
