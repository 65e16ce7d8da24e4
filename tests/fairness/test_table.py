"""The live table's client seed: fixed by the round id and the accepted bets."""

from __future__ import annotations

import hashlib

import pytest

from dealerpoker.errors import InvalidSeedError
from dealerpoker.fairness import table_client_seed, validate_client_seed
from dealerpoker.fairness.table import canonical_bets_json


def test_table_client_seed_is_sha256_of_canonical_json() -> None:
    bets = {"seat-3": {"bonus": 25, "ante": 100}, "seat-1": {"ante": 50}}
    text = '{"bets":{"seat-1":{"ante":50},"seat-3":{"ante":100,"bonus":25}},"round_id":"7"}'
    assert canonical_bets_json(7, bets) == text
    assert table_client_seed(7, bets) == hashlib.sha256(text.encode()).hexdigest()
    assert validate_client_seed(table_client_seed(7, bets))


def test_any_change_changes_the_seed() -> None:
    bets = {"seat-1": {"ante": 50}}
    base = table_client_seed("r1", bets)
    assert table_client_seed("r2", bets) != base
    assert table_client_seed("r1", {"seat-1": {"ante": 51}}) != base
    assert table_client_seed("r1", {"seat-2": {"ante": 50}}) != base
    assert table_client_seed("r1", {"seat-1": {"ante": 50}, "seat-2": {"ante": 50}}) != base
    assert table_client_seed("r1", {}) != base


@pytest.mark.parametrize("amount", [-1, 1.5, True, "10"])
def test_bad_amounts(amount: object) -> None:
    with pytest.raises(InvalidSeedError, match="seat-1/ante"):
        table_client_seed("r1", {"seat-1": {"ante": amount}})  # type: ignore[dict-item]


def test_seat_keys_must_be_text() -> None:
    with pytest.raises(InvalidSeedError, match="seat"):
        table_client_seed("r1", {1: {"ante": 5}})  # type: ignore[dict-item]
