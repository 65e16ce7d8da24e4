"""PAR sheets: every RTP equals `analyze --json` to the last digit, fractions beside decimals."""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from dealerpoker.cli import main
from dealerpoker.games.rules import load_rules

from .conftest import SMALL_DECK


def analyze(game: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:  # type: ignore[type-arg]
    capsys.readouterr()
    assert main(["analyze", game, "--deck", SMALL_DECK, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def par_sheets(pack: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    return {path.stem: json.loads(path.read_text()) for path in pack.glob("par-*.json")}


@pytest.mark.slow
def test_par_rtps_equal_analyze_to_the_last_digit(small_pack: Path, capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    sheets = par_sheets(small_pack)
    assert len(sheets) == 3  # both games' shipped rules and the --rules file
    rules_file = small_pack.parent / "casino-flush3.toml"
    for sheet in sheets.values():
        extra = ["--rules", str(rules_file)] if sheet["rules_version"] == "casino-holdem/flush3" else []
        analysis = analyze(sheet["game"], capsys, *extra)
        assert sheet["rules_fingerprint"] == analysis["rules"]["fingerprint"]
        exact = analysis["rules"]["exact"]
        for name in ("house_edge", "element_of_risk", "average_total_bet", "play_frequency"):
            assert sheet[name] == {"exact": exact[name], "decimal": analysis[name]}, name
        assert sheet["std_dev"] == analysis["std_dev"]
        house_edge = Fraction(exact["house_edge"])
        rtp = sheet["rtp"]
        assert Fraction(rtp["main_game_per_ante"]["exact"]) == 1 - house_edge
        assert rtp["main_game_per_ante"]["decimal"] == float(1 - house_edge)
        per_wager = Fraction(rtp["main_game_per_amount_wagered"]["exact"])
        assert per_wager == 1 - Fraction(exact["element_of_risk"])
        side = analysis["side_bets"]
        side_edge = (Fraction(side["bonus"]["exact"]) if "bonus" in side else
                     Fraction(side["aa"]["exact_lost_on_fold"]))  # the shipped rule: a fold loses it
        field = "bonus" if "bonus" in side else "aa"
        assert Fraction(rtp[field]["exact"]) == 1 - side_edge
        # Outcomes: exact probabilities from the same integer counts, summing to 1 and to the edge.
        assert [o["combinations"] for o in sheet["outcomes"]] == \
            [o["combinations"] for o in analysis["outcomes"]]
        assert sum(Fraction(o["probability"]["exact"]) for o in sheet["outcomes"]) == 1
        assert sum(Fraction(o["return"]["exact"]) for o in sheet["outcomes"]) == -house_edge
        assert [o["probability"]["decimal"] for o in sheet["outcomes"]] == \
            [o["probability"] for o in analysis["outcomes"]]
        # The side bet alone: its lines' returns add up to its edge when settled.
        lines = sheet["side_bet"]["lines"]
        assert sum(Fraction(line["probability"]["exact"]) for line in lines) == 1
        settled = Fraction(side["bonus"]["exact"]) if field == "bonus" else \
            Fraction(side["aa"]["exact_settled_on_fold"])
        assert sum(Fraction(line["return"]["exact"]) for line in lines) == -settled
        # The HTML shows the same exact fraction.
        html = (small_pack / f"par-{sheet['game']}-{sheet['rules_fingerprint'][:12]}.html").read_text()
        assert rtp["main_game_per_ante"]["exact"] in html and exact["house_edge"] in html


def test_exposure_is_the_largest_win_at_the_bet_maximums(small_pack: Path) -> None:
    for sheet in par_sheets(small_pack).values():
        rules = load_rules(sheet["game"])
        exposure = sheet["exposure"]
        assert exposure["max_net_per_ante"] == max(o["net"] for o in sheet["outcomes"])
        field = sheet["side_bet"]["field"]
        assert exposure["main_game"] == exposure["max_net_per_ante"] * rules.limits["ante"].max
        assert exposure["side_bet"] == max(line["pays"] for line in sheet["side_bet"]["lines"]) * \
            rules.limits[field].max
        assert exposure["per_round_per_seat"] == exposure["main_game"] + exposure["side_bet"]


def test_simulation_column_holds_the_exact_values_in_its_99_percent_interval(small_pack: Path) -> None:
    for sheet in par_sheets(small_pack).values():
        simulation = sheet["simulation"]
        assert simulation["rounds"] == 20_000 and simulation["confidence"] == 0.99
        for name in ("main_game", "side_bet", "total_with_side_bet"):
            low, high = simulation[name]["ci99"]
            assert low < simulation[name]["mean"] < high
            # seeded runs: deterministic, and the exact value falls inside
            assert simulation[name]["exact_within"] is True, (sheet["game"], name)


def test_the_pack_verifies_with_sha256sum(small_pack: Path) -> None:
    listed = (small_pack / "SHA256SUMS").read_text().splitlines()
    names = {line.split("  ", 1)[1] for line in listed}
    assert "index.html" in names and all(name in names for name in (p.name for p in small_pack.glob("par-*")))
    result = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=small_pack, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    index = (small_pack / "index.html").read_text()
    for path in small_pack.glob("*.html"):
        if path.name != "index.html":
            assert f'href="{path.name}"' in index


def test_a_changed_file_fails_the_sums(small_pack: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "pack"
    shutil.copytree(small_pack, copy)
    page = next(copy.glob("par-*.html"))
    page.write_text(page.read_text().replace("PAR sheet", "PAR sheat", 1))
    result = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=copy, capture_output=True, text=True)
    assert result.returncode != 0 and f"{page.name}: FAILED" in result.stdout


def test_bad_rules_entry_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["certify", "--out", str(tmp_path / "p"), "--rules", "poker=x.toml"]) == 2
    assert "--rules 'poker=x.toml'" in capsys.readouterr().err
    assert main(["certify", "--out", str(tmp_path / "p"), "--rules", "texas-bonus=missing.toml"]) == 2
    assert "no such file" in capsys.readouterr().err
