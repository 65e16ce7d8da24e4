"""The reference operator's wallet rules, over loopback HTTP against a real ``operator-demo``
process: signatures, tokens, funds, and each transaction applied at most once."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.operator import OperatorDemo

from dealerpoker.operator_signature import sign_body, sign_request

_ids = itertools.count(1)


@pytest.fixture(scope="module")
def operator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OperatorDemo]:
    with OperatorDemo(tmp_path_factory.mktemp("operator"), secret="s3cret") as running:
        yield running


@pytest.fixture
def alice(operator: OperatorDemo) -> dict[str, str]:
    """A fresh player with 10,000 EUR cents and a session token."""
    player = f"alice-{next(_ids)}"
    return {"player": player, "token": operator.create_player(player, "EUR", 10_000)}


def call(who: dict[str, str], amount: int = 0, **fields: Any) -> dict[str, Any]:
    return {**who, "currency": "EUR", "amount": amount, "transaction_id": f"tx-{next(_ids)}",
            "round_id": "r-1", "game": "texas-bonus", "round_closed": False, **fields}


def test_balance_needs_the_players_live_token(operator: OperatorDemo, alice: dict[str, str]) -> None:
    ok = (200, {"status": "OK", "balance": 10_000})
    assert operator.wallet("balance", {**alice, "currency": "EUR"}) == ok
    assert operator.wallet("balance", {**alice, "currency": "JPY"}) == (200, {"status": "OK", "balance": 0})
    wrong = {**alice, "token": "not-a-token", "currency": "EUR"}
    assert operator.wallet("balance", wrong) == (200, {"status": "INVALID_TOKEN", "balance": 0})
    bob = operator.create_player(f"bob-{next(_ids)}", "EUR", 5)
    other = {**alice, "token": bob, "currency": "EUR"}
    assert operator.wallet("balance", other)[1]["status"] == "INVALID_TOKEN"


def test_answers_are_signed_with_the_shared_secret(operator: OperatorDemo, alice: dict[str, str]) -> None:
    raw = json.dumps(call(alice, 100)).encode()
    signature = sign_request("s3cret", "POST", "/bet", raw)
    status, answer, headers = operator.request("POST", "/bet", raw, signature)
    assert status == 200 and answer == {"status": "OK", "balance": 9_900}
    body = json.dumps(answer).encode()
    assert headers["x-signature"] == sign_body("s3cret", body)


def test_a_bet_is_applied_once_and_a_repeat_gets_the_first_answer(
        operator: OperatorDemo, alice: dict[str, str]) -> None:
    bet = call(alice, 2_500)
    assert operator.wallet("bet", bet) == (200, {"status": "OK", "balance": 7_500})
    assert operator.wallet("win", call(alice, 1_000))[1] == {"status": "OK", "balance": 8_500}
    assert operator.wallet("bet", bet) == (200, {"status": "OK", "balance": 7_500})  # its first answer
    assert operator.balance(alice["player"]) == 8_500
    ids = [t["transaction_id"] for t in operator.transactions(alice["player"])]
    assert ids.count(bet["transaction_id"]) == 1


def test_a_transaction_id_used_again_for_another_request_changes_nothing(
        operator: OperatorDemo, alice: dict[str, str]) -> None:
    bet = call(alice, 100)
    operator.wallet("bet", bet)
    status, answer = operator.wallet("bet", {**bet, "amount": 5_000})
    assert status == 200 and answer["status"] == "ERROR" and "already used" in answer["error"]
    assert operator.wallet("win", {**bet, "amount": 100})[1]["status"] == "ERROR"
    assert operator.balance(alice["player"]) == 9_900


def test_insufficient_funds_refuses_with_the_balance_and_stays_the_answer(
        operator: OperatorDemo, alice: dict[str, str]) -> None:
    bet = call(alice, 10_001)
    assert operator.wallet("bet", bet) == (200, {"status": "INSUFFICIENT_FUNDS", "balance": 10_000})
    operator.wallet("win", call(alice, 5_000))
    assert operator.wallet("bet", bet) == (200, {"status": "INSUFFICIENT_FUNDS", "balance": 10_000})
    assert operator.balance(alice["player"]) == 15_000


def test_a_win_is_credited_once_even_after_the_session_ended(
        operator: OperatorDemo, alice: dict[str, str]) -> None:
    assert operator.admin("DELETE", f"/admin/sessions/{alice['token']}")[0] == 204
    assert operator.wallet("bet", call(alice, 100)) == (200, {"status": "INVALID_TOKEN", "balance": 0})
    win = call(alice, 700, round_closed=True)
    assert operator.wallet("win", win) == (200, {"status": "OK", "balance": 10_700})
    assert operator.wallet("win", win) == (200, {"status": "OK", "balance": 10_700})
    assert operator.balance(alice["player"]) == 10_700
    stranger = {"player": alice["player"], "token": "never-issued"}
    assert operator.wallet("win", call(stranger, 700))[1]["status"] == "INVALID_TOKEN"
    assert operator.balance(alice["player"]) == 10_700


def test_a_rollback_returns_the_stake_once(operator: OperatorDemo, alice: dict[str, str]) -> None:
    bet = call(alice, 3_000)
    operator.wallet("bet", bet)
    rollback = call(alice, 3_000, reference_transaction_id=bet["transaction_id"])
    assert operator.wallet("rollback", rollback) == (200, {"status": "OK", "balance": 10_000})
    assert operator.wallet("rollback", rollback) == (200, {"status": "OK", "balance": 10_000})
    again = call(alice, 3_000, reference_transaction_id=bet["transaction_id"])  # another rollback of it
    assert operator.wallet("rollback", again) == (200, {"status": "OK", "balance": 10_000})
    assert operator.balance(alice["player"]) == 10_000
    ledger = {t["transaction_id"]: t for t in operator.transactions(alice["player"])}
    assert ledger[bet["transaction_id"]]["rolled_back_by"] == rollback["transaction_id"]
    assert ledger[rollback["transaction_id"]]["applied"] and not ledger[again["transaction_id"]]["applied"]
    assert operator.wallet("bet", bet) == (200, {"status": "OK", "balance": 7_000})  # its first answer
    assert operator.balance(alice["player"]) == 10_000


def test_a_rollback_of_a_refused_bet_moves_nothing(operator: OperatorDemo, alice: dict[str, str]) -> None:
    bet = call(alice, 50_000)
    assert operator.wallet("bet", bet)[1]["status"] == "INSUFFICIENT_FUNDS"
    rollback = call(alice, reference_transaction_id=bet["transaction_id"])
    assert operator.wallet("rollback", rollback) == (200, {"status": "OK", "balance": 10_000})
    win = call(alice, 10)
    operator.wallet("win", win)
    refused = operator.wallet("rollback", call(alice, reference_transaction_id=win["transaction_id"]))[1]
    assert refused["status"] == "ERROR" and "only a bet" in refused["error"]
    assert operator.balance(alice["player"]) == 10_010


def test_a_rollback_of_an_unknown_bet_is_remembered_and_the_late_bet_refused(
        operator: OperatorDemo, alice: dict[str, str]) -> None:
    lost = f"tx-{next(_ids)}"
    rollback = call(alice, 400, reference_transaction_id=lost)
    unknown = (200, {"status": "UNKNOWN_TRANSACTION", "balance": 10_000})
    assert operator.wallet("rollback", rollback) == unknown
    late = call(alice, 400, transaction_id=lost)
    status, answer = operator.wallet("bet", late)
    assert status == 200 and answer["status"] == "ERROR" and "rolled back" in answer["error"]
    assert operator.wallet("bet", late)[1]["status"] == "ERROR"
    assert operator.wallet("rollback", rollback)[1]["status"] == "UNKNOWN_TRANSACTION"
    assert operator.balance(alice["player"]) == 10_000


@pytest.mark.parametrize("how", ["missing", "wrong secret", "tampered body", "garbage"])
def test_a_request_without_the_right_signature_is_refused_and_changes_nothing(
        operator: OperatorDemo, alice: dict[str, str], how: str) -> None:
    bet = call(alice, 1_000)
    raw = json.dumps(bet).encode()
    before = operator.transactions(alice["player"])
    if how == "missing":
        refused = operator.wallet("bet", raw, signature="")
    elif how == "wrong secret":
        refused = operator.wallet("bet", raw, secret="not-the-secret")
    elif how == "tampered body":
        tampered = raw.replace(b'"amount": 1000', b'"amount": 1')
        refused = operator.wallet("bet", tampered, headers=sign_request("s3cret", "POST", "/bet", raw))
    else:
        refused = operator.wallet("bet", raw, signature="zz" * 32)
    assert refused[0] == 401 and refused[1]["status"] == "ERROR" and "X-Signature" in refused[1]["error"]
    for kind in ("balance", "win", "rollback"):
        assert operator.wallet(kind, raw, secret="not-the-secret")[0] == 401
    assert operator.transactions(alice["player"]) == before
    assert operator.balance(alice["player"]) == 10_000
    assert operator.wallet("bet", raw) == (200, {"status": "OK", "balance": 9_000})  # nothing was remembered


@pytest.mark.parametrize(("change", "named"), [
    ({"amount": 1.5}, "amount"), ({"amount": -1}, "amount"), ({"amount": True}, "amount"),
    ({"transaction_id": ""}, "transaction_id"), ({"transaction_id": None}, "transaction_id"),
    ({"currency": "E U R"}, "currency"), ({"player": 7}, "player"), ({"round_closed": "yes"}, "round_closed"),
])
def test_a_malformed_body_is_refused_naming_the_field(
        operator: OperatorDemo, alice: dict[str, str], change: dict[str, Any], named: str) -> None:
    body = {key: value for key, value in {**call(alice, 100), **change}.items() if value is not None}
    status, answer = operator.wallet("bet", body)
    assert status == 422 and answer["status"] == "ERROR" and named in answer["error"]
    assert operator.wallet("bet", b"not json")[1]["error"] == "the body is not JSON"
    assert operator.wallet("rollback", call(alice))[1]["error"].startswith("reference_transaction_id")
    assert operator.balance(alice["player"]) == 10_000 and operator.transactions(alice["player"]) == []


def test_the_ledger_survives_a_restart(tmp_path: Path) -> None:
    with OperatorDemo(tmp_path) as first:
        token = first.create_player("carol", "JPY", 500)
        first.wallet("bet", {"player": "carol", "token": token, "currency": "JPY", "amount": 200,
                             "transaction_id": "b-1"})
        first.process.kill()  # kill -9: committed transactions are in the WAL
        first.process.wait(30)
    with OperatorDemo(tmp_path) as second:
        assert second.balances() == {"carol": {"JPY": 300}}
        bet = {"player": "carol", "token": token, "currency": "JPY", "amount": 200, "transaction_id": "b-1"}
        assert second.wallet("bet", bet) == (200, {"status": "OK", "balance": 300})
