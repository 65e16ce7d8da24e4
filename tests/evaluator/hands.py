"""Random hands for the evaluator tests."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def random_hands(n: int, width: int, seed: int) -> npt.NDArray[np.int8]:
    """``n`` uniformly random hands of ``width`` distinct card indices (random order)."""
    rng = np.random.default_rng(seed)
    hands = np.empty((n, width), dtype=np.int64)
    for j in range(width):
        card = rng.integers(0, 52 - j, n)  # the card-th of the cards not yet drawn
        for drawn in np.sort(hands[:, :j], axis=1).T:
            card += card >= drawn
        hands[:, j] = card
    return hands.astype(np.int8)
