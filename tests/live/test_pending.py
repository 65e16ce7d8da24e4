"""The write-behind of accepted bets and decisions: batched, newest value wins, retried, fenced."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from tests.support.waiting import loop_turns

from dealerpoker.server.live.pending import PendingWriter
from dealerpoker.server.live.ports import Pending, StaleLeaseError


class Sink:
    def __init__(self, failures: list[BaseException] | None = None) -> None:
        self.batches: list[list[Pending]] = []
        self.failures = list(failures or [])
        self.gate = asyncio.Event()
        self.gate.set()
        self.writing = asyncio.Event()  # set once a write has begun

    async def write(self, items: Sequence[Pending]) -> None:
        self.writing.set()
        await self.gate.wait()
        if self.failures:
            raise self.failures.pop(0)
        self.batches.append(list(items))


def test_what_arrives_together_is_written_in_one_batch_with_the_newest_values() -> None:
    async def scenario() -> None:
        sink = Sink()
        writer = PendingWriter(sink.write, delay=0.0)
        futures = [writer.put(Pending(1, f"p{i}", "bets", f'{{"ante": {i}}}')) for i in range(100)]
        futures.append(writer.put(Pending(1, "p0", "bets", '{"ante": 999}')))
        await asyncio.gather(*futures)
        assert len(sink.batches) == 1 and len(sink.batches[0]) == 100
        assert Pending(1, "p0", "bets", '{"ante": 999}') in sink.batches[0]

    asyncio.run(scenario())


def test_a_write_in_progress_batches_what_arrives_meanwhile_and_keeps_the_order() -> None:
    async def scenario() -> None:
        sink = Sink()
        writer = PendingWriter(sink.write, delay=0.0)
        sink.gate.clear()
        first = writer.put(Pending(1, "p", "bets", "1"))
        await sink.writing.wait()  # the first write is running (held at the gate)
        second = [writer.put(Pending(1, "p", "bets", "2")), writer.put(Pending(1, "q", "bets", "3"))]
        assert not first.done()
        sink.gate.set()
        await asyncio.gather(first, *second)
        assert [[item.value for item in batch] for batch in sink.batches] == [["1"], ["2", "3"]]

    asyncio.run(scenario())


def test_a_failed_write_is_tried_again_and_newer_values_still_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dealerpoker.server.live.pending.RETRY_DELAY", 0.0)

    async def scenario() -> None:
        sink = Sink(failures=[OSError("database away")])
        writer = PendingWriter(sink.write, delay=0.0)
        first = writer.put(Pending(1, "p", "bets", "old"))
        await sink.writing.wait()
        later = writer.put(Pending(1, "p", "bets", "new"))
        await asyncio.gather(first, later)
        assert [[item.value for item in batch] for batch in sink.batches][-1] == ["new"]
        assert all(item.value != "old" for batch in sink.batches for item in batch)

    asyncio.run(scenario())


def test_a_stale_lease_fails_every_waiter_and_closes_the_writer() -> None:
    async def scenario() -> None:
        sink = Sink(failures=[StaleLeaseError("t", 3, 4)])
        writer = PendingWriter(sink.write, delay=0.0)
        waiting = writer.put(Pending(1, "p", "flop", "bet"))
        with pytest.raises(StaleLeaseError):
            await waiting
        with pytest.raises(StaleLeaseError):
            await writer.put(Pending(1, "q", "flop", "bet"))
        assert sink.batches == []
        writer.reopen()
        await writer.put(Pending(2, "q", "bets", "{}"))
        assert len(sink.batches) == 1

    asyncio.run(scenario())


def test_drain_waits_for_the_write_in_progress_and_the_queued_one() -> None:
    async def scenario() -> None:
        sink = Sink()
        writer = PendingWriter(sink.write, delay=0.0)
        sink.gate.clear()
        first = writer.put(Pending(1, "p", "flop", "a"))
        await sink.writing.wait()  # being written, held at the gate
        second = writer.put(Pending(1, "q", "flop", "b"))
        drained = asyncio.ensure_future(writer.drain())
        await loop_turns()
        assert not drained.done()
        sink.gate.set()
        await drained
        assert first.done() and second.done()
        assert [[item.value for item in batch] for batch in sink.batches] == [["a"], ["b"]]

    asyncio.run(scenario())
