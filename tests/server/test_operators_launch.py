"""Operators: the operators file's refusals, signed launch, one-time launch tokens, sessions of an
operator's player (issue 14). Nothing here calls a wallet: demo mode plays on play money and a
real launch only opens the account (the wallet's tests are test_operators_wallet.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.operator import client_now, operator_headers
from tests.support.operators_file import operator_entry, operators_file

from conftest import FakeClock, TestClient, audit, make_client
from dealerpoker.cli import main
from dealerpoker.server import Settings
from dealerpoker.server.operators.config import InvalidOperatorsError, parse_operators
from dealerpoker.server.settings import SettingsError

SECRET = "s3cret-for-casino-a-0123456789"
OPERATORS = operators_file(
    operator_entry("casino-a", secret=SECRET, wallet_url="http://127.0.0.1:9199/wallet",
                   currencies=["EUR", "JPY"],
                   frame_ancestors=["https://casino-a.example", "https://cdn.casino-a.example"]),
    operator_entry("casino-b", secret_env="CASINO_B_SECRET", wallet_url="https://wallet.casino-b.example/api",
                   currencies=["USD"], frame_ancestors=["https://casino-b.example"],
                   chips={"USD": [100, 500]}),
)


def operators() -> Any:
    return parse_operators(OPERATORS, environ={"CASINO_B_SECRET": "another-secret-of-casino-b"})


@pytest.fixture
def op_client(database_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with make_client(database_url, clock, operators=operators()) as client:
        yield client


def signed(client: TestClient, body: Any, *, secret: str = SECRET, operator: str = "casino-a",
           tamper: bool = False, path: str = "/operator/v1/launch", method: str = "POST") -> dict[str, Any]:
    raw = json.dumps(body).encode()
    headers = operator_headers(secret, method, path, raw, operator=operator, now=client_now(client))
    if tamper:
        raw = raw.replace(b'"u-1"', b'"u-2"')
    return {"content": raw, "headers": headers}


LAUNCH = {
    "player": "u-1",
    "currency": "EUR",
    "game": "texas-bonus",
    "token": "op-session-1",
    "mode": "demo",
    "language": "de",
    "lobby_url": "https://casino-a.example/lobby",
}


def launch(client: TestClient, body: Any = None, **options: Any) -> Any:
    return client.post("/operator/v1/launch", **signed(client, LAUNCH if body is None else body, **options))


def session(client: TestClient, token: str) -> Any:
    return client.post("/api/session", json={"launch": token})


# ---- the operators file -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            ('wallet_url = "http://127.0.0.1:9199/wallet"', 'wallet_url = "ftp://x"'),
            "operators[0] (id 'casino-a'): wallet_url",
        ),
        (('currencies = ["EUR", "JPY"]', "currencies = []"), "operators[0] (id 'casino-a'): currencies"),
        (('id = "casino-b"', 'id = "casino-a"'), "operators[1] (id 'casino-a'): id: 'casino-a' is used"),
        (
            ('frame_ancestors = ["https://casino-b.example"]', 'frame_ancestors = ["casino-b"]'),
            "operators[1] (id 'casino-b'): frame_ancestors",
        ),
        (
            (f'secret = "{SECRET}"', 'secret = "short"'),
            "operators[0] (id 'casino-a'): secret: expected at least",
        ),
        ((f'secret = "{SECRET}"', ""), "operators[0] (id 'casino-a'): expected exactly one of secret"),
        (("USD = [100, 500]", "EUR = [100, 500]"), "operators[1] (id 'casino-b'): chips.EUR: not one of"),
        (("USD = [100, 500]", "USD = [0]"), "operators[1] (id 'casino-b'): chips.USD"),
        (('id = "casino-b"', 'id = "casino-b"\ncolour = 1'), "operators[1] (id 'casino-b'): colour: unknown"),
    ],
)
def test_a_bad_entry_is_refused_naming_it_and_never_the_secret(change: tuple[str, str], named: str) -> None:
    text = OPERATORS.replace(*change)
    with pytest.raises(InvalidOperatorsError) as refused:
        parse_operators(text, environ={"CASINO_B_SECRET": "another-secret-of-casino-b"})
    assert named in str(refused.value)
    assert SECRET not in str(refused.value) and "another-secret" not in str(refused.value)


def test_secret_env_must_be_set_and_the_settings_expose_every_frame_ancestor() -> None:
    with pytest.raises(InvalidOperatorsError, match="CASINO_B_SECRET' is not set"):
        parse_operators(OPERATORS, environ={})
    settings = Settings(operators=operators())
    assert settings.frame_ancestors == (
        "https://casino-a.example",
        "https://cdn.casino-a.example",
        "https://casino-b.example",
    )
    assert SECRET not in repr(settings)


def test_serve_refuses_a_bad_operators_file_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASINO_B_SECRET", "another-secret-of-casino-b")
    path = tmp_path / "operators.toml"
    path.write_text(OPERATORS.replace('currencies = ["USD"]', 'currencies = ["XYZ"]'))
    status = main(
        [
            "serve",
            "--operators",
            str(path),
            "--database",
            f"sqlite:///{tmp_path}/x.db",
            "--no-rtp",
            "--port",
            "9101",
        ]
    )
    assert status == 2
    err = capsys.readouterr().err
    assert "casino-b" in err and "XYZ" in err and "another-secret" not in err


def test_an_operator_chips_outside_the_rules_are_refused_at_start(database_url: str) -> None:
    bad = parse_operators(
        OPERATORS.replace("USD = [100, 500]", "USD = [1, 500]"),
        environ={"CASINO_B_SECRET": "another-secret-of-casino-b"},
    )
    with pytest.raises(InvalidOperatorsError, match="casino-b: USD"):
        make_client(database_url, operators=bad)


# ---- signed launch ----------------------------------------------------------------------


def test_a_launch_url_is_built_on_the_public_url_never_on_the_host_header(
        database_url: str, clock: FakeClock) -> None:
    public = "https://games.example"
    with make_client(database_url, clock, operators=operators(), public_url=public) as client:
        raw_launch = signed(client, LAUNCH)
        raw_launch["headers"]["Host"] = "evil.example"
        body = client.post("/operator/v1/launch", **raw_launch).json()
        assert body["url"].startswith("https://games.example/?launch=") and "evil" not in body["url"]
    with make_client(database_url, clock, operators=operators()) as client:
        raw_launch = signed(client, LAUNCH)
        raw_launch["headers"]["Host"] = "evil.example"
        body = client.post("/operator/v1/launch", **raw_launch).json()
        assert body["url"].startswith("/?launch=") and "evil" not in body["url"]
    with pytest.raises(SettingsError, match="public URL"):
        Settings(public_url="games.example")


def test_a_signed_launch_gives_a_one_time_address_that_opens_a_session(op_client: TestClient) -> None:
    answer = launch(op_client)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body) == {"url", "launch_token", "expires_at"}
    assert body["url"].startswith("/?") and "launch=" in body["url"]  # no public URL set: relative
    assert body["url"].endswith("#/play/texas-bonus") and "lang=de" in body["url"]
    first = session(op_client, body["launch_token"])
    assert first.status_code == 200, first.text
    player = first.json()
    assert player["currency"] == "EUR" and player["balance"] == 100_000  # demo: play money
    assert player["lobby_url"] == LAUNCH["lobby_url"]  # where the page's "leave" returns
    headers = {"Authorization": f"Bearer {player['token']}"}
    assert op_client.get("/api/balance", headers=headers).json()["balance"] == 100_000
    opened = op_client.post(
        "/api/rounds", json={"game": "texas-bonus", "bets": {"ante": 100}}, headers=headers
    )
    assert opened.status_code == 200, opened.text
    # the same player launched again is the same account (a new session of it)
    again = session(op_client, launch(op_client).json()["launch_token"]).json()
    assert again["player_id"] == player["player_id"] and again["token"] != player["token"]
    assert again["balance"] == 100_000 - 100
    assert op_client.get("/api/balance", headers=headers).status_code == 200  # both sessions work
    # another currency, or real money, is another account
    jpy = session(op_client, launch(op_client, {**LAUNCH, "currency": "JPY"}).json()["launch_token"]).json()
    assert jpy["player_id"] != player["player_id"] and jpy["currency"] == "JPY"
    real = session(op_client, launch(op_client, {**LAUNCH, "mode": "real"}).json()["launch_token"]).json()
    assert real["player_id"].startswith("o_") and real["player_id"] != player["player_id"]
    assert audit(op_client).ok


def test_a_live_table_launch_opens_the_live_page(database_url: str, clock: FakeClock) -> None:
    from dealerpoker.server.live.extension import live_extension_from

    app_settings = Settings(database_url=database_url, operators=operators())
    from dealerpoker.server import create_app

    with TestClient(
        create_app(app_settings, clock=clock, extensions=[live_extension_from(None, None)])
    ) as client:
        tables = list(client.app.state.live.runners)
        body = {**LAUNCH, "table": tables[0]}
        del body["game"]
        answer = launch(client, body)
        assert answer.status_code == 200, answer.text
        assert "/live.html?launch=" in answer.json()["url"] and answer.json()["url"].endswith(
            f"#/{tables[0]}"
        )
        unknown = launch(client, {**body, "table": "nowhere"})
        assert unknown.status_code == 404 and "nowhere" in unknown.json()["message"]


@pytest.mark.parametrize(
    ("options", "why"),
    [
        ({"tamper": True}, "tampered body"),
        ({"secret": "the-wrong-secret-0123456789"}, "wrong secret"),
        ({"operator": "casino-z"}, "unknown operator"),
    ],
)
def test_a_launch_without_a_valid_signature_is_refused_and_changes_nothing(
    op_client: TestClient, options: dict[str, Any], why: str
) -> None:
    before = _count(op_client, "launch_tokens")
    answer = launch(op_client, **options)
    assert answer.status_code == 401, why
    assert answer.json()["error"] == "invalid_signature"
    assert SECRET not in answer.text
    assert _count(op_client, "launch_tokens") == before
    unsigned = op_client.post("/operator/v1/launch", json=LAUNCH, headers={"X-Operator-Id": "casino-a"})
    assert unsigned.status_code == 401


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"currency": "USD"}, "currency 'USD'"),
        ({"game": "blackjack"}, "blackjack"),
        ({"game": None}, "exactly one of game and table"),
        ({"mode": "real", "token": None}, "token"),
        ({"mode": "fun"}, "mode"),
        ({"colour": "red"}, "colour"),
        ({"player": ""}, "player"),
    ],
)
def test_a_bad_launch_is_refused_naming_the_problem(
    op_client: TestClient, change: dict[str, Any], named: str
) -> None:
    body = {key: value for key, value in {**LAUNCH, **change}.items() if value is not None}
    before = _count(op_client, "launch_tokens")
    answer = launch(op_client, body)
    assert answer.status_code in (404, 422), answer.text
    assert named in answer.json()["message"]
    assert _count(op_client, "launch_tokens") == before


def test_a_launch_token_works_once_and_only_for_60_seconds(op_client: TestClient, clock: FakeClock) -> None:
    sessions, players = _count(op_client, "operator_sessions"), _count(op_client, "operator_players")
    token = launch(op_client).json()["launch_token"]
    assert session(op_client, token).status_code == 200
    replayed = session(op_client, token)
    assert replayed.status_code == 401 and replayed.json()["error"] == "invalid_launch"
    late = launch(op_client).json()["launch_token"]
    clock.advance(61)
    expired = session(op_client, late)
    assert expired.status_code == 401 and expired.json()["error"] == "invalid_launch"
    assert session(op_client, "made-up").status_code == 401
    assert _count(op_client, "operator_sessions") == sessions + 1  # only the first redeemed anything
    assert _count(op_client, "operator_players") <= players + 1


def test_without_operators_there_is_no_operator_api(client: TestClient) -> None:
    assert launch(client).status_code in (404, 405)  # no route (the static pages answer 405)


def _count(client: TestClient, table: str) -> int:
    from sqlalchemy import text

    services = client.app.state.services

    async def run() -> int:
        async with services.database.transaction() as connection:
            return int(await connection.scalar(text(f"SELECT count(*) FROM {table}")))

    assert client.portal is not None
    return client.portal.call(run)
