"""The issue's must-show for free bets (issue 30), against the reference operator as a process
with injected faults (10% failed, 5% timed out, 5% committed but the answer lost): a campaign
created and granted through the casino's own back office (``operator-demo``'s
``/admin/campaigns``, forwarded signed), every free round played to the end while ``dealerpoker
serve`` is killed with SIGKILL and started again on the same database. Then: no free round was
played twice (each reward's rounds opened once, each round's win applied once), every free
round's win reached the operator flagged promotional and was booked apart, the free ante was
never debited, and both ledgers agree to the cent (each balance, and the operator's
reconciliation)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from tests.server.test_operators_faults import START, Casino, Player, casino
from tests.support.waiting import until

__all__ = ["casino"]  # the fixture: the reference operator with faults, and serve on each database

FREE_ROUNDS = 4
PLAYERS = 4


class FreePlayer(threading.Thread):
    """Plays every free round granted to it (asking ``GET /api/free-rounds``), each opened with an
    idempotency key so that a request lost in the server's death is answered by its round."""

    settled = 0
    lock = threading.Lock()

    def __init__(self, casino: Casino, name: str) -> None:
        super().__init__(daemon=True)
        self.casino, self.name_ = casino, name
        self.caller = Player(casino, name)  # its session, and its requests that ride out faults
        self.rounds: list[dict[str, Any]] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            number = 0
            while True:
                offers = self.caller.send("GET", "/api/free-rounds").json()["free_rounds"]
                if not offers:
                    return
                number += 1
                game = "texas-bonus" if number % 2 else "casino-holdem"
                side = {"bonus": 100} if game == "texas-bonus" else {"aa": 100}
                opened = self.caller.send("POST", "/api/rounds", {
                    "game": game, "bets": side, "free_round": offers[0]["reward"],
                    "idempotency_key": f"{self.name_}-free-{offers[0]['rounds_left']}"})
                assert opened.status_code == 200, opened.text
                view = opened.json()
                while view["status"] == "open":
                    action = self.caller.random.choice(view["legal_actions"])
                    acted = self.caller.send("POST", f"/api/rounds/{view['id']}/actions",
                                             {"action": action, "step": len(view["steps"])})
                    assert acted.status_code == 200, acted.text
                    view = acted.json()
                self.rounds.append(view)
                with FreePlayer.lock:
                    FreePlayer.settled += 1
        except BaseException as error:
            self.error = error


def admin(casino: Casino, method: str, path: str, body: Any = None) -> Any:
    """The casino's back office: dealerpoker's answer, through the reference operator (polled while
    dealerpoker restarts: 502 until it answers)."""
    status, answer = until(lambda: (lambda found: found if found[0] != 502 else None)(
        casino.operator.admin(method, path, body)), f"dealerpoker to answer {method} {path}")
    assert status == 200, answer
    return answer


