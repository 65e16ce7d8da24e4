"""Verify a round: the commitment, the deck, the dealt cards, every payout and ledger entry.

Pure: a round record (the JSON of ``GET /api/rounds/{id}/record``) in, a list of
:class:`Finding` out. Nothing is trusted that can be recomputed: the deck is recomputed from the
revealed seed, the round is replayed and re-settled with the rules engine from the record's
own rules, and the ledger entries are summed against that settlement. A record whose digest
does not match its content was altered after it was made.

Round record, version 1 (JSON object; amounts in integer minor units, times ISO-8601 UTC)::

    record_version  1
    round_id        text
    game            "texas-bonus" | "casino-holdem"
    rules_version   text, rules_fingerprint: text (rules.fingerprint() of ``rules``: its SHA-256,
                    64 hex; records made before issue 15 have its first 16 hex characters)
    rules           the full rules document (paytables, limits, timers)
    mode            "solo" (a live round, "table", has its own layout: dealerpoker.fairness.live_record)
    table_id: null;  player_id: text
    status          "settled" (an open round has no revealed seed yet)
    opened_at, settled_at
    fairness        {"algorithm", "commitment", "server_seed", "client_seed", "nonce"}
    deck            the 52 card indices in dealing order
    bets            the opening bets {field: amount}
    dealt           {"player": [card], "dealer": [card], "board": [card]} as shown to the player
    actions         [{"step", "action", "source": "player" | "timer", "at", "stake", "txid"}]
    ledger          [{"txid", "account", "amount" (signed: debit < 0 < credit), "memo", "at"}]
    settlement      Settlement.to_dict() (docs/CONTRACTS.md section 4)
    currency        the currency of every amount (records since currencies)
    promo           a free round (records since issue 30): {"campaign", "reward", "free_ante": the
                    ante the operator paid (not debited), "forfeited": what the cap on winnings kept
                    back of the settlement}
    jurisdiction    the jurisdiction profile the round was played under (records since issue 27):
                    {"id", "version", "fingerprint", "games", "modes", "paytables", "max_stake",
                    "strategy_hint"}; the round must keep every rule of it
    record_digest   SHA-256 hex of the canonical JSON of every other key but ``signature``
    signature       {"algorithm": "ed25519", "key_id", "value"}: the server's signature of the
                    digest (records served since issue 15; :mod:`dealerpoker.fairness.signature`)

>>> record = {"record_version": 1}
>>> [f.subject for f in verify_record(record) if not f.ok][:2]
['record', 'record_digest']
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from dealerpoker.cards.encoding import indices_to_cards, texts_from_indices
from dealerpoker.evaluator import HandCategory, evaluate
from dealerpoker.fairness.checks import (
    RECORD_VERSION,
    Checker,
    Finding,
    Replayed,
    check_dealt,
    check_fairness,
    check_header,
    check_jurisdiction,
    check_player_ledger,
    load_game,
    parse_time,
    record_digest,
    replay_seat,
    verify_deal,
)
from dealerpoker.fairness.signature import check_rules_approved, check_signature
from dealerpoker.fairness.verify_live import verify_live_record
from dealerpoker.games.jackpot import first_five

__all__ = [
    "RECORD_VERSION",
    "Finding",
    "record_digest",
    "verify_deal",
    "verify_record",
]

_REQUIRED = (
    "round_id", "game", "rules_version", "rules_fingerprint", "rules", "mode", "player_id", "status",
    "opened_at", "settled_at", "fairness", "deck", "bets", "dealt", "actions", "ledger", "settlement",
    "record_digest",
)  # fmt: skip


def verify_record(
    record: Mapping[str, Any],
    *,
    server_seed: str | None = None,
    expected_commitment: str | None = None,
    client_seed: str | None = None,
    nonce: int | None = None,
    public_key: bytes | None = None,
    approved_rules: Collection[str] | None = None,
) -> list[Finding]:
    """Every check of a settled round record; the keyword values, when given, must match it.

    ``public_key`` (the deployment's raw Ed25519 key): the record must carry the server's
    signature of its content under it. ``approved_rules`` (full SHA-256 fingerprints of the
    published rules documents): the record's rules must be one of them. Without them only the
    record's consistency is checked -- which a forger who edits a paytable and recomputes the
    fingerprint and the digest can also achieve (:mod:`dealerpoker.fairness.signature`).
    """
    if not isinstance(record, Mapping):
        return [
            Finding("record", False, f"a round record must be a JSON object, got {type(record).__name__}")
        ]
    if record.get("mode") == "table":  # a live table round: its own layout, every seat or one player's
        findings = verify_live_record(record, server_seed=server_seed, client_seed=client_seed, nonce=nonce,
                                      expected_commitment=expected_commitment)
    else:
        findings = _verify_solo(record, server_seed, expected_commitment, client_seed, nonce)
    binding = Checker()
    if public_key is not None:
        check_signature(binding, record, public_key)
    if approved_rules is not None:
        check_rules_approved(binding, record, approved_rules)
    return [*findings, *binding.findings]


def _verify_solo(record: Mapping[str, Any], server_seed: str | None, expected_commitment: str | None,
                 client_seed: str | None, nonce: int | None) -> list[Finding]:
    check = Checker()
    if not check_header(check, record, _REQUIRED):
        return check.findings
    deck = check_fairness(check, record, server_seed, expected_commitment, client_seed, nonce)
    if deck is None:
        return check.findings
    check_dealt(check, record, deck)
    _check_times(check, record)
    replayed = _check_replay(check, record, deck)
    if replayed is not None:
        _check_ledger(check, record, replayed)
    check_jurisdiction(check, record.get("jurisdiction"), subject="jurisdiction",
                       game=str(record["game"]), mode=str(record["mode"]),
                       rules_fingerprint=str(record["rules_fingerprint"]), bets=record["bets"],
                       actions=record["actions"], currency=str(record.get("currency", "")))
    _check_jackpot(check, record, deck)
    return check.findings


def _check_jackpot(check: Checker, record: Mapping[str, Any], deck: tuple[int, ...]) -> None:
    """The jackpot bet (records since the jackpot): settled on the deck's first five cards, their
    hand as recorded, and its own two transfers the stake and the award it shows."""
    jackpot = record.get("jackpot")
    if jackpot is None:
        return
    bet, ledger = jackpot.get("bet") if isinstance(jackpot, Mapping) else None, jackpot.get("ledger")
    if not isinstance(bet, Mapping) or not isinstance(ledger, list):
        check.fail("jackpot", "must be an object {bet, ledger}")
        return
    cards = first_five(deck)
    hand = HandCategory(evaluate(indices_to_cards(cards)).category).slug
    if bet.get("cards") != texts_from_indices(cards) or bet.get("hand") != hand:
        check.fail("jackpot.bet", f"settled on {bet.get('cards')} as {bet.get('hand')!r}; the deck's first "
                                  f"five cards are {texts_from_indices(cards)}, a {hand}")
        return
    player = record["player_id"]
    moved = {str(e.get("memo")): e.get("amount") for e in ledger
             if isinstance(e, Mapping) and e.get("account") == player}
    award = bet.get("award", 0)
    if moved.get("jackpot") != -bet.get("stake", 0) or moved.get("jackpot-award", 0) != award:
        check.fail("jackpot.ledger", f"the ledger moves {moved}; the bet staked {bet.get('stake')} "
                                     f"and was awarded {award}")
        return
    check.ok("jackpot", f"settled on {' '.join(texts_from_indices(cards))} ({hand}): staked "
                        f"{bet.get('stake')}, awarded {award}, as the ledger moved")


def _check_times(check: Checker, record: Mapping[str, Any]) -> None:
    opened, settled = parse_time(record["opened_at"]), parse_time(record["settled_at"])
    if opened is None or settled is None:
        bad = "opened_at" if opened is None else "settled_at"
        check.fail(bad, f"{record[bad]!r} is not an ISO-8601 time with a time zone")
        return
    previous, previous_name = opened, "opened_at"
    for k, action in enumerate(record["actions"] if isinstance(record["actions"], list) else []):
        at = parse_time(action.get("at") if isinstance(action, Mapping) else None)
        if at is None:
            check.fail(f"actions[{k}].at", "not an ISO-8601 time with a time zone")
            return
        if at < previous:
            check.fail(f"actions[{k}].at", f"{action['at']} is before {previous_name}")
            return
        previous, previous_name = at, f"actions[{k}].at"
    if settled < previous:
        check.fail("settled_at", f"{record['settled_at']} is before {previous_name}")
        return
    check.ok("timestamps", "opened, every action and settlement are in order")


def _check_replay(check: Checker, record: Mapping[str, Any], deck: tuple[int, ...]) -> Replayed | None:
    game = load_game(check, record)
    if game is None:
        return None
    replayed = replay_seat(check, game, deck, record["bets"], record["actions"], record["settlement"])
    if replayed is not None and record["status"] != "settled":
        check.fail("status", f"record says {record['status']!r}, but the replayed round is settled")
    return replayed


def _check_ledger(check: Checker, record: Mapping[str, Any], replayed: Replayed) -> None:
    ledger = record["ledger"]
    if not isinstance(ledger, list) or not all(isinstance(e, Mapping) for e in ledger):
        check.fail("ledger", "must be a list of entries {txid, account, amount, memo, at}")
        return
    check_player_ledger(check, ledger, record["player_id"], record["actions"], replayed,
                        promo=record.get("promo"))
