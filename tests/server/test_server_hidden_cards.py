"""No response ever contains a card the player may not see yet: the dealer's hole cards before
the showdown, board cards not yet dealt, the rest of the deck (and the server seed, which
determines the deck, before the round is settled)."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from sqlalchemy import select

from conftest import Player, TestClient
from dealerpoker.cards.encoding import index_to_card
from dealerpoker.server.schema import rounds

TOKEN = re.compile(r"[A-Za-z0-9]+")


def strings_in(document: Any) -> list[str]:
    if isinstance(document, str):
        return [document]
    if isinstance(document, dict):
        return [s for key, value in document.items() for s in (*strings_in(key), *strings_in(value))]
    if isinstance(document, list):
        return [s for item in document for s in strings_in(item)]
    return []


def record(client: TestClient, round_id: str) -> tuple[list[int], str]:
    services = client.app.state.services

    async def load() -> tuple[list[int], str]:
        async with services.database.transaction() as connection:
            row = (await connection.execute(
                select(rounds.c.deck, rounds.c.server_seed).where(rounds.c.id == round_id))).one()
            return json.loads(row.deck), str(row.server_seed)

    assert client.portal is not None
    return client.portal.call(load)


def hidden_cards(deck: list[int], view: dict[str, Any]) -> set[str]:
    """Cards of this round the player may not see in ``view``'s state."""
    visible = 4 + len(view["board"])
    hidden = set(deck[visible:])
    if view["status"] == "open":
        hidden |= set(deck[2:4])
    return {str(index_to_card(i)) for i in hidden}


def assert_hides(response: Any, secrets: set[str], seeds: set[str]) -> None:
    body = response.json()
    tokens = {token for text in strings_in(body) for token in TOKEN.findall(text)}
    leaked = tokens & secrets
    assert not leaked, f"{response.request.url} leaked hidden cards {sorted(leaked)}"
    raw = response.text
    for seed in seeds:
        assert seed not in raw, f"{response.request.url} leaked an unsettled round's server seed"


def assert_round_views_hide(client: TestClient, response: Any) -> int:
    """Check each round view in a response against that round's own deck; the number checked."""
    body = response.json()
    views = body.get("rounds", [body])
    for view in views:
        deck, seed = record(client, view["id"])
        single = type("One", (), {"json": lambda self, v=view: v, "text": json.dumps(view),
                                  "request": response.request})()
        assert_hides(single, hidden_cards(deck, view), set() if view["status"] == "settled" else {seed})
    return len(views)


PATHS = {
    "texas-bonus": [list(p) for p in itertools.product(["bet"], ["bet", "check"], ["bet", "check"])]
    + [["fold"]],
    "casino-holdem": [["raise"], ["call"], ["fold"]],
}
BETS = {"texas-bonus": {"ante": 100, "bonus": 100}, "casino-holdem": {"ante": 100, "aa": 100}}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(PATHS))
def test_no_response_reveals_a_hidden_card(client: TestClient, game: str) -> None:
    player = Player(client)
    checked = 0
    for path in PATHS[game] * 5:
        response = player.post("/api/rounds", {"game": game, "bets": BETS[game]})
        checked += assert_round_views_hide(client, response)
        view = response.json()
        for action in path:
            checked += assert_round_views_hide(client, player.get(f"/api/rounds/{view['id']}"))
            checked += assert_round_views_hide(client, player.get("/api/rounds", limit=100))
            checked += assert_round_views_hide(client, player.get("/api/rounds", status="open"))
            response = player.post(f"/api/rounds/{view['id']}/actions",
                                   {"action": action, "step": len(view["steps"])})
            checked += assert_round_views_hide(client, response)
            view = response.json()
        assert view["status"] == "settled"
        _deck, seed = record(client, view["id"])
        assert view["fairness"]["server_seed"] == seed
        assert len(view["dealer_cards"]) == 2
    assert checked > 100


def test_hidden_card_scan_catches_a_leak() -> None:
    """The scanner itself fails when a hidden card appears (so the test above can fail)."""

    class Fake:
        text = '{"note": "dealer has Ks"}'
        request = type("R", (), {"url": "/x"})()

        def json(self) -> Any:
            return json.loads(self.text)

    with pytest.raises(AssertionError, match="Ks"):
        assert_hides(Fake(), {"Ks"}, set())
