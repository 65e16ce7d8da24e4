"""`dealerpoker analyze GAME --jackpot [FILE]`: the first-five jackpot bet's exact return."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def add_jackpot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jackpot", metavar="FILE", nargs="?", const="",
                        help="the progressive first-five jackpot bet instead of the game: its exact return "
                             "as a function of the pool (the shipped figures, or a jackpot TOML file)")
    parser.add_argument("--pool", metavar="AMOUNT", type=int, action="append",
                        help="--jackpot: the return at this pool, in minor units (repeatable; default: "
                             "the seed and the break-even pool)")
    parser.add_argument("--sharers", metavar="N", type=int, default=1,
                        help="--jackpot: how many jackpot bets share a hit (every bet of a live round "
                             "holds the same first five cards; default 1)")


def run_jackpot(args: argparse.Namespace) -> int:
    from dealerpoker.analysis.jackpot import jackpot_figures
    from dealerpoker.games.jackpot import load_jackpot

    rules = load_jackpot(args.jackpot or None)
    figures = jackpot_figures(rules, sharers=args.sharers)
    document = figures.to_json(tuple(args.pool or ()))
    if args.json:
        json.dump(document, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_jackpot(document))
    return 0


def render_jackpot(document: dict[str, Any]) -> str:
    rules = document["rules"]
    currency = rules["currency"]
    lines = [f"First-five jackpot bet: stake {rules['stake']} ({currency} minor units), "
             f"{document['sharers']} bet(s) sharing a hit, per unit staked",
             f"  {'hand':<18} {'combinations':>12} {'probability':>14} {'award':>12} {'return':>10}"]
    for line in document["lines"]:
        award = line["award"]
        probability = line["combinations"] / document["hands"]
        returned = "" if line["return"] is None else f"{_value(line['return']):.6f}"
        lines.append(f"  {line['hand']:<18} {line['combinations']:>12,} {probability:>14.10f} "
                     f"{award:>12} {returned:>10}")
    lines += [f"  hit frequency        {document['hit_frequency']['value']:.6%}",
              f"  fixed awards return  {document['fixed_return']['value']:.6%} "
              f"({document['fixed_return']['exact']})",
              f"  break-even pool      {document['break_even_pool']['value']:,.2f} minor units",
              f"  long-run return      {document['long_run_return']['value']:.6%} "
              f"(fixed awards + contribution {rules['contribution']} + the seed at each hit)"]
    for row in document["return_at_pool"]:
        lines.append(f"  return at pool {row['pool']:>14,}: {row['value']:.6%} ({row['exact']})")
    return "\n".join(lines) + "\n"


def _value(fraction_text: str) -> float:
    from fractions import Fraction

    return float(Fraction(fraction_text))
