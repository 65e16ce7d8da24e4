"""A hostile or broken operator wallet (a real process over loopback: ``tests/support/
hostile_wallet.py``) cannot reach past its answer: a redirect is never followed (no request goes
where it points, the signed bet is not re-sent), an answer larger than the bound is not read, and
each of these, like garbage, a too-deep JSON or a balance out of range, counts as no answer: the
bet is refused with 503 and rolled back, never a 500 nor a bet left ``sending``, on SQLite and
PostgreSQL alike. A player never sees what a wallet answered; staff see it, bounded."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from tests.backoffice.support import StaffMember
from tests.server.conftest import TestClient, make_client
from tests.support.hostile_wallet import HostileWallet
from tests.support.operator import client_now, operator_headers
from tests.support.operators_file import operator_entry
from tests.support.waiting import until

from dealerpoker.server.operators.client import KEPT_ANSWER_CHARS, MAX_ANSWER_BYTES
from dealerpoker.server.operators.config import parse_operators
from dealerpoker.server.schema import wallet_calls, wallet_transactions

SECRET = "hostile-wallet-secret-0123456789"


@pytest.fixture(scope="module")
def wallet() -> Iterator[HostileWallet]:
    with HostileWallet() as found:
        yield found


@pytest.fixture
def client(database_url: str, wallet: HostileWallet) -> Iterator[TestClient]:
    wallet.set("ok")
    entry = operator_entry("hostile", secret=SECRET, wallet_url=wallet.url, currencies=["EUR"],
                           wallet_timeout_seconds=5.0)
    with make_client(database_url, None, operators=parse_operators(entry)) as test_client:
        yield test_client


def launched(client: TestClient) -> dict[str, str]:
    """A real-money player of the hostile operator, in a session: their headers."""
    raw = json.dumps({"player": f"h-{uuid.uuid4().hex[:10]}", "currency": "EUR", "game": "casino-holdem",
                      "token": "t-1", "mode": "real"}).encode()
    answer = client.post("/operator/v1/launch", content=raw, headers=operator_headers(
        SECRET, "POST", "/operator/v1/launch", raw, operator="hostile", now=client_now(client)))
    assert answer.status_code == 200, answer.text
    session = client.post("/api/session", json={"launch": answer.json()["launch_token"]})
    assert session.status_code == 200, session.text
    return {"Authorization": f"Bearer {session.json()['token']}"}


def rows(client: TestClient, statement: Any) -> list[dict[str, Any]]:
    database = client.app.state.services.database

    async def read() -> list[dict[str, Any]]:
        async with database.reading() as connection:
            return [dict(row) for row in (await connection.execute(statement)).mappings()]

    assert client.portal is not None
    return client.portal.call(read)


def open_round(client: TestClient, headers: dict[str, str]) -> Any:
    return client.post("/api/rounds", json={"game": "casino-holdem", "bets": {"ante": 100}}, headers=headers)


def the_bet_was_refused_and_rolled_back(client: TestClient, opened: Any) -> dict[str, Any]:
    assert opened.status_code == 503 and opened.json()["error"] == "wallet_unavailable", opened.text
    bets = rows(client, select(wallet_transactions).where(wallet_transactions.c.kind == "bet")
                .order_by(wallet_transactions.c.created_at.desc()).limit(1))
    assert bets and bets[0]["status"] == "unknown", bets  # not left "sending"
    rollback = rows(client, select(wallet_transactions).where(
        wallet_transactions.c.transaction_id == f"{bets[0]['transaction_id']}:rollback"))
    assert rollback and rollback[0]["kind"] == "rollback", rollback
    return bets[0]


@pytest.mark.parametrize("status", [302, 307])
def test_a_redirect_is_not_followed_and_the_bet_is_rolled_back(
        client: TestClient, wallet: HostileWallet, status: int) -> None:
    headers = launched(client)
    before = wallet.collected()
    wallet.set("redirect" if status == 302 else "redirect307", location=f"{wallet.url}/collect")
    bet = the_bet_was_refused_and_rolled_back(client, open_round(client, headers))
    assert wallet.collected() == before  # nothing went where the redirect pointed
    assert bet["last_answer"] == f"HTTP {status}: redirect not followed"


def test_an_answer_over_the_bound_is_not_read_and_the_bet_is_rolled_back(
        client: TestClient, wallet: HostileWallet) -> None:
    headers = launched(client)
    wallet.set("huge", size=30 * MAX_ANSWER_BYTES)
    bet = the_bet_was_refused_and_rolled_back(client, open_round(client, headers))
    [call] = rows(client, select(wallet_calls).where(wallet_calls.c.transaction_id == bet["transaction_id"]))
    assert call["answer"] == f"answer larger than {MAX_ANSWER_BYTES} bytes: not read"


@pytest.mark.parametrize("mode", ["garbage", "deep"])
def test_an_unreadable_answer_is_a_503_and_a_rollback_not_a_500(
        client: TestClient, wallet: HostileWallet, mode: str) -> None:
    headers = launched(client)
    wallet.set(mode)
    bet = the_bet_was_refused_and_rolled_back(client, open_round(client, headers))
    assert len(bet["last_answer"]) <= 40


@pytest.mark.parametrize("balance", [2**63, 2**64 + 7, -5])
def test_a_balance_out_of_range_is_no_answer(client: TestClient, wallet: HostileWallet, balance: int) -> None:
    headers = launched(client)  # its balance, 100000, is kept
    wallet.set("balance", balance=balance)
    shown = client.get("/api/balance", headers=headers)
    assert shown.status_code == 200 and shown.json()["balance"] == 100_000, shown.text
    the_bet_was_refused_and_rolled_back(client, open_round(client, headers))
    again = client.post("/operator/v1/launch", content=b"{}", headers={})  # still serving
    assert again.status_code == 401


def test_a_player_never_sees_a_wallets_answer_but_staff_do_bounded(
        client: TestClient, wallet: HostileWallet) -> None:
    headers = launched(client)
    opened = open_round(client, headers)
    assert opened.status_code == 200, opened.text
    round_id = opened.json()["id"]
    wallet.set("garbage")
    client.post(f"/api/rounds/{round_id}/actions", json={"action": "fold", "step": 1}, headers=headers)
    staff = StaffMember(client, f"support-{uuid.uuid4().hex[:8]}", "support")

    def answers_seen() -> list[str]:
        seen = staff.get("/admin/api/round", id=round_id)
        assert seen.status_code == 200, seen.text
        answers = [call["answer"] or "" for call in (seen.json()["wallet"] or {"calls": []})["calls"]]
        return answers if any("not json" in answer for answer in answers) else []

    # The win owed is sent by the outbox, after the answer.
    until(answers_seen, "the wallet's unreadable answer kept for staff")
    wallet.set("huge", size=MAX_ANSWER_BYTES - 100)  # read, but kept only in part
    open_round(client, headers)
    mine = client.get(f"/api/rounds/{round_id}/wallet", headers=headers)
    assert mine.status_code == 200, mine.text
    assert mine.json()["calls"] and all("answer" not in call for call in mine.json()["calls"])
    assert "not json" not in mine.text
    kept = rows(client, select(wallet_calls.c.answer))
    assert max(len(row["answer"] or "") for row in kept) <= KEPT_ANSWER_CHARS
