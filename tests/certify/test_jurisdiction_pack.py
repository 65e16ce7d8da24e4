"""--jurisdiction CODE: the profile's page, its games and approved paytables only, its languages."""
# (The shipped profiles approve any paytable; an operator's own profile lists fingerprints.)

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dealerpoker.cli import main

from .conftest import SMALL_DECK


def small(out: Path, *extra: str) -> int:
    return main(["certify", "--out", str(out), "--deck", SMALL_DECK, "--sim-rounds", "0",
                 "--rng-decks", "200", "--nist-sequences", "2", *extra])


@pytest.mark.slow
def test_a_pack_for_great_britain(cache_dir: Path, tmp_path: Path) -> None:
    assert small(tmp_path / "gb", "--jurisdiction", "GB") == 0
    pack = tmp_path / "gb"
    profile = json.loads((pack / "jurisdiction-GB.json").read_text())
    assert profile["regulator"].startswith("Gambling Commission")
    assert "min_round_seconds" in profile["settings"]
    languages = {json.loads(p.read_text())["language"] for p in pack.glob("rules-*.json")}
    assert languages == {"en"}  # the GB profile's languages
    assert "jurisdiction: GB" in (pack / "index.html").read_text()


def test_an_unknown_code_is_named(cache_dir: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert small(tmp_path / "x", "--jurisdiction", "XX") == 2
    assert "no such profile" in capsys.readouterr().err
