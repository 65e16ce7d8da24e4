"""Every 5-card and every 7-card hand, counted by category against the published figures.

The 133,784,560 seven-card hands take minutes: opt-in (``DEALERPOKER_LONG_TESTS=1`` or
``-m long``); by default the 2,598,960 five-card hands are counted, and the seven-card kernels are
checked hand by hand against the reference evaluator (``test_evaluator_kernels.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dealerpoker.errors import InvalidHandError
from dealerpoker.evaluator import HandCategory
from dealerpoker.evaluator.exhaustive import count_categories, count_values

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "hand_category_counts.json").read_text())


@pytest.mark.parametrize(
    ("cards", "section"), [(5, "five_cards"), pytest.param(7, "seven_cards", marks=pytest.mark.long)]
)
def test_exhaustive_category_and_value_counts(cards: int, section: str) -> None:
    golden = GOLDEN[section]
    values = count_values(cards)
    assert sum(values.values()) == golden["hands"]
    assert len(values) == golden["distinct_values"]
    counts = count_categories(cards)
    assert {category.slug: count for category, count in counts.items()} == golden["categories"]
    assert sum(counts.values()) == golden["hands"]


def test_five_card_values_are_the_reference_scale() -> None:
    values = count_values(5)
    # 1,277 ways to pick five ranks that are no straight: each is a high-card value seen 1,020 times
    high_cards = [count for value, count in values.items() if value >> 20 == HandCategory.HIGH_CARD]
    assert len(high_cards) == 1277 and set(high_cards) == {1020}
    assert max(values) == (8 << 20 | 12 << 16) and values[max(values)] == 4  # royal flushes


def test_only_five_or_seven_cards() -> None:
    with pytest.raises(InvalidHandError, match="got 6"):
        count_values(6)
