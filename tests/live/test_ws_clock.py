"""The dealer's clock at the WebSocket: defaults on timer expiry, no more bets, an empty table,
joining mid-round, disconnecting and reconnecting.

The table clock is a ``ManualClock``: a timer ends only when the test moves the clock to its
deadline, and the tests then wait for the messages that must follow (no fixed sleeps).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.live.conftest import (
    CASINO_RAISES,
    LONG_SESSIONS,
    LivePlayer,
    ManualClock,
    is_seat,
    is_table,
    live_server,
)
from tests.support.waiting import until

ANTE = 100


def _summary(base: str, player: LivePlayer, table: str) -> dict[str, Any]:
    response = httpx.get(f"{base}/api/tables/{table}", headers=player.headers, timeout=60)
    assert response.status_code == 200, response.text
    summary: dict[str, Any] = response.json()
    return summary


def _steps(seat: dict[str, Any]) -> list[tuple[str, str, str, int]]:
    return [(s["point"], s["action"], s["source"], s["stake"]) for s in seat["steps"]]


def _point(name: str) -> Any:
    return lambda m: is_table("decision")(m) and m["point"] == name


@pytest.mark.parametrize(("table", "decisions", "expected"), [
    ("texas-fast", {}, [("preflop", "fold", "timeout", 0)]),
    ("texas-fast", {"preflop": "bet"},
     [("preflop", "bet", "player", 2 * ANTE), ("flop", "check", "timeout", 0),
      ("turn", "check", "timeout", 0)]),
    ("casino-fast", {}, [("flop", "fold", "timeout", 0)]),
    ("casino-raise", {}, [("flop", "raise", "timeout", 2 * ANTE)]),  # the configurable alternative
], ids=["texas-fold-preflop", "texas-check-flop-and-turn", "casino-fold", "casino-raise-configured"])
def test_timer_expiry_applies_each_default_action(tmp_path, table: str, decisions: dict[str, str],  # type: ignore[no-untyped-def]
                                                  expected: list[tuple[str, str, str, int]]) -> None:
    clock = ManualClock()
    url = f"sqlite:///{tmp_path}/live.db"
    with live_server(url, clock=clock, extra_tables=CASINO_RAISES) as (base, _app):
        player = LivePlayer(base, table)
        try:
            start = player.balance()
            window = player.until(is_table("betting_open"))
            assert player.reply({"type": "bet", "bets": {"ante": ANTE}})["seat"]["bets"] == {"ante": ANTE}
            clock.reach(window)
            while True:
                event = player.until(lambda m: is_table("decision")(m) or is_table("reveal")(m))
                if event["event"] == "reveal":
                    break
                if event["point"] in decisions:
                    reply = player.reply({"type": "decide", "action": decisions[event["point"]]})
                    assert reply["type"] == "you", reply
                else:  # say nothing: the timer decides
                    clock.reach(event)
            settled = player.until(lambda m: m["type"] == "you" and m["phase"] == "pause")["seat"]
            assert _steps(settled) == expected
            assert settled["total_stake"] == ANTE + sum(step[3] for step in expected)
            assert player.balance() == start + settled["settlement"]["net"]
            if expected[-1][1] == "fold":
                assert settled["settlement"]["net"] == -ANTE
        finally:
            player.close()


def test_bets_after_no_more_bets_are_refused_and_nothing_is_debited(tmp_path) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock()
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=clock) as (base, _app):
        alice, bob = LivePlayer(base, "texas-fast"), LivePlayer(base, "texas-fast")
        try:
            start = {p.id: p.balance() for p in (alice, bob)}
            window = alice.until(is_table("betting_open"))
            assert alice.reply({"type": "bet", "bets": {"ante": ANTE}})["type"] == "you"
            # The deadline has passed, the table has not closed the window yet: refused all the same.
            clock.reach(window, wake=False)
            for player, bets in ((bob, {"ante": ANTE}), (alice, {"ante": 5 * ANTE}), (alice, {})):
                refused = player.reply({"type": "bet", "bets": bets})
                assert (refused["type"], refused["error"]) == ("error", "no_more_bets"), refused
                assert "no more bets" in refused["message"]
            clock.wake()
            alice.until(is_table("no_more_bets"))
            alice.until(is_table("decision"))
            refused = alice.reply({"type": "bet", "bets": {"ante": 5 * ANTE}})  # during the decision
            assert (refused["type"], refused["error"]) == ("error", "no_more_bets")
            seat = alice.reply({"type": "hello"})["seat"]
            assert seat["bets"] == {"ante": ANTE} and seat["total_stake"] == ANTE
            assert alice.balance() == start[alice.id] - ANTE  # only the bet placed in time
            assert bob.balance() == start[bob.id]
            assert bob.reply({"type": "hello"})["seat"] is None
        finally:
            alice.close()
            bob.close()


def test_a_table_nobody_watches_idles_and_a_window_without_bets_deals_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock()
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=clock, **LONG_SESSIONS) as (base, _app):
        outsider = LivePlayer(base, "casino-fast")  # watches the other table: its REST token is used
        try:
            clock.advance(3600)
            assert _summary(base, outsider, "texas-fast")["phase"] == "idle"
            watcher = LivePlayer(base, "texas-fast")
            first = watcher.until(is_table("betting_open"))  # someone came: the first window opens
            assert first["round"] == "texas-fast/1"
            clock.reach(first)  # nobody bet
            empty = watcher.until(is_table("no_bets"))
            assert (empty["phase"], empty["seated"]) == ("pause", 0)
            assert empty["player_cards"] == empty["board"] == []
            clock.reach(empty)
            second = watcher.until(is_table("betting_open"))  # an empty round still advances
            assert second["round"] == "texas-fast/2"
            watcher.close()
            until(lambda: _summary(base, outsider, "texas-fast")["players"] == 0, "the watcher left")
            for _hour in range(5):  # hours pass with nobody at the table
                clock.advance(3600)
            def closed() -> dict[str, Any] | None:
                summary = _summary(base, outsider, "texas-fast")
                return summary if summary["phase"] == "pause" else None

            assert until(closed, "round 2 closed without bets")["round"] == "texas-fast/2"
            clock.advance(3600)
            back = LivePlayer(base, "texas-fast")
            try:
                # Round 2 closed, and no window opened while nobody watched: the next is round 3.
                assert back.until(is_table("betting_open"))["round"] == "texas-fast/3"
            finally:
                back.close()
        finally:
            outsider.close()


def test_a_player_joining_mid_round_waits_for_the_next_round(tmp_path) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock()
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=clock) as (base, _app):
        alice = LivePlayer(base, "texas-fast")
        carol: LivePlayer | None = None
        try:
            window = alice.until(is_table("betting_open"))
            alice.reply({"type": "bet", "bets": {"ante": ANTE}})
            clock.reach(window)
            dealt = alice.until(is_table("decision"))
            carol = LivePlayer(base, "texas-fast")
            start = carol.balance()
            assert carol.next()["type"] == "welcome"
            state = carol.until(lambda m: m["type"] == "table")
            assert (state["round"], state["phase"], state["player_cards"]) == (
                dealt["round"], "decision", dealt["player_cards"])
            assert carol.until(lambda m: m["type"] == "you")["seat"] is None  # watching, not playing
            assert carol.reply({"type": "bet", "bets": {"ante": ANTE}})["error"] == "no_more_bets"
            assert carol.reply({"type": "decide", "action": "bet"})["error"] == "not_seated"
            assert alice.reply({"type": "decide", "action": "fold"})["type"] == "you"  # ends the round now
            pause = carol.until(is_table("settled"))
            assert pause["round"] == dealt["round"]
            clock.reach(pause)
            following = carol.until(is_table("betting_open"))
            assert following["number"] == dealt["number"] + 1
            placed = carol.reply({"type": "bet", "bets": {"ante": ANTE}})
            assert placed["round"] == following["round"] and placed["seat"]["bets"] == {"ante": ANTE}
            assert carol.balance() == start  # debited only when this window closes
        finally:
            alice.close()
            if carol is not None:
                carol.close()


def test_a_disconnected_player_keeps_their_bets_gets_the_defaults_and_sees_the_round_again(tmp_path) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock()
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=clock) as (base, _app):
        alice, bob, carol = (LivePlayer(base, "texas-fast") for _ in range(3))
        players = [alice, bob, carol]
        try:
            start = {p.id: p.balance() for p in players}
            window = alice.until(is_table("betting_open"))
            for player in players:
                assert player.reply({"type": "bet", "bets": {"ante": ANTE}})["type"] == "you"
            carol.close()  # gone before "no more bets": her bets stay, the timer folds for her
            clock.reach(window)
            preflop = alice.until(is_table("decision"))
            assert carol.balance() == start[carol.id] - ANTE  # debited at the close all the same
            for player in (alice, bob):
                assert player.reply({"type": "decide", "action": "bet"})["seat"]["pending"] == "bet"
            clock.reach(preflop)  # carol's pre-flop timer ends
            bob.close()  # gone during the flop: the timer checks for him
            flop = alice.until(_point("flop"))
            clock.reach(flop)
            turn = alice.until(_point("turn"))

            bob = players[1] = LivePlayer(base, "texas-fast", same_as=bob)  # back during the turn
            assert bob.next()["type"] == "welcome"
            state = bob.until(lambda m: m["type"] == "table")
            assert {k: state[k] for k in ("round", "phase", "point", "player_cards", "board")} == {
                k: turn[k] for k in ("round", "phase", "point", "player_cards", "board")}
            assert len(state["board"]) == 4 and state["dealer_cards"] == []
            seat = bob.until(lambda m: m["type"] == "you")["seat"]
            assert _steps(seat) == [("preflop", "bet", "player", 2 * ANTE), ("flop", "check", "timeout", 0)]
            assert seat["legal_actions"] == ["bet", "check"] or seat["legal_actions"] == ["check", "bet"]
            bob.close()  # and gone again: the turn's timer checks for him too
            clock.reach(turn)
            alice.until(is_table("reveal"))
            final = alice.until(lambda m: m["type"] == "you" and m["phase"] == "pause")
            assert final["round"] == turn["round"]

            bob = players[1] = LivePlayer(base, "texas-fast", same_as=bob)
            carol = players[2] = LivePlayer(base, "texas-fast", same_as=carol)
            mine = {p.id: p.until(is_seat())["seat"] for p in (bob, carol)}
            assert _steps(mine[bob.id]) == [("preflop", "bet", "player", 2 * ANTE),
                                            ("flop", "check", "timeout", 0), ("turn", "check", "timeout", 0)]
            assert _steps(mine[carol.id]) == [("preflop", "fold", "timeout", 0)]
            assert bob.balance() == start[bob.id] + mine[bob.id]["settlement"]["net"]
            assert carol.balance() == start[carol.id] - ANTE
        finally:
            for player in players:
                player.close()
