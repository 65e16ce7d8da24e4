"""The round-step fast path (``api/fastpath.py``): it serves well-formed round requests and
hands everything else to FastAPI, whose answers (errors included) stay the same."""

from __future__ import annotations

import json

from conftest import Player, TestClient


def test_the_fast_path_takes_what_fastapi_takes(client: TestClient, player: Player) -> None:
    body = json.dumps({"game": "casino-holdem", "bets": {"ante": 100}})
    # The scheme is case-insensitive and a charset may follow the media type, as for FastAPI.
    response = client.post("/api/rounds", content=body, headers={
        "Authorization": f"bearer {player.token}", "Content-Type": "application/json; charset=utf-8"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    view = response.json()
    assert view["status"] == "open" and view["steps"][0]["stake"] == 100
    assert player.get(f"/api/rounds/{view['id']}").json() == view


def test_what_the_fast_path_declines_gets_fastapis_answer(client: TestClient, player: Player) -> None:
    balance = player.balance()
    body = {"game": "casino-holdem", "bets": {"ante": 100}}
    # A query string: FastAPI refuses unknown parameters.
    response = client.post("/api/rounds", params={"limt": 5}, json=body, headers=player.headers)
    assert response.status_code == 422 and "limt" in response.json()["message"]
    # Not JSON by its content type: FastAPI does not read the body as JSON.
    response = client.post("/api/rounds", content=json.dumps(body),
                           headers={**player.headers, "Content-Type": "text/plain"})
    assert 400 <= response.status_code < 500, response.text
    assert set(response.json()) >= {"error", "message"}
    # Bodies the request model refuses: an unknown field, a key over its length.
    response = player.post("/api/rounds", {**body, "tip": 5})
    assert response.status_code == 422 and response.json()["error"] == "invalid_request"
    response = player.post("/api/rounds", {**body, "idempotency_key": "k" * 20_000})
    assert response.status_code == 422 and response.json()["error"] == "invalid_request"
    assert player.balance() == balance
    assert player.get("/api/rounds").json()["rounds"] == []
