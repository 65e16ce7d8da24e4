"""`dealerpoker serve`: run the game server."""

from __future__ import annotations

from typing import Any

from dealerpoker.cli._stub import register_stub


def register(subparsers: Any) -> None:
    register_stub(subparsers, "serve", "run the game server", 4)
