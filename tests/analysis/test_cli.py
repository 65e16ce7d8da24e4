"""The analyze / advise / simulate commands (analyze from a seeded cache: a full run is a benchmark)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dealerpoker.analysis.deck import SMALL_DECK as SMALL
from dealerpoker.analysis.exact import Solver
from dealerpoker.analysis.rtp import bet_rtps, cache_key, solver_tables
from dealerpoker.cli import main
from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.games.rules import load_rules

KEYS = {"game", "rules", "house_edge", "element_of_risk", "average_total_bet", "std_dev",
        "play_frequency", "outcomes", "side_bets"}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache holding (reduced-deck) analyses under the default rules' keys."""
    directory = tmp_path_factory.mktemp("cache")
    cache = DiskCache(directory)
    solver = Solver(SMALL)
    for game in ("texas-bonus", "casino-holdem"):
        rules = load_rules(game)
        analysis = solver.analyze(rules)
        cache.save(cache_key(rules), analysis.to_json(), solver_tables(solver, analysis.tables))
    return directory


def test_analyze_prints_the_cached_document_with_exactly_the_issue_keys(
        seeded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    monkeypatch.setenv("DEALERPOKER_CACHE_DIR", str(seeded))
    report = tmp_path / "texas.html"
    assert main(["analyze", "texas-bonus", "--json", "--report", str(report)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert set(document) == KEYS | {"two_card_ev"}
    total = sum(row["combinations"] for row in document["outcomes"])
    assert total == document["rules"]["exact"]["total_combinations"]
    page = report.read_text()
    assert "<table class='grid'>" in page and "http" not in page.split("</style>")[1]
    assert main(["analyze", "casino-holdem"]) == 0
    text = capsys.readouterr().out
    assert "house edge" in text and "Raise strategy" in text


def test_bet_rtps_reads_the_cache(seeded: Path) -> None:
    rtps = bet_rtps(load_rules("casino-holdem"), DiskCache(seeded))
    assert set(rtps) == {"ante", "aa", "raise"} and rtps["raise"] is None
    document = json.loads((seeded / f"{cache_key(load_rules('casino-holdem'))}.json").read_text())
    assert float(1 - rtps["ante"]) == pytest.approx(document["house_edge"])  # type: ignore[operator]


def test_advise_command_reports_every_action(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["advise", "casino-holdem", "--player", "As Kd", "--board", "2c 7d 9h", "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    assert advice["best"] == "raise" and set(advice["actions"]) == {"raise", "fold"}
    assert main(["advise", "casino-holdem", "--player", "As Kd", "--board", "2c 7d"]) == 2
    assert "board needs 3" in capsys.readouterr().err


@pytest.mark.slow
def test_simulate_command_prints_intervals(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "texas-bonus", "--rounds", "200000", "--strategy", "always-play",
            "--bets", "ante=1,bonus=1", "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["per_bet"]) == {"ante", "flop", "turn", "river", "bonus"}
    low, high = result["total"]["ci95"]
    assert low < result["total"]["mean"] < high
    assert main(["simulate", "texas-bonus", "--rounds", "10", "--bets", "aa=1"]) == 2
