"""Abandoned rounds are completed with the timer's defaults; open rounds survive a restart."""

from __future__ import annotations

import pytest

from conftest import FakeClock, Player, audit, make_client


def test_abandoned_rounds_are_completed_with_default_actions(database_url: str, clock: FakeClock) -> None:
    with make_client(database_url, clock, abandon_after_seconds=600) as client:
        player = Player(client)
        services = client.app.state.services
        assert client.portal is not None
        texas = player.open("texas-bonus", ante=100)
        texas = player.act(texas["id"], "bet")           # now on the flop: the default is check
        casino = player.open("casino-holdem", ante=100)  # the default is fold
        clock.advance(599)
        client.portal.call(services.rounds.complete_abandoned)
        # (Counts are not asserted: on PostgreSQL other tests' rounds share the database.)
        assert len(player.get("/api/rounds", status="open").json()["rounds"]) == 2
        fresh = player.open("casino-holdem", ante=100)
        clock.advance(2)
        assert client.portal.call(services.rounds.complete_abandoned) >= 2
        done = player.get(f"/api/rounds/{texas['id']}").json()
        assert done["status"] == "settled"
        assert [(s["action"], s["source"]) for s in done["steps"][2:]] == [("check", "timer")] * 2
        folded = player.get(f"/api/rounds/{casino['id']}").json()
        assert folded["settlement"]["outcome"] == "fold" and folded["steps"][1]["source"] == "timer"
        assert player.get(f"/api/rounds/{fresh['id']}").json()["status"] == "open"
        assert [r["id"] for r in player.get("/api/rounds", status="open").json()["rounds"]] == [fresh["id"]]
        assert audit(client).ok


def test_an_open_round_is_resumed_after_a_restart(tmp_path: pytest.TempPathFactory) -> None:
    url = f"sqlite:///{tmp_path}/casino.db"
    with make_client(url) as client:
        player = Player(client)
        view = player.act(player.open("texas-bonus", ante=100)["id"], "bet")
        token = player.token
    with make_client(url) as client:
        headers = {"Authorization": f"Bearer {token}"}
        open_rounds = client.get("/api/rounds", params={"status": "open"}, headers=headers).json()["rounds"]
        assert [r["id"] for r in open_rounds] == [view["id"]] and open_rounds[0] == view
        resumed = client.post(f"/api/rounds/{view['id']}/actions", json={"action": "check", "step": 2},
                              headers=headers)
        assert resumed.status_code == 200 and resumed.json()["board"][:3] == view["board"]
        assert audit(client).ok
