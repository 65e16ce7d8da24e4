"""A live table refuses the bets of a player whose limits they would break, or who holds another
currency than the table's, before it accepts them (issue 17): nothing is seated or debited."""

from __future__ import annotations

import httpx
from tests.live.conftest import LivePlayer, ManualClock, is_table, live_server


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
