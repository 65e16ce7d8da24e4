"""Wait for something to become true: polling with a deadline, the one way tests wait.

Tests never sleep a fixed time and then assert: they wait on an event (a message, a page's state
through Playwright's own waits) or, where there is no event to wait on, poll a condition until a
deadline and fail saying what did not happen. The deadline is generous (the machine may be
heavily loaded); a passing test waits only as long as the condition takes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["POLL_INTERVAL", "WAIT", "loop_turns", "until", "until_async"]

T = TypeVar("T")
WAIT = 60.0  # seconds before a condition that must come true fails the test
POLL_INTERVAL = 0.02  # seconds between two looks at the condition


def until(condition: Callable[[], T], what: str, *, timeout: float = WAIT,
          interval: float = POLL_INTERVAL) -> T:
    """``condition()``'s first truthy value, polled until ``timeout``; else fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:.0f} s: {what} (last seen: {value!r})")
        time.sleep(interval)  # poll


async def until_async(condition: Callable[[], Awaitable[T] | T], what: str, *, timeout: float = WAIT,
                      interval: float = POLL_INTERVAL) -> T:
    """:func:`until` on an event loop: ``condition`` may be a coroutine function."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if isinstance(value, Awaitable):
            value = await value
        if value:
            return value  # type: ignore[return-value]
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:.0f} s: {what} (last seen: {value!r})")
        await asyncio.sleep(interval)  # poll


async def loop_turns(turns: int = 10) -> None:
    """Let every ready task run, ``turns`` times round the event loop, with no time passing: for a
    check that something has *not* happened, which otherwise could pass only because nothing ran."""
    for _turn in range(turns):
        await asyncio.sleep(0)  # poll: one turn of the loop, not a wait for time
