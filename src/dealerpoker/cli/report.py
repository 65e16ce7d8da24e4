"""`dealerpoker report`: the operator's daily report.

    dealerpoker report --date 2026-11-29 [--database URL] [--json]

Rounds settled that UTC day: rounds, stakes, returns and hold per game and per betting field,
and each field's actual return beside its exact RTP, computed by the exact analysis for the
rules the day's rounds were played under (cached on disk like ``analyze``; the first run per
rules takes about half a minute per game). ``--no-rtp`` skips it ("n/a").
"""

from __future__ import annotations

import argparse
import datetime
import json
from typing import Any

from dealerpoker.cli._records import TimeArgumentError, add_database_option, read_records
from dealerpoker.fairness.report import render_report, report_json, summarize


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "report", help="daily operator report",
        description="Rounds, stakes, returns and hold per game and field for one UTC day, with each "
                    "field's actual return against its exact RTP.",
    )
    parser.add_argument("--date", required=True, help="the UTC day, e.g. 2026-11-29")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-rtp", action="store_true", help="skip the exact RTPs (shown as n/a)")
    add_database_option(parser)
    parser.set_defaults(func=run)


def exact_rtps(records: list[Any]) -> dict[str, dict[str, float | None]]:
    """Each field's exact RTP under the rules the records were played under.

    A game whose rounds that day were played under more than one rules document gets none
    (one RTP would not describe them all).
    """
    from dealerpoker.analysis import rtp as analysis_rtp
    from dealerpoker.cli._analysis_cache import DiskCache
    from dealerpoker.games.rules import rules_from_document

    documents: dict[str, dict[str, Any]] = {}
    fingerprints: dict[str, set[str]] = {}
    for record in records:
        documents.setdefault(record["game"], record["rules"])
        fingerprints.setdefault(record["game"], set()).add(record["rules_fingerprint"])
    table: dict[str, dict[str, float | None]] = {}
    for game, document in documents.items():
        if len(fingerprints[game]) > 1:
            continue
        exact = analysis_rtp.bet_rtps(rules_from_document(document), DiskCache())
        table[game] = {field: None if value is None else float(value) for field, value in exact.items()}
    return table


def run(args: argparse.Namespace) -> int:
    try:
        day = datetime.date.fromisoformat(args.date)
    except ValueError:
        raise TimeArgumentError(f"--date {args.date!r}: expected a date like 2026-11-29") from None
    start = datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)
    records = read_records(args.database, start, start + datetime.timedelta(days=1))
    games = summarize(records)
    rtp = {} if args.no_rtp else exact_rtps(records)
    if args.json:
        print(json.dumps(report_json(day.isoformat(), games, rtp), indent=2))
    else:
        print(render_report(day.isoformat(), games, rtp))
    return 0
