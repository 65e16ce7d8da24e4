"""Jurisdiction profiles (issue 27): chosen at launch, enforced by the server on solo rounds over
REST, carried by the signed round record and checked by ``verify``; every refusal names the rule
and the jurisdiction. Both databases."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import pytest
from tests.backoffice.support import StaffMember
from tests.server.conftest import LONG_SESSIONS, FakeClock, TestClient, make_client
from tests.support.operator import client_now, operator_headers
from tests.support.operators_file import operator_entry, swedish_links

from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.fairness.signature import public_key_from_text
from dealerpoker.fairness.verify import verify_record
from dealerpoker.jurisdictions import InvalidJurisdictionError, parse_profile, shipped
from dealerpoker.messages import LANGUAGES, catalogue
from dealerpoker.server import Settings, create_app
from dealerpoker.server.clock import timestamp
from dealerpoker.server.operators.config import InvalidOperatorsError, parse_operators

SECRET = "jurisdiction-secret-0123456789"
# casino-a serves GB (shipped profile), Ontario with its own stricter profile (a stake limit, one
# approved paytable that is not the one in force, Casino Hold'em only, no strategy hint), and
# Sweden (its three required links).
OPERATORS = (
    operator_entry(
        "casino-a",
        secret=SECRET,
        wallet_url="http://127.0.0.1:9899/wallet",
        currencies=["GBP", "CAD", "SEK", "EUR"],
        jurisdictions=["GB", "CA-ON", "SE"],
        complaint_contact="support@casino-a.example",
        links=swedish_links("casino-a"),
    )
    + """

[[operators.profiles]]
id = "CA-ON"
version = "casino-a-1"
[operators.profiles.settings]
games = { value = ["casino-holdem"], clause = "casino-a's Ontario approval" }
max_stake = { value = { CAD = 600 }, clause = "casino-a's Ontario policy" }
paytables = { value = ["00000000000000000000"], clause = "casino-a's approved paytable list" }
strategy_hint = { value = false, clause = "casino-a's Ontario policy" }
"""
)


def launch(client: TestClient, body: dict[str, Any]) -> Any:
    raw = json.dumps({"player": f"j-{uuid.uuid4().hex[:12]}", "mode": "demo", **body}).encode()
    headers = operator_headers(SECRET, "POST", "/operator/v1/launch", raw, operator="casino-a",
                               now=client_now(client))
    return client.post("/operator/v1/launch", content=raw, headers=headers)


def session(client: TestClient, **body: Any) -> dict[str, str]:
    answer = launch(client, body)
    assert answer.status_code == 200, answer.text
    opened = client.post("/api/session", json={"launch": answer.json()["launch_token"]})
    assert opened.status_code == 200, opened.text
    return {"Authorization": f"Bearer {opened.json()['token']}"}


def play(client: TestClient, headers: dict[str, str], game: str, ante: int = 100) -> Any:
    """Open a round and fold it: the settled round, or the refusal's answer."""
    opened = client.post("/api/rounds", json={"game": game, "bets": {"ante": ante}}, headers=headers)
    if opened.status_code != 200:
        return opened
    round_id = opened.json()["id"]
    action = "fold"
    folded = client.post(
        f"/api/rounds/{round_id}/actions", json={"action": action, "step": 1}, headers=headers
    )
    assert folded.status_code == 200, folded.text
    return folded.json()


def refusal(answer: Any, status: int = 403) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    return body


@pytest.fixture
def client(database_url: str, clock: FakeClock) -> Any:
    with make_client(database_url, clock, operators=parse_operators(OPERATORS)) as test_client:
        yield test_client


