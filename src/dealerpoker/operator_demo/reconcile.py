"""The operator's reconciliation: dealerpoker's list of a period's wallet transactions (``GET
/operator/v1/transactions``, signed) held against the operator's own ledger, transaction by
transaction and in total.

What each of dealerpoker's statuses must mean in the operator's ledger:

- a ``confirmed`` bet: applied here and not rolled back (the stake is kept);
- a ``done`` win: applied here;
- any other bet (refused, unknown, rolled back): no stake kept here (never applied, refused, or
  returned by a rollback);
- ``pending`` / ``sending``: owed or in flight, not compared yet (reported as pending).

And the other way: every transaction of the period that moved money here is one dealerpoker
lists. The net moved to players (wins less kept stakes) is then the same on both sides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_IN_FLIGHT = ("pending", "sending")


def kept(row: Mapping[str, Any]) -> bool:
    """Whether an operator ledger row keeps money moved: an applied win, an applied bet not rolled back."""
    return bool(row["applied"]) and row["kind"] in ("bet", "win") and not row.get("rolled_back_by")


def compare(theirs: Sequence[Mapping[str, Any]], ours: Mapping[str, Mapping[str, Any]],
            ours_in_period: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``theirs``: dealerpoker's transactions of the period; ``ours``: the operator's rows by
    transaction id (every id of ``theirs`` looked up, whatever its date); ``ours_in_period``: the
    operator's rows created in the period. The differences, the pending count and both nets."""
    differences: list[dict[str, Any]] = []
    pending = 0
    net_theirs: dict[str, int] = {}
    for row in theirs:
        transaction_id, kind, status = row["transaction_id"], row["kind"], row["status"]
        if status in _IN_FLIGHT:
            pending += 1
            continue
        mine = ours.get(transaction_id)
        if kind == "bet" and status == "confirmed":
            net_theirs[row["currency"]] = net_theirs.get(row["currency"], 0) - int(row["amount"])
            expected = True
        elif kind == "win" and status == "done":
            net_theirs[row["currency"]] = net_theirs.get(row["currency"], 0) + int(row["amount"])
            expected = True
        elif kind == "bet":
            expected = False
        else:
            continue  # a delivered rollback: its bet is checked
        here = mine is not None and kept(mine)
        if here != expected:
            differences.append({
                "transaction_id": transaction_id, "kind": kind, "dealerpoker": status,
                "operator": _describe(mine),
                "problem": "money kept here that dealerpoker does not count" if here
                else "dealerpoker counts money this ledger does not keep"})
        elif expected and mine is not None and int(mine["amount"]) != int(row["amount"]):
            differences.append({"transaction_id": transaction_id, "kind": kind, "dealerpoker": status,
                                "operator": _describe(mine), "problem": "the amounts differ"})
        elif expected and mine is not None and _campaign(row) != mine.get("promo_campaign"):
            differences.append({"transaction_id": transaction_id, "kind": kind, "dealerpoker": status,
                                "operator": _describe(mine),
                                "problem": "booked as promotional on one side only (or another campaign)"})
    listed = {row["transaction_id"] for row in theirs}
    net_ours: dict[str, int] = {}
    for mine in ours_in_period:
        if not kept(mine):
            continue
        sign = -1 if mine["kind"] == "bet" else 1
        net_ours[mine["currency"]] = net_ours.get(mine["currency"], 0) + sign * int(mine["amount"])
        if mine["transaction_id"] not in listed:
            differences.append({"transaction_id": mine["transaction_id"], "kind": mine["kind"],
                                "dealerpoker": None, "operator": _describe(mine),
                                "problem": "money kept here that dealerpoker does not list for the period"})
    return {"agree": not differences and not pending, "pending": pending, "differences": differences,
            "net": {"dealerpoker": net_theirs, "operator": net_ours}}


def _campaign(row: Mapping[str, Any]) -> str | None:
    """The free-bet campaign a transaction of dealerpoker's list is a win of (None: real money)."""
    promo = row.get("promo")
    return promo.get("campaign_id") if isinstance(promo, Mapping) else None


def _describe(row: Mapping[str, Any] | None) -> str:
    if row is None:
        return "never seen"
    if row["kind"] == "bet" and row.get("rolled_back_by"):
        return f"applied, rolled back by {row['rolled_back_by']}"
    return f"{row['status']}{', applied' if row['applied'] else ', not applied'}"
