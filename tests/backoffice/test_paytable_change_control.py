"""Change control on paytables (issue 33): unknown entries refused by name; a version whose exact
RTP of a bet or in total is outside the deployment's bounds cannot be saved; a version goes live
only when a second admin approved it, at once or at its scheduled time, with both names and the
exact figures in the audit log; an earlier version goes live again as itself."""

from __future__ import annotations

import random
from datetime import timedelta
from fractions import Fraction
from typing import Any

import pytest
from tests.server.conftest import FakeClock, TestClient

from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.server import Settings, create_app
from dealerpoker.server.clock import timestamp
from dealerpoker.server.settings import SettingsError

from .support import StaffMember

OVER_100 = {"ante_paytable": {"flush": 3}}  # the draft: RTP 100.27% per ante
VALID = {"ante_paytable": {"straight-flush": 30}}  # RTP 98.10% per ante
GAME = "/admin/api/games/casino-holdem"


def serving(clock: FakeClock, **settings: Any) -> TestClient:
    app = create_app(Settings(database_url="sqlite://", **settings), rng=random.Random(5), clock=clock,
                     analysis_cache=DiskCache())
    return TestClient(app)


def in_force(client: TestClient) -> dict[str, Any]:
    """The Casino Hold'em rules players are dealt (``GET /api/games``)."""
    games = client.get("/api/games").json()["games"]
    found: dict[str, Any] = next(g for g in games if g["id"] == "casino-holdem")
    return found


def shown(member: StaffMember) -> dict[str, Any]:
    found: dict[str, Any] = next(g for g in member.get("/admin/api/games").json()["games"]
                                 if g["game"] == "casino-holdem")
    return found


def test_unknown_entries_are_refused_by_name_and_nothing_is_saved() -> None:
    with serving(FakeClock()) as client:
        admin = StaffMember(client, "adm", "admin")
        # the docs' old example: Texas Hold'em Bonus has no ante paytable
        typo = admin.post("/admin/api/games/texas-bonus/versions", {"changes": OVER_100})
        assert typo.status_code == 422 and "ante_paytable" in typo.json()["message"], typo.text
        nested = admin.post(f"{GAME}/draft", {"changes": {"ante_paytable": {"flsuh": 3}, "bonus_pays": 1}})
        assert nested.status_code == 422
        assert "ante_paytable.flsuh" in nested.json()["message"] and "bonus_pays" in nested.json()["message"]
        assert shown(admin)["versions"] == []


def test_a_paytable_over_100_percent_cannot_be_saved() -> None:
    with serving(FakeClock()) as client:
        admin = StaffMember(client, "adm", "admin")
        drafted = admin.post(f"{GAME}/draft", {"changes": OVER_100})
        assert drafted.status_code == 200, drafted.text
        ante = Fraction(drafted.json()["rtps"]["ante"]["exact"])
        assert ante > 1 and drafted.json()["out_of_bounds"][0].startswith("ante: 100.27")
        refused = admin.post(f"{GAME}/versions", {"changes": OVER_100})
        assert refused.status_code == 422 and refused.json()["error"] == "rtp_out_of_bounds", refused.text
        assert str(ante) in refused.json()["message"]
        assert shown(admin)["versions"] == []
        assert admin.get("/admin/api/audit", action="rules.version").json()["entries"] == []


def test_the_bounds_are_a_setting_never_above_100_percent() -> None:
    with pytest.raises(SettingsError, match="rtp_bounds"):
        Settings(rtp_bounds=(Fraction(85, 100), Fraction(101, 100)))
    assert Settings.from_env({"DEALERPOKER_RTP_BOUNDS": "0.9,0.99"}).rtp_bounds == (Fraction(9, 10),
                                                                                    Fraction(99, 100))
    with serving(FakeClock(), rtp_bounds=(Fraction(99, 100), Fraction(995, 1000))) as client:
        admin = StaffMember(client, "adm", "admin")  # the side bet's 90.9% is below this deployment's 99%
        refused = admin.post(f"{GAME}/versions", {"changes": VALID})
        assert refused.status_code == 422 and "aa: 90.9" in refused.json()["message"], refused.text


