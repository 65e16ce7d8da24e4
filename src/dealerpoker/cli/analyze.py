"""`dealerpoker analyze`: exact house edge, return table and optimal strategy."""

from __future__ import annotations

import argparse
import json
import os
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from dealerpoker.cards import RANK_CHARS
from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.cli._jackpot import add_jackpot_arguments, run_jackpot
from dealerpoker.games.rules import GAMES, Rules, load_rules

# The analysis does no linear algebra, but numpy's OpenBLAS starts a thread per core at import and
# they spin for a while: on two cores that took about 0.1 s of CPU from the numba kernels of a
# from-scratch `analyze`. Set before numpy is imported (the analysis is imported lazily, below);
# a caller's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("--rules", metavar="FILE", help="a rules TOML file merged over the shipped rules")
    parser.add_argument("--ante-rule", choices=("flush", "straight"),
                        help="texas-bonus: the ante pays on a win with a flush (default) or a straight+")


def rules_from(args: argparse.Namespace) -> Rules:
    overrides = {"ante_qualifier": args.ante_rule} if getattr(args, "ante_rule", None) else None
    if overrides and args.game != "texas-bonus":
        overrides = None
    return load_rules(args.game, args.rules, overrides=overrides)


def cached_analysis(rules: Rules, *, use_cache: bool = True, deck: str | None = None) -> dict[str, Any]:
    """The analysis document: from the result cache, else from the stored card counts (a new
    paytable: well under a second), else counted (seconds). ``use_cache=False`` reads neither."""
    # The analysis (numpy, numba) is imported only by the commands that need it: `--help`,
    # `settle` and `advise` start in a fraction of the time.
    from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
    from dealerpoker.analysis.rtp import analysis_document
    from dealerpoker.cli._analysis_cache import DiskCache
    from dealerpoker.cli._progress import ProgressBar

    cache = DiskCache(read=use_cache)
    spec = FULL_DECK if deck is None else DeckSpec.parse(deck)
    return analysis_document(rules, cache, cache, deck=spec, progress=ProgressBar())


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "analyze", help=SUBCOMMANDS["analyze"],
        description="Exact analysis under optimal strategy, per unit of ante, by enumerating every deal.")
    add_rules_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--report", metavar="FILE.html", help="write a self-contained HTML report")
    parser.add_argument("--no-cache", action="store_true",
                        help="recompute from scratch: read neither cached results nor cached card counts")
    parser.add_argument("--sweep", metavar="ENTRY=VALUES",
                        help='the exact house edge for each value of one rules entry, e.g. '
                             '"ante_paytable.flush=1..3" (whole numbers, both ends included) or '
                             '"ante_qualifier=flush,straight"; list rows by position, from 0: '
                             '"bonus_paytable.0.pays=25..35"')
    parser.add_argument("--deck", metavar="DECK",
                        help="the deck (default 23456789TJQKAx4, the full deck); a reduced deck such "
                             "as 23456Ax3 gives quick figures for checks")
    add_jackpot_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.jackpot is not None:
        return run_jackpot(args)
    rules = rules_from(args)
    if args.sweep:
        return run_sweep(args, rules)
    document = cached_analysis(rules, use_cache=not args.no_cache, deck=args.deck)
    if args.report:
        from dealerpoker.analysis.report import html_report

        Path(args.report).write_text(html_report(document), "utf-8")
    if args.json:
        json.dump(document, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(document))
    return 0


