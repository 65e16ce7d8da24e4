"""`dealerpoker settle`: settle a given deal, deterministically.

    dealerpoker settle texas-bonus --player "As Kd" --dealer "Qh Qc" --board "2c 7d 9h Js 3s" \\
        --bet ante=100 --bet bonus=100 --actions bet,check,bet --json

The cards given are dealt in the engine's order (player, dealer, flop, turn, river). A round
that ends before the whole board is dealt (a fold) needs only the board cards dealt by then.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from dealerpoker.cards import Card, parse_cards
from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.errors import BetLimitError, IllegalActionError, InvalidHandError, InvalidRulesError
from dealerpoker.games import GAMES, get_game, load_rules

if TYPE_CHECKING:
    from dealerpoker.games.base import RoundState
    from dealerpoker.games.settlement import HandSummary, Settlement


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "settle",
        help=SUBCOMMANDS["settle"],
        description="Play a given deal with the given bets and decisions, and print its settlement.",
    )
    parser.add_argument("game", choices=GAMES, help="which game")
    # Cards and actions are checked by `settle` (not argparse) so that a missing one gets the same
    # one-line message as a wrong one.
    parser.add_argument("--player", default="", help='the player\'s two cards, e.g. "As Kd"')
    parser.add_argument("--dealer", default="", help='the dealer\'s two cards, e.g. "Qh Qc"')
    parser.add_argument("--board", default="", help='the board: flop, turn, river, e.g. "2c 7d 9h Js 3s"')
    parser.add_argument(
        "--bet",
        action="append",
        default=[],
        metavar="FIELD=AMOUNT",
        help="an opening bet in minor units, e.g. ante=100 (repeat for bonus/aa)",
    )
    parser.add_argument(
        "--actions",
        default="",
        help="decisions in order, comma-separated: texas-bonus bet|fold, bet|check, "
        "bet|check; casino-holdem raise|call|fold",
    )
    parser.add_argument(
        "--ante-rule",
        choices=("flush", "straight"),
        help="texas-bonus: the ante pays only with a flush (default) or a straight or better",
    )
    parser.add_argument("--rules", metavar="FILE", help="a TOML rules file merged over the shipped rules")
    parser.add_argument("--json", action="store_true", help="print the settlement as one JSON object")
    parser.set_defaults(func=run)


def parse_bets(specs: list[str]) -> dict[str, int]:
    """``["ante=100", "bonus=25"]`` -> ``{"ante": 100, "bonus": 25}``."""
    bets: dict[str, int] = {}
    for spec in specs:
        field, equals, amount = spec.partition("=")
        field = field.strip()
        if not equals or not field:
            raise BetLimitError(f"--bet {spec!r}: expected FIELD=AMOUNT, e.g. ante=100")
        if field in bets:
            raise BetLimitError(f"--bet {field}: given twice", field=field)
        try:
            bets[field] = int(amount.strip())
        except ValueError:
            raise BetLimitError(
                f"{field}: amount must be a whole number of minor units, got {amount!r}", field=field
            ) from None
    return bets


def parse_deal(player: str, dealer: str, board: str) -> tuple[list[int], int]:
    """The deck order from the given cards, and how many board cards were given.

    Positions past the given board are filled with unused cards; they are never dealt, because
    the round is checked afterwards to have dealt no more board cards than were given.
    """
    from dealerpoker.cards.encoding import card_to_index
    from dealerpoker.games.base import CARDS_PER_ROUND

    parts: list[tuple[str, tuple[Card, ...], tuple[int, ...]]] = [
        ("--player", parse_cards(player, unique=False), (2,)),
        ("--dealer", parse_cards(dealer, unique=False), (2,)),
        ("--board", parse_cards(board, unique=False), (0, 3, 4, 5)),
    ]
    where: dict[Card, str] = {}
    for option, cards, counts in parts:
        if len(cards) not in counts:
            expected = " or ".join(str(c) for c in counts)
            raise InvalidHandError(f"{option}: expected {expected} cards, got {len(cards)}")
        for card in cards:
            if card in where:
                also = "" if where[card] == option else f" and {option}"
                raise InvalidHandError(f"duplicate card {card} (in {where[card]}{also})")
            where[card] = option
    deck = [card_to_index(card) for _, cards, _ in parts for card in cards]
    filler = [index for index in range(52) if index not in deck]
    return deck + filler[: CARDS_PER_ROUND - len(deck)], len(parts[2][1])


def settle(args: argparse.Namespace) -> tuple[RoundState, Settlement]:
    overrides: dict[str, Any] = {}
    if args.ante_rule is not None:
        if args.game != "texas-bonus":
            raise InvalidRulesError("--ante-rule applies to texas-bonus only")
        overrides["ante_qualifier"] = args.ante_rule
    game = get_game(args.game, load_rules(args.game, args.rules, overrides=overrides))
    deck, board_given = parse_deal(args.player, args.dealer, args.board)
    bets = parse_bets(args.bet)
    actions = [a.strip() for a in args.actions.split(",") if a.strip()]
    state = game.start(bets, deck)
    for number, action in enumerate(actions, start=1):
        try:
            state, _ = game.apply(state, action)
        except IllegalActionError as error:
            raise IllegalActionError(
                f"--actions: action {number} ({action!r}): {error}", phase=error.phase, action=error.action
            ) from None
    if state.settlement is None:
        legal = ", ".join(game.legal_actions(state))
        raise IllegalActionError(
            f"--actions: the round is not settled after {len(actions)} action(s); "
            f"the {state.phase} decision needs one of {legal}",
            phase=state.phase,
        )
    if state.board_count > board_given:
        raise InvalidHandError(
            f"--board: {board_given} cards given, but this round deals {state.board_count}"
        )
    return state, state.settlement


def _hand_text(hand: HandSummary | None) -> str:
    return "-" if hand is None else f"{hand.name} ({' '.join(hand.best_five)})"


def summary(settlement: Settlement) -> str:
    """A readable settlement."""
    rows = [f"{settlement.game}: {settlement.outcome}"]
    if settlement.dealer_qualifies is not None:
        rows[0] += " (dealer qualifies)" if settlement.dealer_qualifies else " (dealer does not qualify)"
    rows.append(f"player hand: {_hand_text(settlement.player_hand)}")
    rows.append(f"dealer hand: {_hand_text(settlement.dealer_hand)}")
    rows.append(f"{'field':<8}{'stake':>10}{'returned':>10}{'net':>10}")
    for line in settlement.lines:
        rows.append(f"{line.field:<8}{line.stake:>10}{line.returned:>10}{line.net:>+10}")
    rows.append(
        f"{'total':<8}{settlement.total_stake:>10}{settlement.total_returned:>10}{settlement.net:>+10}"
    )
    return "\n".join(rows)


def run(args: argparse.Namespace) -> int:
    _, settlement = settle(args)
    if args.json:
        print(json.dumps(settlement.to_dict()))
    else:
        print(summary(settlement))
    return 0
