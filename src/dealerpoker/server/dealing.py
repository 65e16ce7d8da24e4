"""Where a round's deck order comes from: a provably fair, committed shuffle.

The server draws a 256-bit server seed from its injected CSPRNG (``secrets.SystemRandom`` in
production); the deck is ``dealerpoker.fairness.deck_order(server_seed, client_seed, nonce)``
and the commitment ``SHA-256(server_seed)`` is shown in the round's first view. The seed itself
is revealed only once the round is settled.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from dealerpoker.fairness import ALGORITHM_VERSION, commitment, deck_order


@dataclass(frozen=True, slots=True)
class Deal:
    """A deck order and how it was made (stored in the round record)."""

    deck: tuple[int, ...]
    algorithm: str
    server_seed: str
    commitment: str


def draw_server_seed(rng: random.Random) -> str:
    """64 hex characters (256 bits) from ``rng``."""
    return f"{rng.getrandbits(256):064x}"


def committed_deal(server_seed: str, client_seed: str, nonce: int) -> Deal:
    """The deck a (previously committed) server seed gives with the player's seed and nonce."""
    return Deal(deck_order(server_seed, client_seed, nonce), ALGORITHM_VERSION, server_seed,
                commitment(server_seed))

