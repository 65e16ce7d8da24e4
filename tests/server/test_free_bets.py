"""Free bets (issue 30): the operator's signed campaign API (idempotent on its id, grants, list,
cancel) and free rounds played by its players: the ante is the operator's (not debited), every
other bet the player's, a round is claimed once, the cap on winnings holds. Demo launches here
(play money in the server's ledger); the seamless wallet's side, against the reference operator
as a process, is test_free_bets_wallet.py."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from tests.server.conftest import FakeClock, TestClient, make_client
from tests.server.test_operators_launch import LAUNCH, SECRET, launch, op_client, operators, session, signed
from tests.support.dealing import Dealer, player_wins
from tests.support.operator import client_now, operator_headers
from tests.support.operators_file import operator_entry, swedish_links

from dealerpoker.fairness.checks import record_digest
from dealerpoker.fairness.verify import verify_record
from dealerpoker.server.operators.config import parse_operators

__all__ = ["op_client"]

CAMPAIGNS = "/operator/v1/campaigns"


RUN = uuid.uuid4().hex[:8]
"""Ids of this run (a PostgreSQL test database outlives a run)."""


def campaign_body(campaign_id: str, **changes: Any) -> dict[str, Any]:
    return {"campaign_id": f"{campaign_id}-{RUN}", "name": "Winter welcome",
            "games": ["texas-bonus", "casino-holdem"],
            "ante": {"EUR": 100, "JPY": 200}, "rounds": 3, "valid_from": "2025-12-01T00:00:00Z",
            "valid_until": "2026-02-01T00:00:00+01:00", **changes}


def send(client: TestClient, target: str, body: Any = None, method: str = "POST") -> Any:
    """A request of operator casino-a, signed (a GET has no body)."""
    raw = b"" if body is None else json.dumps(body).encode()
    headers = operator_headers(SECRET, method, target, raw, operator="casino-a", now=client_now(client))
    return client.request(method, target, content=raw, headers=headers)


def player(client: TestClient, name: str, **changes: Any) -> dict[str, str]:
    token = launch(client, {**LAUNCH, "player": f"{name}-{RUN}", **changes}).json()["launch_token"]
    return {"Authorization": f"Bearer {session(client, token).json()['token']}"}


def created(client: TestClient, campaign_id: str, **changes: Any) -> dict[str, Any]:
    answer = send(client, CAMPAIGNS, campaign_body(campaign_id, **changes))
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def granted(client: TestClient, campaign: dict[str, Any], name: str) -> dict[str, Any]:
    """The campaign granted to this run's player ``name``: their reward."""
    answer = send(client, f"{CAMPAIGNS}/{campaign['id']}/grants", {"players": [f"{name}-{RUN}"]})
    assert answer.status_code == 200, answer.text
    return dict(answer.json()["rewards"][0])


def mine(client: TestClient, campaign_id: str, query: str = "") -> list[dict[str, Any]]:
    """The operator's campaigns of this run with that id."""
    listed = send(client, CAMPAIGNS + query, method="GET").json()["campaigns"]
    return [c for c in listed if c["external_id"] == f"{campaign_id}-{RUN}"]


def build_digest(record: dict[str, Any]) -> dict[str, Any]:
    """A record changed by hand, digested again (unsigned, as a lab's copy would be)."""
    return {**record, "record_digest": record_digest(record)}


def balance(client: TestClient, headers: dict[str, str]) -> int:
    return int(client.get("/api/balance", headers=headers).json()["balance"])


def test_a_campaign_is_created_once_per_operator_id(op_client: TestClient) -> None:
    first = created(op_client, "winter-1")
    assert (first["rounds"], first["ante"], first["status"]) == (3, {"EUR": 100, "JPY": 200}, "active")
    assert first["valid_until"] == "2026-01-31T23:00:00.000000Z"  # the zone is read, stored in UTC
    again = send(op_client, CAMPAIGNS, campaign_body("winter-1"))
    assert again.status_code == 200 and again.json()["id"] == first["id"]
    reordered = json.dumps(dict(reversed(list(campaign_body("winter-1").items())))).encode()
    same = op_client.post(CAMPAIGNS, **signed(op_client, json.loads(reordered), path=CAMPAIGNS))
    assert same.status_code == 200 and same.json()["id"] == first["id"]  # same JSON, other key order
    other = send(op_client, CAMPAIGNS, campaign_body("winter-1", rounds=4))
    assert other.status_code == 409 and f"winter-1-{RUN}" in other.json()["message"]
    assert [c["id"] for c in mine(op_client, "winter-1")] == [first["id"]]


