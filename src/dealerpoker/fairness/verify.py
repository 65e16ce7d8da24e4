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
    rules_version   text, rules_fingerprint: text (rules.fingerprint() of ``rules``)
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
    record_digest   SHA-256 hex of the canonical JSON of every other key

>>> record = {"record_version": 1}
>>> [f.subject for f in verify_record(record) if not f.ok][:2]
['record', 'record_digest']
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dealerpoker.cards.encoding import index_to_card
from dealerpoker.errors import DealerPokerError
from dealerpoker.fairness.canonical import canonical_json, sha256_hex
from dealerpoker.fairness.shuffle import ALGORITHM_VERSION, commitment, deck_order
from dealerpoker.games import get_game
from dealerpoker.games.base import SETTLED, RoundState
from dealerpoker.games.rules import rules_from_document

__all__ = [
    "RECORD_VERSION",
    "Finding",
    "record_digest",
    "verify_deal",
    "verify_record",
]

RECORD_VERSION = 1
ACTION_SOURCES = ("player", "timer")
_REQUIRED = (
    "round_id", "game", "rules_version", "rules_fingerprint", "rules", "mode", "player_id", "status",
    "opened_at", "settled_at", "fairness", "deck", "bets", "dealt", "actions", "ledger", "settlement",
    "record_digest",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Finding:
    """One check: what was checked (``subject``, a path in the record), whether it held, and why."""

    subject: str
    ok: bool
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "ok": self.ok, "message": self.message}

    def __str__(self) -> str:
        return f"{'ok' if self.ok else 'MISMATCH'}  {self.subject}: {self.message}"


