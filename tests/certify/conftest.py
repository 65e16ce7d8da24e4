"""A small certification pack, built once per test session and worker (reduced deck, small samples)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dealerpoker.cli import main

SMALL_DECK = "23456Ax3"
SIM_ROUNDS = 20_000
RNG_DECKS = 2_000


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DEALERPOKER_CACHE_DIR", str(directory))
        yield directory


@pytest.fixture(scope="session")
def small_pack(cache_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pack")
    rules = out.parent / "casino-flush3.toml"
    rules.write_text('rules_version = "casino-holdem/flush3"\n[ante_paytable]\nflush = 3\n')
    assert main(["certify", "--out", str(out), "--deck", SMALL_DECK, "--sim-rounds", str(SIM_ROUNDS),
                 "--rng-decks", str(RNG_DECKS), "--nist-sequences", "2",
                 "--rules", f"casino-holdem={rules}"]) == 0
    return out
