"""`dealerpoker report`: the operator's report for a UTC day or any time range.

    dealerpoker report --date 2026-11-29 [--database URL] [--json]
    dealerpoker report --since 2026-11-01 [--until 2026-12-01] [--database URL] [--json]

Rounds settled that UTC day (``--date``), or from ``--since`` (inclusive) to ``--until``
(exclusive; default now): rounds, stakes, returns and hold per game and per betting field, solo
and live table rounds together (a live round counts once, with every seat's bets), and each
field's actual return beside its exact RTP, computed by the exact analysis for the rules the
rounds were played under (cached on disk like ``analyze``; the first run per deck and card rules takes
seconds per game, other paytables then well under a second). ``--no-rtp`` skips it ("n/a").
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.cli._records import add_database_option, read_records, time_range
from dealerpoker.fairness.report import render_report, report_json, summarize


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "report", help=SUBCOMMANDS["report"],
        description="Rounds, stakes, returns and hold per game and field (solo and live rounds) for one "
                    "UTC day or a time range, with each field's actual return against its exact RTP.",
    )
    parser.add_argument("--date", default=None, help="one UTC day, e.g. 2026-11-29")
    parser.add_argument("--since", default=None,
                        help="instead of --date: from this date or ISO-8601 time (inclusive, UTC)")
    parser.add_argument("--until", default=None,
                        help="with --since: up to this date or time (exclusive; default now)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-rtp", action="store_true", help="skip the exact RTPs (shown as n/a)")
    add_database_option(parser)
    parser.set_defaults(func=run)


def exact_rtps(records: list[Any]) -> dict[str, dict[str, float | None]]:
    """Each field's exact RTP under the rules the records were played under.

    A field whose RTP differs between the rules documents a game's rounds were played under gets
    none (one RTP would not describe them all); documents differing only in what does not move
    the RTP (limits, timers) agree.
    """
    from dealerpoker.analysis import rtp as analysis_rtp
    from dealerpoker.cli._analysis_cache import DiskCache
    from dealerpoker.games.rules import rules_from_document

    documents: dict[str, dict[str, dict[str, Any]]] = {}
    for record in records:
        documents.setdefault(record["game"], {}).setdefault(record["rules_fingerprint"], record["rules"])
    table: dict[str, dict[str, float | None]] = {}
    for game, by_fingerprint in documents.items():
        each = [analysis_rtp.bet_rtps(rules_from_document(document), DiskCache())
                for document in by_fingerprint.values()]
        table[game] = {field: None if value is None or any(e.get(field) != value for e in each)
                       else float(value) for field, value in each[0].items()}
    return table


def run(args: argparse.Namespace) -> int:
    from dealerpoker.server.clock import timestamp

    start, end, label = time_range(args.date, args.since, args.until)
    records = read_records(args.database, start, end)
    games = summarize(records)
    rtp = {} if args.no_rtp else exact_rtps(records)
    if args.json:
        document = report_json(label, games, rtp)
        document.update(since=timestamp(start), until=None if end is None else timestamp(end))
        print(json.dumps(document, indent=2))
    else:
        print(render_report(label, games, rtp))
    return 0