def test_a_launch_names_one_of_the_operators_jurisdictions(client: TestClient) -> None:
    body = refusal(launch(client, {"currency": "EUR", "game": "texas-bonus", "jurisdiction": "MT"}))
    assert (body["error"], body["rule"], body["jurisdiction"]) == ("jurisdiction", "jurisdictions", "MT")
    assert "casino-a may not launch players there" in body["message"]
    body = refusal(launch(client, {"currency": "EUR", "game": "texas-bonus"}))  # it serves some: name one
    assert body["rule"] == "jurisdictions" and "required" in body["message"]
    body = refusal(launch(client, {"currency": "EUR", "game": "texas-bonus", "jurisdiction": "GB"}))
    assert (body["rule"], body["jurisdiction"]) == ("currencies", "GB")  # GB is played in GBP
    body = refusal(launch(client, {"currency": "CAD", "game": "texas-bonus", "jurisdiction": "CA-ON"}))
    assert (body["rule"], body["jurisdiction"]) == ("games", "CA-ON")
    assert launch(client, {"currency": "GB", "game": "texas-bonus", "jurisdiction": "gb"}).status_code == 422


# casino-l offers its British players live tables only (its own GB profile: no solo play).
LIVE_ONLY = operator_entry(
    "casino-l", secret=SECRET, wallet_url="http://127.0.0.1:9899/wallet", currencies=["GBP"],
    jurisdictions=["GB"],
) + """
[[operators.profiles]]
id = "GB"
[operators.profiles.settings]
modes = { value = ["live", "studio"], clause = "casino-l's GB offer: live tables only" }
"""


def test_a_market_without_solo_play_refuses_a_solo_launch(database_url: str, clock: FakeClock) -> None:
    with make_client(database_url, clock, operators=parse_operators(LIVE_ONLY)) as client:

        def launched(body: dict[str, Any]) -> Any:
            raw = json.dumps({"player": "l-1", "mode": "demo", "currency": "GBP", "jurisdiction": "GB",
                              **body}).encode()
            headers = operator_headers(SECRET, "POST", "/operator/v1/launch", raw, operator="casino-l",
                                       now=client_now(client))
            return client.post("/operator/v1/launch", content=raw, headers=headers)

        body = refusal(launched({"game": "texas-bonus"}))
        assert (body["error"], body["rule"], body["jurisdiction"]) == ("jurisdiction", "modes", "GB"), body
        body = refusal(launched({"game": "casino-holdem"}))
        assert (body["rule"], body["jurisdiction"]) == ("modes", "GB"), body
        assert "solo play is not offered in GB" in body["message"], body


def test_the_session_answers_its_jurisdiction_and_profile(client: TestClient) -> None:
    headers = session(client, currency="SEK", game="texas-bonus", jurisdiction="SE", language="en")
    status = client.get("/api/responsible-gaming", headers=headers).json()
    assert status["jurisdiction"] == "SE"
    profile = status["jurisdiction_profile"]
    assert profile["version"] == shipped()["SE"].version and len(profile["fingerprint"]) == 64
    assert [link["id"] for link in profile["links"]] == ["spelpaus", "spelgranser", "sjalvtest"]
    assert profile["links"][0]["url"] == "https://www.spelpaus.se/"
    assert profile["complaint_contact"] == "support@casino-a.example"
    assert profile["settings"]["autoplay"]["value"] is False
    own = {"Authorization": f"Bearer {client.post('/api/session', json={}).json()['token']}"}
    assert client.get("/api/responsible-gaming", headers=own).json()["jurisdiction"] == "default"


def test_a_swedish_launch_opens_the_table_in_swedish(client: TestClient) -> None:
    answer = launch(
        client, {"currency": "SEK", "game": "texas-bonus", "jurisdiction": "SE", "language": "en"}
    )
    assert answer.status_code == 200 and "lang=sv" in answer.json()["url"], answer.text


def test_gb_refuses_a_second_round_inside_its_interval(client: TestClient, clock: FakeClock) -> None:
    headers = session(client, currency="GBP", game="texas-bonus", jurisdiction="GB")
    assert (
        client.get("/api/responsible-gaming", headers=headers).json()["profile"]["min_round_seconds"] == 2.5
    )
    assert play(client, headers, "texas-bonus")["status"] == "settled"
    clock.advance(1)
    body = refusal(play(client, headers, "texas-bonus"))
    assert (body["reason"], body["rule"], body["jurisdiction"]) == ("too_fast", "too_fast", "GB"), body
    clock.advance(2)
    assert play(client, headers, "texas-bonus")["status"] == "settled"


