"""`dealerpoker advise`: the exact EV of every legal action at one decision."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dealerpoker.cards import parse_cards
from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.cli.analyze import add_rules_arguments, cached_analysis, rules_from


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "advise", help=SUBCOMMANDS["advise"],
        description="Exact EV (per unit ante, whole round) of each legal action, and the best.")
    add_rules_arguments(parser)
    parser.add_argument("--player", required=True, help='the two hole cards, e.g. "As Kd"')
    parser.add_argument("--board", default="",
                        help="texas-bonus: none, flop or flop+turn; casino-holdem: the flop")
    parser.add_argument("--turn-bet", choices=("yes", "no"),
                        help="texas-bonus at the turn: was the turn bet made (default: as optimal play)")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealerpoker.analysis.advise import advise, starting_hands_of

    rules = rules_from(args)
    player = parse_cards(args.player)
    board = parse_cards(args.board) if args.board.strip() else ()
    starting = None
    if rules.game == "texas-bonus" and not board:
        starting = starting_hands_of(cached_analysis(rules))
    turn_bet = None if args.turn_bet is None else args.turn_bet == "yes"
    advice = advise(rules, player, board, starting_hands=starting, turn_bet=turn_bet)
    if args.json:
        json.dump(advice.to_json(), sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(f"{rules.game} {advice.phase}: player {args.player}" + (f", board {args.board}" if board else ""))
    for action, ev in sorted(advice.actions.items(), key=lambda item: -item[1]):
        mark = "  <- best" if action == advice.best else ""
        print(f"  {action:<6} EV {float(ev):+.6f} antes{mark}")
    return 0
