"""`dealerpoker export`: the audit records of settled rounds, one JSON object per line.

    dealerpoker export --since 2026-11-29 [--until 2026-11-30] --format jsonl [--database URL] [--output FILE]
                       [--signing-key FILE]

``--since`` is inclusive, ``--until`` exclusive (default: now), by the time each round was
settled. A solo round's line is the record of ``GET /api/rounds/{id}/record``; a live table
round's line is the whole round (``"mode": "table"``, ``"scope": "round"``: every seat and every
ledger entry; a player's own part is ``GET /api/tables/{id}/rounds/{n}/record``). Lines are in
the order the rounds were settled, each signed with the deployment's key (``--signing-key``, as
``serve``'s); check them all with ``dealerpoker verify --round-file FILE --server URL``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.cli._records import add_database_option, read_records, time_range


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "export", help=SUBCOMMANDS["export"],
        description="Write the audit record of every round (solo and live table rounds) settled in "
                    "[--since, --until) as JSON lines.",
    )
    parser.add_argument("--since", required=True,
                        help="inclusive start: a date (2026-11-29, UTC) or ISO-8601 time")
    parser.add_argument("--until", default=None, help="exclusive end, date or time (default: now)")
    parser.add_argument("--format", choices=("jsonl",), default="jsonl", help="output format (jsonl)")
    parser.add_argument("--output", metavar="FILE", default=None,
                        help="write here instead of standard output")
    parser.add_argument("--signing-key", metavar="FILE", default=None,
                        help="the deployment's signing key, to sign every record as the server does "
                             "(default: $DEALERPOKER_SIGNING_KEY_FILE, else dealerpoker-signing.key in the "
                             "working directory, as for serve; without it records are written unsigned)")
    add_database_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealerpoker.server.settings import signing_key_file
    from dealerpoker.server.signing import RecordSigner

    since, until, _label = time_range(None, args.since, args.until)
    key_file = signing_key_file(args.signing_key)
    signer = RecordSigner.from_file(key_file, create=False) if Path(key_file).is_file() else None
    records = read_records(args.database, since, until)
    if signer is None:
        print(f"dealerpoker export: warning: no signing key at {key_file}: records written unsigned "
              "(verify --public-key/--server will refuse them; give --signing-key FILE)", file=sys.stderr)
    else:
        records = [signer.sign(record) for record in records]
    lines = "".join(json.dumps(record, separators=(",", ":")) + "\n" for record in records)
    if args.output is None:
        sys.stdout.write(lines)
    else:
        Path(args.output).write_text(lines, encoding="utf-8")
    print(f"exported {len(records)} round record(s)", file=sys.stderr)
    return 0