@pytest.mark.slow
def test_free_rounds_against_the_reference_operator_with_faults_and_a_killed_server(casino: Casino) -> None:
    Player.serving.set()
    players = [FreePlayer(casino, f"free{number}-{time.monotonic_ns()}") for number in range(PLAYERS)]
    campaign = admin(casino, "POST", "/admin/campaigns", {
        "campaign_id": f"xmas-{time.monotonic_ns()}", "games": ["texas-bonus", "casino-holdem"],
        "ante": {"EUR": 100}, "rounds": FREE_ROUNDS, "valid_from": "2020-01-01T00:00:00Z",
        "valid_until": "2100-01-01T00:00:00Z"})
    granted = admin(casino, "POST", f"/admin/campaigns/{campaign['id']}/grants",
                    {"players": [p.name_ for p in players]})["rewards"]
    assert [r["rounds_left"] for r in granted] == [FREE_ROUNDS] * PLAYERS
    FreePlayer.settled = 0
    for player in players:
        player.start()
    until(lambda: FreePlayer.settled >= PLAYERS * FREE_ROUNDS // 2 or not any(p.is_alive() for p in players),
          "half the free rounds settled", timeout=600)
    casino.restart_after_kill()  # kill -9 in the middle of the free rounds
    for player in players:
        player.join(600)
        assert player.error is None, repr(player.error)
    # The outbox drains: every win delivered, every unknown bet rolled back.
    report = until(lambda: (lambda found: None if found["summary"]["EUR"]["pending"]["count"] else found)(
        casino.report()), "nothing pending at the operator", timeout=120, interval=1)

    shown = admin(casino, "GET", f"/admin/campaigns/{campaign['id']}")
    assert shown["rounds_used"] == PLAYERS * FREE_ROUNDS  # each free round opened once
    assert {r["rounds_left"] for r in shown["rewards"]} == {0}
    books = casino.operator.admin("GET", "/admin/books")[1]
    wins = {t["transaction_id"]: t for t in report["transactions"] if t["kind"] == "win"}
    for player in players:
        rounds = player.rounds
        assert len(rounds) == FREE_ROUNDS and len({r["id"] for r in rounds}) == FREE_ROUNDS
        assert all(r["bets"]["ante"] == 100 for r in rounds)
        applied = [t for t in casino.operator.transactions(player.name_) if t["applied"]]
        ids = [t["transaction_id"] for t in applied]
        assert len(ids) == len(set(ids)), "a transaction applied twice"
        assert sum(t["amount"] for t in applied if t["kind"] == "bet" and not t["rolled_back_by"]) == \
            sum(r["total_stake"] for r in rounds)  # the free ante was never debited
        closing = [t for t in applied if t["kind"] == "win" and t["round_closed"]]
        assert sorted(t["round_id"] for t in closing) == sorted(r["id"] for r in rounds)
        assert all(t["promo_campaign"] == campaign["id"] and t["promo_reward"] for t in closing)
        assert all(wins[t["transaction_id"]]["promo"]["campaign_id"] == campaign["id"] for t in closing)
        promo = sum(t["amount"] for t in closing)
        booked = books["players"].get(player.name_, {}).get("EUR", {})
        assert (booked.get("promo_wins", 0), booked.get("promo_count")) == (promo, FREE_ROUNDS)
        net = sum(r["total_returned"] - r["total_stake"] for r in rounds)
        assert casino.operator.balance(player.name_) == START + net, player.name_
    reconciled = admin(casino, "GET", "/admin/reconcile?since=2000-01-01&until=2100-01-01")
    assert reconciled["agree"], reconciled["differences"][:3]
    promo_total = sum(t["amount"] for t in wins.values() if t["promo"] and t["status"] == "done")
    assert report["summary"]["EUR"]["promo_wins"]["amount"] == promo_total
    assert books["campaigns"][campaign["id"]]["EUR"] == promo_total
    faults = casino.operator.admin("GET", "/admin/faults")[1]
    assert sum(faults["counts"].values()) > 0, faults


@pytest.mark.slow
def test_the_casinos_back_office_shows_dealerpokers_refusal(tmp_path: Path) -> None:
    casino = Casino(tmp_path, f"sqlite:///{tmp_path}/dealerpoker.db", "sqlite")
    try:
        casino.operator.set_faults(fail_rate=0, timeout_rate=0, drop_after_commit_rate=0)
        body = {"campaign_id": "one", "games": ["texas-bonus"], "ante": {"EUR": 100}, "rounds": 1,
                "valid_from": "2020-01-01T00:00:00Z", "valid_until": "2100-01-01T00:00:00Z"}
        assert admin(casino, "POST", "/admin/campaigns", body)["external_id"] == "one"
        status, answer = casino.operator.admin("POST", "/admin/campaigns", {**body, "rounds": 2})
        assert status == 409 and "one" in answer["answer"]
        status, answer = casino.operator.admin("GET", "/admin/campaigns/../../launch")
        assert status == 404
        listed = admin(casino, "GET", "/admin/campaigns?status=active")["campaigns"]
        assert [c["external_id"] for c in listed] == ["one"]
    finally:
        casino.stop()
