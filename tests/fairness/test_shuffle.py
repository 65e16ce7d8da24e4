"""The provably fair shuffle: known answers, an independent twin, rejection sampling, bad input."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealerpoker.cards.encoding import index_to_card
from dealerpoker.errors import InvalidSeedError
from dealerpoker.fairness import ALGORITHM_VERSION, commitment, deck_order
from dealerpoker.fairness.shuffle import (
    draw_below,
    fisher_yates,
    stream_blocks,
    stream_words,
    validate_client_seed,
    validate_nonce,
    validate_server_seed,
)

VECTORS_PATH = Path(__file__).parent.parent / "golden" / "fairness_vectors.json"
VECTORS: dict[str, Any] = json.loads(VECTORS_PATH.read_text())
SEED = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


def twin_deck(server_seed: str, client_seed: str, nonce: int) -> list[int]:
    """A second, deliberately plain reading of the spec in the module docstring."""
    key = bytes.fromhex(server_seed)
    stream = b""
    counter = 0
    position = 0

    def next_word() -> int:
        nonlocal stream, counter, position
        while position + 4 > len(stream):
            message = (client_seed + ":" + str(nonce) + ":" + str(counter)).encode()
            stream += hmac.new(key, message, hashlib.sha256).digest()
            counter += 1
        word = int.from_bytes(stream[position : position + 4], "big")
        position += 4
        return word

    deck = list(range(52))
    for i in range(51):
        n = 52 - i
        while True:
            word = next_word()
            if word < 2**32 - 2**32 % n:
                break
        j = i + word % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_vectors_file_is_for_this_algorithm() -> None:
    assert VECTORS["algorithm"] == ALGORITHM_VERSION == "hmac-sha256-fy-v1"
    assert len(VECTORS["vectors"]) >= 9


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["note"])
def test_known_answer_vectors_never_change(vector: dict[str, Any]) -> None:
    seed, client, nonce = vector["server_seed"], vector["client_seed"], vector["nonce"]
    assert commitment(seed) == vector["commitment"]
    assert next(stream_blocks(seed, client, nonce)).hex() == vector["block_0"]
    deck = deck_order(seed, client, nonce)
    assert list(deck) == vector["deck"]
    assert " ".join(str(index_to_card(i)) for i in deck) == vector["cards"]


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["note"])
def test_independent_twin_agrees_with_vectors(vector: dict[str, Any]) -> None:
    assert twin_deck(vector["server_seed"], vector["client_seed"], vector["nonce"]) == vector["deck"]


def words_consumed(server_seed: str, client_seed: str, nonce: int) -> int:
    counted = 0

    def counting() -> Iterator[int]:
        nonlocal counted
        for word in stream_words(server_seed, client_seed, nonce):
            counted += 1
            yield word

    fisher_yates(list(range(52)), counting())
    return counted


def test_a_vector_exercises_a_rejected_word() -> None:
    """One vector's real HMAC stream holds a word the draw must reject (found by search: ~1 deck in 7M)."""
    consumed = [words_consumed(v["server_seed"], v["client_seed"], v["nonce"]) for v in VECTORS["vectors"]]
    assert min(consumed) == 51  # 51 draws, one word each, when nothing is rejected
    assert max(consumed) == 52
    vector = VECTORS["vectors"][consumed.index(52)]
    # an implementation that forgets the rejection (plain modulo) gets this vector wrong
    words = stream_words(vector["server_seed"], vector["client_seed"], vector["nonce"])
    modulo_only = list(range(52))
    for i in range(51):
        j = i + next(words) % (52 - i)
        modulo_only[i], modulo_only[j] = modulo_only[j], modulo_only[i]
    assert modulo_only != vector["deck"]


@settings(deadline=None)  # a shared, loaded machine: no per-example time limit
@given(
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    client=st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=128),
    nonce=st.integers(min_value=0, max_value=2**53 - 1),
)
def test_deck_is_a_permutation_and_matches_the_twin(seed: str, client: str, nonce: int) -> None:
    deck = deck_order(seed, client, nonce)
    assert sorted(deck) == list(range(52))
    assert list(deck) == twin_deck(seed, client, nonce)


def test_every_input_changes_the_deck() -> None:
    base = deck_order(SEED, "abc", 5)
    assert deck_order(SEED, "abc", 6) != base
    assert deck_order(SEED, "abd", 5) != base
    assert deck_order("0" + SEED[1:], "abc", 5) != base
    assert deck_order(SEED.upper(), "abc", 5) == base  # same bytes


def test_message_separators_keep_inputs_apart() -> None:
    # "a:1" with nonce 2 and "a" with nonce 1 must not collide: the message is client:nonce:counter
    assert deck_order(SEED, "a:1", 2) != deck_order(SEED, "a", 12)
    assert next(stream_blocks(SEED, "a", 1)) == hmac.digest(bytes.fromhex(SEED), b"a:1:0", "sha256")


