"""The live monitor (issue 18, page 1) against live tables on a hand-moved clock: a table's phase,
round, seated and betting players and stakes; its live updates through the fan-out; an admin's
pause after the round (no new round opens), the timers of the next round, resume; the house
result of the last rounds against the ledger; a support member's 403."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from tests.live.conftest import WAIT, LivePlayer, ManualClock, TableSocket, is_table, live_server
from tests.support.waiting import until

from .web_support import PASSWORD, BackOffice


class Staff:
    def __init__(self, base: str, database_url: str, name: str, role: str) -> None:
        office = BackOffice.__new__(BackOffice)
        office.url, office.database_url = base, database_url
        office.member(name, role)
        self.http = httpx.Client(base_url=base, timeout=WAIT)
        signed = self.http.post("/admin/api/session", json={"name": name, "password": PASSWORD})
        signed.raise_for_status()
        self.csrf = signed.json()["csrf"]
        self.cookie = signed.cookies["dp_staff"]

    def table(self, table_id: str) -> dict[str, Any]:
        found = self.http.get("/admin/api/tables").json()["tables"]
        return next(table for table in found if table["id"] == table_id)

    def post(self, path: str, body: Any) -> httpx.Response:
        return self.http.post(path, json=body, headers={"X-CSRF-Token": self.csrf})

    def close(self) -> None:
        self.http.close()


@pytest.mark.slow
def test_the_monitor_shows_a_round_and_an_admin_pauses_retimes_and_resumes_the_table(tmp_path: Any) -> None:
    clock = ManualClock()
    url = f"sqlite:///{tmp_path}/monitor.db"
    with live_server(url, clock=clock) as (base, app):
        admin = Staff(base, url, "ops", "admin")
        support = Staff(base, url, "help", "support")
        monitor = TableSocket(f"ws{base[4:]}/admin/ws/tables/texas-fast",
                              {"Cookie": f"dp_staff={admin.cookie}"})
        player = LivePlayer(base, "texas-fast")
        try:
            start = player.balance()
            window = player.until(is_table("betting_open"))
            assert player.reply({"type": "bet", "bets": {"ante": 100, "bonus": 100}})["type"] == "you"
            shown = admin.table("texas-fast")
            seen = (shown["phase"], shown["round"], shown["seated"], shown["betting"], shown["stakes"])
            assert seen == ("betting", window["round"], 1, 1, 200)
            assert monitor.until(is_table("betting_open"))["round"] == window["round"]  # live, fanned out

            refused = support.post("/admin/api/tables/texas-fast/status", {"status": "paused"})
            assert refused.status_code == 403
            paused = admin.post("/admin/api/tables/texas-fast/status", {"status": "paused"})
            assert paused.status_code == 200 and paused.json()["control"]["status"] == "paused"
            timed = admin.post("/admin/api/tables/texas-fast/timers", {"betting_seconds": 7})
            assert timed.json()["control"]["timers"]["betting_seconds"] == 7
            zero = admin.post("/admin/api/tables/texas-fast/timers", {"betting_seconds": 0})
            assert zero.status_code == 422

            message = window  # the round in play finishes on its timers
            while message.get("event") not in {"settled", "no_bets"}:
                clock.reach(message)
                previous = message["deadline"]
                message = player.until(lambda m, p=previous: m["type"] == "table"
                                       and (m.get("deadline") or 0) > p)
            clock.reach(message)
            clock.advance(60)
            # The runner looks at the back office's control when the pause ends: held, it opens none.
            runner = app.state.live.runners["texas-fast"]
            until(lambda: runner.held == "paused", "the paused table's runner declined a new round")
            assert not any(m.get("event") == "betting_open" and m.get("round") != window["round"]
                           for m in player.received)
            held = admin.table("texas-fast")
            assert held["control"]["status"] == "paused" and held["phase"] == "pause"
            house = held["last_results"][0]
            assert house["number"] == window["number"] and house["house"] == start - player.balance()

            admin.post("/admin/api/tables/texas-fast/status", {"status": "open"})
            clock.wake()
            reopened = player.until(lambda m: is_table("betting_open")(m) and m["round"] != window["round"])
            assert reopened["deadline"] - clock.seconds() == 7  # the new timer, from this round on
            entries = admin.http.get("/admin/api/audit").json()["entries"]
            assert [e["action"] for e in entries[:3]] == ["table.status", "table.timers", "table.status"]
            assert json.dumps(monitor.received).count("player_cards") > 0
        finally:
            player.close()
            monitor.close()
            admin.close()
            support.close()


def test_a_monitor_socket_without_a_staff_session_is_closed(tmp_path: Any) -> None:
    with live_server(f"sqlite:///{tmp_path}/monitor.db") as (base, _app):
        socket = TableSocket(f"ws{base[4:]}/admin/ws/tables/texas-fast", None)
        try:
            socket.next(timeout=10)
            raise AssertionError("a message without a session")
        except Exception as error:  # the server closed it (4401)
            assert "4401" in str(error), error
        finally:
            socket.close()
