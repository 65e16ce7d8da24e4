"""`dealerpoker verify`: verify a provably fair deal."""

from __future__ import annotations

from typing import Any

from dealerpoker.cli._stub import register_stub


def register(subparsers: Any) -> None:
    register_stub(subparsers, "verify", "verify a provably fair deal", 7)
