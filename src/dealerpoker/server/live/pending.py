"""Bets and decisions accepted before their step is committed, written behind in batches.

A bet placed in the betting window is only debited when the window closes, and a decision is
only debited when its point closes: until then they live in the round in memory. So that a
crash (kill -9) loses none of them, every accepted bet and decision is also written to the
database (``live_pending``), and the player is told "accepted" only once it is written. One
transaction per write serves everyone who acted meanwhile: ``PendingWriter`` gathers what
arrives within ``FLUSH_DELAY`` (and while the previous write runs) into one batch, keeping only
the newest value per player and step, so 2,000 players betting in one window cost a few dozen
small transactions, never one per player. After a restart the table reads them back and
resumes the same window or timer (see ``runner``).

Writes run one after another (a newer value of a key never lands before an older one). A failed
write is tried again after ``RETRY_DELAY`` with everything that arrived meanwhile, until it
succeeds or the table's lease turns out stale (``StaleLeaseError``: every waiter gets it, as
this process no longer runs the table) or the writer is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence

from dealerpoker.server.live.ports import Pending, StaleLeaseError

log = logging.getLogger("dealerpoker.live.pending")

FLUSH_DELAY = 0.05
RETRY_DELAY = 0.5


Write = Callable[[Sequence[Pending]], Awaitable[None]]


class PendingWriter:
    """Write-behind with a bounded delay; ``put`` returns a future done once written."""

    def __init__(self, write: Write, *, delay: float = FLUSH_DELAY) -> None:
        self.write = write
        self.delay = delay
        self._batch: dict[tuple[int, str, str], Pending] = {}
        self._done: asyncio.Future[None] | None = None
        self._writing: asyncio.Future[None] | None = None  # the batch being written now
        self._task: asyncio.Task[None] | None = None
        self._closed: BaseException | None = None

    def put(self, item: Pending) -> asyncio.Future[None]:
        """Queue ``item`` (replacing an unwritten older value of its key); await the future."""
        if self._closed is not None:
            failed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            failed.set_exception(self._closed)
            return failed
        self._batch[item.key] = item
        if self._done is None:
            self._done = asyncio.get_running_loop().create_future()
        done = self._done
        if self._task is None:
            self._task = asyncio.create_task(self._flush(), name="live pending writer")
        return done

    async def _flush(self) -> None:
        try:
            while self._batch:
                await asyncio.sleep(self.delay)
                batch, done = self._batch, self._done
                self._batch, self._done = {}, None
                assert done is not None
                self._writing = done
                try:
                    await self.write(tuple(batch.values()))
                except StaleLeaseError as error:
                    _fail(done, error)
                    self.close(error)
                    return
                except Exception:
                    log.exception("writing %d pending bets/decisions failed; trying again", len(batch))
                    self._batch = {**batch, **self._batch}  # what arrived meanwhile is newer
                    if self._done is not None:
                        _chain(self._done, done)
                    self._done = done
                    await asyncio.sleep(RETRY_DELAY)
                    continue
                if not done.done():
                    done.set_result(None)
        finally:
            self._task = self._writing = None

    def close(self, error: BaseException) -> None:
        """Refuse everything queued or to come with ``error`` (the table stopped here)."""
        self._closed = error
        self._batch = {}
        if self._done is not None:
            _fail(self._done, error)
            self._done = None

    def reopen(self) -> None:
        self._closed = None

    async def drain(self, timeout: float = 5.0) -> None:
        """Wait (at most ``timeout`` s) until everything queued so far is written or failed."""
        waiting = [f for f in (self._writing, self._done) if f is not None and not f.done()]
        if waiting:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*map(asyncio.shield, waiting)), timeout)


def _fail(future: asyncio.Future[None], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)
        future.exception()  # retrieved: nobody may be waiting any more


def _chain(newer: asyncio.Future[None], older: asyncio.Future[None]) -> None:
    """Settle ``newer`` (whose waiters' items joined ``older``'s batch) with ``older``."""

    def copy(source: asyncio.Future[None]) -> None:
        if newer.done():
            return
        if source.exception() is not None:
            _fail(newer, source.exception())  # type: ignore[arg-type]
        else:
            newer.set_result(None)

    older.add_done_callback(copy)
