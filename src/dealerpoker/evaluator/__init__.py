"""Hand evaluation: scalar (`evaluate`) and batch (`evaluate_batch`) with one value scale."""

from dealerpoker.evaluator.api import HandValue, describe, evaluate
from dealerpoker.evaluator.categories import HandCategory, category_of

__all__ = ["HandCategory", "HandValue", "category_of", "describe", "evaluate"]
