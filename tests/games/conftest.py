"""Helpers for the game tests: play a deal given as text."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from dealerpoker.cards.encoding import indices_from_text
from dealerpoker.games import RoundState, get_game, load_rules

Play = Callable[..., RoundState]


def _play(
    game: str,
    player: str,
    dealer: str,
    board: str,
    bets: Mapping[str, int],
    actions: Sequence[str],
    **overrides: Any,
) -> RoundState:
    """Play ``actions`` on the deal player / dealer / board (unused cards fill the rest)."""
    engine = get_game(game, load_rules(game, overrides=overrides) if overrides else None)
    given = indices_from_text(f"{player} {dealer} {board}")
    deck = given + [i for i in range(52) if i not in given]
    state, _ = engine.replay(bets, deck, actions)
    return state


@pytest.fixture
def play() -> Play:
    return _play
