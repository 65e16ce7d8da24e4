"""The REST API end to end: sessions, games, full rounds of both games, history, balance, errors."""

from __future__ import annotations

from typing import Any

import pytest
from tests.support.waiting import until

from conftest import Player, TestClient, audit, play_out


def test_session_gives_a_funded_player_and_a_token(client: TestClient) -> None:
    player = Player(client)
    assert player.start_balance == 100_000
    assert player.balance() == 100_000
    assert len(player.token) >= 40
    assert Player(client).token != player.token


def test_games_lists_both_games_with_limits_paytables_and_rtp(client: TestClient) -> None:
    games = {game["id"]: game for game in client.get("/api/games").json()["games"]}
    assert set(games) == {"texas-bonus", "casino-holdem"}
    texas = games["texas-bonus"]
    assert [field["name"] for field in texas["fields"]] == ["ante", "bonus"]
    assert texas["fields"][1] == {"name": "bonus", "min": 100, "max": 25000, "optional": True,
                                  "requires": "ante"}
    assert texas["paytables"]["bonus_paytable"][0]["pays"] == 30
    assert texas["actions"] == {"preflop": ["bet", "fold"], "flop": ["bet", "check"],
                                "turn": ["bet", "check"]}
    assert set(texas["rtp"]) >= {"ante", "bonus"}
    casino = games["casino-holdem"]
    assert casino["paytables"]["ante_paytable"]["royal-flush"] == 100
    assert casino["chips"] == [100, 500, 1000, 2500, 10000, 50000]


@pytest.mark.parametrize(("game", "bets"), [("texas-bonus", {"ante": 100, "bonus": 100}),
                                            ("casino-holdem", {"ante": 200, "aa": 100})])
def test_full_rounds_move_exactly_the_settled_money(
    client: TestClient, game: str, bets: dict[str, int]
) -> None:
    player = Player(client)
    for _round in range(12):
        first = player.open(game, **bets)
        assert first["status"] == "open" and first["steps"][0]["stake"] == sum(bets.values())
        assert first["dealer_cards"] == []
        views = play_out(player, first)
        final = views[-1]
        assert final["status"] == "settled" and final["legal_actions"] == []
        settlement = final["settlement"]
        assert len(final["dealer_cards"]) == 2
        assert final["total_stake"] == settlement["total_stake"]
        assert final["total_returned"] == settlement["total_returned"]
        assert [step["step"] for step in final["steps"]] == list(range(len(views)))
    history = player.get("/api/rounds", limit=100).json()["rounds"]
    staked = sum(r["settlement"]["total_stake"] for r in history)
    returned = sum(r["settlement"]["total_returned"] for r in history)
    assert player.balance() == player.start_balance - staked + returned
    assert audit(client).ok


def test_each_step_debits_its_stake_before_the_next_card(client: TestClient, player: Player) -> None:
    view = player.open("texas-bonus", ante=100)
    assert player.balance() == 100_000 - 100
    view = player.act(view["id"], "bet")  # places the flop bet: 2 x ante
    assert view["balance"] == player.balance() == 100_000 - 300
    assert len(view["board"]) == 3 and view["bets"]["flop"] == 200


def test_history_is_newest_first_with_steps_and_filters(client: TestClient, player: Player) -> None:
    done = play_out(player, player.open("casino-holdem", ante=100))[-1]
    pending = player.open("texas-bonus", ante=100)
    rounds = player.get("/api/rounds").json()["rounds"]
    assert [r["id"] for r in rounds] == [pending["id"], done["id"]]
    assert rounds[1]["steps"][1]["source"] == "player"
    assert [r["id"] for r in player.get("/api/rounds", status="open").json()["rounds"]] == [pending["id"]]
    assert [r["id"] for r in player.get("/api/rounds", status="settled").json()["rounds"]] == [done["id"]]
    assert [r["id"] for r in player.get("/api/rounds", before=pending["id"]).json()["rounds"]] == [done["id"]]
    assert [r["id"] for r in player.get("/api/rounds", limit=1).json()["rounds"]] == [pending["id"]]
    assert player.get(f"/api/rounds/{pending['id']}").json() == pending


def test_idempotency_key_returns_the_same_round_and_debits_once(client: TestClient, player: Player) -> None:
    body = {"game": "texas-bonus", "bets": {"ante": 100, "bonus": 100}, "idempotency_key": "abc-1"}
    first = player.post("/api/rounds", body).json()
    again = player.post("/api/rounds", body)
    assert again.status_code == 200 and again.json()["id"] == first["id"]
    assert player.balance() == 100_000 - 200 + first["steps"][0]["returned"]
    other = player.post("/api/rounds", {**body, "bets": {"ante": 500}})
    assert other.status_code == 409 and other.json()["error"] == "conflict"
    assert len(player.get("/api/rounds").json()["rounds"]) == 1


