"""`dealerpoker simulate`: Monte Carlo rounds with a 95% confidence interval per bet."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.cli._progress import ProgressBar
from dealerpoker.cli.analyze import add_rules_arguments, cached_analysis, rules_from


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "simulate", help=SUBCOMMANDS["simulate"],
        description="Play random rounds through the same rules; mean net per ante with a 95% CI.")
    add_rules_arguments(parser)
    parser.add_argument("--rounds", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--strategy", default="optimal",
                        help="optimal (default), always-play, flop-only (texas-bonus)")
    parser.add_argument("--bets", default="ante=1", help="stakes per opening field, e.g. ante=1,bonus=1")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealerpoker.analysis.rtp import cache_key
    from dealerpoker.analysis.simulate import parse_bets, simulate

    rules = rules_from(args)
    bets = parse_bets(args.bets, rules.game)
    tables = None
    if args.strategy == "optimal":
        cache = DiskCache()
        tables = cache.load_tables(cache_key(rules))
        for use_cache in (True, False):  # (a result cached without its tables: count again)
            if tables is None:
                cached_analysis(rules, use_cache=use_cache)
                tables = cache.load_tables(cache_key(rules))
    bar = ProgressBar()
    result = simulate(rules, args.rounds, seed=args.seed, strategy=args.strategy, bets=bets,
                      tables=tables, progress=bar.rounds)
    if args.json:
        json.dump(result.to_json(), sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(f"{rules.game}, {args.rounds:,} rounds, strategy {args.strategy}, seed {args.seed}, "
          f"bets {args.bets}")
    print("  mean net per ante, 95% confidence interval")
    for estimate in (*result.per_bet, result.total):
        low, high = estimate.mean - estimate.half_width, estimate.mean + estimate.half_width
        print(f"  {estimate.field:<6} {estimate.mean:+.6f}  [{low:+.6f}, {high:+.6f}]")
    return 0
