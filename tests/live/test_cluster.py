"""Several `dealerpoker serve` processes on one PostgreSQL database and one Redis.

Needs DEALERPOKER_TEST_POSTGRES_URL and DEALERPOKER_TEST_REDIS_URL (own database and key prefix
per run). Players on both processes see the same round; the process owning the table's clock is
killed with SIGKILL in the middle of a round, the other takes the clock over and finishes the
round, once.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from tests.live.cluster_support import CLUSTER_MARKS, REDIS_URL, cleanup, new_prefix, two_processes
from tests.live.conftest import FAST_TABLES, LivePlayer, bet_together, is_seat, is_table
from tests.support.databases import audit as audit_database
from tests.support.waiting import until_async
from websockets.exceptions import ConnectionClosed

pytestmark = CLUSTER_MARKS


async def nothing(*_args: Any) -> None:
    """A cluster callback with nothing to do: these tests look at the leases and messages alone."""
    return None


def test_two_processes_share_a_table_and_the_survivor_finishes_the_round_once(tmp_path: Path) -> None:
    # The pre-flop timer keeps its deadline across the takeover (a few seconds): long enough to
    # decide after it; the later points close early once the watcher (alone at them) decided.
    with two_processes(tmp_path, FAST_TABLES.format(betting=8, decision=15, pause=1)) as cluster:
        first, second, players = cluster.first, cluster.second, cluster.clients
        on_first, on_second = LivePlayer(first.base, "texas-fast"), LivePlayer(second.base, "texas-fast")
        players += [on_first, on_second]
        process = {on_first.next()["process"]: first, on_second.next()["process"]: second}
        start = bet_together(players, {"ante": 100})
        seen = [p.until(lambda m: m["type"] == "table" and m.get("point") == "preflop") for p in players]
        assert seen[0]["round"] == seen[1]["round"] and seen[0]["player_cards"] == seen[1]["player_cards"]
        round_id = seen[0]["round"]

        owner_id = cluster.lease_owner("texas-fast")
        owner = process[owner_id]
        survivor = second if owner is first else first
        watcher = on_second if owner is first else on_first
        killed_at = len(watcher.received)
        owner.kill()  # mid-round: the pre-flop decision timer is running
        # The takeover's resumption (on a loaded machine a lease may also have changed hands
        # earlier, in the betting window: that resumption is not this one).
        resumed = watcher.until(is_table("resumed"), since=killed_at)
        assert resumed["round"] == round_id and resumed["player_cards"] == seen[0]["player_cards"]
        assert cluster.lease_owner("texas-fast") not in ("", owner_id)
        # The other player says nothing: the survivor's pre-flop timer folds for them. The watcher
        # decides every point (a point it alone is at closes at once).
        for point, action in (("preflop", "bet"), ("flop", "check"), ("turn", "check")):
            if point != "preflop":
                watcher.until(lambda m, p=point: is_table("decision")(m) and m["point"] == p)
            watcher.send({"type": "decide", "action": action})
            done = (point, action)  # accepted, or (a point it alone is at) already applied
            answer = watcher.until(lambda m, d=done: m["type"] == "error" or is_seat(
                lambda s: s["pending"] == d[1] or d in [(t["point"], t["action"]) for t in s["steps"]])(m))
            assert answer["type"] == "you", answer
        mine = watcher.until(lambda m: m["type"] == "you" and m.get("phase") == "pause"
                             and m.get("round") == round_id)
        other = next(p for p in players if p is not watcher)
        other.close()
        back = LivePlayer(survivor.base, "texas-fast", same_as=other)  # reconnects to the survivor
        players.append(back)
        assert back.next()["type"] == "welcome"
        state = back.until(lambda m: m["type"] == "you")
        assert state["round"] != round_id or state["seat"]["settlement"]["outcome"] == "fold"
        assert [(s["point"], s["action"], s["source"], s["stake"]) for s in mine["seat"]["steps"]] == [
            ("preflop", "bet", "player", 200), ("flop", "check", "player", 0), ("turn", "check", "player", 0)]
        # Whatever the owner publishes comes in order: once the next round opened, a second
        # settlement of this one would have been seen.
        watcher.until(lambda m: is_table("betting_open")(m) and m["round"] != round_id)
        settled = [m for m in watcher.received if m.get("event") == "settled" and m.get("round") == round_id]
        assert len(settled) == 1
        assert watcher.balance() == start[watcher.id] + mine["seat"]["settlement"]["net"]
        assert back.balance() == start[other.id] - 100  # folded by the timer on the survivor
        audit = audit_database(cluster.database)
        assert audit.ok, audit


def test_a_newcomer_on_the_other_process_sees_the_table_before_any_event_reached_it(tmp_path: Path) -> None:
    """A player's first connection goes to the process that does not own the table while the table
    is idle: no table event has reached that process yet (a restarted worker's first player is in
    the same place). The welcome still holds the table's state, asked of its owner, before the
    player's own part: a page, or a player's client, knows the phase and the decision point at once."""
    with two_processes(tmp_path, FAST_TABLES.format(betting=3, decision=30, pause=1)) as cluster:
        player = LivePlayer(cluster.second.base, "casino-fast")
        cluster.clients.append(player)
        welcome, state, you = (player.next() for _ in range(3))
        assert welcome["type"] == "welcome" and welcome["process"] != cluster.lease_owner("casino-fast")
        seen = (state["type"], state.get("event"), state.get("table"))
        assert seen == ("table", "state", "casino-fast"), state
        assert you["type"] == "you", you


def test_each_lease_taken_gets_a_larger_fencing_token_and_a_stale_owner_lifts_the_counter() -> None:
    from dealerpoker.server.live.cluster import RedisCluster
    from dealerpoker.server.live.hub import LocalHub

    prefix = new_prefix()

    async def scenario() -> None:
        first = RedisCluster(str(REDIS_URL), LocalHub(time.time), prefix=prefix)
        second = RedisCluster(str(REDIS_URL), LocalHub(time.time), prefix=prefix)
        try:
            token = await first.take_lease("t")
            assert token >= 1
            assert await second.take_lease("t") == 0  # held by the first
            await first.redis.delete(f"{prefix}lease:t")  # the first's lease expires
            newer = await second.take_lease("t")
            assert newer > token
            # Redis lost its counter (flushed): the database still holds epoch 50. The refused
            # process lifts the counter and gives the lease up, so the next token is newer.
            await second.redis.delete(f"{prefix}lease-epoch:t")
            second._owned.add("t")
            await second.stale("t", 50)
            assert not second.owns("t") and await second.redis.get(f"{prefix}lease:t") is None
            assert await first.take_lease("t") == 51
        finally:
            await first.stop()
            await second.stop()

    try:
        asyncio.run(scenario())
    finally:
        cleanup(prefix)


def test_the_publisher_delivers_to_its_own_players_at_once_and_others_through_redis_once() -> None:
    from dealerpoker.server.live.cluster import RedisCluster
    from dealerpoker.server.live.hub import Connection, LocalHub

    prefix = new_prefix()

    async def scenario() -> None:
        here = RedisCluster(str(REDIS_URL), LocalHub(time.time), prefix=prefix)
        there = RedisCluster(str(REDIS_URL), LocalHub(time.time), prefix=prefix)
        mine, theirs = Connection("a", "t"), Connection("b", "t")
        here.hub.join(mine)
        there.hub.join(theirs)
        try:
            for cluster in (here, there):
                await cluster.start(("t",), nothing, nothing, nothing)
            await here.to_table("t", {"type": "table", "event": "decision"})
            assert mine.queue.qsize() == 1  # before any round trip through Redis
            await here.to_players("t", {"a": {"type": "you", "n": 1}, "b": {"type": "you", "n": 2}})
            assert mine.queue.qsize() == 2
            await until_async(lambda: theirs.queue.qsize() == 2, "both messages reached the other process")
            # The other process answers through Redis: its marker reaches the publisher after any
            # copy of the publisher's own two messages (one channel keeps order), which it skips.
            await there.to_table("t", {"type": "table", "event": "marker"})
            await until_async(lambda: mine.queue.qsize() >= 3, "the other process's marker came back")
            got_here = [json.loads(mine.queue.get_nowait() or "") for _ in range(mine.queue.qsize())]
            got_there = [json.loads(theirs.queue.get_nowait() or "") for _ in range(theirs.queue.qsize())]
            assert [m.get("event") or m.get("n") for m in got_here] == ["decision", 1, "marker"]
            assert [m.get("event") or m.get("n") for m in got_there] == ["decision", 2, "marker"]
        finally:
            await here.stop()
            await there.stop()

    try:
        asyncio.run(scenario())
    finally:
        cleanup(prefix)


def test_players_own_messages_go_to_the_other_processes_in_stamped_batches() -> None:
    """A round's seat messages for every player: published in batches of FANOUT_BATCH as they are
    serialised (the first batch is on its way while the rest are serialised), each player's
    message delivered once, wherever the player is connected; a message players share (they
    played alike) reaches each of them with their own balance."""
    from dealerpoker.server.live.cluster import RedisCluster, read_player_lines
    from dealerpoker.server.live.hub import FANOUT_BATCH, Connection, LocalHub

    prefix = new_prefix()
    players = [f"p{number}" for number in range(2 * FANOUT_BATCH + 7)]

    async def scenario() -> list[int]:
        here = RedisCluster(str(REDIS_URL), LocalHub(time.time), prefix=prefix)
        there = RedisCluster(str(REDIS_URL), LocalHub(time.time), prefix=prefix)
        connections = {player: Connection(player, "t") for player in players}
        for player, connection in connections.items():
            (here if player == "p0" else there).hub.join(connection)
        sizes: list[int] = []
        publish = here.redis.publish

        async def counted(channel: str, data: str) -> Any:
            if channel.startswith(f"{prefix}players:"):
                sizes.append(len(read_player_lines(data.partition("|")[2])))
            return await publish(channel, data)

        here.redis.publish = counted
        try:
            for cluster in (here, there):
                await cluster.start(("t",), nothing, nothing, nothing)
            shared = {"type": "you", "seat": {"bets": {"ante": 100}}}
            messages = {player: shared if number % 3 else {"type": "you", "player": player}
                        for number, player in enumerate(players)}
            balances = {player: 10 * number for number, player in enumerate(players) if number % 2}
            await here.to_players("t", messages, balances)
            await until_async(lambda: all(c.queue.qsize() == 1 for c in connections.values()),
                              "every player's own message delivered once")
            for player, connection in connections.items():
                received = json.loads(connection.queue.get_nowait() or "")
                assert received.pop("balance", None) == balances.get(player)
                assert received.pop("sent_at") > 0
                assert received == messages[player]
            return sizes
        finally:
            await here.stop()
            await there.stop()

    try:
        assert asyncio.run(scenario()) == [FANOUT_BATCH, FANOUT_BATCH, 7]
    finally:
        cleanup(prefix)


def test_a_burst_of_forwarded_intents_is_answered_every_one_in_a_few_messages() -> None:
    """Thousands of players at one table bet within the same second: a process that does not own
    the table forwards each bet through Redis and the owner answers each. Far more at once than
    the process has Redis connections: none refused, none left unanswered. The intents go to the
    owner, and its replies come back, in a few batches, not a message each; what the forwarding
    process checked reaches the owner with its intent."""
    from dealerpoker.server.live.cluster import MESSAGE_CONNECTIONS, RedisCluster
    from dealerpoker.server.live.hub import LocalHub

    prefix, burst = new_prefix(), 20 * MESSAGE_CONNECTIONS

    async def handle(table_id: str, player: str, message: dict[str, Any], checked: Any) -> dict[str, Any]:
        return {"type": "you", "table": table_id, "player": player, "n": message["n"], "checked": checked}

    def counting(cluster: Any, kind: str) -> list[int]:
        """How many messages ``cluster`` publishes on ``kind`` channels, and intents or replies in each."""
        sizes: list[int] = []
        publish = cluster.redis.publish

        async def counted(channel: str, data: str) -> Any:
            if channel.startswith(f"{prefix}{kind}:"):
                sizes.append(len(json.loads(data)["intents" if kind == "intent" else "replies"]))
            return await publish(channel, data)

        cluster.redis.publish = counted
        return sizes

    async def scenario() -> None:
        owner = RedisCluster(str(REDIS_URL), LocalHub(time.time), prefix=prefix)
        asker = RedisCluster(str(REDIS_URL), LocalHub(time.time), prefix=prefix)
        try:
            await owner.start(("t",), nothing, nothing, handle)
            await until_async(lambda: owner.owns("t"), "the first process owns the table")
            await asker.start(("t",), nothing, nothing, handle)
            intents, replies_sent = counting(asker, "intent"), counting(owner, "reply")
            checked = [{"bets": {"ante": n}, "free": None} if n % 2 else None for n in range(burst)]
            replies = await asyncio.gather(*(asker.forward("t", f"p{n}", {"type": "bet", "n": n}, checked[n])
                                             for n in range(burst)))
            assert not asker.owns("t")
            assert replies == [{"type": "you", "table": "t", "player": f"p{n}", "n": n, "checked": checked[n]}
                               for n in range(burst)]
            assert sum(intents) == burst and len(intents) <= burst // 100, intents
            assert sum(replies_sent) == burst and len(replies_sent) <= burst // 10, replies_sent
        finally:
            await asker.stop()
            await owner.stop()

    try:
        asyncio.run(scenario())
    finally:
        cleanup(prefix)


def test_a_busy_event_loop_keeps_its_table_and_a_wedged_one_loses_it() -> None:
    """The owner's event loop busy for longer than a lease lasts (a broadcast to thousands of
    sockets on a loaded machine) keeps the table: no other process takes it mid-round. A loop that
    shows no life for the stall limit is wedged: its lease expires and another process takes it."""
    from dealerpoker.server.live.cluster import LEASE_TTL, RedisCluster
    from dealerpoker.server.live.hub import LocalHub

    prefix = new_prefix()

    def busy(seconds: float) -> None:
        """CPU work on the event loop: nothing else on it runs meanwhile (the stall under test)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pass

    async def scenario() -> None:
        owner = RedisCluster(str(REDIS_URL), LocalHub(time.time), prefix=prefix, stall_limit=2 * LEASE_TTL)
        other = RedisCluster(str(REDIS_URL), LocalHub(time.time), prefix=prefix)
        try:
            await owner.start(("t",), nothing, nothing, nothing)
            await until_async(lambda: owner.owns("t"), "the first process owns the table")
            busy(1.5 * LEASE_TTL)  # past the lease, within the stall limit
            assert await other.take_lease("t") == 0, "the busy owner's table was taken"
            busy(2 * LEASE_TTL + LEASE_TTL + 1)  # past the stall limit, then past the lease
            assert await other.take_lease("t") > 0, "the wedged owner kept the table"
        finally:
            await other.stop()
            await owner.stop()

    try:
        asyncio.run(scenario())
    finally:
        cleanup(prefix)