def test_sweden_holds_play_at_its_mandatory_reality_check(client: TestClient, clock: FakeClock) -> None:
    """SE's reality check is mandatory every 60 minutes: once due, a round is refused naming the
    rule and SE until the player answers it; then play goes on."""
    headers = session(client, currency="SEK", game="texas-bonus", jurisdiction="SE")
    profile = client.get("/api/responsible-gaming", headers=headers).json()["profile"]
    assert profile["reality_check_minutes"] == 60, profile
    assert play(client, headers, "texas-bonus", ante=1000)["status"] == "settled"
    for minutes in (10, 20, 30, 40, 50):  # a round every ten minutes: the session stays active
        clock.advance(10 * 60)
        assert client.get("/api/responsible-gaming", headers=headers).status_code == 200, minutes
        assert play(client, headers, "texas-bonus", ante=1000)["status"] == "settled"
    clock.advance(10 * 60 + 1)  # 60 minutes since the session began: the check is due
    body = refusal(play(client, headers, "texas-bonus", ante=1000))
    assert (body["reason"], body["rule"], body["jurisdiction"]) == (
        "reality_check", "reality_check", "SE"), body
    answered = client.post("/api/responsible-gaming/reality-check", json={"choice": "continue"},
                           headers=headers)
    assert answered.status_code == 200, answered.text
    assert play(client, headers, "texas-bonus", ante=1000)["status"] == "settled"


def test_ontario_refuses_an_unapproved_paytable_and_a_stake_over_its_limit(client: TestClient) -> None:
    headers = session(client, currency="CAD", game="casino-holdem", jurisdiction="CA-ON")
    body = refusal(play(client, headers, "texas-bonus"))
    assert (body["rule"], body["jurisdiction"]) == ("games", "CA-ON")
    body = refusal(play(client, headers, "casino-holdem"))  # the paytable in force is not approved
    assert (body["rule"], body["jurisdiction"]) == ("paytables", "CA-ON") and "not approved" in body[
        "message"
    ]


def test_ontario_stake_limit_and_hint(database_url: str, clock: FakeClock) -> None:
    # Without its paytable list, only the stake limit and the hint are in the way.
    text = OPERATORS.replace(
        'paytables = { value = ["00000000000000000000"], clause = "casino-a\'s approved paytable list" }\n',
        "",
    )
    with make_client(database_url, clock, operators=parse_operators(text), strategy_hint=True) as client:
        headers = session(client, currency="CAD", game="casino-holdem", jurisdiction="CA-ON")
        # Casino Hold'em can take the ante and a raise of twice it: 3 x 200 = 600 is the limit.
        body = refusal(play(client, headers, "casino-holdem", ante=300))
        assert (body["rule"], body["jurisdiction"]) == ("max_stake", "CA-ON") and "600" in body["message"]
        opened = client.post(
            "/api/rounds", json={"game": "casino-holdem", "bets": {"ante": 200}}, headers=headers
        )
        assert opened.status_code == 200, opened.text
        # Ontario has no pace and an optional reality check, but its page shows the session's time
        # and net: the round starts the session they count from.
        played = client.get("/api/responsible-gaming", headers=headers).json()["session"]
        assert played["active"] and played["staked"] == 200, played
        advice = client.get(f"/api/rounds/{opened.json()['id']}/advice", headers=headers)
        body = refusal(advice)
        assert (body["rule"], body["jurisdiction"]) == ("strategy_hint", "CA-ON")