def render_text(document: dict[str, Any]) -> str:
    lines = [f"{document['rules'].get('title', document['game'])} "
             f"(rules {document['rules']['fingerprint']}), optimal strategy, per unit ante",
             f"  house edge        {document['house_edge']:.6%}",
             f"  element of risk   {document['element_of_risk']:.6%}",
             f"  average total bet {document['average_total_bet']:.6f}",
             f"  std deviation     {document['std_dev']:.6f}",
             f"  play frequency    {document['play_frequency']:.6%}"]
    exact = document["rules"]["exact"]
    if document["game"] == "texas-bonus":
        lines.append(f"  turn bets         {exact['turn_bet_frequency']:.6%} of flops played")
        lines.append(f"  river bets        {exact['river_bet_frequency']:.6%} of turns played")
    lines += ["", "Return table",
              f"  {'outcome':<58} {'net':>4} {'combinations':>20} {'probability':>12} {'return':>11}"]
    for row in document["outcomes"]:
        lines.append(f"  {row['outcome']:<58} {row['net']:>4} {row['combinations']:>20,} "
                     f"{row['probability']:>12.8f} {row['return']:>+11.8f}")
    total = sum(r["combinations"] for r in document["outcomes"])
    lines.append(f"  {'total':<58} {'':>4} {total:>20,} {1:>12.8f} {-document['house_edge']:>+11.8f}")
    if document["game"] == "texas-bonus":
        lines += ["", "Starting hands: EV per ante of betting the flop (suited upper right, F = fold)"]
        ranks = RANK_CHARS[::-1]
        lines.append("      " + "".join(f"{r:>7}" for r in ranks))
        for i, hi in enumerate(ranks):
            cells = []
            for j, lo in enumerate(ranks):
                name = hi + hi if i == j else (f"{hi}{lo}s" if j > i else f"{lo}{hi}o")
                entry = document["two_card_ev"].get(name)
                cells.append(" " * 7 if entry is None else
                             f"{entry['ev_bet']:>+6.2f}{'F' if entry['action'] == 'fold' else ' '}")
            lines.append(f"  {hi:>3} " + "".join(cells))
    else:
        lines += ["", "Raise strategy by flop situation (share of situations, raise frequency)"]
        for s in exact["strategy"]:
            lines.append(f"  {s['situation']:<58} {s['situations']:>10,} {s['raise_frequency']:>8.2%}")
    lines += ["", "Side bets"]
    for name, bet in document["side_bets"].items():
        lines.append(f"  {name}: house edge {bet['house_edge']:.6%}")
        if name == "aa":
            lines.append(f"    settled even on a fold {bet['house_edge_settled_on_fold']:.6%}; "
                         f"lost on a fold {bet['house_edge_lost_on_fold']:.6%} "
                         f"({bet['winning_hands_folded']:,} AA-winning flop situations are folds)")
    return "\n".join(lines) + "\n"


def parse_sweep(text: str) -> tuple[str, list[Any]]:
    """``"ante_paytable.flush=1..3"`` -> ``("ante_paytable.flush", [1, 2, 3])``; a comma list
    keeps its values (whole numbers as integers, anything else as text)."""
    from dealerpoker.errors import InvalidRulesError

    path, equals, spec = text.partition("=")
    path, spec = path.strip(), spec.strip()
    if not equals or not path or not spec:
        raise InvalidRulesError(f"--sweep {text!r}: expected ENTRY=VALUES, e.g. ante_paytable.flush=1..3")
    if ".." in spec:
        low, _, high = spec.partition("..")
        try:
            first, last = int(low), int(high)
        except ValueError:
            raise InvalidRulesError(f"--sweep {text!r}: a range needs whole numbers, e.g. 1..3") from None
        if last < first or last - first > 1000:
            raise InvalidRulesError(f"--sweep {text!r}: expected FIRST..LAST with LAST >= FIRST "
                                    "(at most 1,001 values)")
        return path, list(range(first, last + 1))
    values: list[Any] = []
    for item in spec.split(","):
        item = item.strip()
        values.append(int(item) if item.lstrip("-").isdigit() else item)
    return path, values


def run_sweep(args: argparse.Namespace, rules: Rules) -> int:
    from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
    from dealerpoker.analysis.pipeline import sweep
    from dealerpoker.cli._analysis_cache import DiskCache

    path, values = parse_sweep(args.sweep)
    deck = FULL_DECK if args.deck is None else DeckSpec.parse(args.deck)
    results = sweep(rules, path, values, DiskCache(read=not args.no_cache), deck=deck)
    rows = []
    for value, analysis in results:
        side = analysis.side_bets.get("bonus") or analysis.side_bets["aa"]
        side_edge = side["exact"] if "exact" in side else (
            side["exact_settled_on_fold"] if side["settles_on_fold"] else side["exact_lost_on_fold"])
        rows.append({"value": value, "house_edge": str(analysis.house_edge),
                     "house_edge_percent": float(analysis.house_edge) * 100,
                     "element_of_risk": str(analysis.element_of_risk),
                     "play_frequency": str(analysis.play_frequency),
                     "side_bet_house_edge": side_edge, "rules_fingerprint": analysis.rules.fingerprint()})
    if args.json:
        json.dump({"game": rules.game, "entry": path, "rows": rows}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    side_name = "Bonus" if rules.game == "texas-bonus" else "AA bet"
    print(f"{rules.game}: exact house edge (per unit ante, optimal strategy) by {path}")
    print(f"  {'value':>10}  {'house edge':>11}  {'exact':<34} {'play freq':>9}  {side_name + ' edge':>12}")
    for row in rows:
        play, side_edge = Fraction(row["play_frequency"]), Fraction(row["side_bet_house_edge"])
        print(f"  {row['value']!s:>10}  {row['house_edge_percent']:>10.6f}%  {row['house_edge']:<34} "
              f"{float(play):>9.4%}  {float(side_edge):>12.6%}")
    return 0
