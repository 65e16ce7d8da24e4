"""`dealerpoker shoe`: a simulated card shoe dealing at a studio table (tests and demos).

    dealerpoker shoe --table studio-1 --url ws://127.0.0.1:8000 --key "$KEY" \
        [--delay 1.0] [--misread-rate 0.05] [--misdeal-rate 0.01] [--rounds 10] [--seed 7]

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
    parser.add_argument("--key", help=f"the table's dealer key (default ${KEY_ENV})")
    parser.add_argument("--delay", type=float, default=1.0, help="seconds before each card (default 1)")
    parser.add_argument("--misread-rate", type=float, default=0.0,
                        help="chance that a card is first misread, then voided (default 0)")
    parser.add_argument("--misdeal-rate", type=float, default=0.0,
                        help="chance that a round is misdealt (default 0)")
    parser.add_argument("--rounds", type=int, help="stop after this many rounds (default: run until ^C)")
    parser.add_argument("--seed", type=int, help="seed the shuffles (default: a random seed)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here, not at the top: `dealerpoker --help` imports every subcommand's module.
    from dealerpoker.server.live.shoe_client import ShoeError, dealer_url, run_shoe
    from dealerpoker.tables.shoe import Shoe, ShoeRates

    key = args.key or os.environ.get(KEY_ENV)
    problem = None
    if not key:
        problem = f"--key: the table's dealer key is required (or set ${KEY_ENV})"
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
    print(f"shoe: {len(result.rounds)} round(s), {shoe.misreads} misread(s), {shoe.misdeals} misdeal(s), "
          f"{len(result.refusals)} refusal(s)")
    return 0