def test_a_round_record_carries_its_jurisdiction_and_verifies(client: TestClient, clock: FakeClock) -> None:
    headers = session(client, currency="GBP", game="texas-bonus", jurisdiction="GB")
    round_id = play(client, headers, "texas-bonus")["id"]
    record = client.get(f"/api/rounds/{round_id}/record", headers=headers).json()
    gb = shipped()["GB"]
    assert record["jurisdiction"]["id"] == "GB" and record["jurisdiction"]["version"] == gb.version
    assert record["jurisdiction"]["fingerprint"] == gb.fingerprint()
    key = public_key_from_text(client.get("/api/fairness/public-key").text)
    findings = verify_record(record, public_key=key)
    assert all(f.ok for f in findings), [str(f) for f in findings if not f.ok]
    assert any(f.subject == "jurisdiction" and f.ok for f in findings)
    moved = {**record, "jurisdiction": {**record["jurisdiction"], "id": "MT"}}
    failed = {f.subject for f in verify_record(moved, public_key=key) if not f.ok}
    assert {"record_digest", "signature"} <= failed, failed
    # A round outside the profile it names fails verification on that rule, digest or not.
    strict = {**record, "jurisdiction": {**record["jurisdiction"], "max_stake": {"GBP": 1}}}
    assert "jurisdiction.max_stake" in {f.subject for f in verify_record(strict) if not f.ok}


def test_a_bad_profile_is_refused_naming_the_entry() -> None:
    with pytest.raises(
        InvalidJurisdictionError, match=r"x.toml \(id 'GB'\): settings.autoplay.value: expected false"
    ):
        parse_profile(
            {"id": "GB", "settings": {"autoplay": {"value": True, "clause": "RTS 8"}}},
            where="x.toml",
            base=shipped()["GB"],
        )
    with pytest.raises(InvalidJurisdictionError, match=r"settings.games: missing"):
        parse_profile(
            {"id": "XX", "name": "X", "regulator": "R", "version": "1", "settings": {}}, where="x.toml"
        )
    with pytest.raises(
        InvalidJurisdictionError, match=r"settings.recall_rounds.note: an unconfirmed clause needs"
    ):
        parse_profile(
            {"id": "GB", "settings": {"recall_rounds": {"value": 5, "clause": "RTS 2", "unconfirmed": True}}},
            where="x.toml",
            base=shipped()["GB"],
        )
    with pytest.raises(
        InvalidOperatorsError, match=r"links: SE requires links spelpaus, spelgranser, sjalvtest"
    ):
        parse_operators(
            operator_entry(
                "b", secret=SECRET, wallet_url="http://x.example/", currencies=["SEK"], jurisdictions=["SE"]
            )
        )
    with pytest.raises(InvalidOperatorsError, match=r"jurisdictions: XX: no profile shipped"):
        parse_operators(
            operator_entry(
                "b", secret=SECRET, wallet_url="http://x.example/", currencies=["SEK"], jurisdictions=["XX"]
            )
        )


def test_every_shipped_setting_cites_a_clause() -> None:
    for profile in shipped().values():
        for name, setting in profile.settings.items():
            assert setting.clause.strip(), (profile.id, name)
            assert not setting.unconfirmed or setting.note, (profile.id, name)
        assert profile.autoplay is False


def test_the_markets_languages_have_complete_catalogues() -> None:
    """Every language a shipped profile requires is one the page and the rules sheets have whole
    (``test_messages`` checks each complete catalogue key by key)."""
    required = {code for profile in shipped().values() for code in profile.value("languages")}
    assert {"sv", "fr", "da"} <= required and required <= set(LANGUAGES), required - set(LANGUAGES)
    swedish = catalogue("sv")
    assert swedish["juris.session_time"] != catalogue("en")["juris.session_time"]
    assert swedish["admin.reports.jurisdiction"] == "Jurisdiktion"


