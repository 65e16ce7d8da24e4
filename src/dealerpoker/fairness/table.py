"""The client seed of a live table's round, fixed when betting closes.

At a live table no single player chooses the client seed; instead it is derived from what the
server cannot change once betting has closed: the round id and every accepted bet. The server
has committed to its seed before betting opened, the players' bets fix the client seed, so
neither side alone chooses the deck.

``table_client_seed`` is the lowercase hex SHA-256 of the UTF-8 bytes of the canonical JSON
``{"bets": ..., "round_id": ...}`` (keys sorted at every level, separators ``,`` and ``:``,
no spaces, non-ASCII escaped as ``\\uXXXX``), where ``bets`` maps each seat or player id (text)
to its accepted bets ``{field: amount in minor units}``. The result (64 hex characters) is a
valid client seed.

>>> seed = table_client_seed("r-42", {"seat-2": {"ante": 100}, "seat-1": {"ante": 50, "aa": 10}})
>>> seed == table_client_seed("r-42", {"seat-1": {"aa": 10, "ante": 50}, "seat-2": {"ante": 100}})
True
>>> seed == table_client_seed("r-42", {"seat-1": {"aa": 10, "ante": 50}, "seat-2": {"ante": 101}})
False
>>> canonical_bets_json("r-42", {"seat-1": {"ante": 50}})
'{"bets":{"seat-1":{"ante":50}},"round_id":"r-42"}'
"""

from __future__ import annotations

from collections.abc import Mapping

from dealerpoker.errors import InvalidSeedError
from dealerpoker.fairness.canonical import canonical_json, sha256_hex

__all__ = ["canonical_bets_json", "table_client_seed"]


def canonical_bets_json(round_id: str | int, accepted_bets: Mapping[str, Mapping[str, int]]) -> str:
    """The canonical JSON text hashed by :func:`table_client_seed`."""
    bets: dict[str, dict[str, int]] = {}
    for seat, fields in accepted_bets.items():
        if not isinstance(seat, str):
            raise InvalidSeedError(f"accepted bets must be keyed by seat or player id text, got {seat!r}")
        checked: dict[str, int] = {}
        for field, amount in fields.items():
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                raise InvalidSeedError(
                    f"accepted bet {seat}/{field} must be a non-negative integer amount, got {amount!r}"
                )
            checked[str(field)] = amount
        bets[seat] = checked
    return canonical_json({"bets": bets, "round_id": str(round_id)})


def table_client_seed(round_id: str | int, accepted_bets: Mapping[str, Mapping[str, int]]) -> str:
    """The live table's client seed for a round: SHA-256 hex of :func:`canonical_bets_json`."""
    return sha256_hex(canonical_bets_json(round_id, accepted_bets))
