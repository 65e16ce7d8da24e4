"""Responsible gaming through the API (issue 17): every refusal is the server's, with its reason,
its catalogue key and nothing moved; limits lower at once and rise after the cooling-off; a
round once opened always completes."""

from __future__ import annotations

from typing import Any

from tests.server.conftest import FakeClock, Player, TestClient, make_client

from dealerpoker.server.responsible import Profile


def put_limits(player: Player, **limits: Any) -> Any:
    return player.client.request("PUT", "/api/responsible-gaming/limits", json=limits, headers=player.headers)


def refused(player: Player, reason: str, **bets: int) -> dict[str, Any]:
    """Opening a casino-holdem round is refused for ``reason``; nothing was debited."""
    before = player.balance()
    response = player.post("/api/rounds", {"game": "casino-holdem", "bets": bets or {"ante": 100}})
    assert response.status_code == 403, response.text
    body: dict[str, Any] = response.json()
    assert (body["error"], body["reason"], body["key"]) == ("responsible_gaming", reason, body["key"])
    assert body["key"].startswith(f"error.rg.{reason}")
    assert player.balance() == before
    return body


def lose_a_round(player: Player, ante: int = 100) -> None:
    view = player.open("casino-holdem", ante=ante)
    assert player.act(view["id"], "fold")["status"] == "settled"


def test_a_loss_limit_refuses_a_round_that_could_break_it(database_url: str, clock: FakeClock) -> None:
    with make_client(database_url, clock) as client:
        player = Player(client)
        assert put_limits(player, loss_day=400).status_code == 200
        lose_a_round(player)  # could lose 300 (ante and raise): 0 + 300 <= 400
        lose_a_round(player)  # lost 100 so far: 100 + 300 <= 400
        body = refused(player, "loss_day")  # lost 200: 200 + 300 > 400
        assert body["params"] == {"limit": 400, "used": 200, "at_stake": 300, "left": 200}
        assert "24-hour loss limit" in body["message"]
        clock.advance(24 * 3600)  # the losses leave the 24 hours
        lose_a_round(player)


def test_a_lower_limit_applies_at_once_a_higher_one_after_the_cooling_off(
    database_url: str, clock: FakeClock
) -> None:
    with make_client(database_url, clock) as client:
        player = Player(client)
        put_limits(player, stake_day=1000)
        status = put_limits(player, stake_day=300).json()  # lower: at once
        assert status["limits"]["stake_day"]["applies"] == 300
        lose_a_round(player)
        refused(player, "stake_day")  # staked 100: 100 + 300 > 300
        status = put_limits(player, stake_day=100_000).json()  # higher: waits
        limit = status["limits"]["stake_day"]
        assert limit["applies"] == 300 and limit["pending"]["amount"] == 100_000
        refused(player, "stake_day")
        clock.advance(23 * 3600)
        refused(player, "stake_day")
        clock.advance(3600)
        assert player.get("/api/responsible-gaming").json()["limits"]["stake_day"]["applies"] == 100_000
        lose_a_round(player)
        # Removing a limit is a raise too: it waits.
        status = put_limits(player, stake_day=None).json()
        assert status["limits"]["stake_day"]["applies"] == 100_000
        assert status["limits"]["stake_day"]["pending"]["amount"] is None


def test_bad_limits_are_refused_and_change_nothing(client: TestClient) -> None:
    player = Player(client)
    for body in ({"loss_day": 0}, {"loss_day": -5}, {"loss_day": 1.5}, {"loss_week": 100},
                 {"session_minutes": 2000}, {"loss_day": "100"}):
        response = put_limits(player, **body)
        assert response.status_code == 422, (body, response.text)
    assert player.get("/api/responsible-gaming").json()["limits"]["loss_day"]["applies"] is None


def test_a_session_time_limit_ends_play_until_a_break(database_url: str, clock: FakeClock) -> None:
    profile = Profile(session_gap_minutes=30)
    with make_client(database_url, clock, responsible_gaming=profile) as client:
        player = Player(client)
        put_limits(player, session_minutes=10)
        lose_a_round(player)  # the session starts
        clock.advance(9 * 60)
        lose_a_round(player)
        clock.advance(2 * 60)
        body = refused(player, "session_time")
        assert body["params"] == {"limit_minutes": 10, "break_minutes": 30}
        clock.advance(17 * 60)
        refused(player, "session_time")  # 19 minutes since the last round: still the same session
        clock.advance(12 * 60)
        lose_a_round(player)  # 31 minutes since the last round: a new session


