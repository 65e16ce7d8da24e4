"""The strategy hint at a live table (issue 16 item 16): ``GET /api/tables/{id}/advice`` is refused
unless the deployment offers it, answers each player's open decision as ``advise`` answers it for the
cards that player sees (the shared hole cards, the board shown, their own turn bet), and uses no
hidden card: the dealer's cards and the board still to come are in no answer."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.live.conftest import WAIT, LivePlayer, ManualClock, is_seat, is_table, live_server

from dealerpoker.analysis.advise import advise
from dealerpoker.cards import parse_cards

ANTE = 100


def _advice(player: LivePlayer, table: str) -> httpx.Response:
    return httpx.get(f"{player.base}/api/tables/{table}/advice", headers=player.headers, timeout=WAIT)


def _expected(app: Any, table: str, shown: dict[str, Any], turn_bet: bool | None = None) -> dict[str, Any]:
    rules = app.state.live.runners[table].table.rules
    board = parse_cards(" ".join(shown["board"])) if shown["board"] else []
    return advise(rules, parse_cards(" ".join(shown["player_cards"])), board, turn_bet=turn_bet).to_json()


def test_refused_when_the_deployment_does_not_offer_it(tmp_path: Any) -> None:
    clock = ManualClock()
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=clock) as (base, _app):
        player = LivePlayer(base, "casino-fast")
        try:
            window = player.until(is_table("betting_open"))
            assert player.reply({"type": "bet", "bets": {"ante": ANTE}})["type"] == "you"
            clock.reach(window)
            player.until(is_seat(lambda seat: bool(seat["legal_actions"])))
            answer = _advice(player, "casino-fast")
            assert answer.status_code == 403, answer.text
            assert answer.json()["error"] == "hint_off" and "player_cards" not in answer.text
        finally:
            player.close()


@pytest.mark.slow
def test_each_seat_is_advised_from_what_it_sees_and_no_hidden_card(tmp_path: Any) -> None:
    clock = ManualClock()
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=clock, strategy_hint=True) as (base, app):
        alice, bob = LivePlayer(base, "texas-fast"), LivePlayer(base, "texas-fast")
        try:
            window = alice.until(is_table("betting_open"))
            assert _advice(alice, "texas-fast").json()["error"] == "no_decision"  # betting: none open
            for player in (alice, bob):
                assert player.reply({"type": "bet", "bets": {"ante": ANTE}})["type"] == "you"
            clock.reach(window)
            alice.until(lambda m: is_table("decision")(m) and m["point"] == "preflop")
            for player in (alice, bob):  # the pre-flop advice (the full analysis' table) is not asked here
                assert player.reply({"type": "decide", "action": "bet"})["type"] == "you"
            answers = []
            flop = alice.until(lambda m: is_table("decision")(m) and m["point"] == "flop")
            for player in (alice, bob):
                answer = _advice(player, "texas-fast")
                assert answer.status_code == 200, answer.text
                got = answer.json()
                expected = _expected(app, "texas-fast", flop)
                assert {k: got[k] for k in expected} == expected
                assert got["player_cards"] == flop["player_cards"] and got["board"] == flop["board"]
                assert got["round"] == flop["round"]
                answers.append(answer.text)
            # Alice bets on the flop, Bob checks: at the turn each is advised with their own turn bet.
            assert alice.reply({"type": "decide", "action": "bet"})["type"] == "you"
            assert bob.reply({"type": "decide", "action": "check"})["type"] == "you"
            turn = alice.until(lambda m: is_table("decision")(m) and m["point"] == "turn")
            advised = {}
            for player, turn_bet in ((alice, True), (bob, False)):
                got = _advice(player, "texas-fast").json()
                expected = _expected(app, "texas-fast", turn, turn_bet)
                assert {k: got[k] for k in expected} == expected and got["phase"] == "turn"
                assert got["board"] == turn["board"] and len(got["board"]) == 4
                advised[player.id] = got["actions"]
                answers.append(_advice(player, "texas-fast").text)
            assert advised[alice.id] != advised[bob.id], "the turn bet is each seat's own"
            for player in (alice, bob):
                assert player.reply({"type": "decide", "action": "check"})["type"] == "you"
            alice.until(lambda m: m["type"] == "you" and m["phase"] == "pause")
            assert _advice(alice, "texas-fast").json()["error"] == "no_decision"
            reveal = alice.until(is_table("reveal"))
            hidden = set(reveal["dealer_cards"]) | set(reveal["board"][len(turn["board"]):])
            assert len(hidden) == 3
            for text in answers:  # the dealer's cards and the river were in no answer
                assert not any(f"\"{card}\"" in text for card in hidden), (hidden, text)
        finally:
            alice.close()
            bob.close()
