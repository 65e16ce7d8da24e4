"""The strategy hint (issue 16 item 16): ``GET /api/rounds/{id}/advice`` is refused unless the
deployment offers it, answers what ``dealerpoker advise`` answers for the cards the player sees at
each decision (the command run as a user runs it, in its own process), and uses no hidden card:
its answer names none, and it is the command's answer for the visible cards alone."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from test_server_hidden_cards import assert_hides, hidden_cards, record

from conftest import LONG_SESSIONS, Player, TestClient, make_client
from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.server import Settings, create_app

# The command as a user runs it (its entry point), in a fresh process.
DEALERPOKER = [sys.executable, "-c", "import sys; from dealerpoker.cli import main; sys.exit(main())"]


@pytest.fixture
def hinting(database_url: str) -> Iterator[TestClient]:
    """A server that offers the hint, with the analysis cache the command uses (``advise`` reads
    Texas Hold'em Bonus's pre-flop EVs from it; a fresh machine computes it once)."""
    app = create_app(Settings(database_url=database_url, strategy_hint=True, **LONG_SESSIONS),
                     rng=random.Random(16), analysis_cache=DiskCache())
    with TestClient(app) as client:
        yield client


def cli_advice(game: str, player: list[str], board: list[str],
               turn_bet: str | None = None) -> dict[str, Any]:
    command = [*DEALERPOKER, "advise", game, "--player", " ".join(player), "--board", " ".join(board),
               "--json"]
    if turn_bet:
        command += ["--turn-bet", turn_bet]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=True)
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def advice(player: Player, round_id: str) -> Any:
    return player.get(f"/api/rounds/{round_id}/advice")


def test_refused_when_the_deployment_does_not_offer_it(database_url: str) -> None:
    with make_client(database_url) as client:
        player = Player(client)
        assert player.get("/api/games").json()["strategy_hint"] is False
        view = player.open("casino-holdem", ante=100)
        answer = advice(player, view["id"])
        assert answer.status_code == 403
        assert answer.json()["error"] == "hint_off"
        assert answer.json()["key"] == "error.hint.off"


def test_each_decision_answered_as_the_advise_command_answers_it(hinting: TestClient) -> None:
    player = Player(hinting)
    assert player.get("/api/games").json()["strategy_hint"] is True
    compared = []
    for game, actions in (("texas-bonus", ["bet", "bet", "check"]), ("casino-holdem", ["raise"])):
        view = player.open(game, ante=100)
        for action in actions:
            answer = advice(player, view["id"])
            assert answer.status_code == 200, answer.text
            got = answer.json()
            turn_bet = None
            if game == "texas-bonus" and len(view["board"]) == 4:
                turn_bet = "yes" if "turn" in view["bets"] else "no"
            expected = cli_advice(game, view["player_cards"], view["board"], turn_bet)
            assert {k: got[k] for k in expected} == expected
            assert got["player_cards"] == view["player_cards"] and got["board"] == view["board"]
            assert set(got["actions"]) <= set(view["legal_actions"]) | {"raise"}
            compared.append(got["phase"])
            view = player.act(view["id"], action, len(view["steps"]))
    assert compared == ["preflop", "flop", "turn", "flop"]


def test_no_hidden_card_is_used(hinting: TestClient) -> None:
    player = Player(hinting)
    for game in ("casino-holdem", "texas-bonus"):
        view = player.open(game, ante=100)
        deck, seed = record(hinting, view["id"])
        answer = advice(player, view["id"])
        assert answer.status_code == 200
        assert_hides(answer, hidden_cards(deck, view), {seed})
        # Its cards are the player's view's, nothing more: the dealer's and the board to come stay out.
        used = answer.json()
        assert used["player_cards"] == view["player_cards"] and used["board"] == view["board"]
        view = player.act(view["id"], "fold", len(view["steps"]))
        assert view["status"] == "settled"
        settled = advice(player, view["id"])
        assert settled.status_code == 409 and settled.json()["error"] == "no_decision"


def test_another_players_round_is_not_advised(hinting: TestClient) -> None:
    owner, other = Player(hinting), Player(hinting)
    view = owner.open("casino-holdem", ante=100)
    answer = advice(other, view["id"])
    assert answer.status_code in (403, 404) and "player_cards" not in answer.text
