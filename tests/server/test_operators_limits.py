"""An operator's per-currency limits and chips (the operators file) are what its players play:
solo bets are checked against them by the server, ``GET /api/games`` (what the page reads its
chips and Min/Max signs from) shows them to those players, and limits that would widen the
server's, or chips they cannot use, stop the server at start, named (issue 14)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.operator import demo_launch
from tests.support.operators_file import operator_entry, operators_file

from conftest import TestClient, make_client
from dealerpoker.server import Settings, create_app
from dealerpoker.server.operators.config import InvalidOperatorsError, parse_operators

SECRET = "limits-secret-for-casino-a-0123"
OPERATORS = operators_file(
    operator_entry("casino-a", secret=SECRET, wallet_url="http://127.0.0.1:9299/wallet",
                   currencies=["EUR", "JPY"], chips={"EUR": [100, 200, 1000]},
                   limits={"EUR": {"ante": {"min": 200, "max": 1000}}}),
    operator_entry("casino-b", secret=f"{SECRET}-b", wallet_url="http://127.0.0.1:9299/wallet-b",
                   currencies=["EUR"]),
)


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with make_client(database_url, None, operators=parse_operators(OPERATORS)) as test_client:
        yield test_client


def launched(client: TestClient, operator: str = "casino-a", currency: str = "EUR") -> dict[str, str]:
    """A demo launch of an operator's player (its play-money account calls no wallet): headers."""
    secret = SECRET if operator == "casino-a" else f"{SECRET}-b"
    return demo_launch(client, operator, secret, player="p-1", currency=currency)


def texas(document: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(g for g in document["games"] if g["id"] == "texas-bonus")
    return found


def test_a_bet_outside_the_operators_limits_is_refused_naming_them_and_changes_nothing(
    client: TestClient,
) -> None:
    headers = launched(client)
    before = client.get("/api/balance", headers=headers).json()["balance"]
    for ante, named in ((100, "min 200"), (1100, "max 1000")):
        refused = client.post("/api/rounds", json={"game": "texas-bonus", "bets": {"ante": ante}},
                              headers=headers)
        assert refused.status_code == 422, refused.text
        body = refused.json()
        assert body["error"] == "bet_limit" and "ante" in body["message"] and named in body["message"], body
    assert client.get("/api/balance", headers=headers).json()["balance"] == before
    assert client.get("/api/rounds", headers=headers).json()["rounds"] == []
    placed = client.post("/api/rounds", json={"game": "texas-bonus", "bets": {"ante": 1000}}, headers=headers)
    assert placed.status_code == 200, placed.text
    # the server's own players and another operator's still play the server's EUR limits
    demo = {"Authorization": f"Bearer {client.post('/api/session', json={}).json()['token']}"}
    for other in (demo, launched(client, "casino-b")):
        opened = client.post("/api/rounds", json={"game": "texas-bonus", "bets": {"ante": 100}},
                             headers=other)
        assert opened.status_code == 200, opened.text


def test_the_games_api_gives_an_operators_player_the_operators_chips_and_limits(client: TestClient) -> None:
    server = texas(client.get("/api/games", params={"currency": "EUR"}).json())
    assert server["chips"] != [100, 200, 1000]
    mine = texas(client.get("/api/games", headers=launched(client)).json())  # the page's call
    assert mine["chips"] == [100, 200, 1000]
    ante = next(f for f in mine["fields"] if f["name"] == "ante")
    assert (ante["min"], ante["max"]) == (200, 1000)
    assert mine["rules"]["limits"]["ante"] == {"min": 200, "max": 1000}
    bonus = next(f for f in mine["fields"] if f["name"] == "bonus")  # a field it does not set
    assert bonus["max"] == next(f for f in server["fields"] if f["name"] == "bonus")["max"]
    # in a currency the operator sets nothing for, its players see the server's
    assert texas(client.get("/api/games", headers=launched(client, currency="JPY")).json()) == texas(
        client.get("/api/games", params={"currency": "JPY"}).json())
    assert texas(client.get("/api/games", headers=launched(client, "casino-b")).json()) == server


@pytest.mark.parametrize(("change", "named"), [
    ("ante = { min = 200, max = 1000 }", "ante = { min = 200, max = 900000 }"),
    ("EUR = [100, 200, 1000]", "EUR = [50, 200]"),
    ("ante = { min = 200, max = 1000 }", "ante = { min = 250, max = 1000 }"),
])
def test_limits_that_widen_the_servers_or_chips_they_cannot_use_stop_the_server(
    change: str, named: str,
) -> None:
    text = OPERATORS.replace(change, named)
    with pytest.raises(InvalidOperatorsError) as refused:
        create_app(Settings(database_url="sqlite://", operators=parse_operators(text)))
    message = str(refused.value)
    assert message.startswith("operators: casino-a: EUR: ")
    expected = {"900000": "limits.ante: 200-900000 is not within the server's EUR limits (100-100000)",
                "[50, 200]": "chips: 50 is below the smallest minimum bet (100)",
                "250": "limits.ante.min: 250 cannot be made with the chips (100, 200, 1000)"}
    assert next(v for k, v in expected.items() if k in named) in message, message
    assert SECRET not in message
