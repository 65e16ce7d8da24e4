"""Operator health (issue 33): an operator's settings without its secret, and its wallet's calls
over a window by outcome (ok, refused, error, timeout) with rates and latencies, its rollback rate,
retries and what is owed now. The calls and transactions are written here as the wallet client
and outbox write them (``wallet_calls``, ``wallet_transactions``): the page only reads them."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import insert
from tests.server.conftest import TestClient, make_client

from dealerpoker.server.operators.config import parse_operators
from dealerpoker.server.schema import wallet_calls, wallet_transactions

from .support import StaffMember
from .test_operators import write

SECRET = "health-secret-never-shown-0123"
ENTRY = """
[[operators]]
id = "{id}"
secret_env = "HEALTH_SECRET"
wallet_url = "http://127.0.0.1:9/wallet"
currencies = ["EUR"]
wallet_timeout_seconds = 2.5
[operators.chips]
EUR = [100, 500]
"""


@pytest.fixture
def office(database_url: str, clock: Any) -> Iterator[tuple[TestClient, str]]:
    acme = f"acme-{secrets.token_hex(3)}"  # the PostgreSQL database is shared by a module's tests
    operators = parse_operators(ENTRY.format(id=acme), environ={"HEALTH_SECRET": SECRET})
    with make_client(database_url, clock, operators=operators) as client:
        yield client, acme


def transaction(acme: str, number: int, kind: str, status: str, *, at: str,
                attempts: int = 1) -> dict[str, Any]:
    return {"transaction_id": f"{acme}-t{number}", "operator_id": acme, "player_id": "o_x", "currency": "EUR",
            "kind": kind, "amount": 100, "round_id": f"r_{number}", "game": "texas-bonus", "round_closed": 0,
            "txid": f"tx{number}", "status": status, "attempts": attempts, "created_at": at, "updated_at": at}


def call(acme: str, number: int, kind: str, http_status: int | None, answer: str, duration: int,
         at: str) -> dict[str, Any]:
    return {"transaction_id": f"{acme}-t{number}", "call": kind, "request": "{}", "http_status": http_status,
            "answer": answer, "at": at, "duration_ms": duration}


def test_the_health_page_counts_each_outcome_rate_and_latency_and_shows_no_secret(
        office: tuple[TestClient, str], clock: Any) -> None:
    client, acme = office
    at, long_ago = "2026-01-01T00:00:00.000000Z", "2025-12-01T00:00:00.000000Z"
    ok, refused = '{"status": "OK", "balance": 900}', '{"status": "INSUFFICIENT_FUNDS", "balance": 0}'
    write(client,
          insert(wallet_transactions).values([
              transaction(acme, 1, "bet", "confirmed", at=at),
              transaction(acme, 2, "bet", "refused", at=at),
              transaction(acme, 3, "bet", "rolled_back", at=at, attempts=1),
              transaction(acme, 4, "rollback", "done", at=at, attempts=3),  # answered at the third try
              transaction(acme, 5, "win", "pending", at=at, attempts=2),    # owed now
              transaction(acme, 6, "bet", "confirmed", at=long_ago)]),      # outside the window
          insert(wallet_calls).values([
              call(acme, 1, "bet", 200, ok, 40, at),
              call(acme, 2, "bet", 200, refused, 30, at),
              call(acme, 3, "bet", None, "timeout", 2500, at),
              call(acme, 4, "rollback", 503, "busy", 20, at),
              call(acme, 4, "rollback", None, "failed: ClientConnectorError", 10, at),
              call(acme, 4, "rollback", 200, '{"status": "OK"}', 50, at),
              call(acme, 5, "win", 200, "not json", 60, at),
              call(acme, 5, "win", None, "timeout", 2500, at),
              call(acme, 6, "bet", 200, ok, 45, long_ago)]))
    clock.advance(3600)
    support = StaffMember(client, f"sup-{secrets.token_hex(3)}", "support")
    answer = support.get("/admin/api/operators", hours=24)
    assert answer.status_code == 200, answer.text
    assert SECRET not in answer.text and "secret" not in answer.text
    (found,) = answer.json()["operators"]
    settings, health = found["settings"], found["health"]
    assert settings["id"] == acme and settings["wallet_timeout_seconds"] == 2.5 and settings["chips"] == {
        "EUR": [100, 500]}
    calls = health["calls"]
    assert {key: calls[key] for key in ("total", "ok", "refused", "error", "timeout")} == {
        "total": 8, "ok": 2, "refused": 1, "error": 3, "timeout": 2}
    assert calls["by_kind"]["bet"] == {"calls": 3, "ok": 1, "refused": 1, "error": 0, "timeout": 1,
                                            "median_ms": 40, "p95_ms": 2500, "max_ms": 2500}
    # nearest rank over 10 20 30 [40] 50 60 2500 2500: the 4th of 8 is the median, the 8th the 95th
    assert (calls["median_ms"], calls["p95_ms"], calls["max_ms"]) == (40, 2500, 2500)
    assert health["rates"] == {"error": 3 / 8, "timeout": 2 / 8, "refused": 1 / 8, "rollback": 1 / 3}
    assert health["transactions"]["retries"] == 3  # 2 more tries of the rollback, 1 of the win
    assert health["owed"] == {"win": {"count": 1, "oldest": at}}
    longer = support.get("/admin/api/operators", hours=24 * 60).json()["operators"][0]["health"]
    assert longer["calls"]["total"] == 9 and longer["transactions"]["bets"] == 4
    assert support.get("/admin/api/operators", hours=0).status_code == 422
