"""The one search box of a support agent (issue 33): a round id, a player id here or a casino's
own id of its player finds the rounds (and names the players), with no operator filled in; stakes
filtered in one currency."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from tests.server.conftest import Player

from .support import StaffMember
from .test_operators import of_operator, operator_id, settled


def test_one_box_finds_a_round_a_player_or_a_casinos_player(client: Any) -> None:
    alice, demo = Player(client), Player(client)
    acme = operator_id()
    casino_id = f"alice-{secrets.token_hex(3)}"
    of_operator(client, alice, acme, casino_id)
    alice_round, demo_round = settled(alice), settled(demo)
    support = StaffMember(client, f"sup-{secrets.token_hex(3)}", "support")

    def found(text: str) -> tuple[set[str], list[dict[str, Any]]]:
        answer = support.get("/admin/api/rounds", q=text)
        assert answer.status_code == 200, answer.text
        return {row["round_id"] for row in answer.json()["rounds"]}, answer.json()["players"]

    rounds, players = found(casino_id)  # the casino's id alone
    assert rounds == {alice_round}
    named = [(p["player_id"], p["operator"], p["operator_player"]) for p in players]
    assert named == [(alice.id, acme, casino_id)]
    assert found(alice.id)[0] == {alice_round}
    assert found(demo.id) == ({demo_round}, [{"player_id": demo.id, "operator": "embedded",
                                               "operator_player": None, "currency": "EUR", "mode": "demo"}])
    assert found(f" {demo_round} ")[0] == {demo_round}
    assert found("nobody-at-all") == (set(), [])


@pytest.mark.slow
def test_stakes_are_filtered_in_one_currency(client: Any) -> None:
    player = Player(client)
    round_id = settled(player)  # an ante of 1.00 EUR
    support = StaffMember(client, f"sup-{secrets.token_hex(3)}", "support")
    mine = {"player": player.id}
    assert [r["round_id"] for r in support.get("/admin/api/rounds", currency="EUR", min_stake=100,
                                               **mine).json()["rounds"]] == [round_id]
    assert support.get("/admin/api/rounds", currency="USD", **mine).json()["rounds"] == []
