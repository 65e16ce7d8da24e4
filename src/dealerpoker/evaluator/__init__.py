"""Hand evaluation: scalar (`evaluate`) and batch (`evaluate_batch`) with one value scale."""

from dealerpoker.evaluator.api import (
    HandValue,
    best_five,
    categorize_batch,
    describe,
    evaluate,
    evaluate_batch,
    value_of,
)
from dealerpoker.evaluator.categories import HandCategory, category_of

__all__ = [
    "HandCategory",
    "HandValue",
    "best_five",
    "categorize_batch",
    "category_of",
    "describe",
    "evaluate",
    "evaluate_batch",
    "value_of",
]
