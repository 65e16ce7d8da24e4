"""Verifying round records: a true record passes; any change to it fails, naming what changed."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from fairness_records import SERVER_SEED, play_record

from dealerpoker.fairness import commitment
from dealerpoker.fairness.record import build_record
from dealerpoker.fairness.verify import Finding, record_digest, verify_deal, verify_record


def failures(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if not f.ok]


def resealed(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its digest recomputed: what a forger who edits a value would do."""
    record = copy.deepcopy(record)
    record["record_digest"] = record_digest(record)
    return record


ROUNDS = [
    ("texas-bonus", {"ante": 100, "bonus": 100}, ("bet", "bet", "check")),
    ("texas-bonus", {"ante": 100}, ("bet", "check", "bet")),
    ("texas-bonus", {"ante": 100, "bonus": 200}, ("fold",)),
    ("casino-holdem", {"ante": 100, "aa": 100}, ("raise",)),
    ("casino-holdem", {"ante": 100}, ("fold",)),
    ("casino-holdem", {"ante": 200, "aa": 100}, ("call",)),
]


@pytest.mark.parametrize(("game", "bets", "actions"), ROUNDS)
@pytest.mark.parametrize("nonce", [0, 1, 2, 17])
def test_a_true_record_verifies(
    game: str, bets: dict[str, int], actions: tuple[str, ...], nonce: int
) -> None:
    record = play_record(game, bets, actions, nonce=nonce)
    findings = verify_record(
        record,
        server_seed=SERVER_SEED,
        expected_commitment=commitment(SERVER_SEED),
        client_seed="player-chosen",
        nonce=nonce,
    )
    assert failures(findings) == []
    subjects = {f.subject for f in findings}
    assert {"record_digest", "fairness.commitment", "deck", "settlement", "ledger", "actions"} <= subjects


def test_timer_actions_must_be_the_timer_default() -> None:
    record = play_record(
        "texas-bonus", {"ante": 100}, ("bet", "check", "check"), sources=["player", "timer", "timer"]
    )
    assert failures(verify_record(record)) == []
    record = play_record(
        "texas-bonus", {"ante": 100}, ("bet", "bet", "check"), sources=["player", "timer", "player"]
    )
    (bad,) = failures(verify_record(record))
    assert bad.subject == "actions[1].action" and "'check'" in bad.message


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            yield from leaves(item, (*path, k))
    else:
        yield path, value