def test_the_reality_check_pauses_play_until_the_player_answers(database_url: str, clock: FakeClock) -> None:
    with make_client(database_url, clock, responsible_gaming=Profile(reality_check_minutes=5)) as client:
        player = Player(client)
        lose_a_round(player)
        clock.advance(4 * 60)
        lose_a_round(player)
        session = player.get("/api/responsible-gaming").json()["session"]
        assert session["active"] and not session["reality_check_due"]
        assert (session["staked"], session["net"]) == (200, -200)
        clock.advance(60)
        body = refused(player, "reality_check")
        assert body["params"] == {"minutes": 5}
        assert player.get("/api/responsible-gaming").json()["session"]["reality_check_due"]
        answered = player.post("/api/responsible-gaming/reality-check", {"choice": "continue"})
        assert answered.status_code == 200 and not answered.json()["session"]["reality_check_due"]
        lose_a_round(player)
        clock.advance(5 * 60)
        refused(player, "reality_check")
        assert player.post("/api/responsible-gaming/reality-check", {"choice": "stay"}).status_code == 422


def test_the_least_time_between_rounds_is_the_servers(database_url: str, clock: FakeClock) -> None:
    with make_client(database_url, clock, responsible_gaming=Profile(min_round_seconds=10)) as client:
        player = Player(client)
        lose_a_round(player)
        clock.advance(4)
        body = refused(player, "too_fast")
        assert body["params"]["seconds"] == 6
        clock.advance(6)
        lose_a_round(player)


def test_a_break_refuses_new_rounds_but_an_open_round_completes(database_url: str, clock: FakeClock) -> None:
    with make_client(database_url, clock) as client:
        player = Player(client)
        view = player.open("casino-holdem", ante=100)
        taken = player.post("/api/responsible-gaming/break", {"hours": 2})
        assert taken.status_code == 200 and taken.json()["restriction"]["kind"] == "cool_off"
        assert player.act(view["id"], "raise")["status"] == "settled"  # the open round completes
        body = refused(player, "cool_off")
        assert body["params"]["until"] == taken.json()["restriction"]["until"]
        shorter = player.post("/api/responsible-gaming/break", {"hours": 1}).json()
        assert shorter["restriction"]["until"] == taken.json()["restriction"]["until"]  # cannot be shortened
        clock.advance(2 * 3600)
        lose_a_round(player)


def test_a_self_exclusion_refuses_every_new_round(database_url: str, clock: FakeClock) -> None:
    with make_client(database_url, clock) as client:
        player = Player(client)
        view = player.open("texas-bonus", ante=100)
        services = client.app.state.services

        async def exclude() -> Any:
            return await services.responsible.restrict(player.id, "self_exclusion", None, by="operator:test")

        assert client.portal is not None
        client.portal.call(exclude)
        refused(player, "self_exclusion")
        assert player.act(view["id"], "fold")["status"] == "settled"
        events = client.portal.call(lambda: services.responsible.events(player.id))
        assert events[0]["kind"] == "restriction" and events[0]["by"] == "operator:test"


def test_fast_play_is_the_deployments_choice_and_published(database_url: str, clock: FakeClock) -> None:
    """Fast play (the page taking the next action before a step's animations end) is forbidden
    unless the deployment allows it (``serve --fast-play``, ``DEALERPOKER_FAST_PLAY=1``); the page
    reads it from ``GET /api/responsible-gaming``. The server has no autoplay to allow."""
    from dealerpoker.cli import build_parser
    from dealerpoker.cli.serve import settings_of
    from dealerpoker.server.settings import Settings, SettingsError

    parser = build_parser("serve")
    assert not settings_of(parser.parse_args(["serve"])).responsible_gaming.fast_play
    assert settings_of(parser.parse_args(["serve", "--fast-play"])).responsible_gaming.fast_play
    assert Settings.from_env({"DEALERPOKER_FAST_PLAY": "1"}).responsible_gaming.fast_play
    assert not Settings.from_env({"DEALERPOKER_FAST_PLAY": "0"}).responsible_gaming.fast_play
    try:
        Settings.from_env({"DEALERPOKER_FAST_PLAY": "maybe"})
    except SettingsError as error:
        assert "DEALERPOKER_FAST_PLAY" in str(error)
    else:
        raise AssertionError("a fast-play setting that is not 1 or 0 was taken")
    for allowed in (False, True):
        with make_client(database_url, clock, responsible_gaming=Profile(fast_play=allowed)) as client:
            profile = Player(client).get("/api/responsible-gaming").json()["profile"]
            assert (profile["fast_play"], profile["autoplay"]) == (allowed, False)