@pytest.mark.slow
def test_the_back_office_finds_rounds_by_jurisdiction_and_shows_the_profile_in_force(
    client: TestClient, clock: FakeClock
) -> None:
    briton = session(client, currency="GBP", game="texas-bonus", jurisdiction="GB")
    swede = session(client, currency="SEK", game="texas-bonus", jurisdiction="SE")
    own = {"Authorization": f"Bearer {client.post('/api/session', json={}).json()['token']}"}
    admin = StaffMember(client, f"rep-{uuid.uuid4().hex[:6]}", "admin")

    def by_jurisdiction() -> dict[tuple[str, str], int]:
        """The report's rounds rolled up to jurisdiction and currency (the database may hold others')."""
        rows = admin.get("/admin/api/reports", group="jurisdiction").json()["rows"]
        assert all(row["game"] == row["table"] == row["operator"] == "" for row in rows), rows
        return {(row["jurisdiction"], row["currency"]): row["rounds"] for row in rows}

    before = by_jurisdiction()
    gb_round = play(client, briton, "texas-bonus")["id"]
    se_round = play(client, swede, "texas-bonus", ante=1000)["id"]
    own_round = play(client, own, "texas-bonus")["id"]
    support = StaffMember(client, f"sue-{uuid.uuid4().hex[:6]}", "support")

    def found(**params: Any) -> list[dict[str, Any]]:
        answer = support.get("/admin/api/rounds", limit=200, **params)
        assert answer.status_code == 200, answer.text
        rows: list[dict[str, Any]] = answer.json()["rounds"]
        return rows

    gb = {row["round_id"]: row for row in found(jurisdiction="GB")}
    assert gb_round in gb and se_round not in gb and own_round not in gb
    assert (gb[gb_round]["jurisdiction"], gb[gb_round]["profile_version"]) == ("GB", shipped()["GB"].version)
    assert {row["round_id"] for row in found(jurisdiction="SE")} >= {se_round}
    assert gb_round not in {row["round_id"] for row in found(jurisdiction="SE")}
    default = {row["round_id"] for row in found(jurisdiction="default")}
    assert own_round in default and gb_round not in default
    assert support.get("/admin/api/rounds", jurisdiction="gb").status_code == 422
    page = support.get("/admin/api/round", id=gb_round).json()
    assert page["round"]["jurisdiction"]["id"] == "GB" and page["record"]["jurisdiction"]["id"] == "GB"
    # The reports: each row names its jurisdiction, filtered by one, or rolled up to them.
    british = admin.get("/admin/api/reports", jurisdiction="GB").json()
    assert {row["jurisdiction"] for row in british["rows"]} == {"GB"}
    assert {row["currency"] for row in british["totals"]} == {"GBP"}
    after = by_jurisdiction()
    added = {key: after[key] - before.get(key, 0) for key in after if after[key] != before.get(key, 0)}
    assert added == {("GB", "GBP"): 1, ("SE", "SEK"): 1, ("default", "EUR"): 1}, added
    csv = admin.get("/admin/api/reports", group="jurisdiction", format="csv").text.splitlines()
    assert csv[0].endswith(",jurisdiction") and any(line.endswith(",SE") for line in csv[1:])
    assert admin.get("/admin/api/reports", group="colour").status_code == 422


