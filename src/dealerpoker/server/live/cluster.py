"""One process or several: who owns each table's clock, fan-out, player counts, forwarding.

``LocalCluster`` (the default): this process owns every table; events go straight to its hub.

``RedisCluster`` (``--redis URL``, with PostgreSQL as the shared database): any number of
``dealerpoker serve`` processes share the tables.

- **Clock owner lease.** Each table's clock runs in exactly one process: the one holding the key
  ``{prefix}lease:{table}`` (``SET NX PX``, value = the process id), renewed every
  ``LEASE_RENEW`` seconds by a check-and-extend script. When the owner dies its key expires
  (``LEASE_TTL``) and the next process to try takes the table over; the new owner resumes the
  round from its last commit in the database (see ``runner``), so the round finishes once.
  A thread of its own renews the leases too, so an event loop busy for seconds (a broadcast to
  thousands of sockets on a loaded machine) keeps its tables instead of handing them over
  mid-round; a loop that has shown no life for ``LOOP_STALL_LIMIT`` is wedged, and the thread
  leaves its leases to expire.
- **Fencing token.** Taking the lease also increments ``{prefix}lease-epoch:{table}`` in the same
  script: each owner gets a larger token than every owner before it. The runner claims the
  table in the database with it (``live_leases``) before reading the round, and every commit is
  conditional on it, so an owner that lost its lease without noticing (paused, partitioned)
  has each later commit refused and stops (``stale``: it drops the table and lifts the Redis
  counter to the database's epoch, in case Redis lost it, so the next owner's token is newer).
- **Fan-out.** Table events are published once on ``{prefix}table:{table}``; players' own
  messages in batches of ``hub.FANOUT_BATCH``, each stamped and published as soon as it is
  serialised, on ``{prefix}players:{table}``, in lines (``player_lines``: the openings the
  batch's players share, then a line per player naming theirs; every process reads every batch,
  and at 10,000 players splitting lines costs a fraction of parsing one JSON object of 10,000
  escaped texts). Every process delivers them to its own WebSocket connections, so players may
  connect to any process.
- **Intents.** A bet or decision received by a process that does not own the table is
  forwarded on ``{prefix}intent:{table}``; the owner answers on ``{prefix}reply:{process}``.
  Both go in batches (``server.batching``): the intents a process receives for one table within
  ``FORWARD_WINDOW`` are one message, and so are the owner's replies to one process, because at
  thousands of players a message each was most of the owner's work. A forwarded bet carries
  the checks the receiving process made (``checked``), so the owner does not repeat them.
- **Connections.** The messages go through a bounded pool (``MESSAGE_CONNECTIONS``) in which a
  command waits for a free connection; the leases through a connection of their own, so a burst
  of thousands of intents never delays a renewal past ``LEASE_TTL``.
- **Player counts.** Each process writes its count of each table into the hash
  ``{prefix}watchers:{table}`` every ``COUNT_INTERVAL`` with an expiry time ``COUNT_TTL`` ahead;
  the total ignores expired entries (a process that died drops out of it).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from dealerpoker.server.batching import Batcher
from dealerpoker.server.live.hub import Batch, LocalHub, serialise, stamped_batches

log = logging.getLogger("dealerpoker.live.cluster")

LEASE_TTL = 3.0
LEASE_RENEW = 1.0
COUNT_INTERVAL = 0.5
# How long a process's count stands without being written again. At 1.5 s, a loop busy for longer
# under load (10,000 players on 2 cores) dropped its 2,500 players from the total and back each
# second, and every change is a presence message to every socket: more messages than the rounds'.
COUNT_TTL = 10.0
FORWARD_TIMEOUT = 5.0
FORWARD_WINDOW = 0.005  # seconds an intent or reply waits for others going the same way
# Redis connections per process for the fan-out, intents and replies. Commands beyond them wait
# for a free connection (redis-py's default pool refuses them: MaxConnectionsError, and a forwarded
# bet in a burst of thousands was never answered). Leases have their own connection.
MESSAGE_CONNECTIONS = 64
# A loop busier than this (no turn of its lease loop) is wedged: its leases are left to expire.
LOOP_STALL_LIMIT = 15.0
OWNER_RECHECK = 0.1  # seconds between looks for a table's next owner while it changes hands

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
# Take the lease and, atomically with it, the next fencing token (0: someone else holds it).
_ACQUIRE = """
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('incr', KEYS[2])
end
return 0
"""
# Lift the token counter to at least ARGV[1] (the epoch the database holds).
_RAISE = """
local current = tonumber(redis.call('get', KEYS[1]) or '0')
if current < tonumber(ARGV[1]) then
  redis.call('set', KEYS[1], ARGV[1])
