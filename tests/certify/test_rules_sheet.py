"""Rules sheets: per game, variant and language, from the web page's catalogues, with the RTPs."""

from __future__ import annotations

import json
from html import unescape
from pathlib import Path

from dealerpoker.messages import LANGUAGES, catalogue


def sheets(pack: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(p.read_text()) for p in sorted(pack.glob("rules-*.json"))]


def test_a_sheet_per_game_variant_and_language(small_pack: Path) -> None:
    found = {(s["game"], s["rules_version"], s["language"]) for s in sheets(small_pack)}
    variants = {("texas-bonus", "texas-bonus/1"), ("casino-holdem", "casino-holdem/1"),
                ("casino-holdem", "casino-holdem/flush3")}
    assert found == {(game, version, language) for game, version in variants for language in LANGUAGES}


def test_sheets_show_the_par_sheets_rtps_and_the_timers(small_pack: Path) -> None:
    pars = {json.loads(p.read_text())["rules_fingerprint"]: json.loads(p.read_text())
            for p in small_pack.glob("par-*.json")}
    for sheet in sheets(small_pack):
        par = pars[sheet["rules_fingerprint"]]
        assert sheet["rtp"]["main_game_per_ante"] == par["rtp"]["main_game_per_ante"]
        t = catalogue(sheet["language"])
        name = f"rules-{sheet['game']}-{sheet['rules_fingerprint'][:12]}-{sheet['language']}.html"
        html = unescape((small_pack / name).read_text())
        assert f'<html lang="{sheet["language"]}">' in html
        assert t[f"game.{sheet['game']}"] in html and sheet["rules_version"] in html
        assert t["rules.setting.betting_seconds"] in html and t["rules.setting.decision_seconds"] in html
        assert t["ranking.title"] in html and t["rules.limits_title"].replace("\u00ad", "") in \
            html.replace("\u00ad", "")
        rtp = par["rtp"]["main_game_per_ante"]["decimal"] * 100
        shown = f"{rtp:.2f}"
        assert (shown if sheet["language"] == "en" else shown.replace(".", ",")) in html


def test_the_flush_paytable_variant_shows_its_own_payout(small_pack: Path) -> None:
    sheet = next(s for s in sheets(small_pack) if s["rules_version"] == "casino-holdem/flush3"
                 and s["language"] == "de")
    ante = sheet["sections"][1]
    assert [catalogue("de")["category.flush"], "3 zu 1"] in ante["rows"]