@pytest.mark.slow
def test_a_paytable_version_is_played_only_where_it_is_approved(database_url: str, clock: FakeClock) -> None:
    """An admin asks for the version in force to be approved for Sweden only; nothing changes
    until a second admin approves (the one who asked may not): then a player of another
    jurisdiction is refused its rounds naming the rule ``paytables``, the approved ones and play
    money play it; an unknown code changes nothing; each step is in the audit log (what, who,
    when); a rejected request changes nothing; none set: not restricted."""
    app = create_app(
        Settings(database_url=database_url, operators=parse_operators(OPERATORS), **LONG_SESSIONS),
        rng=random.Random(7), clock=clock, analysis_cache=DiskCache(),
    )
    with TestClient(app) as client:
        briton = session(client, currency="GBP", game="texas-bonus", jurisdiction="GB")
        swede = session(client, currency="SEK", game="texas-bonus", jurisdiction="SE")
        own = {"Authorization": f"Bearer {client.post('/api/session', json={}).json()['token']}"}
        admin = StaffMember(client, f"ada-{uuid.uuid4().hex[:6]}", "admin")
        second = StaffMember(client, f"bob-{uuid.uuid4().hex[:6]}", "admin")
        path = "/admin/api/games/texas-bonus/jurisdictions"

        def briton_after() -> dict[str, str]:
            """The British player, GB's least time between two rounds later."""
            clock.advance(10)
            return briton
        unknown = admin.post(path, {"jurisdictions": ["SE", "XX"]})
        assert unknown.status_code == 422 and "no profile XX" in unknown.text, unknown.text
        known = admin.get("/admin/api/games").json()["jurisdictions"]
        assert known == ["CA-ON", "DK", "GB", "MT", "SE", "default"]
        asked = admin.post(path, {"jurisdictions": ["SE"]})
        assert asked.status_code == 200, asked.text
        fingerprint, request = asked.json()["fingerprint"], asked.json()["request"]
        assert (request["status"], request["jurisdictions"], request["requested_by"]) == (
            "pending", ["SE"], admin.name)
        # not approved yet: nothing changed
        assert play(client, briton_after(), "texas-bonus")["status"] == "settled"
        (game,) = [g for g in admin.get("/admin/api/games").json()["games"] if g["game"] == "texas-bonus"]
        assert [r["id"] for r in game["pending_jurisdictions"]] == [request["id"]]
        assert game["versions"][0]["jurisdictions"] is None
        approve = f"/admin/api/games/texas-bonus/jurisdiction-requests/{request['id']}/approve"
        own_approval = admin.post(approve, {})
        assert (own_approval.status_code, own_approval.json()["error"]) == (403, "four_eyes"), \
            own_approval.text
        assert play(client, briton_after(), "texas-bonus")["status"] == "settled"
        asked_at = timestamp(clock.now)
        approved = second.post(approve, {})
        answered_at = timestamp(clock.now)
        assert approved.status_code == 200, approved.text
        assert (approved.json()["request"]["status"], approved.json()["request"]["decided_by"]) == (
            "approved", second.name)
        assert second.post(approve, {}).status_code == 409  # decided once
        body = refusal(play(client, briton_after(), "texas-bonus"))
        assert (body["rule"], body["jurisdiction"]) == ("paytables", "GB"), body
        assert "not approved for GB (approved for: SE)" in body["message"]
        assert play(client, swede, "texas-bonus", ante=1000)["status"] == "settled"
        assert play(client, own, "texas-bonus")["status"] == "settled"  # play money: any paytable
        (game,) = [g for g in admin.get("/admin/api/games").json()["games"] if g["game"] == "texas-bonus"]
        (version,) = game["versions"]
        assert (version["fingerprint"], version["jurisdictions"]) == (fingerprint, ["SE"])
        assert game["pending_jurisdictions"] == []
        logged = admin.get("/admin/api/audit", action="rules_jurisdictions.request").json()["entries"]
        assert (logged[0]["actor"], logged[0]["after"]["jurisdictions"]) == (admin.name, ["SE"])
        logged = admin.get("/admin/api/audit", action="rules_jurisdictions.approve").json()["entries"]
        entry = logged[0]
        assert (entry["actor"], entry["target"]) == (second.name, "texas-bonus")
        assert asked_at < entry["at"] <= answered_at  # when: the approval's time
        assert (entry["before"]["jurisdictions"], entry["after"]["jurisdictions"]) == (None, ["SE"])
        assert (entry["after"]["requested_by"], entry["after"]["approved_by"]) == (admin.name, second.name)
        assert entry["after"]["fingerprint"] == fingerprint
        # a rejected request changes nothing
        requests = "/admin/api/games/texas-bonus/jurisdiction-requests"
        withdrawn = admin.post(path, {"version": version["version"], "jurisdictions": ["GB"]})
        withdrawn = withdrawn.json()["request"]
        rejected = second.post(f"{requests}/{withdrawn['id']}/reject", {})
        assert rejected.status_code == 200 and rejected.json()["jurisdictions"] == ["SE"], rejected.text
        assert refusal(play(client, briton_after(), "texas-bonus"))["rule"] == "paytables"
        rejections = admin.get("/admin/api/audit", action="rules_jurisdictions.reject").json()["entries"]
        last_rejected = rejections[0]
        assert last_rejected["actor"] == second.name
        # not restricted again, under four eyes too
        lifted = admin.post(path, {"version": version["version"], "jurisdictions": None}).json()["request"]
        approve = f"/admin/api/games/texas-bonus/jurisdiction-requests/{lifted['id']}/approve"
        assert second.post(approve, {}).status_code == 200
        assert play(client, briton_after(), "texas-bonus")["status"] == "settled"
