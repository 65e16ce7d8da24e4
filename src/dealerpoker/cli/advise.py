"""`dealerpoker advise`: exact EV of each action."""

from __future__ import annotations

from typing import Any

from dealerpoker.cli._stub import register_stub


def register(subparsers: Any) -> None:
    register_stub(subparsers, "advise", "exact EV of each action", 8)
