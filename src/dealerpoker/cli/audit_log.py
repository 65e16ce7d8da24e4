"""`dealerpoker audit-log verify`: check the hash-chained append-only logs of a database.

    dealerpoker audit-log verify [--database URL] [--json] [--expect-head TABLE=ID:HASH ...]

Each chained log (``admin_audit``, the back office's changes; ``rg_events``, the responsible-gaming
events; see ``dealerpoker.server.chained_log``) is walked from its first row: each row must hold
the hash of the row before it and the hash of its own content, so a row edited, deleted or
inserted between others is found, named by its id. The newest row's id and hash (the *head*) are
printed: record them, and ``--expect-head admin_audit=ID:HASH`` later also finds rows removed from
the end. The back office's Audit page runs the same check. Read only.

Exit status: 0 when every log is intact, 1 when any is not (each problem printed), 2 when the
database cannot be checked (unreachable, no such file, not a dealerpoker database).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.cli._records import UnusableDatabase, add_database_option, on_database
from dealerpoker.errors import DealerPokerError


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "audit-log", help=SUBCOMMANDS["audit-log"],
        description="The hash-chained append-only logs (admin audit, responsible-gaming events).")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    verify = actions.add_parser(
        "verify", help="find any edited, deleted or inserted row of the chained logs",
        description="Walk every chained log: exit 1 naming each row edited, deleted or inserted "
                    "(and the head if it differs from --expect-head), 2 when the database cannot be "
                    "checked.")
    add_database_option(verify)
    verify.add_argument("--json", action="store_true", help="print the result as one JSON object")
    verify.add_argument("--expect-head", metavar="TABLE=ID:HASH", action="append", default=[],
                        help="the head recorded earlier (printed by a previous run): the log must "
                             "still hold that row as it was (rows after it may be added)")
    verify.set_defaults(func=run)


def _expected(values: list[str]) -> dict[str, tuple[int, str]]:
    found: dict[str, tuple[int, str]] = {}
    for value in values:
        table, _, head = value.partition("=")
        identity, _, digest = head.partition(":")
        if not table or not identity.isdigit() or len(digest) != 64:
            raise DealerPokerError(f"--expect-head {value!r}: expected TABLE=ID:HASH (64 hex digits)")
        found[table] = (int(identity), digest.lower())
    return found


def run(args: argparse.Namespace) -> int:
    from dealerpoker.server.settings import Settings

    expected = _expected(args.expect_head)
    url = Settings.from_env(database_url=args.database).database_url

    async def check(database: Any) -> list[dict[str, Any]]:
        from dealerpoker.server.chained_log import CHAINED, verify

        unknown = sorted(set(expected) - set(CHAINED))
        if unknown:
            raise DealerPokerError(f"--expect-head {unknown[0]}: not a chained log ({', '.join(CHAINED)})")
        async with database.reading() as connection:
            return [(await verify(connection, log, expect_head=expected.get(name))).to_json()
                    for name, log in CHAINED.items()]

    try:
        checks = asyncio.run(on_database(url, check, what="check"))
    except UnusableDatabase as error:
        print(f"dealerpoker audit-log: error: {error}", file=sys.stderr)
        return 2
    failed = [found for found in checks if not found["ok"]]
    if args.json:
        print(json.dumps({"ok": not failed, "logs": checks}, indent=2))
    else:
        for found in checks:
            for problem in found["problems"]:
                print(f"PROBLEM: {problem}")
            state = "OK" if found["ok"] else "FAILED"
            head = "empty" if found["head_id"] is None else f"head {found['head_id']}:{found['head_hash']}"
            print(f"{found['table']}: {state}: {found['rows']} rows, {head}")
    return 1 if failed else 0
