"""Studio tables in the tests: their entries, a dealer on the real WebSocket, the simulated shoe in
a thread, and the check that no player message shows a card before the table revealed it."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from tests.live.conftest import WAIT, LivePlayer, TableSocket, table_entry

from dealerpoker.server.live.shoe_client import ShoeRun, dealer_url, run_shoe
from dealerpoker.tables.shoe import Shoe

KEY = "studio-dealer-key-for-tests"
STUDIO = '\ndealing = "studio"\n[tables.studio]\ndealer_key = "' + KEY + '"\ndeal_seconds = 30\n'
STUDIO_TABLES = (table_entry("studio-texas", "texas-bonus", STUDIO)
                 + table_entry("studio-casino", "casino-holdem", STUDIO))


def ws_base(base: str) -> str:
    return "ws" + base[4:]


class Dealer(TableSocket):
    """A studio's dealer (card reader or console) on ``/ws/dealer/{table}``."""

    def __init__(self, base: str, table: str, key: str = KEY, *, header: bool = True) -> None:
        headers = {"Authorization": f"Bearer {key}"} if header else None
        super().__init__(dealer_url(ws_base(base), table), headers)
        if not header:
            self.send({"type": "auth", "token": key})

    def reply(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message``; the answer to it (``accepted``, ``dealer`` or ``error``)."""
        since = len(self.received)
        self.send(message)
        if message["type"] == "hello":
            return self.until(lambda m: m["type"] == "dealer" and m["event"] == "state", since=since)
        return self.until(lambda m: m["type"] in {"accepted", "error", "pong"}, since=since)

    def state(self) -> dict[str, Any]:
        return self.reply({"type": "hello"})


class ShoeThread:
    """The simulated shoe dealing ``rounds`` rounds at a table, in a thread of its own."""

    def __init__(self, base: str, table: str, shoe: Shoe, *, rounds: int = 1, key: str = KEY) -> None:
        self.shoe = shoe
        self.result: ShoeRun | None = None
        self.error: BaseException | None = None
        url = dealer_url(ws_base(base), table)
        self.thread = threading.Thread(target=self._run, args=(url, key, rounds), daemon=True)
        self.thread.start()

    def _run(self, url: str, key: str, rounds: int) -> None:
        try:
            self.result = asyncio.run(run_shoe(url, key, self.shoe, delay=0.0, rounds=rounds))
        except BaseException as error:  # reported by join()
            self.error = error

    def join(self, timeout: float = WAIT) -> ShoeRun:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the shoe did not finish its rounds"
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


def dealt_by(sent: list[dict[str, Any]]) -> list[str]:
    """The round's cards as the dealer's messages leave them: each card, each void taking back the last."""
    cards: list[str] = []
    for message in sent:
        if message["type"] == "card":
            cards.append(message["card"])
        elif message["type"] == "void":
            cards.pop()
    return cards


def assert_nothing_shown_early(player: LivePlayer, round_id: str, deck: list[str]) -> None:
    """Every message the player received in round ``round_id``: a dealt card appears in none of
    them before a table message revealed it, and each table message shows exactly the cards of
    its stage (the dealer's two only at the showdown, the board up to the current street)."""
    visible = {"preflop": 0, "flop": 3, "turn": 4}
    revealed: set[str] = set()
    started = False
    for message in player.received:
        if message.get("round") == round_id and message["type"] == "table":
            started = True
            phase, board = message["phase"], message["board"]
            if phase == "decision":
                assert board == deck[4:4 + visible[message["point"]]], message
                assert message["dealer_cards"] == [], message
                assert message["player_cards"] == deck[0:2], message
            elif phase in ("showdown", "pause") and not message.get("misdeal"):
                assert message["dealer_cards"] == deck[2:4] and board == deck[4:4 + len(board)], message
            elif phase == "dealing":
                assert message["dealer_cards"] == [] and set(board) <= revealed, message
            revealed |= set(message["player_cards"]) | set(board) | set(message["dealer_cards"])
        if not started:
            continue
        text = json.dumps(message)
        early = [card for card in deck if f'"{card}"' in text and card not in revealed]
        assert not early, f"{early} sent before their reveal in {message}"
        if message["type"] == "table" and message.get("event") in ("settled", "misdeal") \
                and message.get("round") == round_id:
            return
