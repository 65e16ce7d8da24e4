"""`dealerpoker serve`: run the game server (REST API, web page) with uvicorn."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from dealerpoker.games.rules import Rules
from dealerpoker.server.settings import DEFAULT_DATABASE_URL


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve", help="run the game server",
        description="Serve the REST API, its OpenAPI docs (/docs) and the web table. "
                    "Migrations run on start.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    parser.add_argument(
        "--database", metavar="URL", default=None,
        help=f"sqlite:///FILE or postgresql://USER@HOST:PORT/DB (default: $DEALERPOKER_DATABASE_URL, "
             f"else {DEFAULT_DATABASE_URL}, a file in the working directory)",
    )
    parser.add_argument("--starting-balance", type=int, default=None, metavar="CENTS",
                        help="balance of each new demo player in minor units (default 100000)")
    parser.add_argument("--abandon-after", type=float, default=None, metavar="SECONDS",
                        help="complete open rounds untouched this long with the default actions "
                             "(fold / check; default 3600)")
    parser.add_argument("--rules", action="append", default=[], metavar="GAME=FILE",
                        help="a TOML file merged over GAME's shipped rules (limits, paytables); repeatable")
    parser.add_argument("--tables", metavar="FILE", default=None,
                        help="live tables configuration (TOML; default: the shipped example with one "
                             "texas-bonus and one casino-holdem table)")
    parser.add_argument("--redis", metavar="URL", default=None,
                        help="share live tables between several serve processes through Redis "
                             "(default: $DEALERPOKER_REDIS_URL, else one process)")
    parser.add_argument("--no-rtp", action="store_true",
                        help="do not run the exact analysis for the RTPs in GET /api/games (null RTPs); "
                             "by default they come from the analysis cache, computed once in the background")
    parser.add_argument("--log-level", default="info",
                        choices=("critical", "error", "warning", "info", "debug"))
    parser.set_defaults(func=run)


def cached_rtps(rules: Rules) -> Mapping[str, Fraction | None]:
    """Each field's exact RTP from the analysis cache (computed and cached on a miss)."""
    from dealerpoker.analysis.rtp import bet_rtps
    from dealerpoker.cli._analysis_cache import DiskCache

    return bet_rtps(rules, DiskCache())


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from dealerpoker.server import Settings, create_app
    from dealerpoker.server.live.service import live_extension_from
    from dealerpoker.server.settings import SettingsError

    rules_files = {}
    for entry in args.rules:
        game, sep, path = entry.partition("=")
        if not sep or not path:
            raise SettingsError(f"--rules {entry!r}: expected GAME=FILE, e.g. texas-bonus=my-table.toml")
        rules_files[game] = path
    settings = Settings.from_env(
        database_url=args.database,
        starting_balance=args.starting_balance,
        abandon_after_seconds=args.abandon_after,
        rules_files=rules_files or None,
    )
    app = create_app(settings, extensions=[live_extension_from(args.tables, args.redis)],
                     rtp_source=None if args.no_rtp else cached_rtps)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=False,
                ws="websockets-sansio", ws_per_message_deflate=False)
    return 0
