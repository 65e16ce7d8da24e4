"""The provably fair shuffle, ``hmac-sha256-fy-v1``, specified byte for byte.

Anyone can reimplement this from the text below and get the same deck for the same inputs.

Inputs
======
* ``server_seed``: 32 bytes written as exactly 64 hexadecimal characters (either case). The
  server draws it at random and keeps it secret until the round is settled.
* ``client_seed``: 1 to 128 printable ASCII characters (``0x20`` space .. ``0x7E`` ``~``),
  chosen by the player (solo) or fixed for the table when betting closes (live).
* ``nonce``: an integer ``0 <= nonce <= 2**53 - 1`` (the largest integer JavaScript holds
  exactly); solo play counts the player's rounds with it.

Commitment
==========
``commitment = lowercase hex of SHA-256(the 32 seed bytes)`` -- the hash of the *bytes*, not of
the hex text. It is published before any bet is accepted; revealing the seed afterwards proves
the deck was fixed before the bets.

Byte stream
===========
Block ``k`` (``k = 0, 1, 2, ...``) is ``HMAC-SHA256(key = the 32 seed bytes, message = M_k)``
where ``M_k`` is the ASCII text ``<client_seed>:<nonce>:<k>`` with ``nonce`` and ``k`` in
decimal without leading zeros (e.g. ``b"lucky:7:0"``). The stream is
``block_0 || block_1 || ...``, read as consecutive 4-byte **big-endian** unsigned words
``w_0, w_1, ...`` (8 words per block).

Unbiased draw of ``r`` in ``[0, n)``
====================================
``limit = 2**32 - (2**32 mod n)``. Take the next word ``w``; if ``w >= limit``, discard it and take
the next one; otherwise ``r = w mod n``. Every ``r`` then has exactly ``limit / n`` words mapping to
it, so there is no modulo bias.

Fisher-Yates
============
Start from ``deck = [0, 1, ..., 51]`` (card index ``rank * 4 + suit``: ``2c`` = 0, ``2d`` = 1,
..., ``As`` = 51). For ``i = 0, 1, ..., 50``: draw ``r`` in ``[0, 52 - i)``, set ``j = i + r`` and
swap ``deck[i]`` and ``deck[j]``. The resulting ``deck`` is the dealing order: player
``deck[0:2]``, dealer ``deck[2:4]``, flop ``deck[4:7]``, turn ``deck[7]``, river ``deck[8]``.

>>> seed = "00" * 32
>>> commitment(seed)
'66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
>>> deck = deck_order(seed, "client", 0)
>>> len(deck), sorted(deck) == list(range(52))
(52, True)
>>> deck[:9]
(20, 47, 32, 2, 35, 13, 8, 36, 27)
"""

from __future__ import annotations

import hashlib
import hmac
import re
import struct
from collections.abc import Iterator, MutableSequence

from dealerpoker.errors import InvalidSeedError

__all__ = [
    "ALGORITHM_VERSION",
    "CLIENT_SEED_MAX_LENGTH",
    "DECK_SIZE",
    "MAX_NONCE",
    "commitment",
    "deck_order",
    "draw_below",
    "fisher_yates",
    "stream_blocks",
    "stream_words",
    "validate_client_seed",
    "validate_nonce",
    "validate_server_seed",
]

ALGORITHM_VERSION = "hmac-sha256-fy-v1"
DECK_SIZE = 52
CLIENT_SEED_MAX_LENGTH = 128
MAX_NONCE = 2**53 - 1
WORD_BYTES = 4
_WORD_SPAN = 1 << (8 * WORD_BYTES)
_BLOCK_WORDS = struct.Struct(">8I")  # one 32-byte HMAC block = 8 big-endian 4-byte words
_SEED_PATTERN = re.compile(r"[0-9a-fA-F]{64}")
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]+")


def validate_server_seed(server_seed: str) -> bytes:
    """The 32 seed bytes of a 64-hex-character server seed; ``InvalidSeedError`` otherwise.

    >>> validate_server_seed("ab" * 32)[:2]
    b'\\xab\\xab'
    >>> validate_server_seed("abc")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dealerpoker.errors.InvalidSeedError: server seed must be exactly 64 hexadecimal ... got 3 characters
    """
    if not isinstance(server_seed, str):
        raise InvalidSeedError(f"server seed must be a hex string, got {type(server_seed).__name__}")
    if _SEED_PATTERN.fullmatch(server_seed) is None:
        if len(server_seed) != 64:
            detail = f"got {len(server_seed)} characters"
        else:
            bad = next(ch for ch in server_seed if ch not in "0123456789abcdefABCDEF")
            detail = f"found {bad!r}"
        raise InvalidSeedError(f"server seed must be exactly 64 hexadecimal characters (32 bytes), {detail}")
    return bytes.fromhex(server_seed)