def test_commitment_is_sha256_of_the_seed_bytes_not_the_text() -> None:
    assert commitment(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
    assert commitment(SEED) != hashlib.sha256(SEED.encode()).hexdigest()
    assert commitment(SEED.upper()) == commitment(SEED)


def test_stream_words_are_big_endian_slices_of_the_blocks() -> None:
    words = stream_words(SEED, "abc", 0)
    blocks = stream_blocks(SEED, "abc", 0)
    for _block in range(3):
        block = next(blocks)
        assert [next(words) for _ in range(8)] == [
            int.from_bytes(block[k : k + 4], "big") for k in range(0, 32, 4)
        ]


# --- rejection sampling with crafted streams --------------------------------------------------


def crafted(words: list[int]) -> Iterator[int]:
    return iter(words)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 51, 52, 2**31 + 1, 2**32])
def test_draw_below_rejects_exactly_the_biased_tail(n: int) -> None:
    limit = 2**32 - 2**32 % n
    # the last accepted word is used
    assert draw_below(n, crafted([limit - 1])) == (limit - 1) % n
    # every word from the limit up is skipped, the next accepted word decides
    tail = sorted({w for w in (limit, limit + 1, 2**32 - 1) if limit <= w < 2**32})
    assert bool(tail) == (2**32 % n != 0)  # powers of two need no rejection
    stream = crafted([*tail, 12345])
    assert draw_below(n, stream) == 12345 % n
    assert next(stream, None) is None  # consumed exactly the rejected words and one more


def test_draw_below_52_limit_value() -> None:
    # 2**32 = 82,595,524 * 52 + 48: the 48 highest words would make draws 0..47 likelier
    assert 2**32 % 52 == 48
    assert draw_below(52, crafted([4294967247])) == 4294967247 % 52 == 51
    assert draw_below(52, crafted([4294967248, 4294967295, 0])) == 0


def test_draw_below_is_exactly_uniform_over_a_full_cycle() -> None:
    # with 8-bit words the same construction must give each value exactly the same count
    n, span = 52, 256
    limit = span - span % n
    counts = [0] * n
    for word in range(span):
        if word < limit:
            counts[word % n] += 1
    assert len(set(counts)) == 1  # the construction the 32-bit draw uses is exactly uniform


def test_draw_below_errors() -> None:
    with pytest.raises(ValueError, match="ended"):
        draw_below(52, crafted([2**32 - 1]))
    with pytest.raises(ValueError, match="range"):
        draw_below(0, crafted([1]))


def test_fisher_yates_with_a_crafted_stream() -> None:
    # all-zero draws leave the order alone; draws of r swap i with i + r
    items = list(range(5))
    fisher_yates(items, crafted([0, 0, 0, 0]))
    assert items == [0, 1, 2, 3, 4]
    items = list(range(5))
    # i=0: r = 4 (swap 0<->4) -> [4,1,2,3,0]; i=1: rejected word, then r = 1 -> swap 1<->2
    # -> [4,2,1,3,0]; i=2: r=0; i=3: r=1 -> swap 3<->4 -> [4,2,1,0,3]
    rejected_for_4 = 2**32 - 2**32 % 4
    fisher_yates(items, crafted([4, rejected_for_4, 1, 0, 1]))
    assert items == [4, 2, 1, 0, 3]


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ("", "got 0 characters"),
        ("00" * 31, "got 62 characters"),
        ("00" * 33, "got 66 characters"),
        ("g" + "0" * 63, "found 'g'"),
        ("0x" + "0" * 62, "found 'x'"),
        (" " + "0" * 63, "found ' '"),
    ],
)
def test_bad_server_seeds(seed: str, message: str) -> None:
    with pytest.raises(InvalidSeedError, match=message):
        deck_order(seed, "abc", 0)
    with pytest.raises(InvalidSeedError, match="server seed"):
        commitment(seed)


def test_server_seed_must_be_text() -> None:
    with pytest.raises(InvalidSeedError, match="hex string"):
        validate_server_seed(bytes(32))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("client", "message"),
    [
        ("", "1 to 128 characters"),
        ("x" * 129, "got 129"),
        ("caf\u00e9", "printable ASCII"),
        ("line\nbreak", "printable ASCII"),
        ("nul\x00", "position 3"),
        (123, "must be a string"),
    ],
)
def test_bad_client_seeds(client: Any, message: str) -> None:
    with pytest.raises(InvalidSeedError, match=message):
        deck_order(SEED, client, 0)
    with pytest.raises(InvalidSeedError):
        validate_client_seed(client)


@pytest.mark.parametrize("nonce", [-1, 2**53, 1.0, "1", True, None])
def test_bad_nonces(nonce: Any) -> None:
    with pytest.raises(InvalidSeedError, match="nonce"):
        deck_order(SEED, "abc", nonce)
    with pytest.raises(InvalidSeedError):
        validate_nonce(nonce)


def test_limits_are_inclusive() -> None:
    assert len(deck_order(SEED, "~" * 128, 2**53 - 1)) == 52
    assert len(deck_order(SEED, " ", 0)) == 52
