"""The in-process fan-out: what a publisher's ``await`` guarantees to the connections."""

from __future__ import annotations

import asyncio
import json

from tests.support.waiting import loop_turns

from dealerpoker.server.live.hub import FANOUT_BATCH, Connection, LocalHub


def _drain(connection: Connection) -> list[str | None]:
    texts = []
    while not connection.queue.empty():
        texts.append(connection.queue.get_nowait())
    return texts


def test_senders_have_taken_a_table_message_when_the_publisher_goes_on() -> None:
    """A table's next step may block the loop (a commit of thousands of entries): a message
    published before it must already be in the senders' hands, not waiting behind it."""

    async def scenario() -> None:
        hub = LocalHub(lambda: 1000.0)
        connections = [Connection(f"p{i}", "t") for i in range(50)]
        received: list[str] = []

        async def sender(connection: Connection) -> None:
            while True:
                text = await connection.queue.get()
                assert text is not None
                received.append(text)

        for connection in connections:
            hub.join(connection)
        senders = [asyncio.create_task(sender(c)) for c in connections]
        await loop_turns(1)  # every sender waits on its queue
        await hub.to_table("t", {"type": "table", "event": "no_more_bets"})
        assert len(received) == len(connections)  # no further await needed
        for task in senders:
            task.cancel()
        assert json.loads(received[0]) == {"type": "table", "event": "no_more_bets", "sent_at": 1000.0}

    asyncio.run(scenario())


def test_own_messages_go_in_batches_each_stamped_when_serialised() -> None:
    async def scenario() -> None:
        ticks = iter(range(10**6))
        hub = LocalHub(lambda: float(next(ticks)))
        players = [f"p{i}" for i in range(2 * FANOUT_BATCH + 7)]
        connections = {p: Connection(p, "t") for p in players}
        for connection in connections.values():
            hub.join(connection)
        elsewhere = Connection("p0", "other")
        hub.join(elsewhere)
        batches: list[int] = []

        async def count_batches() -> None:  # runs whenever the publisher yields
            while True:
                batches.append(sum(not c.queue.empty() for c in connections.values()))
                await loop_turns(1)

        counter = asyncio.create_task(count_batches())
        await loop_turns(1)
        messages = {p: {"type": "you", "player": p} for p in players}
        messages["nobody"] = {"type": "you", "player": "nobody"}  # not connected: skipped
        await hub.to_players("t", messages)
        counter.cancel()
        stamps = []
        for player, connection in connections.items():
            (text,) = _drain(connection)
            assert text is not None
            message = json.loads(text)
            assert message["player"] == player
            stamps.append(message["sent_at"])
        assert len(set(stamps)) == len(players)  # stamped one by one, not all before the first send
        assert FANOUT_BATCH in batches and 2 * FANOUT_BATCH in batches  # yielded between batches
        assert _drain(elsewhere) == []

    asyncio.run(scenario())


def test_a_newcomer_is_sent_the_newest_table_event_as_the_state_not_replayed() -> None:
    """On a process that does not own the table, a player who connects in the pause gets the table
    as the last event left it, labelled ``state`` (as the owner labels it) and stamped now: a
    replayed ``settled`` would show the round settled a second time."""
    hub = LocalHub(lambda: 1000.0)
    assert hub.state_text("t", 1005.0) is None  # nothing delivered here yet: nothing to send
    asyncio.run(hub.to_table("t", {"type": "table", "event": "settled", "round": "t/3", "phase": "pause"}))
    state = json.loads(hub.state_text("t", 1005.0) or "")
    assert state == {"type": "table", "event": "state", "round": "t/3", "phase": "pause", "sent_at": 1005.0}
    assert json.loads(hub.last_table_text["t"])["event"] == "settled"  # what was delivered stays as it was