def test_sigterm_finishes_the_round_then_hands_the_table_to_the_other_process(tmp_path: Path) -> None:
    """SIGTERM drains the process (``server.draining``): the round in play finishes there, then the
    table's clock goes to the other process, which opens the next round; the stopping process's
    players are told to reconnect (close 1012, "service restart") and find their seat at the other
    one. Every decision is the player's own, the round is settled once, the books agree."""
    tables = FAST_TABLES.format(betting=8, decision=20, pause=2)
    with two_processes(tmp_path, tables, label="drain") as cluster:
        on_first = LivePlayer(cluster.first.base, "texas-fast")
        on_second = LivePlayer(cluster.second.base, "texas-fast")
        cluster.clients += [on_first, on_second]
        at = {on_first.next()["process"]: (cluster.first, on_first),
              on_second.next()["process"]: (cluster.second, on_second)}
        players = [on_first, on_second]
        start = bet_together(players, {"ante": 100})
        round_id = on_first.until(lambda m: m["type"] == "table" and m.get("point") == "preflop")["round"]
        owner, on_owner = at[cluster.lease_owner("texas-fast")]
        survivor, on_survivor = next(pair for pair in at.values() if pair[0] is not owner)

        owner.process.send_signal(signal.SIGTERM)  # mid-round: the pre-flop decision is open

        # The round goes on at the stopping process: both players decide every point themselves.
        for point, action in (("preflop", "bet"), ("flop", "check"), ("turn", "check")):
            for player in players:
                if point != "preflop":
                    player.until(lambda m, p=point: is_table("decision")(m) and m["point"] == p)
                player.send({"type": "decide", "action": action})
        seats = {p.id: p.until(lambda m: m["type"] == "you" and m.get("phase") == "pause"
                               and m.get("round") == round_id)["seat"] for p in players}
        for seat in seats.values():
            assert [(s["point"], s["action"], s["source"]) for s in seat["steps"]] == [
                ("preflop", "bet", "player"), ("flop", "check", "player"), ("turn", "check", "player")]

        # The other process takes the table at the pause and opens the next round.
        opened = on_survivor.until(lambda m: is_table("betting_open")(m) and m["round"] != round_id)
        assert cluster.lease_owner("texas-fast") not in ("", next(k for k, v in at.items() if v[0] is owner))
        # It was not cut mid-round: whoever resumed this round resumed it settled, at its pause.
        assert {m["phase"] for m in on_survivor.received
                if m.get("event") == "resumed" and m.get("round") == round_id} <= {"pause"}
        # uvicorn raises the signal again once its graceful shutdown is done: the exit status says so.
        assert owner.process.wait(timeout=60) == -signal.SIGTERM
        # The stopping process told its players to reconnect (1012: service restart) ...
        with pytest.raises(ConnectionClosed) as closed:
            on_owner.until(lambda m: False, timeout=60)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        # ... and the player finds the table at the other process, in the next round.
        back = LivePlayer(survivor.base, "texas-fast", same_as=on_owner)
        cluster.clients.append(back)
        assert back.next()["type"] == "welcome"
        back.until(lambda m: m["type"] == "table" and m.get("round") == opened["round"])

        settled = [m for m in on_survivor.received
                   if m.get("event") == "settled" and m.get("round") == round_id]
        assert len(settled) == 1
        for player in (on_survivor, back):
            assert player.balance() == start[player.id] + seats[player.id]["settlement"]["net"]
        audit = audit_database(cluster.database)
        assert audit.ok, audit