@pytest.mark.parametrize(("change", "named"), [
    ({"ante": {"EUR": 0}}, "ante"),
    ({"ante": {"USD": 100}}, "USD"),
    ({"ante": {"EUR": 10_000_000}}, "ante"),
    ({"games": ["roulette"]}, "games"),
    ({"rounds": 0}, "rounds"),
    ({"valid_until": "2025-11-01T00:00:00Z"}, "valid_until"),
    ({"valid_from": "2025-12-01T00:00:00"}, "zone"),
    ({"valid_from": 0}, "valid_from"),  # a number is not read as Unix time: the schema says a text
    ({"max_win": {"GBP": 100}}, "max_win"),
    ({"surprise": 1}, "surprise"),
])
def test_a_bad_campaign_is_refused_naming_the_problem(op_client: TestClient, change: dict[str, Any],
                                                      named: str) -> None:
    answer = send(op_client, CAMPAIGNS, campaign_body("bad", **change))
    assert answer.status_code in (404, 409, 422), answer.text
    assert named in answer.text
    assert not mine(op_client, "bad") and not mine(op_client, "x")


def test_unsigned_or_tampered_campaign_requests_change_nothing(op_client: TestClient) -> None:
    assert op_client.post(CAMPAIGNS, json=campaign_body("x")).status_code == 401
    request = signed(op_client, campaign_body("x"), path=CAMPAIGNS)
    request["content"] = request["content"].replace(b'"rounds": 3', b'"rounds": 30')
    assert op_client.post(CAMPAIGNS, **request).status_code == 401
    assert not mine(op_client, "bad") and not mine(op_client, "x")


def test_free_rounds_are_played_with_the_operators_ante_and_the_players_other_bets(
        op_client: TestClient) -> None:
    campaign = created(op_client, "welcome")
    alice = player(op_client, "alice")
    assert op_client.get("/api/free-rounds", headers=alice).json()["free_rounds"] == []
    rewards = send(op_client, f"{CAMPAIGNS}/{campaign['id']}/grants",
                   {"players": [f"alice-{RUN}", f"alice-{RUN}"]}).json()
    reward = rewards["rewards"][0]
    assert len(rewards["rewards"]) == 1 and reward["rounds_left"] == 3  # a player named twice: one reward
    again = send(op_client, f"{CAMPAIGNS}/{campaign['id']}/grants", {"players": [f"alice-{RUN}"]}).json()
    assert again["rewards"][0]["id"] == reward["id"]  # granted once
    offers = op_client.get("/api/free-rounds?game=texas-bonus", headers=alice).json()["free_rounds"]
    assert [(o["reward"], o["ante"], o["currency"], o["rounds_left"]) for o in offers] == [
        (reward["id"], 100, "EUR", 3)]

    before = balance(op_client, alice)
    answer = op_client.post("/api/rounds", headers=alice, json={
        "game": "texas-bonus", "bets": {"bonus": 100}, "free_round": reward["id"]})
    assert answer.status_code == 200, answer.text
    view = answer.json()
    assert view["total_stake"] == 100  # the player's Bonus: the ante is the operator's
    paid_at_deal = view["total_returned"]
    assert balance(op_client, alice) == before - 100 + paid_at_deal
    left = op_client.get("/api/free-rounds", headers=alice).json()["free_rounds"][0]["rounds_left"]
    assert left == 2
    # A second free round of the reward waits until the open one is played out.
    busy = op_client.post("/api/rounds", headers=alice, json={
        "game": "texas-bonus", "bets": {}, "free_round": reward["id"]})
    assert busy.status_code == 409 and "open" in busy.json()["message"]
    settled = op_client.post(f"/api/rounds/{view['id']}/actions", headers=alice,
                             json={"action": "fold", "step": 1}).json()
    assert settled["status"] == "settled"
    assert balance(op_client, alice) == before - 100 + settled["total_returned"]

    for _second_and_third in (2, 3):
        round_ = op_client.post("/api/rounds", headers=alice, json={
            "game": "casino-holdem", "bets": {"ante": 100}, "free_round": reward["id"]}).json()
        assert round_["total_stake"] == 0
        op_client.post(f"/api/rounds/{round_['id']}/actions", headers=alice,
                       json={"action": "fold", "step": 1})
    used_up = op_client.post("/api/rounds", headers=alice, json={
        "game": "casino-holdem", "bets": {"ante": 100}, "free_round": reward["id"]})
    assert used_up.status_code == 409 and used_up.json()["error"] == "free_round"
    assert op_client.get("/api/free-rounds", headers=alice).json()["free_rounds"] == []
    shown = send(op_client, f"{CAMPAIGNS}/{campaign['id']}", method="GET").json()
    assert (shown["players"], shown["rounds_used"], shown["rewards"][0]["rounds_left"]) == (1, 3, 0)


