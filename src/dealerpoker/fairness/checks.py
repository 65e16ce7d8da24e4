"""The checks a solo and a live round record share (pure): findings, digest, seeds, cards, replay, ledger.

:mod:`dealerpoker.fairness.verify` (solo records) and :mod:`dealerpoker.fairness.verify_live`
(live table records) are built from these; the record builders
(:mod:`dealerpoker.fairness.record`, :mod:`dealerpoker.fairness.live_record`) take the version
and the digest from here, so nothing imports in a circle.

>>> check = Checker()
>>> check_header(check, {"record_version": 1}, ("round_id",))
False
>>> [f.subject for f in check.findings if not f.ok]
['record', 'record_digest']
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dealerpoker.cards.encoding import index_to_card, texts_from_indices
from dealerpoker.errors import DealerPokerError
from dealerpoker.fairness.canonical import canonical_json, sha256_hex
from dealerpoker.fairness.shuffle import ALGORITHM_VERSION, commitment, deck_order
from dealerpoker.games import get_game
from dealerpoker.games.base import SETTLED, RoundState
from dealerpoker.games.money import Money
from dealerpoker.games.payments import at_deal, cancellation, credit, decide, free_action, timer_may_play
from dealerpoker.games.rules import LEGACY_FINGERPRINT_LENGTH, rules_from_document
from dealerpoker.jurisdictions import check_round

#: The record layout version this verifier reads and the builders write.
RECORD_VERSION = 1
#: Who chose a recorded action: the player, or the timer (the rules' default).
ACTION_SOURCES = ("player", "timer")


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


#: The keys a record's digest leaves out: the digest itself and the server's signature of it.
UNDIGESTED = ("record_digest", "signature")


def record_digest(record: Mapping[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of ``record`` without ``record_digest`` and ``signature``."""
    return sha256_hex(canonical_json({k: v for k, v in record.items() if k not in UNDIGESTED}))


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


class Checker:
    """Collects the findings of one verification."""

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


def check_header(check: Checker, record: Mapping[str, Any], required: Sequence[str]) -> bool:
    """The version, the keys ``required`` and the digest; False when the rest cannot be checked."""
    missing = [key for key in required if key not in record]
    if record.get("record_version") != RECORD_VERSION:
        check.fail("record_version", f"unsupported record version {record.get('record_version')!r} "
                                     f"(this verifier reads version {RECORD_VERSION})")
    if missing:
        check.fail("record", f"missing keys: {', '.join(missing)}")
    digest = record_digest(record)
    if record.get("record_digest") == digest:
        check.ok("record_digest", "the record's content matches its digest")
    else:
        check.fail("record_digest", f"record says {record.get('record_digest')!r}, its content hashes to "
                                    f"{digest}: the record was altered after it was made")
    return not missing and record.get("record_version") == RECORD_VERSION


