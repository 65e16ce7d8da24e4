"""Many callers' lookups of one kind, answered together: one database round trip for all the
calls that arrive within a short window, instead of one each.

Why: a live table's sockets each ask, every few seconds, whether their session still stands
(``sessions.Sessions``). At 4,000 players on one process that was about 800 small reads a
second, queued for the connection pool in front of the bets that table had to answer
(``benchmarks/RESULTS.md``, "Issue 29"). Batched, it is a few reads a second, each of a few
hundred rows. The bets of a crowd are checked the same way: their responsible-gaming checks
(``responsible.service``) and their players' balances (``live.sqlstore``).

A call waits at most ``window`` seconds for others to join it (less once ``most`` have); calls
for a key already waiting share its answer, their arguments merged (``merge``). A caller that
is cancelled leaves the batch alone: the others still get their answers. The batch's function
answers each key with a value or with the exception that key's caller gets; if it raises, every
caller of the batch gets that error.

>>> import asyncio
>>> async def squares(arguments):
...     print("one call for", sorted(arguments))
...     return {key: key * key for key in arguments}
>>> async def main():
...     batch = Batcher(squares, window=0.01)
...     return await asyncio.gather(batch(2, None), batch(3, None), batch(2, None))
>>> asyncio.run(main())
one call for [2, 3]
[4, 9, 4]
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
A = TypeVar("A")
V = TypeVar("V")


class _Batch(Generic[K, A, V]):
    __slots__ = ("arguments", "futures", "loop", "timer")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.arguments: dict[K, A] = {}
        self.futures: dict[K, asyncio.Future[V]] = {}
        self.timer: asyncio.TimerHandle | None = None


class Batcher(Generic[K, A, V]):
    """``await batcher(key, argument)``: the value ``run`` gave ``key`` in the batch it joined."""

    def __init__(self, run: Callable[[Mapping[K, A]], Awaitable[Mapping[K, V | BaseException]]], *,
                 window: float = 0.005, most: int = 500,
                 merge: Callable[[A, A], A] = lambda first, _later: first) -> None:
        if not window >= 0 or most < 1:
            raise ValueError(f"a batch waits window >= 0 s for most >= 1 calls, not {window!r} and {most!r}")
        self.run = run
        self.window = window
        self.most = most
        self.merge = merge
        self._open: _Batch[K, A, V] | None = None
        self._running: set[asyncio.Task[None]] = set()  # kept: the loop holds tasks only weakly

    async def __call__(self, key: K, argument: A) -> V:
        loop = asyncio.get_running_loop()
        batch = self._open
        if batch is None or batch.loop is not loop:
            batch = self._open = _Batch(loop)
            batch.timer = loop.call_later(self.window, self._send, batch)
        future = batch.futures.get(key)
        if future is None:
            future = batch.futures[key] = loop.create_future()
            # An answer nobody waits for any more (its caller was cancelled) is not an error.
            future.add_done_callback(_seen)
            batch.arguments[key] = argument
        else:
            batch.arguments[key] = self.merge(batch.arguments[key], argument)
        if len(batch.futures) >= self.most:
            self._send(batch)
        return await asyncio.shield(future)

    def _send(self, batch: _Batch[K, A, V]) -> None:
        if self._open is batch:
            self._open = None
        if batch.timer is not None:
            batch.timer.cancel()
            batch.timer = None
        if batch.futures:
            task = batch.loop.create_task(self._answer(batch))
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _answer(self, batch: _Batch[K, A, V]) -> None:
        try:
            answers = await self.run(batch.arguments)
        except Exception as error:  # every caller of the batch learns why
            for future in batch.futures.values():
                if not future.done():
                    future.set_exception(error)
            return
        except BaseException:  # cancelled (the process stops): so are the batch's callers
            for future in batch.futures.values():
                future.cancel()
            raise
        for key, future in batch.futures.items():
            if future.done():
                continue
            if key not in answers:
                future.set_exception(LookupError(f"the batch gave no answer for {key!r}"))
            elif isinstance(answer := answers[key], BaseException):
                future.set_exception(answer)
            else:
                future.set_result(answer)


def _seen(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