end
return 1
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""

Acquire = Callable[[str, int | None], Awaitable[None]]  # (table, lease token or None)
Release = Callable[[str], Awaitable[None]]
# (table, client, message, what the forwarding process checked or None) -> the client's reply
Handle = Callable[[str, str, Any, Any], Awaitable[dict[str, Any]]]


def player_lines(batch: Batch) -> str:
    """A batch of players' own texts as one message, a line each: first the openings several of
    its players share (``<TAB>opening``), then a line per player, ``player<TAB>index<TAB>ending``
    for a shared opening (their text: that opening and the ending), ``player<TAB>text`` for a
    text of their own. A player id is the server's own (``p_`` and hex, or ``@dealer``: never
    empty, no tab), a text is a JSON object (it begins with ``{``, an index with a digit) and
    JSON holds no raw tab or newline. At 10,000 players who played a few ways a settlement is a
    few openings and 10,000 short lines, not 10,000 copies of the same seat; a batch sharing
    nothing is read as fast as one line per text allows.

    >>> batch = Batch(['{"a":1,', '{"b":[2],'], {"p_1": (0, '"sent_at":1.5}'), "@dealer": (1, '"x":0}'),
    ...                                          "p_2": (0, '"balance":7,"sent_at":1.5}')})
    >>> for line in player_lines(batch).split("\\n"):
    ...     print(line.split("\\t"))
    ['', '{"a":1,']
    ['p_1', '0', '"sent_at":1.5}']
    ['@dealer', '{"b":[2],"x":0}']
    ['p_2', '0', '"balance":7,"sent_at":1.5}']
    >>> read_player_lines(player_lines(batch)) == batch.texts()
    True
    >>> read_player_lines(player_lines(Batch(['{"a":1,', '{'], {"p_1": (0, '"x":0}'), "p_2": (1, '"x":1}')})))
    {'p_1': '{"a":1,"x":0}', 'p_2': '{"x":1}'}
    """
    uses = collections.Counter(index for index, _ending in batch.endings.values())
    shared = {index: number for number, index in enumerate(i for i, count in uses.items() if count > 1)}
    lines = [f"\t{batch.openings[index]}" for index in shared]
    for player, (index, ending) in batch.endings.items():
        number = shared.get(index)
        lines.append(f"{player}\t{batch.openings[index]}{ending}" if number is None
                     else f"{player}\t{number}\t{ending}")
    return "\n".join(lines)


def read_player_lines(lines: str) -> dict[str, str]:
    if not lines:
        return {}
    if not lines.startswith("\t"):  # no shared openings: every line is a player and their text
        return dict(line.split("\t", 1) for line in lines.split("\n"))
    openings: list[str] = []
    texts: dict[str, str] = {}
    for line in lines.split("\n"):
        player, _, rest = line.partition("\t")
        if not player:
            openings.append(rest)
        elif rest.startswith("{"):
            texts[player] = rest
        else:
            index, _, ending = rest.partition("\t")
            texts[player] = openings[int(index)] + ending
    return texts


Send = Callable[[str, Mapping[str, dict[str, Any]]], Awaitable[dict[str, None]]]


def _batcher(batchers: dict[str, Batcher[str, dict[str, Any], None]], to: str,
             send: Send) -> Batcher[str, dict[str, Any], None]:
    """The batcher of the messages going ``to`` a table or process (made at its first message)."""
    batcher = batchers.get(to)
    if batcher is None:
        batcher = batchers[to] = Batcher(lambda batch: send(to, batch), window=FORWARD_WINDOW)
    return batcher


class Cluster(Protocol):
    process_id: str

    async def to_table(self, table_id: str, message: dict[str, Any]) -> None: ...
    async def to_players(self, table_id: str, messages: Mapping[str, dict[str, Any]],
                         balances: Mapping[str, int] | None = None) -> None: ...
    def owns(self, table_id: str) -> bool: ...
    def watchers(self, table_id: str) -> int: ...
    async def forward(self, table_id: str, player_id: str, message: Any,
                      checked: Any = None) -> dict[str, Any]: ...
    async def start(self, tables: tuple[str, ...], acquire: Acquire, release: Release,
                    handle: Handle) -> None: ...
    async def stop(self) -> None: ...
    async def hold(self) -> None:
        """Take no more tables (the process drains)."""
    async def hand_over(self, table_id: str) -> None:
        """Stop running ``table_id``'s clock here so that another process takes it."""
    async def stale(self, table_id: str, epoch: int) -> None:
        """The database refused this process's lease token (it holds ``epoch``): stop owning."""


