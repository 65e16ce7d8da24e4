"""An operator's signed request counts once, for the method and path (with query) it was signed
for, within minutes of when it was signed (docs/operators.md#signatures): replaying its bytes,
sending them to another path, or sending them late is refused with 401 and changes nothing. The
nonces are in the database, so two servers on one database (SQLite file or PostgreSQL) refuse a
request the other has already taken. The old body-only signatures pass only for an operator set
to ``signature = "body-only"``."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.server.conftest import FakeClock, TestClient, make_client
from tests.support.databases import NO_POSTGRES, POSTGRES_URL
from tests.support.operator import client_now, operator_headers
from tests.support.operators_file import operator_entry, operators_file

from dealerpoker.operator_signature import WINDOW_SECONDS, sign_body, sign_request
from dealerpoker.server.operators.config import InvalidOperatorsError, parse_operators

SECRET = "bound-signature-secret-0123456789"
OLD_SECRET = "body-only-secret-of-casino-old-01"
OPERATORS = operators_file(
    operator_entry("casino-a", secret=SECRET, wallet_url="http://127.0.0.1:9399/wallet", currencies=["EUR"]),
    operator_entry("casino-old", secret=OLD_SECRET, wallet_url="http://127.0.0.1:9399/old",
                   currencies=["EUR"], signature="body-only"),
)
LAUNCH = "/operator/v1/launch"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database two servers can share: a SQLite file, or the test session's PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    url: str = request.getfixturevalue("postgres_database")
    return url


@pytest.fixture
def client(shared_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with make_client(shared_url, clock, operators=parse_operators(OPERATORS)) as test_client:
        yield test_client


def new_player() -> str:
    return f"p-{uuid.uuid4().hex[:12]}"  # the PostgreSQL database outlives one test


def launch_body(player: str) -> bytes:
    return json.dumps({"player": player, "currency": "EUR", "game": "texas-bonus", "mode": "demo"}).encode()


def send(client: TestClient, method: str, path: str, raw: bytes, headers: dict[str, str]) -> Any:
    return client.request(method, path, content=raw, headers=headers)


def signed(client: TestClient, method: str, path: str, raw: bytes = b"", **options: Any) -> dict[str, str]:
    options.setdefault("now", client_now(client))
    return operator_headers(options.pop("secret", SECRET), method, path, raw, operator="casino-a", **options)


def launched(client: TestClient, player: str) -> dict[str, str]:
    """The player launched and in a session: their headers."""
    raw = launch_body(player)
    answer = send(client, "POST", LAUNCH, raw, signed(client, "POST", LAUNCH, raw))
    assert answer.status_code == 200, answer.text
    session = client.post("/api/session", json={"launch": answer.json()["launch_token"]})
    assert session.status_code == 200, session.text
    return {"Authorization": f"Bearer {session.json()['token']}"}


def launch_tokens(client: TestClient) -> int:
    from sqlalchemy import func, select

    from dealerpoker.server.schema import launch_tokens as table

    database = client.app.state.services.database

    async def count() -> int:
        async with database.reading() as connection:
            return int(await connection.scalar(select(func.count()).select_from(table)))

    assert client.portal is not None
    return client.portal.call(count)


def test_the_same_launch_bytes_sent_again_are_refused_and_mint_no_second_token(client: TestClient) -> None:
    raw = launch_body(new_player())
    headers = signed(client, "POST", LAUNCH, raw)
    first = send(client, "POST", LAUNCH, raw, headers)
    assert first.status_code == 200, first.text
    before = launch_tokens(client)
    again = send(client, "POST", LAUNCH, raw, headers)
    assert again.status_code == 401 and again.json()["error"] == "invalid_signature"
    assert "used before" in again.json()["message"]
    assert launch_tokens(client) == before


def test_a_restriction_signed_for_one_player_is_refused_on_another(client: TestClient) -> None:
    alice, bob = new_player(), new_player()
    alice_headers = launched(client, alice)
    launched(client, bob)
    excluded = json.dumps({"kind": "self_exclusion", "hours": 24}).encode()
    path = f"/operator/v1/players/{alice}/restrictions"
    assert send(client, "POST", path, excluded, signed(client, "POST", path, excluded)).status_code == 200
    lift = json.dumps({"kind": "none"}).encode()
    for_bob = signed(client, "POST", f"/operator/v1/players/{bob}/restrictions", lift)
    replayed = send(client, "POST", path, lift, for_bob)
    assert replayed.status_code == 401 and "wrong X-Signature" in replayed.json()["message"]
    opening = {"game": "texas-bonus", "bets": {"ante": 100}}
    opened = client.post("/api/rounds", json=opening, headers=alice_headers)
    assert opened.status_code == 403 and opened.json()["reason"] == "self_exclusion", opened.text
    # nor with another method (PUT .../limits) or another query string
    limits = f"/operator/v1/players/{alice}/limits"
    assert send(client, "PUT", limits, lift, signed(client, "POST", limits, lift)).status_code == 401
    query = "since=2000-01-01&until=2100-01-01"
    listing = signed(client, "GET", f"/operator/v1/transactions?{query}")
    other = client.get("/operator/v1/transactions?since=2000-01-01&until=2100-01-02", headers=listing)
    assert other.status_code == 401
    assert client.get(f"/operator/v1/transactions?{query}", headers=listing).status_code == 200


@pytest.mark.parametrize("late", [WINDOW_SECONDS + 1, -(WINDOW_SECONDS + 1)])
def test_a_request_signed_outside_the_window_is_refused(client: TestClient, late: int) -> None:
    raw = launch_body(new_player())
    headers = signed(client, "POST", LAUNCH, raw, now=client_now(client) - late)
    refused = send(client, "POST", LAUNCH, raw, headers)
    assert refused.status_code == 401 and "X-Signature-Timestamp" in refused.json()["message"]
    inside = signed(client, "POST", LAUNCH, raw, now=client_now(client) - late // 2)
    assert send(client, "POST", LAUNCH, raw, inside).status_code == 200


def test_a_request_missing_a_part_of_its_signature_is_refused(client: TestClient) -> None:
    raw = launch_body(new_player())
    for missing in ("X-Signature", "X-Signature-Timestamp", "X-Signature-Nonce"):
        headers = signed(client, "POST", LAUNCH, raw)
        del headers[missing]
        refused = send(client, "POST", LAUNCH, raw, headers)
        assert refused.status_code == 401 and missing in refused.json()["message"], (missing, refused.text)
    body_only = {"X-Operator-Id": "casino-a", "X-Signature": sign_body(SECRET, raw)}
    assert send(client, "POST", LAUNCH, raw, body_only).status_code == 401  # the old scheme is off by default


def test_a_nonce_taken_by_one_server_is_refused_by_another_on_the_same_database(
        shared_url: str, client: TestClient, clock: FakeClock) -> None:
    raw = launch_body(new_player())
    headers = signed(client, "POST", LAUNCH, raw)
    with make_client(shared_url, clock, operators=parse_operators(OPERATORS)) as other:
        assert send(other, "POST", LAUNCH, raw, headers).status_code == 200
    refused = send(client, "POST", LAUNCH, raw, headers)
    assert refused.status_code == 401 and "used before" in refused.json()["message"]


def test_nonces_are_forgotten_once_their_window_is_past(client: TestClient, clock: FakeClock) -> None:
    from sqlalchemy import select

    from dealerpoker.operator_signature import NONCE_HEADER
    from dealerpoker.server.schema import operator_nonces

    database = client.app.state.services.database

    async def kept(*nonces: str) -> set[str]:
        """Which of ``nonces`` the server still holds (the database may hold other tests' too)."""
        async with database.reading() as connection:
            rows = await connection.execute(select(operator_nonces.c.nonce).where(
                operator_nonces.c.operator_id == "casino-a", operator_nonces.c.nonce.in_(nonces)))
            return {row.nonce for row in rows}

    assert client.portal is not None
    raw = launch_body(new_player())
    first = signed(client, "POST", LAUNCH, raw)
    assert send(client, "POST", LAUNCH, raw, first).status_code == 200
    assert client.portal.call(kept, first[NONCE_HEADER]) == {first[NONCE_HEADER]}
    clock.advance(2 * WINDOW_SECONDS + 61)
    second = signed(client, "POST", LAUNCH, raw)
    assert send(client, "POST", LAUNCH, raw, second).status_code == 200
    # The first is forgotten, its window long past; the newest is kept.
    assert client.portal.call(kept, first[NONCE_HEADER], second[NONCE_HEADER]) == {second[NONCE_HEADER]}


def test_an_operator_set_to_body_only_may_still_sign_the_body_alone(client: TestClient) -> None:
    raw = launch_body(new_player())
    old = {"X-Operator-Id": "casino-old", "X-Signature": sign_body(OLD_SECRET, raw)}
    assert send(client, "POST", LAUNCH, raw, old).status_code == 200
    assert send(client, "POST", LAUNCH, raw, old).status_code == 200  # the old scheme's flaw: replayable
    migrated = {"X-Operator-Id": "casino-old",
                **sign_request(OLD_SECRET, "POST", LAUNCH, raw, now=client_now(client))}
    assert send(client, "POST", LAUNCH, raw, migrated).status_code == 200  # the new one works meanwhile
    assert send(client, "POST", LAUNCH, raw, migrated).status_code == 401  # and is not replayable


def test_a_signature_scheme_other_than_the_two_is_refused_at_start() -> None:
    text = OPERATORS.replace('currencies = ["EUR"]\n', 'currencies = ["EUR"]\nsignature = "none"\n', 1)
    with pytest.raises(InvalidOperatorsError, match=r"casino-a'.*signature: expected"):
        parse_operators(text)


def test_the_documented_example_signature_is_what_the_module_computes() -> None:
    """docs/operators.md's worked example, recomputed here byte by byte from its description."""
    docs = (Path(__file__).parents[2] / "docs" / "operators.md").read_text()
    body = b'{"player":"u-1","currency":"EUR","game":"texas-bonus","mode":"demo"}'
    lines = ["DP-HMAC-SHA256-2", "POST", "/operator/v1/launch", "1767225600", "k3Jd9vQx0pL2mN8rT5wZ7yA1",
             hashlib.sha256(body).hexdigest()]
    expected = hmac.new(b"example-secret-0123456789", "\n".join(lines).encode(), hashlib.sha256).hexdigest()
    headers = sign_request("example-secret-0123456789", "POST", "/operator/v1/launch", body, now=1767225600,
                           nonce="k3Jd9vQx0pL2mN8rT5wZ7yA1")
    assert headers["X-Signature"] == expected
    assert expected in docs and hashlib.sha256(body).hexdigest() in docs
