"""Placeholder for a subcommand whose issue has not landed yet."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register_stub(subparsers: Any, name: str, help_text: str, issue: int) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(name, help=f"{help_text} (not built yet)")
    parser.add_argument("rest", nargs=argparse.REMAINDER)

    def not_built(args: argparse.Namespace) -> int:
        print(f"dealerpoker {name}: not built yet (issue {issue})", file=sys.stderr)
        return 2

    parser.set_defaults(func=not_built)
