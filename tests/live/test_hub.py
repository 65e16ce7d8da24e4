"""The in-process fan-out: what a publisher's ``await`` guarantees to the connections."""

from __future__ import annotations

import asyncio
import json

from tests.support.waiting import loop_turns

from dealerpoker.server.live.hub import FANOUT_BATCH, Connection, LocalHub, serialise, stamped_batches


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
        assert sorted(set(stamps)) == [0.0, 1.0, 2.0]  # each batch as serialised, not all before the first
        assert FANOUT_BATCH in batches and 2 * FANOUT_BATCH in batches  # yielded between batches
        assert _drain(elsewhere) == []

    asyncio.run(scenario())


def test_a_message_players_share_is_serialised_once_and_each_balance_added_to_their_own_text() -> None:
    shared = {"type": "you", "seat": {"bets": {"ante": 100}, "note": 'a "quoted" text'}}
    messages = {"p1": shared, "p2": shared, "p3": shared, "p4": {"type": "you", "seat": None}, "p5": {}}
    balances = {"p1": 9_900, "p3": 0, "p4": 123}
    batches = list(stamped_batches(messages.items(), lambda: 1000.5, balances))
    assert len(batches) == 1
    texts = {player: json.loads(text) for player, text in batches[0].texts().items()}
    assert texts == {"p1": {**shared, "balance": 9_900, "sent_at": 1000.5},
                     "p2": {**shared, "sent_at": 1000.5},
                     "p3": {**shared, "balance": 0, "sent_at": 1000.5},
                     "p4": {"type": "you", "seat": None, "balance": 123, "sent_at": 1000.5},
                     "p5": {"sent_at": 1000.5}}
    untouched = {"type": "you", "seat": {"bets": {"ante": 100}, "note": 'a "quoted" text'}}
    assert shared == untouched
    # As the single serialiser writes them, byte for byte.
    assert batches[0].texts()["p1"] == serialise({**shared, "balance": 9_900}, 1000.5)
    assert batches[0].texts()["p2"] == serialise(shared, 1000.5)
    assert len(batches[0].openings) == 3  # the shared message's, p4's and p5's


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
