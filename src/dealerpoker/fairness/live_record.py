"""The audit record of a live table round (pure): every seat, or one player's part of it.

A live round is one shuffle shared by every seat (docs/players.md, "Live tables"), so its record
holds the table-level facts once -- rules, times, seeds, deck, the cards and when each was
shown -- and each seat's bets, actions, ledger transfers and settlement. Two scopes:

* ``"round"`` (auditors: ``dealerpoker export``): every seat and every ledger entry of the
  round. The table client seed can be recomputed from it: it is the hash of every seat's
  accepted bets (:func:`dealerpoker.fairness.table.table_client_seed`).
* ``"player"`` (``GET /api/tables/{id}/rounds/{n}/record``): the same with only that player's
  seat and transfers. Other players' ids and bets are not shown to a player, so the client seed
  is given (it was published when dealt) but cannot be recomputed from this part.

Layout (record_version 1, ``mode`` ``"table"``; times ISO-8601 UTC, amounts in minor units)::

    record_version, round_id ("{table}/{number}"), game, rules_version, rules_fingerprint, rules
    mode "table";  scope "round" | "player";  table {"id", "number"};  table_id;  player_id
    status "settled";  opened_at, betting_closed_at, settled_at
    reveals     [{"event": "preflop" | "flop" | "turn" | "showdown", "at", "cards": {place: [card]}}]
                the cards first shown at each decision point, and at the showdown
    fairness    {"algorithm", "commitment", "server_seed", "client_seed", "nonce"}
    deck        the 52 card indices in dealing order
    dealt       {"player", "dealer", "board"}: every card shown by the end (shared by all seats)
    seats       [{"player_id", "bets", "bets_txid", "actions", "settlement", "total_stake",
                  "total_returned", "jurisdiction"?}], "jurisdiction" the profile the player
                played under (seats since issue 27: {"id", "version", "fingerprint", "games",
                "modes", "paytables", "max_stake", "strategy_hint"}); actions {"point", "action",
                "source", "reason", "at", "stake", "txid"}; "source" is "player" or "timer", "reason"
                (why the timer chose: "timeout" or "unpaid"; null for the player's own choice);
                an action's txid is "{round_id}:{player}:{point}" when it staked, else null
    ledger      both entries of every transfer of the round (scope "player": of that player), each
                between a seated player and the house; "memo" is a note, not checked
    record_digest

A studio round (the table's cards dealt by hand and reported by a card reader or the dealer
console) has ``"dealing": "studio"``, ``"fairness": null`` (no seeds), ``deck`` = the cards
dealt, in dealing order (fewer than nine when everyone folded), and two more keys::

    cards       every card report, voided ones too: [{"card", "position", "to", "at", "source",
                "voided_at"}] ("to": player / dealer / board; "voided_at": null, or when it was
                taken back as a misread)
    misdeal     null, or {"at", "by": "dealer" | "timer", "reason"} when the round was cancelled:
                its reveals stop where it stopped, each seat's settlement has the outcome "misdeal"

>>> reveals_of((0, 1, 2, 3, 4, 5, 6, 7, 8) + tuple(range(9, 52)), [("flop", "t1"), ("showdown", "t2")])
... # doctest: +NORMALIZE_WHITESPACE
[{'event': 'flop', 'at': 't1', 'cards': {'player': ['2c', '2d'], 'board': ['3c', '3d', '3h']}},
 {'event': 'showdown', 'at': 't2', 'cards': {'board': ['3s', '4c'], 'dealer': ['2h', '2s']}}]
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from dealerpoker.cards.encoding import texts_from_indices
from dealerpoker.fairness.canonical import canonical_json
from dealerpoker.fairness.checks import RECORD_VERSION, record_digest

__all__ = ["CARD_SOURCE", "SCOPES", "TIMER_REASONS", "VISIBLE", "build_live_record", "live_action",
           "reveals_of"]

SCOPES = ("round", "player")
#: What may name the reporter of a studio's card (``reader``, ``console``, ``shoe``, ``reader-2``...).
CARD_SOURCE = re.compile(r"^[a-z0-9][a-z0-9-]{0,23}$")
#: Why the timer, not the player, chose an action: the point's time ran out, or the player's
#: choice could not be debited when the point closed (the free default replaced it).
TIMER_REASONS = ("timeout", "unpaid")

#: Cards visible at each reveal: (player cards, board cards, dealer cards) from the dealing
#: positions player deck[0:2], dealer deck[2:4], board deck[4:9] (docs/CONTRACTS.md section 4).
VISIBLE = {"preflop": (2, 0, 0), "flop": (2, 3, 0), "turn": (2, 4, 0), "showdown": (2, 5, 2)}


def reveals_of(deck: Sequence[int], events: Sequence[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Each reveal event with the cards it showed first (places with no new card left out)."""
    shown = (0, 0, 0)
    reveals = []
    for event, at in events:
        visible = VISIBLE.get(event, shown)
        cards: dict[str, list[str]] = {}
        for place, start, before, now in zip(("player", "board", "dealer"), (0, 4, 2), shown, visible,
                                             strict=True):
            new = texts_from_indices(deck[start + before:start + now])  # a studio deck may end sooner
            if new:
                cards[place] = new
        reveals.append({"event": event, "at": at, "cards": cards})
        shown = tuple(max(a, b) for a, b in zip(shown, visible, strict=True))  # type: ignore[assignment]
    return reveals