def test_action_retry_with_step_does_not_act_twice(client: TestClient, player: Player) -> None:
    view = player.open("texas-bonus", ante=100)
    first = player.post(f"/api/rounds/{view['id']}/actions", {"action": "bet", "step": 1})
    retry = player.post(f"/api/rounds/{view['id']}/actions", {"action": "bet", "step": 1})
    assert first.status_code == retry.status_code == 200
    assert retry.json() == first.json()
    assert player.balance() == 100_000 - 300
    stale = player.post(f"/api/rounds/{view['id']}/actions", {"action": "check", "step": 1})
    assert stale.status_code == 409 and stale.json()["error"] == "conflict"


def test_players_see_only_their_own_rounds(client: TestClient) -> None:
    alice, bob = Player(client), Player(client)
    view = alice.open("casino-holdem", ante=100)
    for response in (bob.get(f"/api/rounds/{view['id']}"),
                     bob.post(f"/api/rounds/{view['id']}/actions", {"action": "raise", "step": 1}),
                     bob.get("/api/rounds", before=view["id"])):
        assert response.status_code == 403, response.text
        assert response.json()["error"] == "forbidden"
    assert bob.get("/api/rounds").json()["rounds"] == []
    assert alice.get(f"/api/rounds/{view['id']}").json()["status"] == "open"


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}])
def test_every_player_call_needs_a_valid_token(client: TestClient, headers: dict[str, str]) -> None:
    for method, path in (("GET", "/api/balance"), ("GET", "/api/rounds"), ("GET", "/api/rounds/r_x"),
                         ("POST", "/api/rounds"), ("POST", "/api/rounds/r_x/actions")):
        body = {"game": "texas-bonus", "bets": {"ante": 100}} if path == "/api/rounds" \
            else {"action": "bet", "step": 1}
        response = client.request(method, path, headers=headers, json=body if method == "POST" else None)
        assert response.status_code == 401, (method, path, response.text)
        assert response.json()["error"] == "unauthorized"


def test_insufficient_funds_is_refused_and_changes_nothing(database_url: str) -> None:
    from conftest import make_client

    with make_client(database_url, starting_balance=450) as client:
        player = Player(client)
        view = player.open("texas-bonus", ante=100, bonus=100)  # 250 left (or more if the bonus won)
        refused = player.post("/api/rounds", {"game": "casino-holdem", "bets": {"ante": 100_000}})
        assert refused.status_code == 409
        body = refused.json()
        assert body["error"] == "insufficient_funds" and body["balance"] == player.balance()
        # The flop bet (200) fits; make the balance too small for it and check the action is refused.
        player.open("casino-holdem", ante=100)
        balance = player.balance()
        if balance < 200:
            response = player.post(f"/api/rounds/{view['id']}/actions", {"action": "bet", "step": 1})
            assert response.status_code == 409 and response.json()["balance"] == balance
            assert player.get(f"/api/rounds/{view['id']}").json()["phase"] == "preflop"
        assert player.balance() == balance
        assert len(player.get("/api/rounds").json()["rounds"]) == 2
        assert audit(client).ok


BAD_ROUNDS: list[tuple[Any, int, str]] = [
    ({"game": "blackjack", "bets": {"ante": 100}}, 422, "unknown_game"),
    ({"game": "texas-bonus", "bets": {"ante": -100}}, 422, "bet_limit"),
    ({"game": "texas-bonus", "bets": {"ante": 0}}, 422, "bet_limit"),
    ({"game": "texas-bonus", "bets": {"ante": 100_001}}, 422, "bet_limit"),
    ({"game": "texas-bonus", "bets": {"ante": 10**30}}, 422, "bet_limit"),
    ({"game": "texas-bonus", "bets": {"bonus": 100}}, 422, "bet_limit"),
    ({"game": "texas-bonus", "bets": {"ante": 100, "flop": 200}}, 422, "bet_limit"),
    ({"game": "texas-bonus", "bets": {"ante": 100, "aa": 100}}, 422, "bet_limit"),
    ({"game": "texas-bonus", "bets": {"ante": 1.5}}, 422, "invalid_request"),
    ({"game": "texas-bonus", "bets": {"ante": "100"}}, 422, "invalid_request"),
    ({"game": "texas-bonus", "bets": {"ante": True}}, 422, "invalid_request"),
    ({"game": "texas-bonus", "bets": {"ante": 100}, "tip": 5}, 422, "invalid_request"),
    ({"game": "texas-bonus"}, 422, "invalid_request"),
    ([1, 2], 422, "invalid_request"),
    ("texas", 422, "invalid_request"),
]


