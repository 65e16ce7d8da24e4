"""`dealerpoker analyze`: exact house edge, return table and optimal strategy."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from dealerpoker.cards import RANK_CHARS
from dealerpoker.games.rules import GAMES, Rules, load_rules


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


def cached_analysis(rules: Rules, *, use_cache: bool = True) -> dict[str, Any]:
    # The solver (numba) is imported only by the commands that need it: `--help`, `settle` and
    # `advise` start in a fraction of the time.
    from dealerpoker.analysis.exact import Solver
    from dealerpoker.analysis.rtp import analysis_document
    from dealerpoker.cli._analysis_cache import DiskCache
    from dealerpoker.cli._progress import ProgressBar

    bar = ProgressBar()
    return analysis_document(rules, DiskCache(read=use_cache), Solver(progress=bar))


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "analyze", help="exact house edge, return table and optimal strategy",
        description="Exact analysis under optimal strategy, per unit of ante, by enumerating every deal.")
    add_rules_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--report", metavar="FILE.html", help="write a self-contained HTML report")
    parser.add_argument("--no-cache", action="store_true", help="recompute even when cached")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    document = cached_analysis(rules, use_cache=not args.no_cache)
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
