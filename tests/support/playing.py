"""Players who keep playing while the servers under them restart: solo rounds over HTTP
(``Players``) and a seat at a live table over a WebSocket (``LiveSeat``), each in a thread until
told to stop, recording what the server acknowledged so a test can check afterwards that none of
it was lost (tests/server/test_behind_nginx.py, tests/server/test_workers_sighup.py)."""

from __future__ import annotations

import json
import secrets
import threading
import time
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException
from websockets.sync.client import connect

PLAYERS = 3
LIVE_TABLE = "texas-fast"
DECISIONS = {"preflop": "bet", "flop": "check", "turn": "check"}


class Players(threading.Thread):
    """Players playing Casino Hold'em rounds (ante, raise) until stopped; a request that fails
    (connection, or a status in ``retried``: behind a proxy, 502/503 while a process restarts) is
    sent again as it was: the round's idempotency key and each action's step make a repeat safe.
    Any other answer but 200 is a problem."""

    def __init__(self, url: str, *, retried: tuple[int, ...] = (502, 503, 504)) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.retried = retried
        self.stop = threading.Event()
        self.rounds: list[tuple[str, str]] = []  # (round, its player's token)
        self.settled = 0
        self.retries = 0
        self.problems: list[str] = []
        self.tokens: list[str] = []

    def request(self, http: httpx.Client, method: str, path: str, body: Any, token: str) -> Any:
        deadline = time.monotonic() + 60
        while True:
            try:
                response = http.request(method, path, json=body, headers={"Authorization": f"Bearer {token}"})
                if response.status_code not in self.retried:
                    if response.status_code != 200:
                        self.problems.append(f"{method} {path}: {response.status_code} {response.text[:200]}")
                    return response.json()
            except httpx.TransportError:
                pass
            self.retries += 1
            if time.monotonic() > deadline:
                self.problems.append(f"{method} {path}: no answer within 60 s")
                return None
            time.sleep(0.05)  # a player retrying a restarting server, up to its deadline

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as http:
            self.tokens = [http.post("/api/session", json={}).json()["token"] for _ in range(PLAYERS)]
            turn = 0
            while not self.stop.is_set():
                token = self.tokens[turn % PLAYERS]
                turn += 1
                key = secrets.token_hex(8)
                opening = {"game": "casino-holdem", "bets": {"ante": 100}, "idempotency_key": key}
                view = self.request(http, "POST", "/api/rounds", opening, token)
                if view is None or "id" not in view:
                    continue
                self.rounds.append((view["id"], token))
                view = self.request(http, "POST", f"/api/rounds/{view['id']}/actions",
                                    {"action": "raise", "step": 1}, token)
                if view is not None and view.get("status") == "settled":
                    self.settled += 1


class LiveSeat(threading.Thread):
    """A player at a live table: the ante in every betting window, then at each decision the Flop
    bet, then checks; when the socket closes (its process drains: 1012) it reconnects, as the page
    does, and carries on."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.stop = threading.Event()
        self.token = ""
        self.opened: list[str] = []  # rounds whose betting window was seen opening, in order
        self.seated: set[str] = set()  # rounds whose bet was accepted
        self.decided: set[tuple[str, str, str]] = set()  # (round, point, action) accepted
        self.settled_seen: list[tuple[int, str]] = []  # (connection, round) of each "settled" event
        self.closes: list[int | None] = []  # the close code of each connection the server closed
        self.refused: list[int] = []  # the HTTP status of each opening the server refused
        self.reconnects = 0
        self.problems: list[str] = []
        self.point: str | None = None  # the table's decision point, from its last message
        # (round, action) -> the point it was sent at: the acknowledgement ("you", pending) comes
        # from the table's owner and may arrive after the next point's table event.
        self.sent_at: dict[tuple[str, str], str] = {}

    def run(self) -> None:
        self.token = httpx.post(f"{self.url}/api/session", json={}, timeout=30).json()["token"]
        while not self.stop.is_set():
            try:
                with connect(f"ws{self.url[4:]}/ws/tables/{LIVE_TABLE}", open_timeout=30,
                             additional_headers={"Authorization": f"Bearer {self.token}"}) as socket:
                    self.play(socket)
            except ConnectionClosed as closed:
                self.closes.append(closed.rcvd.code if closed.rcvd is not None else None)
                self.reconnects += 1
                self.stop.wait(0.5)  # the page's first retry comes after half a second
            except InvalidStatus as refused:  # e.g. nginx's 502 mid-restart
                self.refused.append(refused.response.status_code)
                self.reconnects += 1
                self.stop.wait(0.5)
            except (WebSocketException, OSError, TimeoutError):  # no connection mid-restart
                self.reconnects += 1
                self.stop.wait(0.5)

    def play(self, socket: Any) -> None:
        connection = self.reconnects
        while not self.stop.is_set():
            try:
                message = json.loads(socket.recv(timeout=1))
            except TimeoutError:
                continue
            kind, event = message.get("type"), message.get("event")
            if kind == "table":
                self.point = message.get("point")
                if event == "betting_open":
                    self.opened.append(message["round"])
                    socket.send(json.dumps({"type": "bet", "bets": {"ante": 100}}))
                elif event == "settled":
                    self.settled_seen.append((connection, message["round"]))
            elif kind == "you" and message.get("seat"):
                seat = message["seat"]
                self.seated.add(message["round"])
                if seat["legal_actions"] and self.point not in DECISIONS:  # the table's state comes first
                    self.problems.append(f"a decision open at no known point ({self.point!r}): {message}")
                elif seat["legal_actions"]:  # this player's decision is open
                    action = DECISIONS[str(self.point)]
                    self.sent_at[(message["round"], action)] = str(self.point)
                    socket.send(json.dumps({"type": "decide", "action": action}))
                if (point := self.sent_at.get((message["round"], seat["pending"]))) is not None:
                    self.decided.add((message["round"], point, seat["pending"]))
                for step in seat["steps"]:
                    if step["source"] == "player":
                        self.decided.add((message["round"], step["point"], step["action"]))
            elif kind == "error" and message.get("error") not in ("no_more_bets", "no_decision"):
                self.problems.append(str(message))
