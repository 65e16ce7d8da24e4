"""`dealerpoker export`: export round records."""

from __future__ import annotations

from typing import Any

from dealerpoker.cli._stub import register_stub


def register(subparsers: Any) -> None:
    register_stub(subparsers, "export", "export round records", 7)
