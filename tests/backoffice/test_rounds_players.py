"""The back office's rounds and players (issue 18, pages 2 and 3): the search's filters, a round's
page and its verification, a player's page, and the admin's manual adjustment (a ledger entry of
its own kind, reason mandatory, audited), refused with 403 to the other roles."""

from __future__ import annotations

from typing import Any

import pytest
from tests.server.conftest import Player, audit, play_out

from dealerpoker.server.backoffice.access import PERMISSIONS, ROLES

from .support import StaffMember


def played(client: Any, count: int, **bets: int) -> tuple[Player, list[dict[str, Any]]]:
    player = Player(client)
    bets = bets or {"ante": 100}
    views = [play_out(player, player.open("texas-bonus", **bets))[-1] for _ in range(count)]
    return player, views


def test_the_search_filters_by_player_game_status_stake_and_time(client: Any, clock: Any) -> None:
    first, first_views = played(client, 3)
    clock.advance(3600)
    second, _ = played(client, 2, ante=200)
    open_view = second.open("casino-holdem", ante=100)
    support = StaffMember(client, "sue", "support")

    def ids(**params: Any) -> list[str]:
        answer = support.get("/admin/api/rounds", **params)
        assert answer.status_code == 200, answer.text
        return [row["round_id"] for row in answer.json()["rounds"]]

    assert ids(player=first.id) == [view["id"] for view in reversed(first_views)]
    assert ids(status="open", player=second.id) == [open_view["id"]]
    assert ids(game="casino-holdem", player=second.id) == [open_view["id"]]
    assert open_view["id"] in ids(status="open") and first_views[0]["id"] not in ids(status="open")
    assert len(ids(player=second.id, min_stake=200)) == 2
    assert ids(round=first_views[0]["id"]) == [first_views[0]["id"]]
    assert ids(until="2026-01-01T00:30:00.000000Z", player=first.id) == ids(player=first.id)
    assert ids(since="2026-01-01T00:30:00.000000Z", player=first.id) == []  # all an hour earlier
    assert len(ids(limit=2)) == 2
    rows = support.get("/admin/api/rounds", limit=2, player=second.id).json()["rounds"]
    older = support.get("/admin/api/rounds", before=rows[-1]["created_at"], player=second.id).json()["rounds"]
    assert len(rows) + len(older) == 3 and not {r["round_id"] for r in rows} & {r["round_id"] for r in older}
    refused = support.get("/admin/api/rounds", status="lost")
    assert refused.status_code == 422 and "status" in refused.json()["message"]
    assert support.get("/admin/api/rounds", limt=5).status_code == 422


def test_a_rounds_page_has_its_replay_ledger_and_record_and_verifies(client: Any) -> None:
    player, views = played(client, 1)
    auditor = StaffMember(client, "aud", "auditor")
    page = auditor.get("/admin/api/round", id=views[0]["id"]).json()
    assert page["round"]["player_id"] == player.id and page["replay"]["frames"][0]["step"]["action"] == "deal"
    assert sum(entry["amount"] for entry in page["ledger"]) == 0
    assert page["record"]["round_id"] == views[0]["id"]
    verified = auditor.get("/admin/api/round/verification", id=views[0]["id"]).json()
    assert verified["verified"] is True and verified["findings"]
    assert auditor.get("/admin/api/round", id="r_nothing").status_code == 404


def test_an_open_round_is_not_verified_yet(client: Any) -> None:
    player = Player(client)
    view = player.open("texas-bonus", ante=100)
    admin = StaffMember(client, "adm", "admin")
    answer = admin.get("/admin/api/round/verification", id=view["id"]).json()
    assert answer["verified"] is None