def test_a_free_round_needs_its_own_ante_its_game_and_a_grant(op_client: TestClient) -> None:
    campaign = created(op_client, "texas-only", games=["texas-bonus"])
    bob, carol = player(op_client, "bob"), player(op_client, "carol")
    reward = granted(op_client, campaign, "bob")
    before = balance(op_client, bob)
    for who, bets, game in ((bob, {"ante": 500}, "texas-bonus"), (bob, {}, "casino-holdem"),
                            (carol, {}, "texas-bonus")):
        answer = op_client.post("/api/rounds", headers=who, json={"game": game, "bets": bets,
                                                                  "free_round": reward["id"]})
        assert answer.status_code == 409 and answer.json()["error"] == "free_round", answer.text
    assert balance(op_client, bob) == before
    assert op_client.get("/api/free-rounds", headers=bob).json()["free_rounds"][0]["rounds_left"] == 3


def test_a_cancelled_or_ended_campaign_opens_no_free_round(op_client: TestClient, clock: FakeClock) -> None:
    cancelled = created(op_client, "to-cancel")
    ending = created(op_client, "ending", valid_until="2026-01-01T00:01:00Z")
    dave = player(op_client, "dave")
    for campaign in (cancelled, ending):
        send(op_client, f"{CAMPAIGNS}/{campaign['id']}/grants", {"players": [f"dave-{RUN}"]})
    assert len(op_client.get("/api/free-rounds", headers=dave).json()["free_rounds"]) == 2
    answer = send(op_client, f"{CAMPAIGNS}/{cancelled['id']}/cancel", {})
    assert answer.json()["status"] == "cancelled"
    clock.advance(120)
    assert op_client.get("/api/free-rounds", headers=dave).json()["free_rounds"] == []
    refused = send(op_client, f"{CAMPAIGNS}/{cancelled['id']}/grants", {"players": [f"erin-{RUN}"]})
    assert refused.status_code == 409
    assert [c["id"] for c in mine(op_client, "to-cancel", "?status=cancelled")] == [cancelled["id"]]
    assert mine(op_client, "to-cancel", "?status=active") == []


@pytest.fixture
def dealt(database_url: str, clock: FakeClock) -> Any:
    dealer = Dealer()
    with make_client(database_url, clock, rng=dealer, operators=operators()) as client:
        yield client, dealer


def test_the_cap_on_winnings_limits_what_free_rounds_return(dealt: tuple[TestClient, Dealer]) -> None:
    client, dealer = dealt
    campaign = created(client, "capped", games=["casino-holdem"], max_win={"EUR": 30})
    frank = player(client, "frank")
    token = frank["Authorization"].removeprefix("Bearer ")
    reward = granted(client, campaign, "frank")
    before = balance(client, frank)
    rounds = []
    for _first_and_second in (1, 2):
        dealer.solo(client, token, player="A? A?", where=player_wins)  # the raise wins: >= 200 won
        view = client.post("/api/rounds", headers=frank, json={
            "game": "casino-holdem", "bets": {}, "free_round": reward["id"]}).json()
        rounds.append(client.post(f"/api/rounds/{view['id']}/actions", headers=frank,
                                  json={"action": "raise", "step": 1}).json())
    first, second = rounds
    assert first["settlement"]["total_returned"] > 230 and second["settlement"]["total_returned"] > 200
    # The raise (200) is the player's: back with 30 of winnings, then with nothing (the cap is used).
    assert [r["total_stake"] for r in rounds] == [200, 200]
    assert [r["total_returned"] for r in rounds] == [230, 200]
    assert [r["steps"][-1].get("forfeited") for r in rounds] == [
        first["settlement"]["total_returned"] - 230, second["settlement"]["total_returned"] - 200]
    assert balance(client, frank) == before + 30
    for settled in rounds:  # each free round's signed record verifies: free ante, forfeited and all
        record = client.get(f"/api/rounds/{settled['id']}/record", headers=frank).json()
        assert record["promo"]["free_ante"] == 100 and record["promo"]["reward"] == reward["id"]
        assert record["promo"]["forfeited"] == settled["steps"][-1]["forfeited"]
        failed = [f for f in verify_record(record) if not f.ok]
        assert failed == [], failed
        unsigned = {k: v for k, v in record.items() if k not in ("record_digest", "signature")}
        wrong = {**unsigned, "promo": {**record["promo"], "forfeited": 0}}
        found = [f.subject for f in verify_record(build_digest(wrong)) if not f.ok]
        assert found == ["ledger.credits"], found  # without the forfeit the credits do not add up


