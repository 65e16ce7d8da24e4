"""An operator's health for the back office: its settings (never its secret) and how its seamless
wallet answered over a window of time, from what dealerpoker recorded of every call
(``wallet_calls``) and transaction (``wallet_transactions``).

Each call of the window is one of: ``ok`` (HTTP 200 and ``"status": "OK"``), ``refused`` (HTTP
200 with another status: ``INSUFFICIENT_FUNDS``, ``INVALID_TOKEN``..., the wallet's answer to a
request it understood), ``error`` (another HTTP status, an unreadable answer or a failed
connection: the outcome is unknown) or ``timeout`` (no answer within the operator's
``wallet_timeout_seconds``). Rates are over the window's calls; latency is each call's duration
(median, 95th percentile, slowest). The transactions of the window give the rollback rate (bets
whose outcome was unknown, so rolled back, over bets placed) and the retries; what is owed now
(wins and rollbacks still pending, and since when) is counted whatever the window.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select

from dealerpoker.server.db import Connection
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.schema import wallet_calls, wallet_status_is, wallet_transactions

OUTCOMES = ("ok", "refused", "error", "timeout")


def settings_of(operator: Operator) -> dict[str, Any]:
    """What staff may see of an operator's entry: everything but its secret."""
    return {"id": operator.id, "wallet_url": operator.wallet_url, "currencies": list(operator.currencies),
            "frame_ancestors": list(operator.frame_ancestors),
            "chips": {code: list(values) for code, values in operator.chips.items()},
            "limits": {code: {name: dict(bounds) for name, bounds in fields.items()}
                       for code, fields in operator.limits.items()},
            "wallet_timeout_seconds": operator.wallet_timeout_seconds, "signature": operator.signature,
            "jurisdictions": list(operator.jurisdictions), "complaint_contact": operator.complaint_contact,
            "responsible_gaming": dict(operator.responsible_gaming)}


def outcome(http_status: int | None, answer: str | None) -> str:
    """One call's outcome (see the module's description).

    >>> outcome(200, '{"status": "OK", "balance": 5}'), outcome(200, '{"status": "INSUFFICIENT_FUNDS"}')
    ('ok', 'refused')
    >>> outcome(None, "timeout"), outcome(None, "failed: ClientConnectorError"), outcome(503, "busy")
    ('timeout', 'error', 'error')
    """
    if http_status is None:
        return "timeout" if answer == "timeout" else "error"
    if http_status != 200:
        return "error"
    try:
        status = json.loads(answer or "").get("status")
    except (ValueError, AttributeError):
        return "error"
    return "ok" if status == "OK" else "refused" if isinstance(status, str) else "error"


def percentile(durations: Sequence[int], share: float) -> int | None:
    """The nearest-rank percentile of sorted ``durations`` (None for none).

    >>> percentile([10, 20, 30, 40], 0.5), percentile([10, 20, 30, 40], 0.95), percentile([], 0.5)
    (20, 40, None)
    """
    if not durations:
        return None
    rank = max(1, -(-len(durations) * share // 1))
    return durations[int(rank) - 1]


async def health(connection: Connection, operator_id: str, *, since: str, until: str) -> dict[str, Any]:
    """The operator's wallet from ``since`` to ``until`` (stored timestamps): ``calls`` by kind
    and outcome with latencies, ``rates``, ``transactions`` and what is ``owed`` now."""
    of_operator = select(wallet_transactions.c.transaction_id).where(
        wallet_transactions.c.operator_id == operator_id)
    rows = (await connection.execute(
        select(wallet_calls.c.call, wallet_calls.c.http_status, wallet_calls.c.answer,
               wallet_calls.c.duration_ms)
        .where(wallet_calls.c.at >= since, wallet_calls.c.at < until,
               wallet_calls.c.transaction_id.in_(of_operator)))).all()
    calls: dict[str, dict[str, Any]] = {}
    durations: list[int] = []
    for call, http_status, answer, duration in rows:
        found = calls.setdefault(str(call), {"calls": 0, **dict.fromkeys(OUTCOMES, 0), "durations": []})
        found["calls"] += 1
        found[outcome(http_status, answer)] += 1
        found["durations"].append(int(duration))
        durations.append(int(duration))
    for found in calls.values():
        found.update(_latency(sorted(found.pop("durations"))))
    total = len(rows)
    counted = {name: sum(found[name] for found in calls.values()) for name in OUTCOMES}
    kinds = (await connection.execute(
        select(wallet_transactions.c.kind, wallet_transactions.c.status, func.count(),
               func.sum(func.coalesce(wallet_transactions.c.attempts, 0)))
        .where(wallet_transactions.c.operator_id == operator_id, wallet_transactions.c.created_at >= since,
               wallet_transactions.c.created_at < until)
        .group_by(wallet_transactions.c.kind, wallet_transactions.c.status))).all()
    by_kind: dict[str, dict[str, int]] = {}
    retries = 0
    for kind, status, count, attempts in kinds:
        by_kind.setdefault(str(kind), {})[str(status)] = int(count)
        retries += max(0, int(attempts or 0) - int(count))
    bets = sum(by_kind.get("bet", {}).values())
    rollbacks = sum(by_kind.get("rollback", {}).values())
    owed = (await connection.execute(
        select(wallet_transactions.c.kind, func.count(), func.min(wallet_transactions.c.created_at))
        # A win or rollback is owed until done: "pending" (only a bet is ever "sending").
        .where(wallet_transactions.c.operator_id == operator_id, wallet_status_is("pending"),
               wallet_transactions.c.kind != "bet")
        .group_by(wallet_transactions.c.kind))).all()
    return {
        "since": since, "until": until,
        "calls": {"total": total, **counted, **_latency(sorted(durations)), "by_kind": calls},
        "rates": {name: counted[name] / total if total else None for name in ("error", "timeout", "refused")}
        | {"rollback": rollbacks / bets if bets else None},
        "transactions": {"by_kind": by_kind, "bets": bets, "rollbacks": rollbacks, "retries": retries},
        "owed": {str(kind): {"count": int(count), "oldest": oldest} for kind, count, oldest in owed},
    }


def _latency(durations: Sequence[int]) -> dict[str, int | None]:
    return {"median_ms": percentile(durations, 0.5), "p95_ms": percentile(durations, 0.95),
            "max_ms": durations[-1] if durations else None}
