"""End to end: the `dealerpoker settle` command."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from dealerpoker.cli import main

TEXAS = ["settle", "texas-bonus", "--player", "As Kd", "--dealer", "Qh Qc", "--board", "2c 7d 9h Js 3s"]


def test_settle_subprocess_json() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from dealerpoker.cli import main; sys.exit(main())",
            *TEXAS,
            "--bet",
            "ante=100",
            "--bet",
            "bonus=100",
            "--actions",
            "bet,check,bet",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document == {
        "game": "texas-bonus",
        "outcome": "lose",
        "dealer_qualifies": None,
        "player_hand": {
            "category": "high-card",
            "name": "High Card, Ace",
            "best_five": ["As", "Kd", "Js", "9h", "7d"],
        },
        "dealer_hand": {
            "category": "one-pair",
            "name": "Pair of Queens",
            "best_five": ["Qh", "Qc", "Js", "9h", "7d"],
        },
        "lines": [
            {"field": "ante", "stake": 100, "returned": 0, "net": -100},
            {"field": "bonus", "stake": 100, "returned": 1600, "net": 1500},
            {"field": "flop", "stake": 200, "returned": 0, "net": -200},
            {"field": "river", "stake": 100, "returned": 0, "net": -100},
        ],
        "total_stake": 500,
        "total_returned": 1600,
        "net": 1100,
    }


def test_settle_readable_summary(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        [
            "settle",
            "casino-holdem",
            "--player",
            "Ah Ad",
            "--dealer",
            "3c 2d",
            "--board",
            "As Kh 7c 9s Jd",
            "--bet",
            "ante=100",
            "--bet",
            "aa=100",
            "--actions",
            "call",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert out.splitlines()[0] == "casino-holdem: win (dealer does not qualify)"
    assert "player hand: Three of a Kind, Aces" in out
    assert out.splitlines()[-1].split() == ["total", "400", "1200", "+800"]


def test_settle_fold_needs_only_the_dealt_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*TEXAS[:6], "--bet", "ante=100", "--actions", "fold", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["outcome"] == "fold" and document["net"] == -100
    assert (
        main(
            [
                "settle",
                "casino-holdem",
                "--player",
                "As Kd",
                "--dealer",
                "Qh Qc",
                "--board",
                "2c 7d 9h",
                "--bet",
                "ante=100",
                "--actions",
                "fold",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["lines"] == [
        {"field": "ante", "stake": 100, "returned": 0, "net": -100}
    ]


def test_settle_ante_rule_straight(capsys: pytest.CaptureFixture[str]) -> None:
    deal = [
        "settle",
        "texas-bonus",
        "--player",
        "9s 8d",
        "--dealer",
        "Kh Qc",
        "--board",
        "7c 6d 5h 2s 2c",
        "--bet",
        "ante=100",
        "--actions",
        "bet,check,check",
        "--json",
    ]
    assert main(deal) == 0
    assert json.loads(capsys.readouterr().out)["lines"][0]["returned"] == 100  # stand-off: no flush
    assert main([*deal, "--ante-rule", "straight"]) == 0
    assert json.loads(capsys.readouterr().out)["lines"][0]["returned"] == 200


def test_settle_rules_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "mine.toml"
    rules.write_text("aa_settles_on_fold = true\nchips = [5, 100]\n"
                     "[limits]\nante = { min = 5, max = 500 }\naa = { min = 5, max = 500 }\n")
    assert (
        main(
            [
                "settle",
                "casino-holdem",
                "--player",
                "Ah Ad",
                "--dealer",
                "Qh Qc",
                "--board",
                "As 7d 9h",
                "--bet",
                "ante=10",
                "--bet",
                "aa=100",
                "--actions",
                "fold",
                "--rules",
                str(rules),
                "--json",
            ]
        )
        == 0
    )
    lines = json.loads(capsys.readouterr().out)["lines"]
    assert lines == [
        {"field": "ante", "stake": 10, "returned": 0, "net": -10},
        {"field": "aa", "stake": 100, "returned": 800, "net": 700},
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--player", "As As", "--dealer", "Qh Qc", "--board", "2c 7d 9h Js 3s"],
            "duplicate card As (in --player)",
        ),
        (
            ["--player", "As Kd", "--dealer", "Qh Qc", "--board", "2c 7d 9h Js As"],
            "duplicate card As (in --player and --board)",
        ),
        (
            ["--player", "As", "--dealer", "Qh Qc", "--board", "2c 7d 9h Js 3s"],
            "--player: expected 2 cards, got 1",
        ),
        (
            ["--player", "As Kd", "--dealer", "Qh Qc Qd", "--board", "2c 7d 9h Js 3s"],
            "--dealer: expected 2 cards, got 3",
        ),
        (
            ["--player", "As Kd", "--dealer", "Qh Qc", "--board", "2c 7d"],
            "--board: expected 0 or 3 or 4 or 5",
        ),
        (
            ["--player", "As Kd", "--dealer", "Qh Qc", "--board", "2c 7d 9h"],
            "--board: 3 cards given, but this round deals 5",
        ),
        (["--player", "As Xd", "--dealer", "Qh Qc", "--board", "2c 7d 9h Js 3s"], "invalid card"),
    ],
)
def test_settle_bad_cards_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["settle", "texas-bonus", *argv, "--bet", "ante=100", "--actions", "bet,check,check"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--bet", "ante=100", "--actions", "bet,check,check,check"],
            "--actions: action 4 ('check'): 'check' is not allowed: the round is settled",
        ),
        (
            ["--bet", "ante=100", "--actions", "check"],
            "action 1 ('check'): 'check' is not allowed in the preflop",
        ),
        (
            ["--bet", "ante=100", "--actions", "bet,check"],
            "not settled after 2 action(s); the turn decision needs one of bet, check",
        ),
        (
            ["--bet", "ante=100001", "--actions", "fold"],
            "ante: 100001 is outside the table limits (min 100, max 100000)",
        ),
        (["--bet", "ante=100", "--bet", "bonus=30000", "--actions", "fold"], "bonus: 30000 is outside"),
        (["--bet", "ante=100", "--bet", "aa=100", "--actions", "fold"], "aa: unknown betting field"),
        (["--bet", "ante=1.5", "--actions", "fold"], "ante: amount must be a whole number"),
        (["--bet", "ante", "--actions", "fold"], "expected FIELD=AMOUNT"),
        (["--bet", "ante=100", "--bet", "ante=200", "--actions", "fold"], "--bet ante: given twice"),
        (["--bet", "bonus=100", "--actions", "fold"], "bonus: needs an ante bet"),
        (
            ["--bet", "ante=100", "--actions", "fold", "--rules", "/nonexistent/rules.toml"],
            "cannot read rules file",
        ),
    ],
)
def test_settle_bad_input_exit_2(extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*TEXAS, *extra]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err


def test_settle_bad_rules_file_and_ante_rule_for_casino(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[ante_paytable]\nflush = "two"\n')
    argv = [
        "settle",
        "casino-holdem",
        "--player",
        "As Kd",
        "--dealer",
        "Qh Qc",
        "--board",
        "2c 7d 9h",
        "--bet",
        "ante=100",
        "--actions",
        "fold",
    ]
    assert main([*argv, "--rules", str(bad)]) == 2
    assert "ante_paytable.flush: expected an integer >= 0" in capsys.readouterr().err
    assert main([*argv, "--ante-rule", "straight"]) == 2
    assert "--ante-rule applies to texas-bonus only" in capsys.readouterr().err


def test_documented_settle_examples_match_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    """The `settle` examples of docs/players.md print exactly what the page shows."""
    page = (Path(__file__).parents[2] / "docs" / "players.md").read_text("utf-8")
    section = page[page.index("## The `settle` command") :]
    section = section[: section.find("\n## ", 1)]  # this section only, not the ones after it
    blocks = re.findall(r"```(sh|json|)\n(.*?)```", section, re.S)
    examples = [(blocks[i][1], blocks[i + 1][1]) for i in range(len(blocks) - 1) if blocks[i][0] == "sh"]
    assert len(examples) == 2
    for command, shown in examples:
        argv = shlex.split(command.replace("\\\n", " "))
        assert argv[0] == "dealerpoker"
        assert main(argv[1:]) == 0
        out = capsys.readouterr().out
        if "--json" in argv:
            assert json.loads(out) == json.loads(shown)
        else:
            assert out == shown


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "--player: expected 2 cards, got 0"),
        (["--player", "As Kd"], "--dealer: expected 2 cards, got 0"),
        (["--player", "As Kd", "--dealer", "Qh Qc"], "ante: an ante bet is required"),
        (
            ["--player", "As Kd", "--dealer", "Qh Qc", "--bet", "ante=100"],
            "the round is not settled after 0 action(s); the preflop decision needs one of bet, fold",
        ),
    ],
)
def test_settle_missing_input_exit_2_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["settle", "texas-bonus", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err
