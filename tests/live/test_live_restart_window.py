"""Issue 16, item 9: a decision whose deadline passed while the server was down gives the players a
fresh decision window after the restart (not the timer's decision at once), and the round's
record says why. The server is stopped and started again on the same database, its clock moved
past the deadline meanwhile; the player (on the WebSocket, as the page is) decides in the fresh window.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from tests.live.conftest import LivePlayer, ManualClock, is_table, live_server

from dealerpoker.fairness.verify_live import verify_live_record

DECISION = 30.0


@pytest.mark.slow
def test_a_decision_deadline_passed_while_down_gives_a_fresh_window(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/restart.db"
    clock = ManualClock()
    with live_server(url, clock=clock, betting=60, decision=DECISION, pause=60) as (base, _app):
        player = LivePlayer(base, "texas-fast")
        window = player.until(is_table("betting_open"))
        assert player.reply({"type": "bet", "bets": {"ante": 100}})["type"] == "you"
        clock.reach(window)
        timer = player.until(lambda m: is_table("decision")(m) and m["point"] == "preflop")
        missed = timer["deadline"]
        player.close()
    # The server is down while the pre-flop deadline passes (by 100 s).
    later = ManualClock(datetime.fromtimestamp(missed, UTC) + timedelta(seconds=100))
    with live_server(url, clock=later, betting=60, decision=DECISION, pause=60) as (base, _app):
        again = LivePlayer(base, "texas-fast", same_as=player)
        state = again.until(lambda m: m["type"] == "table" and m.get("phase") == "decision")
        assert state["point"] == "preflop"
        assert state["deadline"] == pytest.approx(later.seconds() + DECISION), "a fresh window"
        seat = again.until(lambda m: m["type"] == "you" and m.get("seat") is not None)["seat"]
        assert seat["steps"] == [] and "bet" in seat["legal_actions"], "the timer did not decide"
        assert again.reply({"type": "decide", "action": "bet"})["type"] == "you"
        for point in ("flop", "turn"):  # the timer checks on the flop and the turn
            later.reach(again.until(lambda m, p=point: is_table("decision")(m) and m["point"] == p))
        settled = again.until(lambda m: m["type"] == "you" and m.get("record"))
        record = httpx.get(f"{base}{settled['record']}", headers=again.headers).json()
        again.close()
        (restart,) = record["restarts"]
        assert restart["point"] == "preflop"
        assert restart["deadline_missed_at"] < restart["reopened_at"]
        assert "server was down" in restart["reason"]
        first = record["seats"][0]["actions"][0]
        assert (first["point"], first["action"], first["source"]) == ("preflop", "bet", "player")
        failed = [finding for finding in verify_live_record(record) if not finding.ok]
        assert not failed, failed
