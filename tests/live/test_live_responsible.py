"""A live table refuses the bets of a player whose limits they would break, or who holds another
currency than the table's, before it accepts them (issue 17): nothing is seated or debited."""

from __future__ import annotations

import httpx
from tests.live.conftest import LONG_SESSIONS, LivePlayer, ManualClock, is_table, live_server


def test_a_live_bet_is_refused_by_the_players_limit_and_by_another_currency(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=ManualClock()) as (base, _app):
        alice = LivePlayer(base, "casino-fast")
        yen = LivePlayer(base, "casino-fast", currency="JPY")
        try:
            limited = httpx.put(f"{base}/api/responsible-gaming/limits", json={"loss_day": 250},
                                headers=alice.headers)
            assert limited.status_code == 200
            alice.until(is_table("betting_open"))
            refused = alice.reply({"type": "bet", "bets": {"ante": 100}})  # could lose 300 (ante + raise)
            assert (refused["type"], refused["error"], refused["reason"]) == (
                "error", "responsible_gaming", "loss_day")
            assert refused["key"] == "error.rg.loss_day" and refused["params"]["left"] == 250
            other = yen.reply({"type": "bet", "bets": {"ante": 100}})
            assert (other["error"], other["key"]) == ("wrong_currency", "error.wrong_currency")
            assert other["params"] == {"table_currency": "EUR", "currency": "JPY"}
            assert alice.reply({"type": "bet", "bets": {"ante": 100, "aa": 0}})["type"] == "error"
            for player in (alice, yen):
                assert httpx.get(f"{base}/api/balance", headers=player.headers).json()["balance"] == 100_000
            assert not any(m["type"] == "you" and m.get("seat") for m in alice.received + yen.received)
        finally:
            alice.close()
            yen.close()


def test_the_profiles_pace_and_reality_check_hold_live_bets(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The deployment's profile at a live table: a bet before the reality check is answered, or
    sooner after the player's last round than the least time between rounds, is refused with its
    reason; answered, or later, it is taken."""
    from dealerpoker.server.responsible import Profile

    clock = ManualClock()
    profile = Profile(reality_check_minutes=30, min_round_seconds=3600, session_gap_minutes=120)
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=clock, betting=60, decision=60, pause=60,
                     responsible_gaming=profile, **LONG_SESSIONS) as (base, _app):
        alice = LivePlayer(base, "casino-fast")
        try:
            window = alice.until(is_table("betting_open"))
            assert alice.reply({"type": "bet", "bets": {"ante": 100}})["type"] == "you"  # the session starts
            clock.reach(window)
            clock.reach(alice.until(is_table("decision")))  # the timer folds for alice: her round ends
            settled = alice.until(is_table("settled"))
            clock.reach(settled)
            alice.until(is_table("betting_open"))
            too_fast = alice.reply({"type": "bet", "bets": {"ante": 100}})
            assert (too_fast["type"], too_fast["reason"]) == ("error", "too_fast")
            assert too_fast["key"] == "error.rg.too_fast"
            clock.advance(3600)  # an hour on: the pace allows a round, the reality check is due
            clock.reach(alice.until(is_table("no_bets")))  # that window closed empty; the pause ends
            alice.until(is_table("betting_open"))
            due = alice.reply({"type": "bet", "bets": {"ante": 100}})
            assert (due["type"], due["reason"]) == ("error", "reality_check")
            answered = httpx.post(f"{base}/api/responsible-gaming/reality-check", json={"choice": "continue"},
                                  headers=alice.headers)
            assert answered.status_code == 200
            assert alice.reply({"type": "bet", "bets": {"ante": 100}})["type"] == "you"
        finally:
            alice.close()
