"""Bad input: a ValueError subclass naming the offending token, never a bare KeyError/IndexError."""

from __future__ import annotations

import numpy as np
import pytest

from dealerpoker.cards import parse_cards
from dealerpoker.errors import InvalidCardError, InvalidHandError
from dealerpoker.evaluator import HandCategory, categorize_batch, evaluate, evaluate_batch


@pytest.mark.parametrize(
    ("cards", "error", "names"),
    [
        ("As Kd Qh Jc Xs", InvalidCardError, "Xs"),
        ("As Kd Qh Jc Tz", InvalidCardError, "Tz"),
        ("As Kd Qh Jc As", InvalidHandError, "As"),
        ("As Kd Qh Jc", InvalidHandError, "got 4"),
        ("As Kd Qh Jc Tc 9c 8c 7c", InvalidHandError, "got 8"),
        ([0, 1, 2, 3, 52], InvalidCardError, "52"),
        ([0, 1, 2, 3, -1], InvalidCardError, "-1"),
        ([0, 1, 2, 3, 3], InvalidHandError, "duplicate card 2s"),
        ([0, 1, 2, 3, 4.0], InvalidCardError, "4.0"),
        ([0, 1, 2, 3, "x"], InvalidCardError, "'x'"),
        ([0, 1, 2, 3, None], InvalidCardError, "None"),
    ],
)
def test_scalar_bad_input(cards: object, error: type[Exception], names: str) -> None:
    with pytest.raises(error, match=names):
        evaluate(cards)  # type: ignore[arg-type]


def test_scalar_accepts_numpy_indices_and_mixed_cards() -> None:
    assert evaluate(np.array([51, 47, 43, 39, 35])).name == "Royal Flush"
    assert evaluate([*parse_cards("As Ks Qs"), 39, 35]).name == "Royal Flush"


@pytest.mark.parametrize(
    ("array", "error", "names"),
    [
        (np.zeros((3, 4), dtype=np.int8), InvalidHandError, r"shape \(3, 4\)"),
        (np.zeros(7, dtype=np.int8), InvalidHandError, r"shape \(7,\)"),
        (np.arange(7, dtype=np.float64).reshape(1, 7), InvalidCardError, "float64"),
        (np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 60]]), InvalidCardError, "row 1: card index 60"),
        (np.array([[0, 1, 2, 3, -4], [0, 1, 2, 3, 4]]), InvalidCardError, "row 0: card index -4"),
        (
            np.array([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [9, 10, 11, 12, 9]]),
            InvalidHandError,
            "row 2.*duplicate card 4d",
        ),
        (np.array([[0, 1, 2, 3, 4, 5, 300]], dtype=np.int16), InvalidCardError, "300"),
    ],
)
def test_batch_bad_input(array: np.ndarray, error: type[Exception], names: str) -> None:
    with pytest.raises(error, match=names):
        evaluate_batch(array)


def test_batch_accepts_any_integer_dtype_and_empty() -> None:
    hand = [51, 47, 43, 39, 35, 0, 1]
    expected = evaluate(hand).value
    for dtype in (np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64):
        assert evaluate_batch(np.array([hand], dtype=dtype)).tolist() == [expected]
    assert evaluate_batch(np.zeros((0, 7), dtype=np.int64)).shape == (0,)
    assert evaluate_batch(np.asfortranarray(np.array([hand, hand[::-1]]))).tolist() == [expected] * 2


def test_categorize_batch() -> None:
    values = evaluate_batch(np.array([[51, 47, 43, 39, 35], [47, 43, 39, 35, 31], [0, 4, 8, 13, 22]]))
    assert categorize_batch(values).tolist() == [
        HandCategory.ROYAL_FLUSH, HandCategory.STRAIGHT_FLUSH, HandCategory.HIGH_CARD]  # fmt: skip
    assert categorize_batch(values).dtype == np.int8
    with pytest.raises(InvalidHandError, match="not a hand value: 9437184"):
        categorize_batch(np.array([9 << 20]))
    with pytest.raises(InvalidHandError, match="float"):
        categorize_batch(np.array([1.5]))
