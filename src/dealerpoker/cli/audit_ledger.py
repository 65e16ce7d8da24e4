"""`dealerpoker audit-ledger`: check the ledger's invariants on a database.

    dealerpoker audit-ledger [--database URL] [--json]

The checks (``dealerpoker.server.ledger.audit``): in each currency the players' balances plus the
house's sum to zero; no transaction joins accounts of two currencies; every transaction's entries
sum to zero; every player's stored balance equals the sum of their entries; no balance is below
zero. Read only, in one consistent snapshot, so it may run beside a serving server.

Exit status: 0 when every invariant holds, 1 when any does not (each finding printed on its own
line), 2 when the database cannot be audited (unreachable, no such file, not a dealerpoker
database), told in one line on standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.cli._records import UnusableDatabase, add_database_option, on_database


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "audit-ledger", help=SUBCOMMANDS["audit-ledger"],
        description="Check the double-entry ledger: balances sum to zero in each currency, every "
                    "transaction balances and stays in one currency, stored balances equal their "
                    "entries, none is negative. Exit 1 on any finding (each printed), 2 when the "
                    "database cannot be audited.")
    add_database_option(parser)
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealerpoker.server.settings import Settings

    url = Settings.from_env(database_url=args.database).database_url
    try:
        report = asyncio.run(_audit(url))
    except UnusableDatabase as error:
        print(f"dealerpoker audit-ledger: error: {error}", file=sys.stderr)
        return 2
    findings = report.findings()
    if args.json:
        print(json.dumps({"ok": not findings, "findings": findings,
                          "totals_by_currency": report.totals_by_currency}, indent=2))
    else:
        for finding in findings:
            print(f"FINDING: {finding}")
        currencies = ", ".join(sorted(report.totals_by_currency)) or "none yet"
        print(f"ledger audit: FAILED: {len(findings)} finding(s)" if findings
              else f"ledger audit: OK: every invariant holds (currencies: {currencies})")
    return 1 if findings else 0


async def _audit(url: str) -> Any:
    from dealerpoker.server.ledger import audit_database

    return await on_database(url, audit_database, what="audit")
