"""Live tables over a real server: two players at one table, the shared hand, money, hidden cards.

The table clock is a ``ManualClock``: every timer ends when the test moves the clock.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from tests.live.conftest import LivePlayer, ManualClock, is_seat, is_table, live_server

from dealerpoker.server import ledger


def _audit(app: Any) -> Any:
    async def run() -> Any:
        return await ledger.audit_database(app.state.services.database)
    return asyncio.run(run())


def test_two_players_play_the_same_texas_hand_each_with_their_own_decisions(tmp_path) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock()
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=clock) as (base, app):
        alice, bob = LivePlayer(base, "texas-fast"), LivePlayer(base, "texas-fast")
        try:
            assert alice.next()["type"] == "welcome"
            start = {p.id: p.balance() for p in (alice, bob)}
            window = alice.until(is_table("betting_open"))
            bob.until(lambda m: m.get("round") == window["round"] and m.get("phase") == "betting")
            assert window["deadline"] == clock.seconds() + 15
            assert len(window["fairness"]["commitment"]) == 64 and "server_seed" not in window["fairness"]
            placed = alice.reply({"type": "bet", "bets": {"ante": 100, "bonus": 100}})
            assert placed["seat"]["bets"] == {"ante": 100, "bonus": 100}
            assert bob.reply({"type": "bet", "bets": {"ante": 500}})["seat"]["bets"] == {"ante": 500}
            clock.reach(window)
            closed = alice.until(is_table("no_more_bets"))
            assert closed["round"] == window["round"]
            dealt_a = alice.until(is_table("decision"))
            dealt_b = bob.until(is_table("decision"))
            assert dealt_a["player_cards"] == dealt_b["player_cards"] and len(dealt_a["player_cards"]) == 2
            assert dealt_a["point"] == "preflop" and dealt_a["board"] == [] and dealt_a["dealer_cards"] == []
            mine = alice.until(is_seat(lambda seat: seat["legal_actions"]))
            assert mine["seat"]["legal_actions"] == ["bet", "fold"]
            assert mine["seat"]["action_stakes"]["bet"] == 200
            decided = alice.reply({"type": "decide", "action": "bet"})  # bob lets the timer fold for him
            assert decided["seat"]["pending"] == "bet"
            clock.reach(dealt_a)
            for point in ("flop", "turn"):  # alice lets the timer check for her
                clock.reach(alice.until(lambda m, p=point: is_table("decision")(m) and m["point"] == p))
            reveal = alice.until(is_table("reveal"))
            settled_a = alice.until(lambda m: m["type"] == "you" and m["phase"] == "pause")
            settled_b = bob.until(lambda m: m["type"] == "you" and m["phase"] == "pause")
            assert settled_b["seat"]["steps"] == [{"point": "preflop", "action": "fold", "source": "timeout",
                                                   "stake": 0}]
            assert settled_b["seat"]["settlement"]["outcome"] == "fold"
            steps_a = settled_a["seat"]["steps"]
            assert [s["action"] for s in steps_a] == ["bet", "check", "check"]
            assert [s["source"] for s in steps_a] == ["player", "timeout", "timeout"]
            assert alice.balance() == start[alice.id] + settled_a["seat"]["settlement"]["net"]
            assert bob.balance() == start[bob.id] - 500
            # Hidden cards: before the reveal, no message to anyone held a dealer card or a board
            # card beyond those of the current street (bob folded first and was shown no more).
            assert len(reveal["dealer_cards"]) == 2 and len(reveal["board"]) == 5
            for player in (alice, bob):
                cut = next(i for i, m in enumerate(player.received) if m.get("event") == "reveal")
                for message in player.received[:cut]:
                    text = json.dumps(message)
                    visible = {"preflop": 0, "flop": 3, "turn": 4}.get(message.get("point") or "", 0)
                    for card in [*reveal["dealer_cards"], *reveal["board"][visible:]]:
                        assert f'"{card}"' not in text, (card, message)
            tables = httpx.get(f"{base}/api/tables", headers=alice.headers, timeout=60).json()["tables"]
            texas = next(t for t in tables if t["id"] == "texas-fast")
            assert texas["players"] == 2 and texas["game"] == "texas-bonus"
            for path in ("/api/tables", "/api/tables/texas-fast"):  # a typo must not pass silently
                typo = httpx.get(f"{base}{path}", params={"limt": 5}, headers=alice.headers, timeout=60)
                assert typo.status_code == 422 and "limt" in typo.json()["message"], typo.text
            after = alice.until(lambda m: m["type"] == "table" and m.get("phase") == "pause")
            assert after["fairness"]["server_seed"]
        finally:
            alice.close()
            bob.close()
        assert _audit(app).ok


def test_a_websocket_needs_a_token_and_a_known_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from websockets.sync.client import connect

    with live_server(f"sqlite:///{tmp_path}/live.db", clock=ManualClock()) as (base, _app):
        with connect(f"ws{base[4:]}/ws/tables/texas-fast", open_timeout=60) as ws:
            ws.send('{"type": "auth", "token": "nope"}')
            assert json.loads(ws.recv(timeout=60))["error"] == "unauthorized"
        with connect(f"ws{base[4:]}/ws/tables/texas-fast", open_timeout=60) as ws:
            ws.send(b"\x00\x01")  # a binary frame that is no auth message: refused, not a crash
            assert json.loads(ws.recv(timeout=60))["error"] == "unauthorized"
        player = LivePlayer(base, "no-such-table")
        assert player.next()["error"] == "not_found"
        player.close()


@pytest.mark.parametrize("message", ['{"type": "bet", "bets": {"ante": -5}}', '{"type": "dance"}', "[1, 2]",
                                     '{"type": "bet", "bets": {"ante": 10000000}}', "not json",
                                     b'{"type": "dance"}', b"\xff\xfe not UTF-8"])
def test_bad_messages_get_an_error_and_change_nothing(tmp_path, message: str | bytes) -> None:  # type: ignore[no-untyped-def]
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=ManualClock()) as (base, _app):
        player = LivePlayer(base, "casino-fast")
        try:
            player.until(is_table("betting_open"))  # and it stays open: the clock stands still
            player.ws.send(message)
            error = player.until(lambda m: m["type"] == "error")
            assert error["error"] in {"bad_request", "bet_limit", "invalid_request"}
            player.send({"type": "ping"})
            player.until(lambda m: m["type"] == "pong")
            assert not any(m["type"] == "you" and m["seat"] for m in player.received)  # no bet placed
        finally:
            player.close()
