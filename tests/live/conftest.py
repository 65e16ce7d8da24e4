"""Live tables over a real server: the app (uvicorn in a thread) whose table clock the test moves
by hand, players on WebSockets, and `dealerpoker serve` processes for the kill -9 tests.

No test sleeps through a table timer: with a ``ManualClock`` the betting window, the decision
timers and the pause end only when the test moves the clock (``clock.reach(message)``), and the
tests wait for the messages that follow, with generous timeouts, so they hold under heavy load.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from tests.support.servers import DRAIN_SECONDS, serving
from tests.support.servers import ServeProcess as _ServeProcess
from websockets.sync.client import ClientConnection, connect

from dealerpoker.server import Settings, create_app
from dealerpoker.server.currencies import load_currencies
from dealerpoker.server.live.extension import live_extension
from dealerpoker.server.live.service import LiveSettings
from dealerpoker.server.offer import Offer
from dealerpoker.tables.config import parse_tables


def table_entry(table_id: str, game: str, more: str = "") -> str:
    """One ``[[tables]]`` entry with its timers left as ``{betting}``, ``{decision}``, ``{pause}``."""
    return (f'[[tables]]\nid = "{table_id}"\ngame = "{game}"\nbetting_seconds = {{betting}}\n'
            f'decision_seconds = {{decision}}\npause_seconds = {{pause}}\n{more}\n')


FAST_TABLES = table_entry("texas-fast", "texas-bonus") + table_entry("casino-fast", "casino-holdem")
# A casino table with the configurable alternative default: raise when the timer ends.
CASINO_RAISES = table_entry("casino-raise", "casino-holdem",
                            '[tables.rules]\ntimeout_actions = {{ flop = "raise" }}')

# One table only, for a test that deals chosen cards there: a ``Dealer``'s queued seed goes to the
# next round that opens at any table, and a second table opening a round on the same clock move
# (its runner woken beside this one) could take it first.
CASINO_ALONE = table_entry("casino-fast", "casino-holdem")

LONG_SESSIONS = {"session_idle_seconds": 1e9, "session_max_seconds": 1e9}
"""Sessions that outlive a test's clock jumps (hours with nobody at a table, a record read days later)."""
WAIT = 60.0  # seconds to wait for a message that must come (only a failing test waits this long)


class ManualClock:
    """The server's clock in a test: it stands still until the test moves it.

    Give it to ``create_app(clock=...)`` and ``attach`` it to the app before the server starts;
    each move then wakes every table runner of the app (on the server's event loop) so it
    re-checks its deadlines at once instead of sleeping until its next real-time recheck.
    """

    def __init__(self, start: datetime = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)) -> None:
        self._now = start
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runners: list[Any] = []

    def __call__(self) -> datetime:
        with self._lock:
            return self._now

    def seconds(self) -> float:
        return self().timestamp()

    def attach(self, app: Any) -> None:
        async def remember_the_loop() -> None:
            self._loop = asyncio.get_running_loop()
            self._runners = list(app.state.live.runners.values())

        app.state.services.startup.append(remember_the_loop)

    def advance(self, seconds: float, *, wake: bool = True) -> None:
        with self._lock:
            self._now += timedelta(seconds=seconds)
        if wake:
            self.wake()

    def reach(self, message: dict[str, Any], *, wake: bool = True) -> None:
        """Move to the ``deadline`` of a table message (its timer has just run out)."""
        deadline = message["deadline"]
        assert isinstance(deadline, float | int), message
        with self._lock:
            self._now = max(self._now, datetime.fromtimestamp(deadline, UTC))
        if wake:
            self.wake()

    def wake(self) -> None:
        assert self._loop is not None, "attach the clock to the app before starting the server"
        for runner in self._runners:
            self._loop.call_soon_threadsafe(runner.wakeup.set)


@contextmanager
def live_server(database_url: str, *, clock: ManualClock | None = None, betting: float = 15,
                decision: float = 10, pause: float = 5, tables: str = FAST_TABLES, extra_tables: str = "",
                rng: Any = None, port: int | None = None, **settings: Any) -> Iterator[tuple[str, Any]]:
    """``(base_url, app)`` of a running server with live tables; stopped (lifespan shutdown) on exit.

    ``tables``: the ``[[tables]]`` entries, their timers written ``{betting}`` etc. (``CASINO_ALONE``
    where a ``Dealer`` deals chosen cards), ``extra_tables`` added to them. With ``clock`` the
    tables run on it (the timer lengths are then in its seconds); ``rng``: the server's generator
    (a ``tests.support.dealing.Dealer`` to deal chosen cards); ``port``: where to serve (for a
    process started first that must know it, such as an operator); ``settings`` go to ``Settings``
    (e.g. ``LONG_SESSIONS`` for tokens made on another clock, or idle for hours).
    """
    if clock is not None:
        # A test's clock jumps from deadline to deadline (600 s timers make a hand 40 minutes): the
        # sessions must not end mid-test on that clock unless the test asks for it.
        settings = {**LONG_SESSIONS, **settings}
    timers = {"betting": betting, "decision": decision, "pause": pause}
    # As `serve` builds them: a table in a currency plays that currency's limits and chips.
    configs = parse_tables(tables.format(**timers) + extra_tables.format(**timers),
                           currency_overrides=Offer.build(load_currencies()).table_overrides)
    app = create_app(Settings(database_url=database_url, **settings),
                     extensions=[live_extension(LiveSettings(configs))],
                     **({"clock": clock} if clock is not None else {}), rng=rng)
    if clock is not None:
        clock.attach(app)
    with serving(app, port=port) as server:
        yield server.url, app