def live_action(round_id: str, player_id: str, step: Mapping[str, Any], at: str | None) -> dict[str, Any]:
    """A stored live step as a record action (``source`` "player" or "timer", with the reason)."""
    own = step["source"] == "player"
    stake = int(step["stake"])
    return {"point": step["point"], "action": step["action"],
            "source": "player" if own else "timer", "reason": None if own else step["source"],
            "at": at, "stake": stake, "txid": f"{round_id}:{player_id}:{step['point']}" if stake else None}


def build_live_record(
    *,
    table_id: str,
    number: int,
    scope: str,
    player_id: str | None,
    game: str,
    rules_version: str,
    rules_fingerprint: str,
    rules: Mapping[str, Any],
    opened_at: str,
    betting_closed_at: str | None,
    settled_at: str,
    reveals: Sequence[Mapping[str, Any]],
    fairness: Mapping[str, Any] | None,
    deck: Sequence[int],
    seats: Sequence[Mapping[str, Any]],
    ledger: Sequence[Mapping[str, Any]],
    currency: str | None = None,
    studio: Mapping[str, Any] | None = None,
    restarts: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The record as plain JSON data, keys in reading order, ``record_digest`` last.

    ``restarts``: each decision window opened again after a restart (the key is left out when none was).

    ``studio`` (a studio round, no seeds): ``{"cards": [...], "misdeal": ...}`` as described above.
    """
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
    shown: dict[str, list[str]] = {}  # every card the reveals showed
    for reveal in reveals:
        for place, cards in reveal["cards"].items():
            shown[place] = [*shown.get(place, []), *cards]
    record: dict[str, Any] = {
        "record_version": RECORD_VERSION,
        "round_id": f"{table_id}/{number}",
        "game": game,
        "rules_version": rules_version,
        "rules_fingerprint": rules_fingerprint,
        "rules": rules,
        "mode": "table",
        "scope": scope,
        "table": {"id": table_id, "number": number},
        "table_id": table_id,
        "player_id": player_id,
        "status": "settled",
        "opened_at": opened_at,
        "betting_closed_at": betting_closed_at,
        "settled_at": settled_at,
        "reveals": [dict(r) for r in reveals],
        "fairness": None if fairness is None else dict(fairness),
        "deck": list(deck),
        "dealt": {place: shown.get(place, []) for place in ("player", "dealer", "board")},
        "seats": [dict(seat) for seat in seats],
        "ledger": [dict(entry) for entry in ledger],
    }
    if currency is not None:  # the currency of every amount above (records since currencies)
        record["currency"] = currency
    if restarts:
        record["restarts"] = [dict(restart) for restart in restarts]
    if studio is not None:
        record.update(dealing="studio", cards=[dict(card) for card in studio["cards"]],
                      misdeal=None if studio.get("misdeal") is None else dict(studio["misdeal"]))
    # Normalise to plain JSON types so the digest is what a reader of the JSON recomputes.
    plain: dict[str, Any] = json.loads(canonical_json(record))
    ordered = {key: plain[key] for key in record}
    ordered["record_digest"] = record_digest(ordered)
    return ordered