@pytest.mark.parametrize(("body", "status", "code"), BAD_ROUNDS)
def test_bad_round_requests_are_4xx_and_change_nothing(
    client: TestClient, player: Player, body: Any, status: int, code: str
) -> None:
    response = player.post("/api/rounds", body)
    assert response.status_code == status, response.text
    assert response.json()["error"] == code and response.json()["message"]
    assert player.balance() == 100_000
    assert player.get("/api/rounds").json()["rounds"] == []


def test_malformed_json_is_400(client: TestClient, player: Player) -> None:
    response = client.post("/api/rounds", content=b'{"game": "texas-bonus", "bets": {',
                           headers={**player.headers, "Content-Type": "application/json"})
    assert response.status_code == 400 and response.json()["error"] == "malformed_json"


def test_bad_actions_are_4xx_and_change_nothing(client: TestClient, player: Player) -> None:
    view = player.open("texas-bonus", ante=100)
    balance = player.balance()
    for body, status, code in (
        ({"action": "check", "step": 1}, 409, "illegal_action"),   # out of turn: no check pre-flop
        ({"action": "raise", "step": 1}, 409, "illegal_action"),   # a Casino Hold'em action
        ({"action": "dance", "step": 1}, 409, "illegal_action"),
        ({"action": 5, "step": 1}, 422, "invalid_request"),
        ({"action": "bet", "step": 1, "extra": 1}, 422, "invalid_request"),
        ({"action": "bet"}, 422, "invalid_request"),   # no step: a retry could not be told apart
        ({"action": "bet", "step": 1.5}, 422, "invalid_request"),   # 1.0 is the integer 1
        ({}, 422, "invalid_request"),
    ):
        response = player.post(f"/api/rounds/{view['id']}/actions", body)
        assert response.status_code == status, (body, response.text)
        assert response.json()["error"] == code
    assert player.post("/api/rounds/r_unknown/actions", {"action": "bet", "step": 1}).status_code == 404
    assert player.get(f"/api/rounds/{view['id']}").json() == view
    final = play_out(player, view)[-1]
    late = player.post(f"/api/rounds/{view['id']}/actions", {"action": "bet", "step": len(final["steps"])})
    assert late.status_code == 409 and late.json()["error"] == "illegal_action"
    assert player.get(f"/api/rounds/{view['id']}").json() == final
    assert player.balance() == balance - final["total_stake"] + 100 + final["total_returned"]


def test_bad_queries_are_4xx(client: TestClient, player: Player) -> None:
    for params in ({"limit": 0}, {"limit": 101}, {"limit": "x"}, {"status": "lost"}, {"limt": 5}):
        response = player.get("/api/rounds", **params)
        assert response.status_code == 422 and response.json()["error"] == "invalid_request"
    assert player.get("/api/rounds", before="r_nope").status_code == 404


def test_unknown_paths_and_methods_are_json_errors(client: TestClient) -> None:
    assert client.get("/api/nope").json()["error"] == "not_found"
    response = client.delete("/api/games")
    assert response.status_code == 405 and response.json()["error"] == "method_not_allowed"


def test_web_page_docs_and_health_are_served(client: TestClient) -> None:
    index = client.get("/")
    assert index.status_code == 200 and "<html" in index.text.lower()
    assert client.get("/docs").status_code == 404  # off by default (Settings.docs; tests/hardening)
    assert "/api/rounds" in client.get("/openapi.json").json()["paths"]
    health = client.get("/healthz").json()  # a development checkout: no software manifest
    assert health["status"] == "ok" and health["software"]["state"] == "unverified"
    assert "no software manifest" in health["software"]["note"]


def test_games_show_exact_rtps_once_the_analysis_has_them(database_url: str) -> None:
    from fractions import Fraction

    from dealerpoker.server import Settings, create_app

    def fake_analysis(rules: Any) -> dict[str, Fraction | None]:
        if rules.game == "texas-bonus":
            return {"ante": Fraction(1, 4), "flop": None}
        return {"ante": Fraction(3, 4)}

    app = create_app(Settings(database_url=database_url), rtp_source=fake_analysis)
    with TestClient(app) as client:
        def published() -> dict[str, Any] | None:
            games = {g["id"]: g["rtp"] for g in client.get("/api/games").json()["games"]}
            return games if games["casino-holdem"].get("ante") is not None else None

        games = until(published, "the analysis's RTPs are published", timeout=10, interval=0.05)
    assert games["texas-bonus"] == {"ante": 0.25, "flop": None}
    assert games["casino-holdem"] == {"ante": 0.75}
