"""`dealerpoker reconcile`: an operator's wallet transactions of one UTC day, to compare with the
operator's own ledger.

    dealerpoker reconcile --operator ID --date YYYY-MM-DD [--database URL] [--json]

Each transaction with its round, amount, status and attempts, then a summary per currency: bets
placed, wins delivered, rollbacks answered, what is still pending, and the net moved to players
(``dealerpoker.server.operators.reconcile``; the same as ``GET /operator/v1/transactions``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.cli._records import add_database_option


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "reconcile", help=SUBCOMMANDS["reconcile"],
        description="List an operator's seamless-wallet transactions created on a UTC day (round, "
                    "amount, status, attempts) and a summary per currency: bets, wins, rollbacks, "
                    "pending, net (docs/operators.md#reconciliation).")
    parser.add_argument("--operator", required=True, metavar="ID", help="the operator's id")
    parser.add_argument("--date", required=True, metavar="YYYY-MM-DD", help="the UTC day")
    add_database_option(parser)
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealerpoker.server.operators.reconcile import window
    from dealerpoker.server.settings import Settings

    since, until = window(args.date)
    url = Settings.from_env(database_url=args.database).database_url
    found = asyncio.run(_read(url, args.operator, since, until))
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    print(f"operator {args.operator}, {since} to {until}: {len(found['transactions'])} transaction(s)")
    print(f"{'created_at':27} {'kind':8} {'transaction_id':44} {'round':22} {'player':16} "
          f"{'amount':>10} {'cur':4} {'status':11} {'tries':>5}")
    for row in found["transactions"]:
        print(f"{row['created_at']:27} {row['kind']:8} {row['transaction_id']:44} {row['round_id']:22} "
              f"{row['player']:16} {row['amount']:>10} {row['currency']:4} {row['status']:11} "
              f"{row['attempts']:>5}")
    words = {"bets": "bets placed (rolled-back bets left out)", "wins": "wins delivered (zero wins included)",
             "rollbacks": "rollbacks answered", "pending": "still pending"}
    for currency, totals in sorted(found["summary"].items()):
        parts = [f"{words[key]} {totals[key]['count']} = {totals[key]['amount']}"
                 for key in ("bets", "wins", "rollbacks", "pending")]
        print(f"{currency} (minor units): {'; '.join(parts)}; net to players {totals['net']['amount']} "
              "(wins less bets)")
    return 0


async def _read(url: str, operator: str, since: str, until: str) -> dict[str, Any]:
    from dealerpoker.server.db import Database
    from dealerpoker.server.operators.reconcile import transactions

    database = Database(url)
    try:
        await database.migrate()
        return await transactions(database, operator, since, until)
    finally:
        await database.dispose()
