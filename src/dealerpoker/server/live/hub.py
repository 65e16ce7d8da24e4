"""Fan-out of table events to the WebSocket connections of this process.

A table message is serialised once and the same text goes to every connection watching the
table; a player's own message goes to that player's connections only. Under ``dealerpoker
serve`` a connection writes to its socket at once: the text framed once per message
(``server.frames``: a table event is one frame for every socket), and a socket with more than
``frames.BUFFER_LIMIT`` waiting to go out is too slow. Elsewhere (another ASGI server) each
connection has a bounded queue that a task of its own sends through ASGI, and a client that
lets ``QUEUE_LIMIT`` texts pile up is too slow. A client too slow is disconnected (it reconnects
and is sent the current state) rather than slowing the table down for everyone.

Every message carries ``sent_at`` (the server clock, epoch seconds, when it was serialised) so
clients can measure delivery latency and correct their countdowns for clock skew.

Publishing yields to the event loop once the texts are handed over, and every ``FANOUT_BATCH``
players' own messages: queued texts are sent before the table goes on to its next step (a
commit of thousands of ledger entries, say), which would otherwise hold the messages already
stamped for as long as it runs.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from dealerpoker.identity import ByIdentity
from dealerpoker.server.frames import FrameWriter, text_frame
from dealerpoker.server.observability.metrics import LIVE_PLAYERS

QUEUE_LIMIT = 256
FANOUT_BATCH = 250


def serialise(message: Mapping[str, Any], now: float) -> str:
    return json.dumps({**message, "sent_at": now}, separators=(",", ":"))


def _opened(message: Mapping[str, Any]) -> str:
    """``message`` serialised without its closing brace, ready for more fields."""
    text = json.dumps(message, separators=(",", ":"))
    return text[:-1] + "," if len(message) else "{"


@dataclass(slots=True)
class Batch:
    """Players' own texts, each an opening several players may share (a message serialised once,
    less its closing brace) and the player's own ending (their balance, the stamp, the brace)."""

    openings: list[str] = field(default_factory=list)
    #: player -> (the index of their opening, their ending)
    endings: dict[str, tuple[int, str]] = field(default_factory=dict)

    def texts(self) -> dict[str, str]:
        openings = self.openings
        return {player: openings[index] + ending for player, (index, ending) in self.endings.items()}


def stamped_batches(messages: Iterable[tuple[str, Mapping[str, Any]]], clock: Callable[[], float],
                    balances: Mapping[str, int] | None = None) -> Iterator[Batch]:
    """Players' own messages serialised ``FANOUT_BATCH`` at a time, each batch stamped as it is
    serialised: a publisher sends a batch before it serialises the next. A message object
    several players are given (a table's seats that played alike) is serialised once; a
    player's ``balances`` entry is added to their text (``balance``), never to the shared
    message."""
    balances = balances or {}
    opened = ByIdentity(_opened)  # each message's text less the closing brace
    batch = Batch()
    indexes: dict[int, int] = {}  # a message's id -> its opening's index in the batch
    stamp = f'"sent_at":{clock()!r}}}'
    for player, message in messages:
        index = indexes.get(id(message))  # ``opened`` holds the message: its id stays its own
        if index is None:
            index = indexes[id(message)] = len(batch.openings)
            batch.openings.append(opened(message))
        balance = balances.get(player)
        batch.endings[player] = (index, stamp if balance is None else f'"balance":{balance},{stamp}')
        if len(batch.endings) >= FANOUT_BATCH:
            yield batch
            batch, indexes = Batch(), {}
            stamp = f'"sent_at":{clock()!r}}}'
    if batch.endings:
        yield batch


@dataclass(eq=False)
class Connection:
    """One WebSocket: who it is, what it watches, and how its messages go out: written to the
    socket at once (``frames``: ``server.frames.FrameWriter``) or through its queue of texts. The
    queue's ``None`` tells the socket's sender task to close the socket as too slow."""

    player_id: str
    table_id: str
    frames: FrameWriter | None = None
    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))
    dropped: bool = False
    #: Counted among the table's players (a studio's dealer connection is not).
    counted: bool = True

    def push(self, text: str, frame: bytes | None = None) -> None:
        """Send ``text`` (``frame``: its ``text_frame``, when the caller framed it already)."""
        if self.dropped:
            return
        if self.frames is not None:
            if not self.frames(text_frame(text) if frame is None else frame):
                self._drop()
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self._drop()

    def _drop(self) -> None:
        self.dropped = True  # the sender sees None and closes the socket
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)


class LocalHub:
    """The connections of this process, by table and by player."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._tables: dict[str, set[Connection]] = {}
        self._players: dict[tuple[str, str], set[Connection]] = {}
        self._counts: dict[str, int] = {}
        #: The newest table event delivered here (the state a newcomer sees on a non-owner).
        self.last_table_text: dict[str, str] = {}

    def join(self, connection: Connection) -> None:
        self._tables.setdefault(connection.table_id, set()).add(connection)
        mine = self._players.setdefault((connection.table_id, connection.player_id), set())
        if not mine and connection.counted:
            self._counts[connection.table_id] = self._counts.get(connection.table_id, 0) + 1
            LIVE_PLAYERS.labels(table=connection.table_id).inc()
        mine.add(connection)

    def leave(self, connection: Connection) -> None:
        self._tables.get(connection.table_id, set()).discard(connection)
        key = (connection.table_id, connection.player_id)
        mine = self._players.get(key)
        if mine is not None:
            mine.discard(connection)
            if not mine:
                del self._players[key]
                if connection.counted:
                    self._counts[connection.table_id] -= 1
                    LIVE_PLAYERS.labels(table=connection.table_id).dec()

    def connected(self, table_id: str, player: str) -> bool:
        """Whether ``player`` (or the reserved ``@dealer``) has a socket on the table in this process."""
        return bool(self._players.get((table_id, player)))

    def watchers(self, table_id: str) -> int:
        """Distinct players connected to the table in this process."""
        return self._counts.get(table_id, 0)

    def deliver_table(self, table_id: str, text: str) -> None:
        self.last_table_text[table_id] = text
        frame = text_frame(text)
        for connection in tuple(self._tables.get(table_id, ())):
            connection.push(text, frame)

    def state_text(self, table_id: str, now: float) -> str | None:
        """The newest table event delivered here, as the ``state`` a newcomer is sent first (what the
        owner sends from its runner): a replayed ``settled`` would tell a player who reconnects in
        the pause that the round was settled again."""
        text = self.last_table_text.get(table_id)
        if text is None:
            return None
        return serialise({**json.loads(text), "event": "state"}, now)

    def deliver_players(self, table_id: str, texts: Mapping[str, str]) -> None:
        for player, text in texts.items():
            for connection in tuple(self._players.get((table_id, player), ())):
                connection.push(text)

    # The Publisher interface, for a single process.
    async def to_table(self, table_id: str, message: dict[str, Any]) -> None:
        self.deliver_table(table_id, serialise(message, self.clock()))
        await asyncio.sleep(0)  # the senders write it now

    async def to_players(self, table_id: str, messages: Mapping[str, dict[str, Any]],
                         balances: Mapping[str, int] | None = None) -> None:
        here = ((player, message) for player, message in messages.items()
                if (table_id, player) in self._players)
        for batch in stamped_batches(here, self.clock, balances):
            self.deliver_players(table_id, batch.texts())
            await asyncio.sleep(0)
