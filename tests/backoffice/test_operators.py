"""The back office and the operators (issue 18 on top of issue 14): the rounds search by operator
and by the operator's own player id, a round's page with its wallet transactions and calls, and a
player found by operator and shown with their operator, limits and restriction.

The operator's player and its wallet rows are written here as the operators module writes them
(``operator_players``, ``wallet_transactions``, ``wallet_calls``): the search and the page only
read them, so no operator process is needed."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest
from sqlalchemy import insert
from tests.server.conftest import Player, play_out

from dealerpoker.server.accounts import REMOTE_KIND
from dealerpoker.server.schema import accounts, operator_players, players, wallet_calls, wallet_transactions

from .support import StaffMember

AT = "2026-01-01T00:00:00.000000Z"


def write(client: Any, *statements: Any) -> None:
    services = client.app.state.services

    async def run() -> None:
        async with services.database.transaction() as connection:
            for statement in statements:
                await connection.execute(statement)

    client.portal.call(run)


def of_operator(client: Any, player: Player, operator: str, external: str) -> None:
    """``player``'s account belongs to ``operator``'s player ``external``."""
    write(client, insert(operator_players).values(
        operator_id=operator, external_id=external, currency="EUR", mode="real", player_id=player.id,
        token=None, created_at=AT, updated_at=AT))


def operator_id() -> str:
    """An operator id of this test alone (the PostgreSQL database is shared by a module's tests)."""
    return f"acme-{secrets.token_hex(4)}"


def settled(player: Player) -> str:
    return str(play_out(player, player.open("texas-bonus", ante=100))[-1]["id"])


def test_the_search_finds_the_rounds_of_an_operator_and_of_its_player(client: Any) -> None:
    alice, bob, demo = Player(client), Player(client), Player(client)
    acme = operator_id()
    of_operator(client, alice, acme, "alice-7")
    of_operator(client, bob, acme, "bob-9")
    alice_round, bob_round, demo_round = settled(alice), settled(bob), settled(demo)
    support = StaffMember(client, f"ops-{secrets.token_hex(3)}", "support")

    def ids(**params: Any) -> set[str]:
        answer = support.get("/admin/api/rounds", **params)
        assert answer.status_code == 200, answer.text
        return {row["round_id"] for row in answer.json()["rounds"]}

    assert ids(operator=acme) == {alice_round, bob_round}
    shown = {row["round_id"]: (row["operator"], row["operator_player"])
             for row in support.get("/admin/api/rounds", limit=200).json()["rounds"]}
    assert shown[alice_round] == (acme, "alice-7") and shown[bob_round] == (acme, "bob-9")
    assert shown[demo_round] == ("embedded", None)
    embedded = ids(operator="embedded", limit=200)
    assert demo_round in embedded and not embedded & {alice_round, bob_round}
    assert ids(operator=acme, operator_player="bob-9") == {bob_round}
    assert ids(operator=acme, operator_player="nobody") == set()
    assert ids(operator="other") == set()
    assert demo_round in ids() and ids(operator=acme, player=alice.id) == {alice_round}
    refused = support.get("/admin/api/rounds", operator_player="bob-9")
    assert refused.status_code == 422 and "operator" in refused.json()["message"]
    refused = support.get("/admin/api/rounds", operator="embedded", operator_player="bob-9")
    assert refused.status_code == 422 and "no operator's id" in refused.json()["message"]


@pytest.mark.parametrize("role", ["admin", "support", "auditor"])
def test_a_rounds_page_shows_its_wallet_calls_beside_its_ledger(client: Any, role: str) -> None:
    player, demo = Player(client), Player(client)
    acme = operator_id()
    of_operator(client, player, acme, "alice-7")
    round_id, demo_round = settled(player), settled(demo)
    transaction = f"{acme}:{round_id}:bet"
    write(client,
          insert(wallet_transactions).values(
              transaction_id=transaction, operator_id=acme, player_id=player.id, currency="EUR", kind="bet",
              amount=100, round_id=round_id, game="texas-bonus", round_closed=0, txid=f"{round_id}:0",
              status="confirmed", attempts=1, last_answer="OK", balance=9_900, created_at=AT, updated_at=AT),
          insert(wallet_calls).values(
              transaction_id=transaction, call="bet", request=json.dumps({"amount": 100, "round": round_id}),
              http_status=200, answer='{"status": "OK", "balance": 9900}', at=AT, duration_ms=12))
    member = StaffMember(client, f"ops-{role}-{secrets.token_hex(3)}", role)
    assert [r["round_id"] for r in member.get("/admin/api/rounds", operator=acme, status="credit_pending")
            .json()["rounds"]] == []  # its bet is confirmed and no win is owed
    page = member.get("/admin/api/round", id=round_id).json()
    assert page["ledger"] and page["wallet"]["credit_pending"] is False
    assert [t["transaction_id"] for t in page["wallet"]["transactions"]] == [transaction]
    call = page["wallet"]["calls"][0]
    assert call["call"] == "bet" and call["request"] == {"amount": 100, "round": round_id}
    assert call["http_status"] == 200 and call["duration_ms"] == 12
    assert member.get("/admin/api/round", id=demo_round).json()["wallet"] is None


@pytest.mark.parametrize("role", ["admin", "support", "auditor"])
def test_a_player_is_found_by_operator_and_shows_it_with_their_limits(client: Any, role: str) -> None:
    player, demo = Player(client), Player(client)
    acme = operator_id()
    of_operator(client, player, acme, "carol-3")
    member = StaffMember(client, f"ops-{role}-{secrets.token_hex(3)}", role)
    found = member.get("/admin/api/players", operator=acme, operator_player="carol-3")
    assert found.status_code == 200, found.text
    assert found.json()["accounts"] == [{"player_id": player.id, "currency": "EUR", "mode": "real"}]
    assert member.get("/admin/api/players", operator=acme, operator_player="nobody").status_code == 404
    assert member.get("/admin/api/players", operator=acme).status_code == 422
    page = member.get(f"/admin/api/players/{player.id}").json()
    assert page["operator"] == {"operator": acme, "operator_player": "carol-3", "mode": "real"}
    assert set(page["responsible_gaming"]["limits"]["loss_day"]) >= {"applies", "player", "operator"}
    assert page["responsible_gaming"]["restriction"] is None
    assert member.get(f"/admin/api/players/{demo.id}").json()["operator"] is None


def test_a_players_page_shows_the_operators_limits_and_restriction(client: Any) -> None:
    player = Player(client)
    acme = operator_id()
    of_operator(client, player, acme, "dave-1")
    responsible = client.app.state.services.responsible

    by = f"operator:{acme}"

    async def restrict() -> None:
        await responsible.set_limits(player.id, {"stake_day": 5_000}, source="operator", by=by)
        await responsible.restrict(player.id, "cool_off", None, by=by, reason="asked for it")

    client.portal.call(restrict)
    auditor = StaffMember(client, f"ops-aud-{secrets.token_hex(3)}", "auditor")
    rg = auditor.get(f"/admin/api/players/{player.id}").json()["responsible_gaming"]
    assert rg["limits"]["stake_day"]["operator"] == 5_000 and rg["limits"]["stake_day"]["applies"] == 5_000
    assert rg["restriction"]["kind"] == "cool_off"


def test_an_operators_real_money_player_is_shown_and_never_adjusted_here(client: Any) -> None:
    """Such an account (``o_...``, kind "remote", as a real launch opens it) keeps no money here:
    the page shows the balance the operator's wallet last answered, and an adjustment is refused."""
    acme, player_id = operator_id(), f"o_{secrets.token_hex(8)}"
    write(client,
          insert(accounts).values(id=player_id, kind=REMOTE_KIND, balance=7_300, currency="EUR",
                                  created_at=AT),
          insert(players).values(id=player_id, token_hash=secrets.token_hex(32), client_seed="seed", nonce=0,
                                 created_at=AT),
          insert(operator_players).values(operator_id=acme, external_id="erin-5", currency="EUR", mode="real",
                                          player_id=player_id, token=None, created_at=AT, updated_at=AT))
    admin = StaffMember(client, f"ops-adm-{secrets.token_hex(3)}", "admin")
    page = admin.get(f"/admin/api/players/{player_id}")
    assert page.status_code == 200, page.text
    assert page.json()["account"]["wallet"] == "operator" and page.json()["account"]["balance"] == 7_300
    assert page.json()["operator"] == {"operator": acme, "operator_player": "erin-5", "mode": "real"}
    refused = admin.post(f"/admin/api/players/{player_id}/adjustments", {"amount": 500, "reason": "goodwill"})
    assert refused.status_code == 422 and "operator's wallet" in refused.json()["message"]
    assert admin.get(f"/admin/api/players/{player_id}").json()["account"]["balance"] == 7_300
    assert admin.get("/admin/api/audit", action="player.adjust", actor=admin.name).json()["entries"] == []


def test_the_search_finds_the_rounds_whose_win_is_still_owed(client: Any) -> None:
    player = Player(client)
    acme = operator_id()
    of_operator(client, player, acme, "hal-2")
    owed, paid = settled(player), settled(player)
    for round_id, status in ((owed, "pending"), (paid, "confirmed")):
        write(client, insert(wallet_transactions).values(
            transaction_id=f"{acme}:{round_id}:win", operator_id=acme, player_id=player.id, currency="EUR",
            kind="win", amount=200, round_id=round_id, game="texas-bonus", round_closed=1,
            txid=f"{round_id}:win", status=status, attempts=1, last_answer=None, balance=None, created_at=AT,
            updated_at=AT))
    support = StaffMember(client, f"ops-owed-{secrets.token_hex(3)}", "support")
    found = support.get("/admin/api/rounds", operator=acme, status="credit_pending")
    assert found.status_code == 200, found.text
    assert [row["round_id"] for row in found.json()["rounds"]] == [owed]
    assert support.get("/admin/api/round", id=owed).json()["wallet"]["credit_pending"] is True
    assert support.get("/admin/api/rounds", status="credit").status_code == 422