class LocalCluster:
    """A single process: it owns every table and fans out in memory."""

    def __init__(self, hub: LocalHub) -> None:
        self.hub = hub
        self.process_id = "local"
        self._tables: tuple[str, ...] = ()
        self._release: Release | None = None

    async def to_table(self, table_id: str, message: dict[str, Any]) -> None:
        await self.hub.to_table(table_id, message)

    async def to_players(self, table_id: str, messages: Mapping[str, dict[str, Any]],
                         balances: Mapping[str, int] | None = None) -> None:
        await self.hub.to_players(table_id, messages, balances)

    def owns(self, table_id: str) -> bool:
        return True

    def watchers(self, table_id: str) -> int:
        return self.hub.watchers(table_id)

    async def forward(self, table_id: str, player_id: str, message: Any,
                      checked: Any = None) -> dict[str, Any]:
        raise RuntimeError("a single process owns every table: nothing to forward")

    async def start(self, tables: tuple[str, ...], acquire: Acquire, release: Release,
                    handle: Handle) -> None:
        self._tables, self._release = tables, release
        for table_id in tables:
            await acquire(table_id, None)  # no Redis: the database's counter gives the token

    async def hold(self) -> None:
        pass  # every table is this process's already

    async def hand_over(self, table_id: str) -> None:
        pass  # no other process to take it: its clock stops with this one

    async def stale(self, table_id: str, epoch: int) -> None:
        # Another process on the same database claimed the table (two servers without Redis):
        # the newest claim wins; this one stops its clock, players here get "table_unavailable".
        log.error("table %s: another process claimed it (epoch %d); its clock stops here", table_id, epoch)

    async def stop(self) -> None:
        if self._release is not None:
            for table_id in self._tables:
                await self._release(table_id)


