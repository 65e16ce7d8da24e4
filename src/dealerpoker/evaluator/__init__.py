"""Hand evaluation: scalar (`evaluate`) and batch (`evaluate_batch`) with one value scale.

The evaluator's tables are built when one of its functions is first asked for (a tenth of a
second), not when ``dealerpoker.evaluator.categories`` alone is imported, e.g. to read rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dealerpoker.evaluator.categories import HandCategory, category_of

if TYPE_CHECKING:
    from dealerpoker.evaluator.api import (
        HandValue,
        best_five,
        categorize_batch,
        describe,
        evaluate,
        evaluate_batch,
        value_of,
    )

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


def __getattr__(name: str) -> Any:
    if name in __all__:
        from dealerpoker.evaluator import api

        return getattr(api, name)
    raise AttributeError(f"module 'dealerpoker.evaluator' has no attribute {name!r}")