def parse_time(value: Any) -> datetime.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def check_fairness(
    check: Checker,
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


def check_dealt(check: Checker, record: Mapping[str, Any], deck: tuple[int, ...]) -> None:
    dealt = record["dealt"]
    places = {"player": deck[0:2], "dealer": deck[2:4], "board": deck[4:9]}
    if not isinstance(dealt, Mapping):
        check.fail("dealt", "must be an object {player, dealer, board}")
        return
    for place, cards in places.items():
        shown = dealt.get(place, [])
        expected = texts_from_indices(cards)
        if not isinstance(shown, list) or len(shown) > len(expected):
            check.fail(f"dealt.{place}", f"record says {shown!r}, the deck gives {expected}")
            continue
        mismatches = [k for k, card in enumerate(shown) if card != expected[k]]
        if mismatches:
            k = mismatches[0]
            check.fail(f"dealt.{place}[{k}]", f"record says {shown[k]!r}, the deck gives {expected[k]!r}")
        else:
            check.ok(f"dealt.{place}", f"{' '.join(shown) or '(none shown)'} as the deck gives")


def load_game(check: Checker, record: Mapping[str, Any]) -> Any:
    """The record's game engine under the record's own rules (None, with a finding, if unusable)."""
    try:
        rules = rules_from_document(record["rules"], where="record rules")
        game = get_game(record["game"], rules)
    except (DealerPokerError, TypeError, KeyError, AttributeError) as error:
        check.fail("rules", f"cannot load the record's rules: {error}")
        return None
    full = rules.fingerprint()
    if record["rules_fingerprint"] == full[:LEGACY_FINGERPRINT_LENGTH]:
        check.ok("rules_fingerprint", "the rules document matches its fingerprint (the 64-bit one of "
                                      "records made before issue 15)")
    else:
        check.same("rules_fingerprint", record["rules_fingerprint"], full,
                   "the rules document matches its fingerprint (SHA-256)")
    check.same(
        "rules_version", record["rules_version"], rules.rules_version, "the rules document has this version"
    )
    return game


@dataclass(frozen=True, slots=True)
class Replayed:
    """A player's part replayed with the rules engine: the settled state, and what its steps
    moved by the money rules (``dealerpoker.games.payments``): taken from and paid to the player."""

    state: RoundState
    staked: Money
    returned: Money


def replay_seat(
    check: Checker,
    game: Any,
    deck: tuple[int, ...],
    bets: Any,
    actions: Any,
    settlement: Any,
    *,
    prefix: str = "",
    cancelled: bool = False,
    dealt: bool = True,
) -> Replayed | None:
    """Replay one player's bets and actions with the rules engine and compare the settlement.

    ``prefix`` names where in the record the player's part is (``""`` for a solo record).
    ``cancelled``: a live studio round cancelled (misdeal) where the actions stop; its settlement
    is ``games.payments.cancellation`` of the state they reached (``dealt``: the hole cards were
    shown; before that nothing was paid at the deal).
    """
    if not isinstance(actions, list):
        check.fail(f"{prefix}actions", "must be a list")
        return None
    try:
        state: RoundState = game.start(bets, deck)
    except (DealerPokerError, TypeError, AttributeError) as error:
        check.fail(f"{prefix}bets", f"the rules engine refuses the opening bets: {error}")
        return None
    deal = at_deal(state)
    staked, returned = deal.stake, deal.returned if dealt else 0
    for k, action in enumerate(actions):
        if not isinstance(action, Mapping):
            check.fail(f"{prefix}actions[{k}]", "must be an object {step, action, source, at, stake}")
            return None
        name: Any = action.get("action")
        try:
            game.check_action(state, name)
            stake = game.stake_for(state, name)
            timer_may = timer_may_play(game, state, name)
        except DealerPokerError as error:
            check.fail(f"{prefix}actions[{k}].action", f"{name!r} cannot be replayed: {error}")
            return None
        if action.get("source") not in ACTION_SOURCES:
            check.fail(
                f"{prefix}actions[{k}].source",
                f"record says {action.get('source')!r}, expected one of {', '.join(ACTION_SOURCES)}",
            )
        elif action.get("source") == "timer" and not timer_may:
            # The timer plays the rules' default, or a free check/fold when the balance cannot
            # cover the default's stake; it never places a stake of its own choosing.
            check.fail(
                f"{prefix}actions[{k}].action",
                f"a timer default must be {game.timeout_action(state)!r} here (or the free "
                f"{free_action(game, state)!r}), record says {name!r}",
            )
        if action.get("stake") != stake:
            check.fail(
                f"{prefix}actions[{k}].stake",
                f"record says {action.get('stake')!r}, the rules engine "
                f"debits {stake} for {name!r} in the {state.phase} phase",
            )
        state, step = decide(game, state, name, already_returned=returned)
        staked, returned = staked + step.stake, returned + step.returned
    if cancelled:
        void = cancellation(game, bets, state if dealt else None)
        state, returned = replace(state, phase=SETTLED, settlement=void), returned + credit(void, returned)
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
    return Replayed(state, staked, returned)


def check_player_ledger(
    check: Checker,
    ledger: Sequence[Mapping[str, Any]],
    player: Any,
    actions: Sequence[Any],
    replayed: Replayed,
    *,
    prefix: str = "",
    promo: Any = None,
) -> bool:
    """One player's transfers (``ledger``: both entries of each) against what their replayed
    round moved (``promo``: a free round's, whose ``free_ante`` the player was not debited and
    whose ``forfeited`` the cap on winnings kept back)."""
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
    free, forfeited = 0, 0
    if promo is not None:
        amounts = [promo.get(name) if isinstance(promo, Mapping) else None
                   for name in ("free_ante", "forfeited")]
        if not all(isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in amounts):
            check.fail(f"{prefix}promo", "must be {campaign, reward, free_ante, forfeited} with amounts "
                       f">= 0, got {promo!r}")
            return False
        free, forfeited = amounts
        check.ok(f"{prefix}promo", f"a free round: the operator paid the ante ({free}); "
                 f"forfeited {forfeited}")
    if not good:
        return False
    player_amounts = [e["amount"] for e in ledger if e.get("account") == player]
    debited = -sum(a for a in player_amounts if a < 0)
    credited = sum(a for a in player_amounts if a > 0)
    if debited != replayed.staked - free:
        check.fail(
            f"{prefix}ledger.debits",
            f"the ledger debits the player {debited}, the re-settled round staked {replayed.staked}"
            + (f" less the free ante {free}" if free else ""),
        )
        good = False
    if credited != replayed.returned - forfeited:
        check.fail(
            f"{prefix}ledger.credits",
            f"the ledger credits the player {credited}, the re-settled round "
            f"returns {replayed.returned}"
            + (f" less {forfeited} forfeited over the cap" if forfeited else ""),
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


def check_jurisdiction(
    check: Checker,
    enforced: Any,
    *,
    subject: str,
    game: str,
    mode: str,
    rules_fingerprint: str,
    bets: Any,
    actions: Any,
    currency: str,
) -> None:
    """A round (or a live seat) against the jurisdiction profile it was played under
    (``enforced``: the profile's enforced settings the record carries; None: a record from
    before jurisdictions, nothing to check): its game, mode, paytable and what it staked."""
    if enforced is None:
        return
    if not isinstance(enforced, Mapping) or not isinstance(enforced.get("id"), str):
        check.fail(subject, "must be the profile's enforced settings {id, version, games, ...}")
        return
    try:
        staked = sum(int(v) for v in (bets or {}).values()) + sum(
            int(a.get("stake") or 0) for a in (actions or []) if isinstance(a, Mapping))
    except (AttributeError, TypeError, ValueError):
        check.fail(subject, "the bets and the actions' stakes must be whole amounts to check the stake")
        return
    broken = check_round(enforced, game=game, mode=mode, rules_fingerprint=rules_fingerprint,
                         stake=staked, currency=currency)
    for rule, why in broken:
        check.fail(f"{subject}.{rule}", why)
    if not broken:
        check.ok(subject, f"played within {enforced['id']} (profile {enforced.get('version')}): "
                          "game, mode, paytable and stake")
