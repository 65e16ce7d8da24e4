"""The jackpot bet of an operator's real-money player, against the reference operator as a real
process (loopback HTTP): the bet's stake is a wallet ``bet`` of its own, its award a ``win`` of
its own with the round (owed through the outbox, delivered once), and the pool moves as for any
player, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.jackpot.support import first_five_is, jackpot_file, rules_of
from tests.server.conftest import TestClient, make_client
from tests.support.dealing import Dealer
from tests.support.operator import OperatorDemo, client_now, operator_headers
from tests.support.operators_file import demo_entry
from tests.support.waiting import until

from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.fairness.verify import verify_record
from dealerpoker.server.operators.config import parse_operators

SECRET = "operator-secret-for-the-jackpot"


@pytest.fixture(scope="module")
def operator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OperatorDemo]:
    with OperatorDemo(tmp_path_factory.mktemp("operator"), secret=SECRET,
                      extra=("--timeout-seconds", "2", "--seed", "30")) as demo:
        yield demo


def launched(client: TestClient, operator: OperatorDemo, name: str) -> dict[str, Any]:
    """A real-money player of the operator with 100.00 EUR, launched: their session."""
    token = operator.create_player(name, "EUR", 10_000)
    raw = json.dumps({"player": name, "currency": "EUR", "game": "texas-bonus", "token": token,
                      "mode": "real"}).encode()
    answer = client.post("/operator/v1/launch", content=raw, headers=operator_headers(
        SECRET, "POST", "/operator/v1/launch", raw, now=client_now(client)))
    assert answer.status_code == 200, answer.text
    opened = client.post("/api/session", json={"launch": answer.json()["launch_token"]})
    session: dict[str, Any] = opened.json()
    return session


def test_the_jackpot_bet_and_its_pool_award_are_wallet_transactions_of_their_own(
        tmp_path: Path, served_database: str, operator: OperatorDemo) -> None:
    path = jackpot_file(tmp_path)  # a four of a kind wins the pool (seed 1,000.00 EUR)
    rules, dealer = rules_of(path), Dealer()
    name = f"jackpot-{tmp_path.name}"
    with make_client(served_database, rng=dealer, jackpot_file=path,
                     operators=parse_operators(demo_entry(operator, wallet_timeout_seconds=1.0))) as client:
        session = launched(client, operator, name)
        headers = {"Authorization": f"Bearer {session['token']}"}
        pool = client.get("/api/jackpot").json()["pool"]
        dealer.solo(client, session["token"], where=first_five_is(rules, HandCategory.FOUR_OF_A_KIND).where)
        view = client.post("/api/rounds", headers=headers,
                           json={"game": "texas-bonus", "bets": {"ante": 100}, "jackpot": True}).json()
        view = client.post(f"/api/rounds/{view['id']}/actions", headers=headers,
                           json={"action": "fold", "step": 1}).json()
        assert (view["jackpot"]["status"], view["jackpot"]["award"]) == ("won", pool + 20)
        round_id = view["id"]
        until(lambda: not client.get(f"/api/rounds/{round_id}/wallet", headers=headers).json()["pending"],
              "the outbox delivered the round's wins")
        applied = {t["transaction_id"].rsplit(":", 1)[-1]: (t["kind"], t["amount"])
                   for t in operator.transactions(name) if t.get("applied")}
        assert applied == {"bets": ("bet", 100), "jackpot": ("bet", 100), "jackpot-award": ("win", pool + 20),
                           "settle": ("win", 0)}
        assert operator.balance(name) == 10_000 - 200 + pool + 20
        record = client.get(f"/api/rounds/{round_id}/record", headers=headers).json()
        assert [str(f) for f in verify_record(record) if not f.ok] == []
        assert client.get("/api/jackpot").json()["pool"] == rules.seed