class ServeProcess(_ServeProcess):
    """`dealerpoker serve --tables FILE` as a real process (killable with SIGKILL)."""

    def __init__(self, tmp: Path, database: str, tables: Path, name: str, *, redis: str | None = None,
                 prefix: str = "dealerpoker:", extra: tuple[str, ...] = ()) -> None:
        # SIGTERM drains as in production: these processes hand their tables over (test_cluster.py).
        env = {**os.environ, "DEALERPOKER_REDIS_PREFIX": prefix, DRAIN_SECONDS: "90"}
        env.pop("DEALERPOKER_REDIS_URL", None)
        # --no-rtp: no exact analysis in the background (13 s of a core and 700 MB on a cold cache,
        # per process): no live test reads the games' RTPs, and CI's 2 cores are shared.
        options = ["--tables", str(tables), "--no-rtp", *(["--redis", redis] if redis else []), *extra]
        super().__init__(database, log=tmp / f"{name}.log", extra=options, env=env)
        self.base = self.url


class TableSocket:
    """A WebSocket client of the server (a player's or a studio dealer's): every message it
    received, in order, and ``until`` to wait for one."""

    def __init__(self, url: str, headers: dict[str, str] | None) -> None:
        self.ws: ClientConnection = connect(url, additional_headers=headers, open_timeout=WAIT, legacy=True)
        self.received: list[dict[str, Any]] = []
        self.taken: set[int] = set()

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def next(self, timeout: float = WAIT) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        self.received.append(message)
        return message

    def until(self, predicate: Any, timeout: float = WAIT, *, since: int = 0) -> dict[str, Any]:
        """The first message (from number ``since`` on) not returned before that matches,
        waiting for it if need be."""
        end = time.monotonic() + timeout
        index = since
        while True:
            while index < len(self.received):
                if index not in self.taken and predicate(self.received[index]):
                    self.taken.add(index)
                    return self.received[index]
                index += 1
            left = end - time.monotonic()
            assert left > 0, f"no matching message within {timeout:.0f} s; received: {self.received[-5:]}"
            self.next(left)

    def close(self) -> None:
        self.ws.close()


class LivePlayer(TableSocket):
    """A demo player (REST session) with a WebSocket at one table."""

    def __init__(self, base: str, table: str, *, same_as: LivePlayer | None = None,
                 currency: str | None = None) -> None:
        if same_as is None:
            session = {} if currency is None else {"currency": currency}
            body = httpx.post(f"{base}/api/session", json=session, timeout=WAIT).json()
            self.token, self.id = body["token"], body["player_id"]
        else:  # the same player connecting again (possibly to another process)
            self.token, self.id = same_as.token, same_as.id
        self.base = base
        self.headers = {"Authorization": f"Bearer {self.token}"}
        super().__init__(f"ws{base[4:]}/ws/tables/{table}", self.headers)

    def reply(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message`` and return the server's answer to it (``you`` or ``error``).

        A ping first takes in whatever the server sent before (its pong comes after it); then
        the answer is the next ``you`` or ``error``. Only when no seat message of the table can
        come in between: the clock stands still, or the round is in its betting window.
        """
        self.send({"type": "ping"})
        self.until(lambda m: m["type"] == "pong", since=len(self.received))
        since = len(self.received)
        self.send(message)
        return self.until(lambda m: m["type"] in {"you", "error"}, since=since)

    def balance(self) -> int:
        response = httpx.get(f"{self.base}/api/balance", headers=self.headers, timeout=WAIT)
        value: int = response.json()["balance"]
        return value


def is_table(event: str) -> Any:
    return lambda m: m["type"] == "table" and m.get("event") == event


def bet_in_a_window(player: LivePlayer, bets: dict[str, int], *, windows: int = 5,
                    **more: Any) -> dict[str, Any]:
    """Place ``bets`` at a table on the real clock; returns the betting window they went into.
    ``more``: the bet message's other fields (``jackpot=True``, ``free_round=reward``).

    On a loaded machine a window may close before the bet arrives (``no_more_bets``): then the
    bet goes into the next window, up to ``windows`` of them.
    """
    for _ in range(windows):
        window = player.until(is_table("betting_open"))
        reply = player.reply({"type": "bet", "bets": bets, **more})
        if reply["type"] == "you" and reply["seat"] is not None:
            return window
        assert reply.get("error") == "no_more_bets", reply
    raise AssertionError(f"no betting window took the bets {bets} in {windows} tries")


def bet_together(players: list[LivePlayer], bets: dict[str, int], *, windows: int = 5,
                 **more: Any) -> dict[str, int]:
    """Every player places ``bets`` in the same betting window of a table on the real clock;
    returns their balances from just before that window. ``more``: the bet message's other
    fields (``jackpot=True``).

    On a loaded machine a window may close before every bet arrives (``no_more_bets``): then,
    once that round is over (those who got in play it out on the timers), the next window.
    """
    for _ in range(windows):
        window = players[0].until(is_table("betting_open"))
        start = {p.id: p.balance() for p in players}  # debits come at the window's close
        replies = [p.reply({"type": "bet", "bets": bets, **more}) for p in players]
        if all(r["type"] == "you" and r["seat"] is not None for r in replies):
            return start
        assert all(r["type"] == "you" or r.get("error") == "no_more_bets" for r in replies), replies
        players[0].until(lambda m, r=window["round"]: m["type"] == "table" and m.get("round") == r
                         and m.get("event") in {"settled", "no_bets"})
    raise AssertionError(f"no betting window took every player's bets {bets} in {windows} tries")


def is_seat(predicate: Any = lambda seat: True) -> Any:
    """A ``you`` message with a seat for which ``predicate(seat)`` holds."""
    return lambda m: m["type"] == "you" and m.get("seat") is not None and predicate(m["seat"])


class FakeClock:
    """The injected clock of a table runner driven directly (no server): time moves only when a
    test sets ``now``."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
