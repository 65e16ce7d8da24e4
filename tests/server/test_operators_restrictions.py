"""An operator restricts its player (issue 17): a signed self-exclusion or cool-off applies to every
account of that player (each currency), refuses new rounds with the reason while an open round
still completes, and can be lifted; the operator's limits apply at once. Unsigned, tampered or
unknown requests change nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.server.conftest import FakeClock, TestClient
from tests.server.test_operators_launch import LAUNCH, launch, op_client, session, signed

__all__ = ["op_client"]  # the fixture, shared with the launch tests

def path(name: str, what: str = "restrictions") -> str:
    return f"/operator/v1/players/{name}/{what}"


def signed_to(client: TestClient, target: str, body: Any, method: str = "POST",
              **options: Any) -> dict[str, Any]:
    """``body`` signed for ``method`` on ``target``: the signature binds both."""
    return signed(client, body, path=target, method=method, **options)


def player(client: TestClient, name: str, **launch_changes: Any) -> dict[str, str]:
    """A session of the operator's player ``name`` (demo play money), as Authorization headers.
    Each test has its own player: a PostgreSQL test database outlives a test."""
    token = launch(client, {**LAUNCH, "player": name, **launch_changes}).json()["launch_token"]
    return {"Authorization": f"Bearer {session(client, token).json()['token']}"}


def open_round(client: TestClient, headers: dict[str, str], ante: int = 100) -> Any:
    return client.post("/api/rounds", json={"game": "casino-holdem", "bets": {"ante": ante}}, headers=headers)


def refused_for(client: TestClient, headers: dict[str, str], reason: str, ante: int = 100) -> dict[str, Any]:
    before = client.get("/api/balance", headers=headers).json()["balance"]
    answer = open_round(client, headers, ante)
    assert answer.status_code == 403, answer.text
    body: dict[str, Any] = answer.json()
    assert (body["error"], body["reason"]) == ("responsible_gaming", reason)
    assert body["key"].startswith(f"error.rg.{reason}")
    assert client.get("/api/balance", headers=headers).json()["balance"] == before
    return body


def test_a_self_exclusion_stops_new_rounds_in_every_currency_and_the_open_round_completes(
        op_client: TestClient, clock: FakeClock) -> None:
    euros, yen = player(op_client, "excluded"), player(op_client, "excluded", currency="JPY")
    opened = open_round(op_client, euros)
    assert opened.status_code == 200, opened.text
    until = clock.now + timedelta(days=30)
    exclusion = {"kind": "self_exclusion", "until": until.isoformat(), "reason": "player asked"}
    answer = op_client.post(path("excluded"), **signed_to(op_client, path("excluded"), exclusion))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert {a["currency"] for a in body["accounts"]} == {"EUR", "JPY"}
    restriction = body["restriction"]
    assert restriction["kind"] == "self_exclusion" and restriction["by"] == "operator:casino-a"
    # The open round is played out; no new one opens, in either currency.
    view = opened.json()
    finished = op_client.post(f"/api/rounds/{view['id']}/actions",
                              json={"action": "fold", "step": len(view["steps"])}, headers=euros)
    assert finished.status_code == 200 and finished.json()["status"] == "settled", finished.text
    refusal = refused_for(op_client, euros, "self_exclusion")
    assert refusal["params"]["until"].startswith(until.strftime("%Y-%m-%d"))
    refused_for(op_client, yen, "self_exclusion")
    status = op_client.get("/api/responsible-gaming", headers=yen).json()
    assert status["restriction"]["kind"] == "self_exclusion"
    # Lifted by the operator: play again.
    assert op_client.post(path("excluded"),
                          **signed_to(op_client, path("excluded"), {"kind": "none"})).status_code == 200
    assert open_round(op_client, yen).status_code == 200


def test_a_cool_off_for_some_hours_ends_by_itself(op_client: TestClient, clock: FakeClock) -> None:
    euros = player(op_client, "cooling")
    cool_off = {"kind": "cool_off", "hours": 24}
    answer = op_client.post(path("cooling"), **signed_to(op_client, path("cooling"), cool_off))
    assert answer.status_code == 200
    refused_for(op_client, euros, "cool_off")
    clock.advance(24 * 3600 + 1)
    assert open_round(op_client, euros).status_code == 200


def test_the_operators_limits_apply_at_once(op_client: TestClient) -> None:
    euros = player(op_client, "limited")
    limits = path("limited", "limits")
    answer = op_client.request("PUT", limits, **signed_to(op_client, limits, {"stake_session": 200}, "PUT"))
    assert answer.status_code == 200, answer.text
    assert answer.json()["accounts"][0]["limits"]["stake_session"]["operator"] == 200
    refused_for(op_client, euros, "stake_session")  # a Casino round can stake 3 x ante + AA
    # Raised by the operator: at once too (no cooling-off for the operator).
    raised = op_client.request("PUT", limits,
                               **signed_to(op_client, limits, {"stake_session": 100_000}, "PUT"))
    assert raised.status_code == 200
    assert open_round(op_client, euros).status_code == 200


def test_unsigned_tampered_unknown_or_bad_requests_change_nothing(op_client: TestClient,
                                                                 clock: FakeClock) -> None:
    euros = player(op_client, "untouched")
    restrict = path("untouched")
    body = {"kind": "self_exclusion", "hours": 24}
    assert op_client.post(restrict, json=body).status_code == 401
    wrong_secret = signed_to(op_client, restrict, body, secret="wrong-secret-0123456789abcdef")
    assert op_client.post(restrict, **wrong_secret).status_code == 401
    tampered = signed_to(op_client, restrict, {"kind": "cool_off", "hours": 1})
    tampered["content"] = tampered["content"].replace(b'"hours": 1', b'"hours": 9999')
    assert op_client.post(restrict, **tampered).status_code == 401
    nobody = path("nobody")
    unknown = op_client.post(nobody, **signed_to(op_client, nobody, body))
    assert unknown.status_code == 404 and "nobody" in unknown.json()["message"]
    past = (clock.now - timedelta(days=1)).isoformat()
    for bad, named in (({"kind": "banned"}, "kind"), ({"kind": "cool_off", "until": past}, "until"),
                       ({"kind": "cool_off", "hours": 1, "until": past}, "at most one"),
                       ({"kind": "cool_off", "colour": 1}, "colour")):
        answer = op_client.post(restrict, **signed_to(op_client, restrict, bad))
        assert answer.status_code == 422 and named in answer.text, (bad, answer.text)
    assert op_client.get("/api/responsible-gaming", headers=euros).json()["restriction"] is None
    assert open_round(op_client, euros).status_code == 200