def altered(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value[:-1] + ("0" if value[-1:] != "0" else "1") if value else "x"
    return 0  # None -> a number


def set_path(record: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    target: Any = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def test_changing_any_value_fails_naming_the_digest() -> None:
    record = play_record()
    paths = [path for path, _ in leaves(record)]
    assert len(paths) > 100
    for path, value in leaves(record):
        forged = copy.deepcopy(record)
        set_path(forged, path, altered(value))
        bad = failures(verify_record(forged))
        assert bad, f"changing {path} was not noticed"
        assert any(f.subject == "record_digest" for f in bad) or path == ("record_digest",)


# Values a forger changes and re-seals (digest recomputed): the semantic checks must name them.
SEMANTIC = [
    (("deck", 0), None, "deck[0]"),
    (("dealt", "player", 0), None, "dealt.player[0]"),
    (("dealt", "board", 2), None, "dealt.board[2]"),
    (("dealt", "dealer", 1), None, "dealt.dealer[1]"),
    (("fairness", "server_seed"), None, "fairness.commitment"),
    (("fairness", "commitment"), None, "fairness.commitment"),
    (("fairness", "client_seed"), None, "deck"),
    (("fairness", "nonce"), None, "deck"),
    (("settlement", "lines", 0, "returned"), None, "settlement.lines[0].returned"),
    (("settlement", "total_returned"), None, "settlement.total_returned"),
    (("settlement", "outcome"), None, "settlement.outcome"),
    (("bets", "ante"), 200, "settlement"),
    (("actions", 1, "action"), "check", "settlement"),
    (("actions", 0, "stake"), None, "actions[0].stake"),
    (("actions", 0, "source"), "robot", "actions[0].source"),
    (("actions", 0, "at"), "2026-11-29T11:00:00Z", "actions[0].at"),
    (("ledger", 0, "amount"), None, "ledger["),
    (("ledger", 1, "amount"), None, "ledger["),
    (("rules", "limits", "ante", "max"), None, "rules_fingerprint"),
    (("rules_version",), None, "rules_version"),
    (("fairness", "algorithm"), "sha1-v0", "fairness.algorithm"),
    (("status",), "open", "status"),
]


@pytest.mark.parametrize(("path", "value", "named"), SEMANTIC, ids=[s[2] + ":" + str(s[0]) for s in SEMANTIC])
def test_a_resealed_forgery_fails_naming_what_does_not_match(
    path: tuple[Any, ...], value: Any, named: str
) -> None:
    record = play_record("texas-bonus", {"ante": 100, "bonus": 100}, ("bet", "bet", "bet"), nonce=5)
    assert failures(verify_record(record)) == []
    forged = copy.deepcopy(record)
    original: Any = forged
    for key in path:
        original = original[key]
    set_path(forged, path, altered(original) if value is None else value)
    bad = failures(verify_record(resealed(forged)))
    assert bad, f"forging {path} was not noticed"
    assert any(f.subject.startswith(named) for f in bad), [str(f) for f in bad]


def test_a_changed_ledger_pair_that_still_balances_is_caught() -> None:
    record = play_record("texas-bonus", {"ante": 100}, ("bet", "bet", "bet"), nonce=5)
    forged = copy.deepcopy(record)
    for entry in forged["ledger"]:
        if entry["txid"].endswith(":0"):
            entry["amount"] += 10 if entry["account"] == "house" else -10  # both sides, still balanced
    bad = failures(verify_record(resealed(forged)))
    assert [f.subject for f in bad] == ["ledger.debits"]
    assert "debits the player 510, the re-settled round staked 500" in bad[0].message


def test_the_command_line_values_must_match_the_record() -> None:
    record = play_record(nonce=4)
    bad = failures(verify_record(record, nonce=5, client_seed="other"))
    assert {f.subject for f in bad} == {"fairness.nonce", "fairness.client_seed"}


def test_raw_byte_flips_of_the_json_fail() -> None:
    text = json.dumps(play_record(), indent=1)
    rng = random.Random(7)
    positions = [k for k, ch in enumerate(text) if not ch.isspace()]
    for position in rng.sample(positions, 200):
        flipped = text[:position] + chr(ord(text[position]) ^ 1) + text[position + 1 :]
        try:
            forged = json.loads(flipped)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue  # not JSON any more: the command reports that
        assert failures(verify_record(forged)), f"flipping byte {position} was not noticed"


def test_verify_deal_alone() -> None:
    findings, deck = verify_deal(SERVER_SEED, commitment(SERVER_SEED), "abc", 0)
    assert failures(findings) == [] and deck is not None and len(deck) == 52
    findings, deck = verify_deal(SERVER_SEED, "00" * 32, "abc", 0)
    assert failures(findings)[0].subject == "fairness.commitment"
    findings, deck = verify_deal("zz", "00" * 32, "abc", 0)
    assert deck is None and "server seed" in failures(findings)[0].message


def test_an_unsettled_or_malformed_record() -> None:
    assert failures(verify_record([]))[0].subject == "record"  # type: ignore[arg-type]
    record = play_record()
    del record["ledger"]
    assert any("ledger" in f.message for f in failures(verify_record(record)))
    record = play_record()
    record["fairness"]["server_seed"] = None
    assert any(f.subject == "fairness.server_seed" for f in failures(verify_record(resealed(record))))


def test_build_record_digest_covers_everything() -> None:
    record = play_record()
    assert record["record_digest"] == record_digest(record)
    again = build_record(**{k: v for k, v in record.items() if k not in ("record_version", "record_digest")})
    assert again == record
