"""Issue 16, item 9: a decision whose deadline passed while the server was down gives the players a
fresh decision window after the restart (not the timer's decision at once), and the round's
record says why. The server is stopped and started again on the same database, its clock moved
past the deadline meanwhile; the player's page sees the fresh countdown and decides in it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.live.conftest import LivePlayer, ManualClock, is_table, live_server
from tests.live.issue16_support import page_maker

from dealerpoker.fairness.verify_live import verify_live_record

pytestmark = pytest.mark.browser

DECISION = 30.0


@pytest.fixture
def pages(browser: Any) -> Iterator[Any]:
    with page_maker(browser) as make:
        yield make


def test_item_9_a_decision_deadline_passed_while_down_gives_a_fresh_window(tmp_path: Path,
                                                                          pages: Any) -> None:
    url = f"sqlite:///{tmp_path}/restart.db"
    clock = ManualClock()
    with live_server(url, clock=clock, betting=60, decision=DECISION, pause=60) as (base, _app):
        player = LivePlayer(base, "texas-fast")
        window = player.until(is_table("betting_open"))
        assert player.reply({"type": "bet", "bets": {"ante": 100}})["type"] == "you"
        clock.reach(window)
        timer = player.until(lambda m: is_table("decision")(m) and m["point"] == "preflop")
        token, missed = player.token, timer["deadline"]
        player.close()
    # The server is down while the pre-flop deadline passes (by 100 s).
    later = ManualClock(datetime.fromtimestamp(missed, UTC) + timedelta(seconds=100))
    with live_server(url, clock=later, betting=60, decision=DECISION, pause=60) as (base, _app):
        (page,) = pages()
        page.goto(f"{base}/live.html#/")  # no table chosen: the page starts no session of its own
        page.evaluate("token => localStorage.setItem('dealerpoker.token', token)", token)
        page.goto(f"{base}/live.html#/texas-fast")
        page.reload()  # a new hash alone loads nothing
        page.locator('#decisions [data-action="bet"]').wait_for()
        state = page.evaluate("window.dealerpokerLive.state")
        assert state["phase"] == "decision" and state["point"] == "preflop"
        assert state["deadline"] == pytest.approx(later.seconds() + DECISION), "a fresh window"
        page.wait_for_function("Number(document.querySelector('#countdown').textContent) > 25")
        assert page.evaluate("window.dealerpokerLive.seat.steps") == [], "the timer did not decide"
        page.locator('#decisions [data-action="bet"]').click()
        page.wait_for_function("window.dealerpokerLive.seat?.pending === 'bet'")
        for _ in range(2):  # the timer checks on the flop and the turn
            page.wait_for_function("window.dealerpokerLive.state.phase === 'decision'"
                                   " && window.dealerpokerLive.state.point !== 'preflop'")
            point = page.evaluate("window.dealerpokerLive.state.point")
            later.reach({"deadline": page.evaluate("window.dealerpokerLive.state.deadline")})
            page.wait_for_function("p => window.dealerpokerLive.state.point !== p", arg=point)
        page.locator("#result").wait_for(state="visible")
        record_url = page.evaluate("window.dealerpokerLive.recordUrl")
        record = httpx.get(f"{base}{record_url}", headers={"Authorization": f"Bearer {token}"}).json()
        (restart,) = record["restarts"]
        assert restart["point"] == "preflop"
        assert restart["deadline_missed_at"] < restart["reopened_at"]
        assert "server was down" in restart["reason"]
        first = record["seats"][0]["actions"][0]
        assert (first["point"], first["action"], first["source"]) == ("preflop", "bet", "player")
        failed = [finding for finding in verify_live_record(record) if not finding.ok]
        assert not failed, failed
        page.close()  # before the server stops: no reconnection attempt