def test_an_admin_adjusts_a_balance_with_a_reason_as_its_own_ledger_entry(client: Any) -> None:
    player = Player(client)
    admin = StaffMember(client, "boss", "admin")
    no_reason = admin.post(f"/admin/api/players/{player.id}/adjustments", {"amount": 500, "reason": " "})
    assert no_reason.status_code == 422 and player.balance() == player.start_balance
    done = admin.post(f"/admin/api/players/{player.id}/adjustments",
                      {"amount": 500, "reason": "goodwill after a dropped connection", "key": "k1"})
    assert done.status_code == 200, done.text
    assert done.json()["txid"] == f"adjustment:{player.id}:k1"
    assert player.balance() == player.start_balance + 500
    again = admin.post(f"/admin/api/players/{player.id}/adjustments",
                       {"amount": 500, "reason": "goodwill after a dropped connection", "key": "k1"})
    assert again.json()["moved"] is False and player.balance() == player.start_balance + 500
    too_much = admin.post(f"/admin/api/players/{player.id}/adjustments",
                          {"amount": -10 * player.start_balance, "reason": "more than there is"})
    assert too_much.status_code == 409 and too_much.json()["error"] == "insufficient_funds"
    assert player.balance() == player.start_balance + 500
    page = admin.get(f"/admin/api/players/{player.id}").json()
    assert page["account"]["balance"] == player.start_balance + 500
    assert [a["amount"] for a in page["adjustments"]] == [500]
    entries = [entry for entry in admin.get("/admin/api/audit", action="player.adjust").json()["entries"]
               if entry["target"] == player.id]  # the PostgreSQL database is shared by the session's tests
    assert len(entries) == 1 and entries[0]["after"]["reason"] == "goodwill after a dropped connection"
    assert entries[0]["before"] == {"balance": player.start_balance} and entries[0]["actor"] == "boss"
    assert audit(client).ok


@pytest.mark.slow
@pytest.mark.parametrize("role", [role for role in ROLES if "players.adjust" not in PERMISSIONS[role]])
def test_other_roles_cannot_adjust_a_balance(client: Any, role: str) -> None:
    player = Player(client)
    member = StaffMember(client, f"m-{role}", role)
    refused = member.post(f"/admin/api/players/{player.id}/adjustments", {"amount": 500, "reason": "try it"})
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    assert player.balance() == player.start_balance
    assert member.get(f"/admin/api/players/{player.id}").status_code == 200


@pytest.mark.slow
def test_a_players_page_shows_their_rounds_and_limits(client: Any) -> None:
    player, views = played(client, 2)
    member = StaffMember(client, "s2", "support")
    page = member.get(f"/admin/api/players/{player.id}").json()
    assert [row["round_id"] for row in page["rounds"]] == [view["id"] for view in reversed(views)]
    assert "limits" in page["responsible_gaming"]
    assert member.get("/admin/api/players/p_nobody").status_code == 404


def test_a_players_totals_per_period_add_up_their_rounds(client: Any, clock: Any) -> None:
    """Today, 7 and 30 days and lifetime: rounds, turnover, returned, the player's net and the
    house's GGR, sessions, in the player's currency; a round left open counts apart."""
    player, old = played(client, 2, ante=100, bonus=100)  # 2026-01-01
    clock.advance(10 * 24 * 3600)  # ten days later
    recent = [play_out(player, player.open("texas-bonus", ante=200))[-1] for _round in range(3)]
    waiting = player.open("texas-bonus", ante=300)  # left open
    member = StaffMember(client, "s-tot", "support")
    totals = member.get(f"/admin/api/players/{player.id}").json()["totals"]

    def summed(views: list[dict[str, Any]]) -> dict[str, int]:
        staked = sum(view["total_stake"] for view in views)
        returned = sum(view["total_returned"] for view in views)
        return {"rounds": len(views), "staked": staked, "returned": returned, "net": returned - staked,
                "ggr": staked - returned}

    for name, views in (("today", recent), ("7_days", recent), ("30_days", old + recent),
                        ("lifetime", old + recent)):
        period = totals["periods"][name]
        shown = {key: period[key] for key in ("rounds", "staked", "returned", "net", "ggr")}
        assert shown == summed(views), name
        assert period["misdeals"] == 0
    assert totals["periods"]["lifetime"]["sessions"] == 1 and totals["periods"]["today"]["sessions"] == 0
    assert totals["open"] == {"rounds": 1, "staked": waiting["total_stake"]}
