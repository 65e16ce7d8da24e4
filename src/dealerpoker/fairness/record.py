"""Assemble a round record (version 1, see :mod:`dealerpoker.fairness.verify`) with its digest.

The server calls :func:`build_record` with what it stored -- never with recomputed values, so a
verifier that recomputes them can catch a server that dealt or paid differently.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from dealerpoker.fairness.canonical import canonical_json
from dealerpoker.fairness.checks import RECORD_VERSION, record_digest

__all__ = ["build_record"]


def build_record(
    *,
    round_id: str,
    game: str,
    rules_version: str,
    rules_fingerprint: str,
    rules: Mapping[str, Any],
    mode: str,
    table_id: str | None,
    player_id: str,
    status: str,
    opened_at: str,
    settled_at: str | None,
    fairness: Mapping[str, Any],
    deck: Sequence[int],
    bets: Mapping[str, int],
    dealt: Mapping[str, Sequence[str]],
    actions: Sequence[Mapping[str, Any]],
    ledger: Sequence[Mapping[str, Any]],
    settlement: Mapping[str, Any] | None,
    currency: str | None = None,
    jurisdiction: Mapping[str, Any] | None = None,
    promo: Mapping[str, Any] | None = None,
    jackpot: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The record as plain JSON data, keys in reading order, ``record_digest`` last.

    >>> record = build_record(round_id="r1", game="casino-holdem", rules_version="v", rules_fingerprint="f",
    ...     rules={}, mode="solo", table_id=None, player_id="p", status="open", opened_at="t",
    ...     settled_at=None, fairness={}, deck=[], bets={}, dealt={}, actions=[], ledger=[], settlement=None)
    >>> list(record)[:3], len(record["record_digest"])
    (['record_version', 'round_id', 'game'], 64)
    """
    record: dict[str, Any] = {
        "record_version": RECORD_VERSION,
        "round_id": round_id,
        "game": game,
        "rules_version": rules_version,
        "rules_fingerprint": rules_fingerprint,
        "rules": rules,
        "mode": mode,
        "table_id": table_id,
        "player_id": player_id,
        "status": status,
        "opened_at": opened_at,
        "settled_at": settled_at,
        "fairness": dict(fairness),
        "deck": list(deck),
        "bets": dict(bets),
        "dealt": {place: list(cards) for place, cards in dealt.items()},
        "actions": [dict(action) for action in actions],
        "ledger": [dict(entry) for entry in ledger],
        "settlement": settlement,
    }
    if currency is not None:  # the currency of every amount above (records since currencies)
        record["currency"] = currency
    if jurisdiction is not None:  # the profile it was played under (records since issue 27)
        record["jurisdiction"] = dict(jurisdiction)
    if promo is not None:  # a free round (issue 30): the operator paid free_ante; forfeited over the cap
        record["promo"] = dict(promo)
    if jackpot is not None:  # the progressive jackpot bet: its result and its own transfers
        record["jackpot"] = dict(jackpot)
    # Normalise to plain JSON types so the digest is what a reader of the JSON recomputes.
    plain: dict[str, Any] = json.loads(canonical_json(record))
    ordered = {key: plain[key] for key in record}
    ordered["record_digest"] = record_digest(ordered)
    return ordered