def validate_client_seed(client_seed: str) -> str:
    """The client seed if it is 1..128 printable ASCII characters; ``InvalidSeedError`` otherwise.

    >>> validate_client_seed("my lucky seed")
    'my lucky seed'
    >>> validate_client_seed("tab\\there")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dealerpoker.errors.InvalidSeedError: client seed must be printable ASCII ... found '\\t' at position 3
    """
    if not isinstance(client_seed, str):
        raise InvalidSeedError(f"client seed must be a string, got {type(client_seed).__name__}")
    if not 1 <= len(client_seed) <= CLIENT_SEED_MAX_LENGTH:
        raise InvalidSeedError(
            f"client seed must be 1 to {CLIENT_SEED_MAX_LENGTH} characters long, got {len(client_seed)}"
        )
    if _PRINTABLE_ASCII.fullmatch(client_seed) is None:
        position, bad = next((k, ch) for k, ch in enumerate(client_seed) if not " " <= ch <= "~")
        raise InvalidSeedError(
            f"client seed must be printable ASCII (space to '~'), found {bad!r} at position {position}"
        )
    return client_seed


def validate_nonce(nonce: int) -> int:
    """The nonce itself if it is an integer in ``0 .. 2**53 - 1``; ``InvalidSeedError`` otherwise.

    >>> validate_nonce(-1)
    Traceback (most recent call last):
    ...
    dealerpoker.errors.InvalidSeedError: nonce must be between 0 and 9007199254740991, got -1
    """
    if isinstance(nonce, bool) or not isinstance(nonce, int):
        raise InvalidSeedError(f"nonce must be an integer, got {nonce!r}")
    if not 0 <= nonce <= MAX_NONCE:
        raise InvalidSeedError(f"nonce must be between 0 and {MAX_NONCE}, got {nonce}")
    return nonce


def commitment(server_seed: str) -> str:
    """SHA-256 (lowercase hex) of the server seed's 32 bytes: what is published before the bets.

    >>> commitment("00" * 32) == hashlib.sha256(bytes(32)).hexdigest()
    True
    """
    return hashlib.sha256(validate_server_seed(server_seed)).hexdigest()


def stream_blocks(server_seed: str, client_seed: str, nonce: int) -> Iterator[bytes]:
    """The 32-byte HMAC-SHA256 blocks ``block_0, block_1, ...`` of the stream (endless)."""
    key = validate_server_seed(server_seed)
    prefix = f"{validate_client_seed(client_seed)}:{validate_nonce(nonce)}:".encode("ascii")
    counter = 0
    while True:
        yield hmac.digest(key, prefix + str(counter).encode("ascii"), "sha256")
        counter += 1


def stream_words(server_seed: str, client_seed: str, nonce: int) -> Iterator[int]:
    """The stream as 4-byte big-endian unsigned words ``w_0, w_1, ...`` (endless)."""
    for block in stream_blocks(server_seed, client_seed, nonce):
        yield from _BLOCK_WORDS.unpack(block)


def draw_below(n: int, words: Iterator[int]) -> int:
    """An unbiased ``r`` in ``[0, n)`` from ``words``, rejecting words ``>= 2**32 - 2**32 % n``.

    >>> limit = 2**32 - 2**32 % 52
    >>> words = iter([limit, limit + 1, 105])   # two rejected words, then 105 % 52
    >>> draw_below(52, words), next(words, "exhausted")
    (1, 'exhausted')
    """
    if not 1 <= n <= _WORD_SPAN:
        raise ValueError(f"draw range must be 1..2**32, got {n}")
    limit = _WORD_SPAN - _WORD_SPAN % n
    for word in words:
        if word < limit:
            return word % n
    raise ValueError("the word stream ended before an accepted word")


def fisher_yates(items: MutableSequence[int], words: Iterator[int]) -> None:
    """Shuffle ``items`` in place: for ``i = 0 .. len-2`` swap ``items[i]`` and ``items[i + r]``.

    ``r`` is drawn below ``len - i`` with :func:`draw_below`.
    """
    size = len(items)
    for i in range(size - 1):
        j = i + draw_below(size - i, words)
        items[i], items[j] = items[j], items[i]


def deck_order(server_seed: str, client_seed: str, nonce: int) -> tuple[int, ...]:
    """The 52 card indices in dealing order for these inputs (see the module docstring)."""
    deck = list(range(DECK_SIZE))
    fisher_yates(deck, stream_words(server_seed, client_seed, nonce))
    return tuple(deck)
