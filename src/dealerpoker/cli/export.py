"""`dealerpoker export`: the audit records of settled rounds, one JSON object per line.

    dealerpoker export --since 2026-11-29 [--until 2026-11-30] --format jsonl [--database URL] [--output FILE]

Each line is the record of ``GET /api/rounds/{id}/record``; check them all with
``dealerpoker verify --round-file FILE``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from dealerpoker.cli._records import add_database_option, read_records, stored_time


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "export", help="export round records (JSONL)",
        description="Write the audit record of every round settled in [--since, --until) as JSON lines.",
    )
    parser.add_argument("--since", required=True, help="a date (2026-11-29, UTC) or ISO-8601 time")
    parser.add_argument("--until", default=None, help="exclusive end (default: now)")
    parser.add_argument("--format", choices=("jsonl",), default="jsonl", help="output format (jsonl)")
    parser.add_argument("--output", metavar="FILE", default=None,
                        help="write here instead of standard output")
    add_database_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    since = stored_time(args.since, "--since")
    until = None if args.until is None else stored_time(args.until, "--until")
    records = read_records(args.database, since, until)
    lines = "".join(json.dumps(record, separators=(",", ":")) + "\n" for record in records)
    if args.output is None:
        sys.stdout.write(lines)
    else:
        Path(args.output).write_text(lines, encoding="utf-8")
    print(f"exported {len(records)} round record(s)", file=sys.stderr)
    return 0
