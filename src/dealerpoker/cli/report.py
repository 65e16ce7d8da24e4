"""`dealerpoker report`: the operator's daily report.

    dealerpoker report --date 2026-11-29 [--database URL] [--json]

Rounds settled that UTC day: rounds, stakes, returns and hold per game and per betting field,
and each field's actual return beside its exact RTP (as ``GET /api/games`` gives it; "n/a"
where it is not known).
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
    add_database_option(parser)
    parser.set_defaults(func=run)


def exact_rtps() -> dict[str, dict[str, float | None]]:
    """Each field's exact RTP as the server publishes it (None where not known)."""
    from dealerpoker.server.app import games_document, load_games
    from dealerpoker.server.settings import Settings

    document = games_document(load_games(Settings.from_env()))
    return {game["id"]: dict(game["rtp"]) for game in document["games"]}


def run(args: argparse.Namespace) -> int:
    try:
        day = datetime.date.fromisoformat(args.date)
    except ValueError:
        raise TimeArgumentError(f"--date {args.date!r}: expected a date like 2026-11-29") from None
    start = datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)
    records = read_records(args.database, start, start + datetime.timedelta(days=1))
    games = summarize(records)
    rtp = exact_rtps()
    if args.json:
        print(json.dumps(report_json(day.isoformat(), games, rtp), indent=2))
    else:
        print(render_report(day.isoformat(), games, rtp))
    return 0
