"""Rules as data: shipped TOML, a user's file merged over it, every bad entry named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dealerpoker.errors import InvalidRulesError
from dealerpoker.evaluator import HandCategory
from dealerpoker.games import CasinoHoldemRules, TexasBonusRules, get_game, load_rules


def test_shipped_rules_are_the_seed_tables() -> None:
    texas = load_rules("texas-bonus")
    assert isinstance(texas, TexasBonusRules)
    assert texas.ante_qualifier is HandCategory.FLUSH and texas.both_aces_pays == 0
    assert [(line.hands, line.pays) for line in texas.bonus_paytable] == [
        (("AA",), 30), (("AKs",), 25), (("AQs", "AJs"), 20), (("AKo",), 15), (("KK", "QQ", "JJ"), 10),
        (("AQo", "AJo"), 5), (("TT", "99", "88", "77", "66", "55", "44", "33", "22"), 3),
    ]  # fmt: skip
    assert dict(texas.timeout_actions) == {"preflop": "fold", "flop": "check", "turn": "check"}
    casino = load_rules("casino-holdem")
    assert isinstance(casino, CasinoHoldemRules)
    assert {c.slug: p for c, p in casino.ante_paytable.items()} == {
        "royal-flush": 100, "straight-flush": 20, "four-of-a-kind": 10, "full-house": 3, "flush": 2,
        "straight": 1, "three-of-a-kind": 1, "two-pair": 1, "one-pair": 1, "high-card": 1,
    }  # fmt: skip
    assert {c.slug: p for c, p in casino.aa_paytable.items()} == {
        "royal-flush": 100, "straight-flush": 50, "four-of-a-kind": 40, "full-house": 30, "flush": 20,
        "straight": 7, "three-of-a-kind": 7, "two-pair": 7, "one-pair": 7,
    }  # fmt: skip
    assert casino.dealer_qualifier_rank.char == "4" and casino.aa_min_pair_rank.char == "A"
    assert casino.aa_settles_on_fold is False and dict(casino.timeout_actions) == {"flop": "fold"}


def test_user_file_is_merged_over_the_shipped_rules(tmp_path: Path) -> None:
    path = tmp_path / "vegas.toml"
    path.write_text('game = "texas-bonus"\nante_qualifier = "straight"\n[bonus_both_aces]\npays = 1000\n')
    rules = load_rules("texas-bonus", path)
    assert isinstance(rules, TexasBonusRules)
    assert rules.ante_qualifier is HandCategory.STRAIGHT and rules.both_aces_pays == 1000
    assert rules.bonus_paytable == load_rules("texas-bonus").bonus_paytable
    assert rules.fingerprint() != load_rules("texas-bonus").fingerprint()
    assert get_game("texas-bonus", rules).rules is rules


@pytest.mark.parametrize(
    ("game", "overrides", "entry"),
    [
        ("texas-bonus", {"ante_qualifier": "pair"}, "ante_qualifier: expected one of flush, straight"),
        (
            "texas-bonus",
            {"bonus_paytable": [{"name": "x", "hands": ["AKx"], "pays": 5}]},
            "bonus_paytable[0].hands: 'AKx' is not a starting hand",
        ),
        (
            "texas-bonus",
            {
                "bonus_paytable": [
                    {"name": "x", "hands": ["AA"], "pays": 5},
                    {"name": "y", "hands": ["AA"], "pays": 9},
                ]
            },
            "bonus_paytable[1].hands: AA is already paid by 'x'",
        ),
        (
            "texas-bonus",
            {"bonus_paytable": [{"name": "x", "hands": ["AA"], "pays": -5}]},
            "bonus_paytable[0].pays: expected an integer >= 0",
        ),
        ("texas-bonus", {"bonus_both_aces": {"pays": "lots"}}, "bonus_both_aces.pays"),
        (
            "texas-bonus",
            {"limits": {"ante": {"min": 500, "max": 100}}},
            "limits.ante: max 100 is below min 500",
        ),
        ("texas-bonus", {"limits": {"aa": {"min": 1, "max": 2}}}, "limits.aa: unknown field"),
        (
            "texas-bonus",
            {"timeout_actions": {"river": "check"}},
            "timeout_actions.river: unknown decision point",
        ),
        (
            "casino-holdem",
            {"ante_paytable": {"five-aces": 3}},
            "ante_paytable.five-aces: unknown hand category",
        ),
        ("casino-holdem", {"aa_paytable": {"flush": 1.5}}, "aa_paytable.flush: expected an integer >= 0"),
        ("casino-holdem", {"dealer_qualifier": "45"}, "dealer_qualifier: expected a pair such as '44'"),
        ("casino-holdem", {"aa_min_pair": "X"}, "aa_min_pair: 'X' is not a rank"),
        ("casino-holdem", {"aa_settles_on_fold": "yes"}, "aa_settles_on_fold: expected true or false"),
        ("casino-holdem", {"chips": [500, 100]}, "chips: denominations must be distinct and ascending"),
        ("casino-holdem", {"chips": [0]}, "chips: expected a list of positive integers"),
        (
            "casino-holdem",
            {"timers": {"decision_seconds": 0}},
            "timers.decision_seconds: expected an integer >= 1",
        ),
    ],
)
def test_bad_entries_are_named(game: str, overrides: dict[str, Any], entry: str) -> None:
    with pytest.raises(InvalidRulesError, match=f"{game} rules: ") as info:
        load_rules(game, overrides=overrides)
    assert entry in str(info.value)


def test_missing_ante_paytable_row_is_named() -> None:
    from dealerpoker.games.rules import default_rules_document, rules_from_document

    document = default_rules_document("casino-holdem")
    del document["ante_paytable"]["high-card"]
    with pytest.raises(InvalidRulesError, match=r"ante_paytable\.high-card: missing"):
        rules_from_document(document)


def test_bad_files_are_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("ante_qualifier = \n")
    with pytest.raises(InvalidRulesError, match=r"broken\.toml: cannot read rules file"):
        load_rules("texas-bonus", broken)
    other = tmp_path / "other.toml"
    other.write_text('game = "casino-holdem"\n')
    with pytest.raises(
        InvalidRulesError, match=r"other\.toml: game: file is for 'casino-holdem', not 'texas-bonus'"
    ):
        load_rules("texas-bonus", other)
