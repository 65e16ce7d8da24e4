"""The ``dealerpoker`` command: a thin layer that parses arguments, calls the library, prints.

Each subcommand lives in its own module (``operator-demo`` in ``operator_demo``) with
``register(subparsers)``; the module sets
``func`` on its parser, which receives the parsed namespace and returns the exit status.
Bad input exits with status 2 and a one-line message naming the problem.

Start-up is kept short: only the chosen subcommand's module is imported, and ``dealerpoker
--help`` imports none (it lists :data:`SUBCOMMANDS`' one-line help). The subcommand modules
import numpy, numba, the server and the database drivers inside the functions that need them,
so ``import dealerpoker.cli`` and ``dealerpoker settle`` load none of them.
"""

from __future__ import annotations

import argparse
import faulthandler
import importlib
import signal
import sys
from collections.abc import Sequence

from dealerpoker import __version__
from dealerpoker.errors import DealerPokerError

#: Each subcommand and its one-line help (its module's parser uses the same text).
SUBCOMMANDS = {
    "serve": "run the game server",
    "settle": "settle a given deal",
    "analyze": "exact house edge, return table and optimal strategy",
    "advise": "exact EV of each action at a decision",
    "simulate": "Monte Carlo check of the exact figures",
    "verify": "verify a provably fair deal and a round record",
    "export": "export round records (JSONL)",
    "report": "daily operator report",
    "shoe": "a simulated card shoe dealing at a studio table",
    "admin": "back-office staff accounts",
    "audit-ledger": "check the ledger's invariants on a database",
    "audit-log": "verify the hash-chained append-only logs (admin audit, responsible gaming)",
    "operator-demo": "run the reference operator (a casino's seamless wallet, with faults)",
    "reconcile": "an operator's wallet transactions of a day, with a summary per currency",
    "operator": "a casino's tools: sign a request to the operator API (operator sign)",
    "certify": "the certification pack: PAR sheets, RNG evidence, rules sheets, software manifest",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command's parser; with ``command``, only that subcommand (its module alone is imported);
    without, every subcommand's name and help and no module imported (``--help``, a bad name)."""
    parser = argparse.ArgumentParser(
        prog="dealerpoker",
        description="Casino poker against the dealer: Texas Hold'em Bonus and Casino Hold'em.",
    )
    parser.add_argument("--version", action="version", version=f"dealerpoker {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    if command is None:
        for name, help_text in SUBCOMMANDS.items():
            subparsers.add_parser(name, help=help_text)
        return parser
    module = importlib.import_module(f"dealerpoker.cli.{command.replace('-', '_')}")
    module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and hasattr(signal, "SIGUSR1"):
        # `kill -USR1 PID` writes every thread's Python stack to stderr: a process that seems hung
        # (a server that does not answer) says where it is, and goes on.
        faulthandler.register(signal.SIGUSR1, all_threads=True)
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
