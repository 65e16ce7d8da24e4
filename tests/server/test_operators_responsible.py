"""An operator's players play under their operator's responsible-gaming profile (the operators
file's ``responsible_gaming``), enforced by the server and shown by ``GET
/api/responsible-gaming``; the server's own players keep the deployment's; a bad profile entry
stops the server at start, naming the operator and the setting (issue 17)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from tests.server.conftest import FakeClock, TestClient, make_client
from tests.support.operator import demo_launch
from tests.support.operators_file import operator_entry, operators_file

from dealerpoker.server.operators.config import InvalidOperatorsError, parse_operators
from dealerpoker.server.responsible import Profile

SECRET = "rg-profile-secret-for-casino-0123"
OPERATORS = operators_file(*(
    operator_entry(f"casino-{x}", secret=f"{SECRET}-{x}", wallet_url=f"http://127.0.0.1:9899/wallet-{x}",
                   currencies=["EUR"], responsible_gaming=profile)
    for x, profile in (("a", {"min_round_seconds": 60, "fast_play": True}),
                       ("b", {"reality_check_minutes": 5, "min_round_seconds": 0}))))


def launched(client: TestClient, operator: str) -> dict[str, str]:
    """A demo launch of a new player of ``operator`` (a fresh id: the PostgreSQL database
    outlives one test): their headers."""
    return demo_launch(client, operator, f"{SECRET}-{operator[-1]}", player=f"rg-{uuid.uuid4().hex[:12]}",
                       game="casino-holdem")


def own_player(client: TestClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {client.post('/api/session', json={}).json()['token']}"}


def play(client: TestClient, headers: dict[str, str]) -> Any:
    """Open a casino-holdem round and fold it; the refusal's body if it was refused."""
    bets = {"game": "casino-holdem", "bets": {"ante": 100}}
    opened = client.post("/api/rounds", json=bets, headers=headers)
    if opened.status_code != 200:
        assert opened.status_code == 403, opened.text
        return opened.json()
    round_id = opened.json()["id"]
    steps = len(client.get(f"/api/rounds/{round_id}", headers=headers).json()["steps"])
    folded = client.post(f"/api/rounds/{round_id}/actions", json={"action": "fold", "step": steps},
                         headers=headers)
    assert folded.status_code == 200 and folded.json()["status"] == "settled", folded.text
    return None


def test_each_operators_players_play_under_their_operators_profile(
    database_url: str, clock: FakeClock,
) -> None:
    deployment = Profile(min_round_seconds=10)
    with make_client(database_url, clock, responsible_gaming=deployment,
                     operators=parse_operators(OPERATORS)) as client:
        a, b, own = launched(client, "casino-a"), launched(client, "casino-b"), own_player(client)
        profiles = {name: client.get("/api/responsible-gaming", headers=h).json()["profile"]
                    for name, h in (("a", a), ("b", b), ("own", own))}
        assert profiles["a"] == {**deployment.to_dict(), "min_round_seconds": 60, "fast_play": True}
        assert profiles["b"] == {**deployment.to_dict(), "reality_check_minutes": 5, "min_round_seconds": 0}
        assert profiles["own"] == deployment.to_dict()
        for headers in (a, b, own):
            assert play(client, headers) is None
        clock.advance(20)  # past the deployment's 10 s, not casino-a's 60 s
        refused = play(client, a)
        assert (refused["reason"], refused["params"]["seconds"]) == ("too_fast", 40), refused
        assert play(client, own) is None and play(client, b) is None  # casino-b: no pace
        clock.advance(5 * 60)  # casino-b's reality check is due; nobody else has one
        refused = play(client, b)
        assert refused["reason"] == "reality_check" and refused["params"] == {"minutes": 5}, refused
        assert client.get("/api/responsible-gaming", headers=b).json()["session"]["reality_check_due"]
        assert play(client, a) is None and play(client, own) is None
        answered = client.post("/api/responsible-gaming/reality-check", json={"choice": "continue"},
                               headers=b)
        assert answered.status_code == 200, answered.text
        assert play(client, b) is None


@pytest.mark.parametrize(("setting", "named"), [
    ("min_round_seconds = 60", "responsible_gaming: min_round_seconds: expected 0..3600, got -1"),
    ("min_round_seconds = 60", "responsible_gaming.min_round_seconds: expected a number, got '60'"),
    ("fast_play = true", "responsible_gaming.fast_play: expected true or false, got 1"),
    ("fast_play = true", "responsible_gaming.autoplay: unknown setting"),
])
def test_a_bad_profile_entry_is_refused_at_start_naming_the_operator_and_setting(
    setting: str, named: str,
) -> None:
    bad = {"got -1": "min_round_seconds = -1", "got '60'": 'min_round_seconds = "60"',
           "got 1": "fast_play = 1", "autoplay": "autoplay = true"}
    text = OPERATORS.replace(setting, next(v for k, v in bad.items() if k in named))
    with pytest.raises(InvalidOperatorsError) as refused:
        parse_operators(text)
    message = str(refused.value)
    assert message.startswith("operators: operators[0] (id 'casino-a'): "), message
    assert named in message, message
    assert SECRET not in message
