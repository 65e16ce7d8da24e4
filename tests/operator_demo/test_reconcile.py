"""The operator's reconciliation rules (dealerpoker's transaction list against the operator's
ledger), row by row; the same over HTTP against a real dealerpoker is in test_with_dealerpoker.py."""

from __future__ import annotations

from typing import Any

from dealerpoker.operator_demo.reconcile import compare


def theirs(transaction_id: str, kind: str, status: str, amount: int = 100) -> dict[str, Any]:
    return {"transaction_id": transaction_id, "kind": kind, "status": status, "amount": amount,
            "currency": "EUR"}


def ours(transaction_id: str, kind: str, applied: bool = True, amount: int = 100,
         rolled_back_by: str | None = None) -> dict[str, Any]:
    return {"transaction_id": transaction_id, "kind": kind, "applied": applied, "amount": amount,
            "currency": "EUR", "status": "OK" if applied else "INSUFFICIENT_FUNDS",
            "rolled_back_by": rolled_back_by}


def check(listed: list[dict[str, Any]], ledger: list[dict[str, Any]]) -> dict[str, Any]:
    return compare(listed, {row["transaction_id"]: row for row in ledger}, ledger)


def test_agreeing_ledgers_and_their_nets() -> None:
    found = check(
        [theirs("b1", "bet", "confirmed", 500), theirs("w1", "win", "done", 1_200),
         theirs("b2", "bet", "refused"), theirs("b3", "bet", "unknown"), theirs("r3", "rollback", "done"),
         theirs("b4", "bet", "unknown")],
        [ours("b1", "bet", amount=500), ours("w1", "win", amount=1_200), ours("b2", "bet", applied=False),
         ours("b3", "bet", rolled_back_by="r3"), ours("r3", "rollback")],  # b4 never reached the operator
    )
    assert found == {"agree": True, "pending": 0, "differences": [],
                     "net": {"dealerpoker": {"EUR": 700}, "operator": {"EUR": 700}}}


def test_a_pending_win_is_not_agreement_yet() -> None:
    found = check([theirs("b1", "bet", "confirmed"), theirs("w1", "win", "pending")], [ours("b1", "bet")])
    assert found["pending"] == 1 and not found["agree"] and found["differences"] == []


def test_each_kind_of_difference_is_named() -> None:
    found = check(
        [theirs("b1", "bet", "confirmed"),   # rolled back at the operator: dealerpoker keeps a stake it lost
         theirs("b2", "bet", "unknown"),     # kept at the operator, never rolled back
         theirs("w1", "win", "done"),        # never paid
         theirs("w2", "win", "done", 300)],  # paid another amount
        [ours("b1", "bet", rolled_back_by="r1"), ours("b2", "bet"), ours("w2", "win", amount=30),
         ours("w9", "win")],                 # paid, unknown to dealerpoker
    )
    problems = {row["transaction_id"]: row["problem"] for row in found["differences"]}
    assert problems == {
        "b1": "dealerpoker counts money this ledger does not keep",
        "b2": "money kept here that dealerpoker does not count",
        "w1": "dealerpoker counts money this ledger does not keep",
        "w2": "the amounts differ",
        "w9": "money kept here that dealerpoker does not list for the period",
    }
    assert not found["agree"]
    assert [row["operator"] for row in found["differences"]][:3] == [
        "applied, rolled back by r1", "OK, applied", "never seen"]
