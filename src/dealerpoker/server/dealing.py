"""Where a round's deck order comes from: the only use of the server's RNG for cards."""

from __future__ import annotations

import random
from dataclasses import dataclass

SHUFFLE_ALGORITHM = "system-random-shuffle/1"


@dataclass(frozen=True, slots=True)
class Deal:
    """A deck order and how it was made (stored in the round record)."""

    deck: tuple[int, ...]
    algorithm: str
    server_seed: str | None = None
    commitment: str | None = None


def shuffled_deck(rng: random.Random, client_seed: str, nonce: int) -> Deal:
    """52 card indices in dealing order, shuffled with ``rng`` (a CSPRNG in production)."""
    deck = list(range(52))
    rng.shuffle(deck)
    return Deal(tuple(deck), SHUFFLE_ALGORITHM)