@pytest.mark.slow
def test_a_version_goes_live_only_when_a_second_admin_approves_it() -> None:
    with serving(FakeClock()) as client:
        first, second = StaffMember(client, "alice", "admin"), StaffMember(client, "bob", "admin")
        before = in_force(client)["rules"]["ante_paytable"]["straight-flush"]
        saved = first.post(f"{GAME}/versions", {"changes": VALID})
        assert saved.status_code == 200, saved.text
        request = saved.json()["request"]
        assert request["status"] == "pending" and request["requested_by"] == "alice"
        assert in_force(client)["rules"]["ante_paytable"]["straight-flush"] == before  # not live yet
        assert [r["id"] for r in shown(first)["pending"]] == [request["id"]]
        own = first.post(f"{GAME}/requests/{request['id']}/approve", {})
        assert own.status_code == 403 and own.json()["error"] == "four_eyes"
        assert in_force(client)["rules"]["ante_paytable"]["straight-flush"] == before
        approved = second.post(f"{GAME}/requests/{request['id']}/approve", {})
        assert approved.status_code == 200 and approved.json()["live"] is True, approved.text
        assert in_force(client)["rules"]["ante_paytable"]["straight-flush"] == 30
        assert shown(second)["fingerprint"] == saved.json()["fingerprint"]
        entry = first.get("/admin/api/audit", action="rules_change.approve").json()["entries"][0]
        assert entry["actor"] == "bob" and entry["after"]["requested_by"] == "alice"
        assert entry["after"]["rtps"]["ante"] == saved.json()["rtps"]["ante"]["exact"]
        assert entry["after"]["total_rtp"] == saved.json()["total_rtp"]["exact"]
        again = second.post(f"{GAME}/requests/{request['id']}/approve", {})
        assert again.status_code == 409


@pytest.mark.slow
def test_a_scheduled_version_goes_live_at_its_time() -> None:
    clock = FakeClock()
    with serving(clock) as client:
        first, second = StaffMember(client, "alice", "admin"), StaffMember(client, "bob", "admin")
        past = first.post(f"{GAME}/versions", {"changes": VALID, "live_from": "2020-01-01T00:00:00Z"})
        assert past.status_code == 422 and past.json()["error"] == "invalid_live_from"
        at = timestamp(clock.now + timedelta(hours=2))
        saved = first.post(f"{GAME}/versions", {"changes": VALID, "live_from": at})
        assert saved.status_code == 200, saved.text
        approved = second.post(f"{GAME}/requests/{saved.json()['request']['id']}/approve", {})
        assert approved.json()["live"] is False and approved.json()["request"]["effective_at"] == at
        assert shown(first)["fingerprint"] != saved.json()["fingerprint"]
        assert in_force(client)["rules"]["ante_paytable"]["straight-flush"] == 20
        clock.advance(2 * 3600 + 1)
        assert shown(first)["fingerprint"] == saved.json()["fingerprint"]  # due: applied
        assert in_force(client)["rules"]["ante_paytable"]["straight-flush"] == 30


@pytest.mark.slow
def test_an_earlier_version_goes_live_again_as_itself_under_approval() -> None:
    with serving(FakeClock()) as client:
        first, second = StaffMember(client, "alice", "admin"), StaffMember(client, "bob", "admin")
        configured = shown(first)["fingerprint"]
        saved = first.post(f"{GAME}/versions", {"changes": VALID}).json()
        second.post(f"{GAME}/requests/{saved['request']['id']}/approve", {})
        assert shown(first)["fingerprint"] == saved["fingerprint"]
        versions = shown(first)["versions"]
        original = next(v for v in versions if v["created_by"] == "(configured)")
        assert original["fingerprint"] == configured
        asked = second.post(f"{GAME}/versions/{original['version']}/restore", {})
        assert asked.status_code == 200, asked.text
        assert in_force(client)["rules"]["ante_paytable"]["straight-flush"] == 30  # not before approval
        rejected = first.post(f"{GAME}/requests/{asked.json()['request']['id']}/reject", {})
        assert rejected.status_code == 200 and rejected.json()["request"]["status"] == "rejected"
        asked = second.post(f"{GAME}/versions/{original['version']}/restore", {}).json()
        approved = first.post(f"{GAME}/requests/{asked['request']['id']}/approve", {})
        assert approved.status_code == 200 and approved.json()["live"] is True
        assert shown(first)["fingerprint"] == configured  # itself: the same fingerprint
        assert in_force(client)["rules"]["ante_paytable"]["straight-flush"] == 20
        assert len(shown(first)["versions"]) == 2  # no new version was made
        assert first.post(f"{GAME}/versions/99/restore", {}).status_code == 404