def record_digest(record: Mapping[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of ``record`` without its ``record_digest`` key."""
    return sha256_hex(canonical_json({k: v for k, v in record.items() if k != "record_digest"}))


def _cards(indices: Sequence[int]) -> list[str]:
    return [str(index_to_card(i)) for i in indices]


def verify_deal(
    server_seed: str, expected_commitment: str, client_seed: str, nonce: int
) -> tuple[list[Finding], tuple[int, ...] | None]:
    """Check the seed against the commitment and recompute the deck (None if inputs are bad)."""
    try:
        actual = commitment(server_seed)
        deck = deck_order(server_seed, client_seed, nonce)
    except DealerPokerError as error:
        return [Finding("fairness", False, str(error))], None
    if actual != str(expected_commitment).lower():
        return [
            Finding(
                "fairness.commitment",
                False,
                f"SHA-256 of the revealed server seed is {actual}, but the commitment published before "
                f"the bets was {expected_commitment}: the seed is not the committed one",
            )
        ], deck
    return [Finding("fairness.commitment", True, "the revealed server seed matches the commitment")], deck


class _Checker:
    def __init__(self) -> None:
        self.findings: list[Finding] = []

    def ok(self, subject: str, message: str) -> None:
        self.findings.append(Finding(subject, True, message))

    def fail(self, subject: str, message: str) -> None:
        self.findings.append(Finding(subject, False, message))

    def same(self, subject: str, recorded: Any, recomputed: Any, what: str) -> bool:
        if recorded == recomputed:
            self.ok(subject, what)
            return True
        self.fail(subject, f"record says {recorded!r}, recomputed {recomputed!r}")
        return False

    def diff(self, subject: str, recorded: Any, recomputed: Any) -> int:
        """Name every leaf where ``recorded`` differs from ``recomputed``; the count of differences."""
        if isinstance(recorded, Mapping) and isinstance(recomputed, Mapping):
            count = 0
            for key in sorted(set(recorded) | set(recomputed), key=str):
                if key not in recorded:
                    self.fail(f"{subject}.{key}", f"missing from the record (recomputed {recomputed[key]!r})")
                    count += 1
                elif key not in recomputed:
                    self.fail(f"{subject}.{key}", f"unexpected in the record ({recorded[key]!r})")
                    count += 1
                else:
                    count += self.diff(f"{subject}.{key}", recorded[key], recomputed[key])
            return count
        if isinstance(recorded, list) and isinstance(recomputed, list) and len(recorded) == len(recomputed):
            pairs = enumerate(zip(recorded, recomputed, strict=True))
            return sum(self.diff(f"{subject}[{k}]", a, b) for k, (a, b) in pairs)
        if recorded != recomputed or type(recorded) is not type(recomputed):
            self.fail(subject, f"record says {recorded!r}, recomputed {recomputed!r}")
            return 1
        return 0


def _parse_time(value: Any) -> datetime.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def verify_record(
    record: Mapping[str, Any],
    *,
    server_seed: str | None = None,
    expected_commitment: str | None = None,
    client_seed: str | None = None,
    nonce: int | None = None,
) -> list[Finding]:
    """Every check of a settled round record; the keyword values, when given, must match it."""
    check = _Checker()
    if not isinstance(record, Mapping):
        return [
            Finding("record", False, f"a round record must be a JSON object, got {type(record).__name__}")
        ]
    if record.get("mode") == "table":
        # A live table round (its own layout, every seat or one player's): imported here, as that
        # module builds on this one.
        from dealerpoker.fairness.verify_live import verify_live_record

        return verify_live_record(record, server_seed=server_seed, expected_commitment=expected_commitment,
                                  client_seed=client_seed, nonce=nonce)
    missing = [key for key in _REQUIRED if key not in record]
    if record.get("record_version") != RECORD_VERSION:
        check.fail(
            "record_version",
            f"unsupported record version {record.get('record_version')!r} "
            f"(this verifier reads version {RECORD_VERSION})",
        )
    if missing:
        check.fail("record", f"missing keys: {', '.join(missing)}")
    digest = record_digest(record)
    if record.get("record_digest") == digest:
        check.ok("record_digest", "the record's content matches its digest")
    else:
        check.fail(
            "record_digest",
            f"record says {record.get('record_digest')!r}, its content hashes to "
            f"{digest}: the record was altered after it was made",
        )
    if missing or record.get("record_version") != RECORD_VERSION:
        return check.findings
    deck = _check_fairness(check, record, server_seed, expected_commitment, client_seed, nonce)
    if deck is None:
        return check.findings
    _check_dealt(check, record, deck)
    _check_times(check, record)
    replayed = _check_replay(check, record, deck)
    if replayed is not None:
        _check_ledger(check, record, replayed)
    return check.findings


def _check_fairness(
    check: _Checker,
    record: Mapping[str, Any],
    server_seed: str | None,
    expected_commitment: str | None,
    client_seed: str | None,
    nonce: int | None,
) -> tuple[int, ...] | None:
    fairness = record["fairness"]
    if not isinstance(fairness, Mapping):
        check.fail("fairness", "must be an object {algorithm, commitment, server_seed, client_seed, nonce}")
        return None
    given = {
        "server_seed": server_seed,
        "commitment": expected_commitment,
        "client_seed": client_seed,
        "nonce": nonce,
    }
    for key, value in given.items():
        if value is None:
            continue
        recorded = fairness.get(key)
        same = (
            (str(recorded).lower() == str(value).lower())
            if key in ("server_seed", "commitment")
            else recorded == value
        )
        if same:
            check.ok(f"fairness.{key}", "the record holds the value given on the command line")
        else:
            check.fail(f"fairness.{key}", f"record says {recorded!r}, but {value!r} was given")
    algorithm = fairness.get("algorithm")
    if algorithm != ALGORITHM_VERSION:
        check.fail(
            "fairness.algorithm",
            f"record says {algorithm!r}; this verifier implements {ALGORITHM_VERSION!r} only",
        )
        return None
    check.ok("fairness.algorithm", ALGORITHM_VERSION)
    if fairness.get("server_seed") is None:
        check.fail("fairness.server_seed", "the server seed is not revealed yet (the round is not settled)")
        return None
    inputs: list[Any] = [fairness.get(key) for key in ("server_seed", "commitment", "client_seed", "nonce")]
    findings, deck = verify_deal(*inputs)
    check.findings.extend(findings)
    if deck is None:
        return None
    recorded = record["deck"]
    if isinstance(recorded, list) and recorded == list(deck):
        check.ok("deck", "the recorded deck order is the one the seeds give")
    else:
        if isinstance(recorded, list) and len(recorded) == len(deck):
            first = next(k for k, (a, b) in enumerate(zip(recorded, deck, strict=True)) if a != b)
            check.fail(
                f"deck[{first}]",
                f"record says {recorded[first]!r}, the seeds give {deck[first]} "
                f"({index_to_card(deck[first])})",
            )
        else:
            check.fail("deck", f"record holds {recorded!r}, the seeds give 52 cards {list(deck)}")
    return deck


def _check_dealt(check: _Checker, record: Mapping[str, Any], deck: tuple[int, ...]) -> None:
    dealt = record["dealt"]
    places = {"player": deck[0:2], "dealer": deck[2:4], "board": deck[4:9]}
    if not isinstance(dealt, Mapping):
        check.fail("dealt", "must be an object {player, dealer, board}")
        return
    for place, cards in places.items():
        shown = dealt.get(place, [])
        expected = _cards(cards)
        if not isinstance(shown, list) or len(shown) > len(expected):
            check.fail(f"dealt.{place}", f"record says {shown!r}, the deck gives {expected}")
            continue
        mismatches = [k for k, card in enumerate(shown) if card != expected[k]]
        if mismatches:
            k = mismatches[0]
            check.fail(f"dealt.{place}[{k}]", f"record says {shown[k]!r}, the deck gives {expected[k]!r}")
        else:
            check.ok(f"dealt.{place}", f"{' '.join(shown) or '(none shown)'} as the deck gives")


def _check_times(check: _Checker, record: Mapping[str, Any]) -> None:
    opened, settled = _parse_time(record["opened_at"]), _parse_time(record["settled_at"])
    if opened is None or settled is None:
        bad = "opened_at" if opened is None else "settled_at"
        check.fail(bad, f"{record[bad]!r} is not an ISO-8601 time with a time zone")
        return
    previous, previous_name = opened, "opened_at"
    for k, action in enumerate(record["actions"] if isinstance(record["actions"], list) else []):
        at = _parse_time(action.get("at") if isinstance(action, Mapping) else None)
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


def _check_replay(check: _Checker, record: Mapping[str, Any], deck: tuple[int, ...]) -> RoundState | None:
    game = load_game(check, record)
    if game is None:
        return None
    state = replay_seat(check, game, deck, record["bets"], record["actions"], record["settlement"])
    if state is not None and record["status"] != "settled":
        check.fail("status", f"record says {record['status']!r}, but the replayed round is settled")
    return state


def load_game(check: _Checker, record: Mapping[str, Any]) -> Any:
    """The record's game engine under the record's own rules (None, with a finding, if unusable)."""
    try:
        rules = rules_from_document(record["rules"], where="record rules")
        game = get_game(record["game"], rules)
    except (DealerPokerError, TypeError, KeyError, AttributeError) as error:
        check.fail("rules", f"cannot load the record's rules: {error}")
        return None
    check.same(
        "rules_fingerprint",
        record["rules_fingerprint"],
        rules.fingerprint(),
        "the rules document matches its fingerprint",
    )
    check.same(
        "rules_version", record["rules_version"], rules.rules_version, "the rules document has this version"
    )
    return game


def replay_seat(
    check: _Checker,
    game: Any,
    deck: tuple[int, ...],
    bets: Any,
    actions: Any,
    settlement: Any,
    *,
    prefix: str = "",
    cancelled: bool = False,
    dealt: bool = True,
) -> RoundState | None:
    """Replay one player's bets and actions with the rules engine and compare the settlement.

    ``prefix`` names where in the record the player's part is (``""`` for a solo record).
    ``cancelled``: a live studio round cancelled (misdeal) where the actions stop; its settlement
    is the engine's ``cancel`` of the state they reached (``dealt``: the hole cards were shown).
    """
    if not isinstance(actions, list):
        check.fail(f"{prefix}actions", "must be a list")
        return None
    try:
        state: RoundState = game.start(bets, deck)
    except (DealerPokerError, TypeError, AttributeError) as error:
        check.fail(f"{prefix}bets", f"the rules engine refuses the opening bets: {error}")
        return None
    for k, action in enumerate(actions):
        if not isinstance(action, Mapping):
            check.fail(f"{prefix}actions[{k}]", "must be an object {step, action, source, at, stake}")
            return None
        name: Any = action.get("action")
        try:
            game.check_action(state, name)
            stake = game.stake_for(state, name)
            timer_default = game.timeout_action(state)
        except DealerPokerError as error:
            check.fail(f"{prefix}actions[{k}].action", f"{name!r} cannot be replayed: {error}")
            return None
        if action.get("source") not in ACTION_SOURCES:
            check.fail(
                f"{prefix}actions[{k}].source",
                f"record says {action.get('source')!r}, expected one of {', '.join(ACTION_SOURCES)}",
            )
        elif action.get("source") == "timer" and game.aliases.get(name, name) != timer_default and stake:
            # The timer plays the rules' default, or a free check/fold when the balance cannot
            # cover the default's stake; it never places a stake of its own choosing.
            check.fail(
                f"{prefix}actions[{k}].action",
                f"a timer default must be {timer_default!r} here (or a free check/fold), "
                f"record says {name!r}",
            )
        if action.get("stake") != stake:
            check.fail(
                f"{prefix}actions[{k}].stake",
                f"record says {action.get('stake')!r}, the rules engine "
                f"debits {stake} for {name!r} in the {state.phase} phase",
            )
        state, _ = game.apply(state, name)
    if cancelled:
        state = replace(state, phase=SETTLED, settlement=game.cancel(bets, state if dealt else None))
    if not state.is_settled or state.settlement is None:
        check.fail(f"{prefix}actions",
                   f"the replayed round is not settled (it waits in the {state.phase} phase)")
        return None
    names = " ".join(str(a.get("action")) for a in actions) or "-"
    check.ok(f"{prefix}actions", f"{len(actions)} action(s) replayed: {names}")
    if check.diff(f"{prefix}settlement", settlement, state.settlement.to_dict()) == 0:
        result = state.settlement
        check.ok(
            f"{prefix}settlement",
            f"re-settled with the rules engine: staked {result.total_stake}, "
            f"returned {result.total_returned}, net {result.net}",
        )
    return state


def _check_ledger(check: _Checker, record: Mapping[str, Any], state: RoundState) -> None:
    ledger = record["ledger"]
    if not isinstance(ledger, list) or not all(isinstance(e, Mapping) for e in ledger):
        check.fail("ledger", "must be a list of entries {txid, account, amount, memo, at}")
        return
    check_player_ledger(check, ledger, record["player_id"], record["actions"], state)


def check_player_ledger(
    check: _Checker,
    ledger: Sequence[Mapping[str, Any]],
    player: Any,
    actions: Sequence[Any],
    state: RoundState,
    *,
    prefix: str = "",
) -> bool:
    """One player's transfers (``ledger``: both entries of each) against their re-settled round."""
    assert state.settlement is not None
    by_txid: dict[str, list[Mapping[str, Any]]] = {}
    for entry in ledger:
        by_txid.setdefault(str(entry.get("txid")), []).append(entry)
    good = True
    for txid, entries in by_txid.items():
        amounts: list[Any] = [e.get("amount") for e in entries]
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in amounts):
            check.fail(f"ledger[{txid}]", f"amounts must be integers, got {amounts}")
            good = False
        elif sum(amounts) != 0 or len(entries) != 2:
            check.fail(f"ledger[{txid}]", f"a transfer is two entries summing to 0; got {amounts}")
            good = False
        elif sum(1 for e in entries if e.get("account") == player) != 1:
            check.fail(f"ledger[{txid}]", f"each transfer moves money to or from player {player!r} once")
            good = False
    if not good:
        return False
    player_amounts = [e["amount"] for e in ledger if e.get("account") == player]
    debited = -sum(a for a in player_amounts if a < 0)
    credited = sum(a for a in player_amounts if a > 0)
    settlement = state.settlement
    if debited != settlement.total_stake:
        check.fail(
            f"{prefix}ledger.debits",
            f"the ledger debits the player {debited}, the re-settled round staked {settlement.total_stake}",
        )
        good = False
    if credited != settlement.total_returned:
        check.fail(
            f"{prefix}ledger.credits",
            f"the ledger credits the player {credited}, the re-settled round "
            f"returns {settlement.total_returned}",
        )
        good = False
    for k, action in enumerate(actions):
        stake = action.get("stake", 0)
        if isinstance(stake, int) and stake:  # a stake of another type is named by the replay
            entries = by_txid.get(str(action.get("txid")), [])
            mine = [e["amount"] for e in entries if e.get("account") == player]
            if mine != [-stake]:
                check.fail(
                    f"{prefix}actions[{k}].txid",
                    f"ledger transfer {action.get('txid')!r} debits the player "
                    f"{mine}, the action staked {stake}",
                )
                good = False
    if good:
        check.ok(f"{prefix}ledger", f"{len(by_txid)} balanced transfer(s) match the settlement")
    return good
