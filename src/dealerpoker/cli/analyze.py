"""`dealerpoker analyze`: exact house edge and strategy."""

from __future__ import annotations

from typing import Any

from dealerpoker.cli._stub import register_stub


def register(subparsers: Any) -> None:
    register_stub(subparsers, "analyze", "exact house edge and strategy", 8)
