"""`dealerpoker report`: daily operator report."""

from __future__ import annotations

from typing import Any

from dealerpoker.cli._stub import register_stub


def register(subparsers: Any) -> None:
    register_stub(subparsers, "report", "daily operator report", 7)
