"""`dealerpoker shoe`: a simulated card shoe dealing at a studio table (tests and demos).

    DEALERPOKER_DEALER_KEY=... dealerpoker shoe --table studio-1 --url ws://127.0.0.1:8000 \
        [--key-file FILE] [--delay 1.0] [--misread-rate 0.05] [--misdeal-rate 0.01] [--rounds 10] [--seed 7]

The dealer key comes from ``$DEALERPOKER_DEALER_KEY`` or a file (``--key-file``): a key on the
command line (``--key``, still accepted) is shown to every user of the machine by ``ps``.

It connects to the table's dealer WebSocket and deals a freshly shuffled deck each round, in
the order the table asks for the cards, as a card reader in a shoe would report them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import sys
from typing import Any

from dealerpoker.cli import SUBCOMMANDS

KEY_ENV = "DEALERPOKER_DEALER_KEY"


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "shoe",
        help=SUBCOMMANDS["shoe"],
        description="Deal a shuffled deck at a studio table (dealing = \"studio\") over its dealer "
        "WebSocket, in the order the table asks for the cards, with configurable delays, misreads "
        "(a wrong card, voided, then the right one) and misdeals.",
    )
    parser.add_argument("--table", required=True, help="the studio table's id")
    parser.add_argument("--url", required=True, help="the server, ws://HOST:PORT (or wss://...)")
    parser.add_argument("--key-file", metavar="FILE",
                        help=f"a file holding the table's dealer key (default: ${KEY_ENV})")
    parser.add_argument("--key", help=f"the dealer key itself: avoid it, ps shows it to everyone "
                                      f"(use ${KEY_ENV} or --key-file)")
    parser.add_argument("--delay", type=float, default=1.0, help="seconds before each card (default 1)")
    parser.add_argument("--misread-rate", type=float, default=0.0,
                        help="chance that a card is first misread, then voided (default 0)")
    parser.add_argument("--misdeal-rate", type=float, default=0.0,
                        help="chance that a round is misdealt (default 0)")
    parser.add_argument("--rounds", type=int,
                        help="stop after this many rounds ended, a round nobody bet on included, so it "
                             "stops even at an empty table (default: run until ^C)")
    parser.add_argument("--seed", type=int, help="seed the shuffles (default: a random seed)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here, not at the top: `dealerpoker --help` imports every subcommand's module.
    from dealerpoker.server.live.shoe_client import ShoeError, dealer_url, run_shoe
    from dealerpoker.tables.shoe import Shoe, ShoeRates

    problem = None
    key = args.key or os.environ.get(KEY_ENV)
    if args.key:
        print(f"dealerpoker shoe: warning: --key puts the dealer key where ps shows it to every user; "
              f"use ${KEY_ENV} or --key-file", file=sys.stderr)
    if args.key_file:
        try:
            with open(args.key_file, encoding="utf-8") as file:
                key = file.read().strip()
        except OSError as error:
            problem = f"--key-file {args.key_file}: cannot read it: {error.strerror}"
    if not key:
        problem = problem or f"the table's dealer key is required: set ${KEY_ENV} or give --key-file FILE"
    elif not 0 <= args.delay <= 3600:
        problem = f"--delay: expected seconds in [0, 3600], got {args.delay}"
    elif args.rounds is not None and args.rounds < 1:
        problem = f"--rounds: expected at least 1, got {args.rounds}"
    try:
        rates = ShoeRates(misread=args.misread_rate, misdeal=args.misdeal_rate)
        url = dealer_url(args.url, args.table)
    except ValueError as error:
        problem = problem or str(error)
    if problem or not key:
        print(f"dealerpoker shoe: error: {problem}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbits(64)
    shoe = Shoe(random.Random(seed), rates)
    print(f"shoe: dealing at {url} (seed {seed})", flush=True)
    try:
        result = asyncio.run(run_shoe(url, key, shoe, delay=args.delay, rounds=args.rounds,
                                      log=lambda line: print(line, flush=True)))
    except ShoeError as error:
        print(f"dealerpoker shoe: error: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"dealerpoker shoe: error: cannot reach {url}: {error}", file=sys.stderr)
        return 1
    print(f"shoe: {len(result.rounds)} round(s) dealt, {len(result.empty)} without bets, {shoe.misreads} "
          f"misread(s), {shoe.misdeals} misdeal(s), {len(result.refusals)} refusal(s)")
    return 0
