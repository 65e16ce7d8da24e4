"""SIGTERM drains a process before it stops (``server.draining``): the drain's hooks run first,
then the server's own SIGTERM handler; a second SIGTERM stops at once; a drain that outlasts
its time stops anyway. The live tables' hand-over under SIGTERM, with two real processes, is in
tests/live/test_cluster.py."""

from __future__ import annotations

import asyncio
import os
import signal

from tests.support.waiting import until_async

from dealerpoker.server.draining import Drain, on_sigterm


def test_sigterm_runs_the_drain_before_the_servers_own_handler_and_twice_stops_at_once() -> None:
    stopped: list[str] = []
    previous = signal.signal(signal.SIGTERM, lambda _number, _frame: stopped.append("server stops"))

    async def scenario() -> None:
        release = asyncio.Event()
        drained: list[str] = []

        async def hook() -> None:
            drained.append("hook begins")
            await release.wait()
            drained.append("hook ends")

        drain = Drain(seconds=60, hooks=[hook])
        undo = on_sigterm(drain, asyncio.get_running_loop())
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            await until_async(lambda: drained == ["hook begins"], "the drain the signal scheduled runs")
            assert drain.begun and stopped == []  # the server is not told while it drains
            release.set()
            await until_async(lambda: stopped, "the server's handler runs once the drain ended")
            assert drained == ["hook begins", "hook ends"] and stopped == ["server stops"]
            os.kill(os.getpid(), signal.SIGTERM)  # asked again: straight to the server's handler
            assert stopped == ["server stops", "server stops"]
        finally:
            undo()

    try:
        asyncio.run(scenario())
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_drain_that_outlasts_its_time_stops_anyway() -> None:
    async def never() -> None:
        await asyncio.Event().wait()

    drain = Drain(seconds=0.05, hooks=[never])
    asyncio.run(drain())  # returns: the process then stops (a live round resumes elsewhere)
    assert drain.begun
