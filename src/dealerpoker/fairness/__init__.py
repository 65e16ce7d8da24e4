"""Provably fair deals: commitment, HMAC-SHA256 counter-mode stream, unbiased Fisher-Yates.

Pure: no I/O, no clock, no global random. The server draws the seed (``secrets.token_hex(32)``);
everything here is a deterministic function of it. The algorithm is specified byte for byte in
:mod:`dealerpoker.fairness.shuffle`.

>>> from dealerpoker.fairness import ALGORITHM_VERSION, commitment, deck_order
>>> ALGORITHM_VERSION
'hmac-sha256-fy-v1'
>>> deck_order("00" * 32, "client", 0) == deck_order("00" * 32, "client", 0)
True
"""

from dealerpoker.fairness.shuffle import (
    ALGORITHM_VERSION,
    CLIENT_SEED_MAX_LENGTH,
    MAX_NONCE,
    commitment,
    deck_order,
    validate_client_seed,
    validate_nonce,
    validate_server_seed,
)
from dealerpoker.fairness.table import table_client_seed

__all__ = [
    "ALGORITHM_VERSION",
    "CLIENT_SEED_MAX_LENGTH",
    "MAX_NONCE",
    "commitment",
    "deck_order",
    "table_client_seed",
    "validate_client_seed",
    "validate_nonce",
    "validate_server_seed",
]