SE_SECRET = "free-bets-sweden-secret-0123456789"
SWEDISH = operator_entry("casino-se", secret=SE_SECRET, wallet_url="http://127.0.0.1:9/wallet",
                         currencies=["SEK", "EUR"], jurisdictions=["SE", "MT"],
                         links=swedish_links("casino-se"))


def test_a_market_without_free_bets_sees_none_and_plays_none(database_url: str, clock: FakeClock) -> None:
    with make_client(database_url, clock, operators=parse_operators(SWEDISH)) as client:
        def signed_post(target: str, body: Any) -> Any:
            raw = json.dumps(body).encode()
            headers = operator_headers(SE_SECRET, "POST", target, raw, operator="casino-se",
                                       now=client_now(client))
            return client.post(target, content=raw, headers=headers)

        campaign = signed_post(CAMPAIGNS, {**campaign_body("se"), "ante": {"SEK": 1000, "EUR": 100}}).json()
        name = f"sven-{RUN}"
        signed_post(f"{CAMPAIGNS}/{campaign['id']}/grants", {"players": [name]})
        headers: dict[str, dict[str, str]] = {}
        for market, currency in (("SE", "SEK"), ("MT", "EUR")):  # the same player in Sweden, then Malta
            launch_body = {"player": name, "currency": currency, "game": "casino-holdem", "mode": "demo",
                           "jurisdiction": market}
            launched = signed_post("/operator/v1/launch", launch_body)
            assert launched.status_code == 200, launched.text
            token = launched.json()["launch_token"]
            opened = client.post("/api/session", json={"launch": token}).json()
            headers[market] = {"Authorization": f"Bearer {opened['token']}"}
            offered = client.get("/api/free-rounds", headers=headers[market]).json()["free_rounds"]
            if market == "SE":  # Sweden's profile: free_bets = false
                assert offered == []
                refused = client.post("/api/rounds", headers=headers[market], json={
                    "game": "casino-holdem", "bets": {}, "free_round": "fr_0123456789abcdef"})
                assert refused.status_code == 403 and refused.json()["rule"] == "free_bets", refused.text
            else:
                assert [o["rounds_left"] for o in offered] == [3]


def test_the_campaign_schema_states_the_operators_currencies_and_ante_limits(op_client: TestClient) -> None:
    """What the OpenAPI document says a campaign is, the server takes (schemathesis relies on it:
    tests/hardening/test_schema_says_what_is_accepted.py): ``ante`` keyed by the operators'
    currencies, each within the limits of their games there; distinct games; times as texts."""
    document = op_client.get("/openapi.json").json()
    body = document["paths"][CAMPAIGNS]["post"]["requestBody"]["content"]["application/json"]["schema"]
    fields = body["properties"]
    offer = op_client.app.state.services.offer
    antes = fields["ante"]
    assert antes["additionalProperties"] is False and antes["minProperties"] == 1
    assert set(antes["properties"]) == {"EUR", "JPY", "USD"}
    for operator, currency in (("casino-a", "EUR"), ("casino-a", "JPY"), ("casino-b", "USD")):
        limits = [engine.rules.limits["ante"] for engine in offer.games(currency, operator).values()]
        assert antes["properties"][currency] == {"type": "integer", "minimum": min(x.min for x in limits),
                                                 "maximum": max(x.max for x in limits)}
    capped = fields["max_win"]["anyOf"][0]
    assert set(capped["properties"]) == {"EUR", "JPY", "USD"} and capped["additionalProperties"] is False
    assert fields["games"]["uniqueItems"] is True
    assert fields["games"]["items"]["enum"] == ["texas-bonus", "casino-holdem"]
    assert fields["valid_from"]["type"] == fields["valid_until"]["type"] == "string"
    grants = document["paths"][f"{CAMPAIGNS}/{{campaign_id}}/grants"]["post"]["requestBody"]
    players = grants["content"]["application/json"]["schema"]["properties"]["players"]["items"]
    assert (players["minLength"], players["maxLength"]) == (1, 64)
    assert "201" in document["paths"][CAMPAIGNS]["post"]["responses"]
    # The bounds are the server's: the lowest ante of the schema is taken, one below refused.
    low = antes["properties"]["EUR"]["minimum"]
    assert send(op_client, CAMPAIGNS, campaign_body("lowest", ante={"EUR": low})).status_code == 201
    below = send(op_client, CAMPAIGNS, campaign_body("below", ante={"EUR": low - 1}))
    assert below.status_code == 422, below.text
