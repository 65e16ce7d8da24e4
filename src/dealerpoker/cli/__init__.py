"""The ``dealerpoker`` command: a thin layer that parses arguments, calls the library, prints.

Each subcommand lives in its own module (``operator-demo`` in ``operator_demo``) with
``register(subparsers)``; the module sets
``func`` on its parser, which receives the parsed namespace and returns the exit status.
Bad input exits with status 2 and a one-line message naming the problem.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from dealerpoker import __version__
from dealerpoker.errors import DealerPokerError

SUBCOMMANDS = (
    "serve", "settle", "analyze", "advise", "simulate", "verify", "export", "report", "shoe", "admin",
    "audit-ledger", "operator-demo", "reconcile",
)  # fmt: skip


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command's parser; with ``command``, only that subcommand (its module alone is imported)."""
    parser = argparse.ArgumentParser(
        prog="dealerpoker",
        description="Casino poker against the dealer: Texas Hold'em Bonus and Casino Hold'em.",
    )
    parser.add_argument("--version", action="version", version=f"dealerpoker {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in SUBCOMMANDS if command is None else (command,):
        module = importlib.import_module(f"dealerpoker.cli.{name.replace('-', '_')}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    chosen = next((word for word in words if not word.startswith("-")), None)
    parser = build_parser(chosen if chosen in SUBCOMMANDS else None)
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except DealerPokerError as error:
        print(f"dealerpoker {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