class RedisCluster:
    def __init__(self, url: str, hub: LocalHub, *, prefix: str = "dealerpoker:",
                 stall_limit: float = LOOP_STALL_LIMIT) -> None:
        import redis.asyncio as redis

        self._url = url
        self.stall_limit = stall_limit
        self._alive = time.monotonic()  # the lease loop's last turn: the event loop's sign of life
        self._stopping = threading.Event()
        self._renewer: threading.Thread | None = None

        self._pool = redis.BlockingConnectionPool.from_url(url, max_connections=MESSAGE_CONNECTIONS,
                                                           timeout=FORWARD_TIMEOUT)
        self.redis: Any = redis.Redis(connection_pool=self._pool)
        self._leasing: Any = redis.Redis.from_url(url)  # the leases' own connection
        self.hub = hub
        self.prefix = prefix
        self.process_id = secrets.token_hex(6)
        self._owned: set[str] = set()
        self._counts: dict[str, int] = {}
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._tables: tuple[str, ...] = ()
        self._acquire: Acquire | None = None
        self._release: Release | None = None
        self._handle: Handle | None = None
        self._pubsub: Any = None
        self._answering: set[asyncio.Task[None]] = set()
        self._intents: dict[str, Batcher[str, dict[str, Any], None]] = {}  # by table
        self._replies: dict[str, Batcher[str, dict[str, Any], None]] = {}  # by asking process
        self._holding = False  # draining: take no lease

    def _key(self, kind: str, name: str) -> str:
        return f"{self.prefix}{kind}:{name}"

    # ----- fan-out ------------------------------------------------------------------------------
    # The owner delivers to its own connections at once (not after a round trip through Redis,
    # which its next step could delay); a published batch names its origin, which skips it.
    async def to_table(self, table_id: str, message: dict[str, Any]) -> None:
        text = serialise(message, time.time())
        self.hub.deliver_table(table_id, text)
        await self.redis.publish(self._key("table", table_id), f"{self.process_id}|{text}")
        await asyncio.sleep(0)

    async def to_players(self, table_id: str, messages: Mapping[str, dict[str, Any]],
                         balances: Mapping[str, int] | None = None) -> None:
        # In stamped batches, each delivered and published as soon as it is serialised: the other
        # processes deliver the first players' messages while this one serialises the rest (at
        # 10,000 players, serialising them all before publishing any held the last for 0.3 s).
        for batch in stamped_batches(messages.items(), time.time, balances):
            self.hub.deliver_players(table_id, batch.texts())
            lines = player_lines(batch)
            await self.redis.publish(self._key("players", table_id), f"{self.process_id}|{lines}")
            await asyncio.sleep(0)

    def owns(self, table_id: str) -> bool:
        return table_id in self._owned

    def watchers(self, table_id: str) -> int:
        # The shared total lags by up to COUNT_INTERVAL; never report fewer than are here.
        return max(self._counts.get(table_id, 0), self.hub.watchers(table_id))

    async def forward(self, table_id: str, player_id: str, message: Any,
                      checked: Any = None) -> dict[str, Any]:
        request = secrets.token_hex(8)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        self._pending[request] = future
        deadline = loop.time() + FORWARD_TIMEOUT
        intents = _batcher(self._intents, table_id, self._send_intents)
        try:
            await intents(request, {"request": request, "player": player_id, "message": message,
                                    "checked": checked})
            return await asyncio.wait_for(future, max(0.0, deadline - loop.time()) + OWNER_RECHECK)
        except TimeoutError:
            return {"type": "error", "error": "table_unavailable",
                    "message": "the table's clock is moving to another server: try again in a moment"}
        finally:
            self._pending.pop(request, None)

    async def _send_intents(self, table_id: str, batch: Mapping[str, dict[str, Any]]) -> dict[str, None]:
        """One message to the table's owner with every intent of the batch."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FORWARD_TIMEOUT
        # While the table changes hands (its owner drained or died) nobody would hear the
        # intents: wait for the next owner's lease rather than publish into the gap.
        while not await self.redis.exists(self._key("lease", table_id)):
            if loop.time() > deadline:
                raise TimeoutError
            await asyncio.sleep(OWNER_RECHECK)
        await self.redis.publish(self._key("intent", table_id), json.dumps(
            {"reply": self.process_id, "intents": list(batch.values())}))
        return dict.fromkeys(batch)

    async def _send_replies(self, asker: str, batch: Mapping[str, dict[str, Any]]) -> dict[str, None]:
        await self.redis.publish(self._key("reply", asker), json.dumps({"replies": batch}))
        return dict.fromkeys(batch)

    # ----- lifecycle ------------------------------------------------------------------------------
    async def start(self, tables: tuple[str, ...], acquire: Acquire, release: Release,
                    handle: Handle) -> None:
        self._tables, self._acquire, self._release, self._handle = tables, acquire, release, handle
        self._pubsub = self.redis.pubsub()
        await self._pubsub.psubscribe(self._key("table", "*"), self._key("players", "*"),
                                      self._key("intent", "*"))
        await self._pubsub.subscribe(self._key("reply", self.process_id))
        self._tasks = [asyncio.create_task(self._listen(), name="redis listen"),
                       asyncio.create_task(self._leases(), name="redis leases"),
                       asyncio.create_task(self._count(), name="redis counts")]
        self._renewer = threading.Thread(target=self._renew_from_thread, name="redis lease renewal",
                                         daemon=True)
        self._renewer.start()

    async def stop(self) -> None:
        # The loops also check _stopping: a cancellation that lands inside a Redis command may come
        # out of it as a connection error, which a loop's handler takes and goes on (then stop()
        # waited for ever, and the process with it).
        self._stopping.set()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._renewer is not None:
            await asyncio.to_thread(self._renewer.join, 2 * LEASE_RENEW)
        for table_id in tuple(self._owned):
            await self._lose(table_id)
            with contextlib.suppress(Exception):
                await self._leasing.eval(_RELEASE, 1, self._key("lease", table_id), self.process_id)
        with contextlib.suppress(Exception):
            for table_id in self._tables:
                await self.redis.hdel(self._key("watchers", table_id), self.process_id)
            await self._pubsub.aclose()
        for client in (self.redis, self._leasing):
            with contextlib.suppress(Exception):
                await client.aclose()
        with contextlib.suppress(Exception):
            await self._pool.disconnect()

    async def hold(self) -> None:
        self._holding = True

    async def hand_over(self, table_id: str) -> None:
        """The clock stops here (acknowledged bets written first) and the lease is freed: the
        next process to look (within ``LEASE_RENEW``) takes the table and resumes its pause."""
        if table_id not in self._owned:
            return
        await self._lose(table_id)
        with contextlib.suppress(Exception):
            await self._leasing.eval(_RELEASE, 1, self._key("lease", table_id), self.process_id)
        log.info("table %s: handed over (this process drains)", table_id)

    async def _lose(self, table_id: str) -> None:
        self._owned.discard(table_id)
        if self._release is not None:
            await self._release(table_id)

    async def _leases(self) -> None:
        ttl_ms = str(int(LEASE_TTL * 1000))
        while not self._stopping.is_set():
            self._alive = time.monotonic()
            for table_id in self._tables:
                key = self._key("lease", table_id)
                try:
                    if table_id in self._owned:
                        if not await self._leasing.eval(_RENEW, 1, key, self.process_id, ttl_ms):
                            log.warning("table %s: lease lost; stopping its clock here", table_id)
                            await self._lose(table_id)
                    elif not self._holding and (token := await self.take_lease(table_id)):
                        log.info("table %s: this process (%s) owns the clock, token %d", table_id,
                                 self.process_id, token)
                        self._owned.add(table_id)
                        assert self._acquire is not None
                        await self._acquire(table_id, token)
                except Exception:
                    log.exception("table %s: lease check failed", table_id)
            await asyncio.sleep(LEASE_RENEW)

    def _renew_from_thread(self) -> None:
        """Every ``LEASE_RENEW`` seconds, extend the leases of the tables this process owns, while
        its event loop has turned within ``stall_limit`` (a lease lost meanwhile is not extended:
        the script checks the holder, and the lease loop notices the loss)."""
        import redis

        client = redis.Redis.from_url(self._url, socket_timeout=LEASE_RENEW)
        ttl_ms = str(int(LEASE_TTL * 1000))
        try:
            while not self._stopping.wait(LEASE_RENEW):
                if time.monotonic() - self._alive > self.stall_limit:
                    continue
                for table_id in tuple(self._owned):
                    try:
                        client.eval(_RENEW, 1, self._key("lease", table_id), self.process_id, ttl_ms)
                    except Exception:
                        log.warning("table %s: lease renewal from the thread failed", table_id,
                                    exc_info=True)
        finally:
            client.close()

    async def take_lease(self, table_id: str) -> int:
        """Take the table's lease if free: its fencing token (> every earlier one), else 0."""
        token = await self._leasing.eval(_ACQUIRE, 2, self._key("lease", table_id),
                                         self._key("lease-epoch", table_id), self.process_id,
                                         str(int(LEASE_TTL * 1000)))
        return int(token)

    async def stale(self, table_id: str, epoch: int) -> None:
        log.warning("table %s: a newer owner claimed it (epoch %d); this process stops its clock",
                    table_id, epoch)
        self._owned.discard(table_id)
        with contextlib.suppress(Exception):
            await self._leasing.eval(_RAISE, 1, self._key("lease-epoch", table_id), str(epoch))
            await self._leasing.eval(_RELEASE, 1, self._key("lease", table_id), self.process_id)

    async def _count(self) -> None:
        while not self._stopping.is_set():
            now = time.time()
            try:
                for table_id in self._tables:
                    key = self._key("watchers", table_id)
                    await self.redis.hset(key, self.process_id,
                                          f"{self.hub.watchers(table_id)}:{now + COUNT_TTL}")
                    total = 0
                    for raw in (await self.redis.hgetall(key)).values():
                        count, _, until = raw.decode().partition(":")
                        if float(until) >= now:
                            total += int(count)
                    self._counts[table_id] = total
            except Exception:
                log.exception("player counts failed")
            await asyncio.sleep(COUNT_INTERVAL)

    async def _listen(self) -> None:
        while not self._stopping.is_set():
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("redis subscription failed")
                await asyncio.sleep(0.5)
                continue
            if message is None:
                continue
            channel = message["channel"].decode()
            data = message["data"].decode() if isinstance(message["data"], bytes) else message["data"]
            kind, _, name = channel[len(self.prefix):].partition(":")
            try:
                await self._dispatch(kind, name, data)
            except Exception:
                log.exception("redis message on %s failed", channel)

    async def _answer(self, table_id: str, asker: str, request: dict[str, Any]) -> None:
        assert self._handle is not None
        try:
            reply = await self._handle(table_id, request["player"], request["message"],
                                       request.get("checked"))
            await _batcher(self._replies, asker, self._send_replies)(request["request"], reply)
        except Exception:  # the asker hears nothing and tells its player the table is unavailable
            log.exception("table %s: intent %s from process %s not answered", table_id,
                          request.get("request"), asker)

    async def _dispatch(self, kind: str, name: str, data: str) -> None:
        if kind in ("table", "players"):
            origin, _, text = data.partition("|")
            if origin == self.process_id:
                return
            if kind == "table":
                self.hub.deliver_table(name, text)
            else:
                self.hub.deliver_players(name, read_player_lines(text))
        elif kind == "intent" and name in self._owned:
            # Each answered in its own task, so a slow intent never holds up the others or the fan-out.
            batch = json.loads(data)
            for request in batch["intents"]:
                task = asyncio.create_task(self._answer(name, batch["reply"], request))
                self._answering.add(task)
                task.add_done_callback(self._answering.discard)
        elif kind == "reply":
            for request, reply in json.loads(data)["replies"].items():
                future = self._pending.get(request)
                if future is not None and not future.done():
                    future.set_result(reply)
