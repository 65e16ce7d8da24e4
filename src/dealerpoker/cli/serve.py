"""`dealerpoker serve`: run the game server (REST API, web page) with uvicorn."""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import os
import shutil
import socket
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.games.rules import Rules
from dealerpoker.server.frames import UVICORN_WEBSOCKETS
from dealerpoker.server.observability.logs import log_config
from dealerpoker.server.operators.config import load_operators
from dealerpoker.server.responsible.policy import InvalidLimitError
from dealerpoker.server.settings import (
    DEFAULT_DATABASE_URL,
    Settings,
    SettingsError,
    parse_rate_limits,
    signing_key_file,
)


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve", help=SUBCOMMANDS["serve"],
        description="Serve the REST API, its OpenAPI description (/openapi.json; /docs with --docs) "
                    "and the web table. "
                    "Migrations run on start.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    parser.add_argument(
        "--database", metavar="URL", default=None,
        help=f"sqlite:///FILE or postgresql://USER@HOST:PORT/DB (default: $DEALERPOKER_DATABASE_URL, "
             f"else {DEFAULT_DATABASE_URL}, a file in the working directory)",
    )
    parser.add_argument("--database-pool", type=int, default=None, metavar="N",
                        help="PostgreSQL: the most connections each of a process's two pools holds; "
                             "players beyond them queue for one (default: $DEALERPOKER_DATABASE_POOL_SIZE, "
                             "else 10; docs/operations.md#database-connections)")
    parser.add_argument("--database-pool-timeout", type=float, default=None, metavar="SECONDS",
                        help="PostgreSQL: how long a request waits for a free connection before it is "
                             "answered 503 (default: $DEALERPOKER_DATABASE_POOL_TIMEOUT, else 30)")
    parser.add_argument("--starting-balance", type=int, default=None, metavar="CENTS",
                        help="balance of each new demo player in minor units (default 100000)")
    parser.add_argument("--currencies", metavar="FILE", default=None,
                        help="the currencies players may hold, with their limits, chips and demo balances "
                             "(TOML; default: $DEALERPOKER_CURRENCIES, else the shipped currencies.toml: "
                             "EUR, USD, GBP, JPY, KWD and mBTC, EUR by default)")
    parser.add_argument("--jackpot", metavar="FILE", default=None,
                        help="the progressive jackpot side bet's stake, awards, contribution, seed and "
                             "currency rates (TOML; default: $DEALERPOKER_JACKPOT, else the shipped "
                             "games/rules/jackpot.toml; docs/operators.md#the-progressive-jackpot)")
    parser.add_argument("--no-jackpot", action="store_true",
                        help="offer no jackpot bet ($DEALERPOKER_JACKPOT=off)")
    responsible = parser.add_argument_group(
        "responsible gaming", "the deployment's profile (docs/operations.md#responsible-gaming)")
    responsible.add_argument("--reality-check", type=int, default=None, metavar="MINUTES",
                             help="every MINUTES of a play session, pause between rounds until the player "
                                  "answers a reality check (default 0: never)")
    responsible.add_argument("--limit-cooling-off", type=float, default=None, metavar="HOURS",
                             help="a player's raised or removed limit applies only after HOURS (default 24)")
    responsible.add_argument("--session-gap", type=int, default=None, metavar="MINUTES",
                             help="a play session ends after MINUTES without a round (default 30)")
    responsible.add_argument("--min-round-seconds", type=float, default=None, metavar="SECONDS",
                             help="the least time between the starts of two rounds of a player (default 0)")
    responsible.add_argument("--fast-play", action="store_true", default=None,
                             help="let the table accept the next action before the step's animations end "
                                  "(default: not allowed; $DEALERPOKER_FAST_PLAY=1)")
    parser.add_argument("--abandon-after", type=float, default=None, metavar="SECONDS",
                        help="complete open rounds untouched this long with the default actions "
                             "(fold / check; default 3600)")
    parser.add_argument("--operators", metavar="FILE", default=None,
                        help="the casinos that launch their players here and own their money: ids, "
                             "secrets, wallet URLs, currencies (TOML; docs/operators.md; default: "
                             "$DEALERPOKER_OPERATORS, else none)")
    parser.add_argument("--verify-interval", type=float, default=None, metavar="SECONDS",
                        help="check the installed critical files against the software manifest every "
                             "SECONDS; a mismatch halts new rounds and bets (default: "
                             "$DEALERPOKER_VERIFY_INTERVAL, else 900; 0: at start only; "
                             "docs/certification.md)")
    parser.add_argument("--ledger-audit-interval", type=float, default=None, metavar="SECONDS",
                        help="run the ledger audit (dealerpoker audit-ledger) at start and every SECONDS, "
                             "logging each finding at ERROR (default: $DEALERPOKER_LEDGER_AUDIT_INTERVAL, "
                             "else 3600; 0: off)")
    parser.add_argument("--drain-seconds", type=float, default=None, metavar="SECONDS",
                        help="on SIGTERM, drain for at most SECONDS before stopping: take no new "
                             "connections, let each live table finish its round and hand it to another "
                             "process (default: $DEALERPOKER_DRAIN_SECONDS, else 90; docs/operations.md)")
    parser.add_argument("--signing-key", metavar="FILE", default=None,
                        help="the deployment's Ed25519 key (PEM) signing every round record, generated "
                             "there (0600) at the first start if absent (default: "
                             "$DEALERPOKER_SIGNING_KEY_FILE, else dealerpoker-signing.key in the working "
                             "directory); every process of a deployment must use the same file")
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
    parser.add_argument("--strategy-hint", action="store_true", default=None,
                        help="offer the players the strategy hint: the best decision and its exact EV at "
                             "each solo decision (default off; $DEALERPOKER_STRATEGY_HINT=1)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="serve from N processes sharing the port (default 1). More than one needs "
                             "PostgreSQL (--database) and Redis (--redis, for the live tables); "
                             "migrations run once before the workers start")
    edge = parser.add_argument_group("hardening", "limits, headers, docs (docs/operations.md#hardening)")
    edge.add_argument("--max-body-bytes", type=int, default=None, metavar="N",
                      help="answer 413 to a request body over N bytes, before reading it (default 65536)")
    edge.add_argument("--max-frame-bytes", type=int, default=None, metavar="N",
                      help="close a WebSocket (1009) whose client sends a message over N bytes "
                           "(default 65536)")
    edge.add_argument("--frame-ancestor", action="append", default=[], metavar="ORIGIN",
                      help="an origin (https://casino.example) whose pages may frame this server's; "
                           "repeatable (default: only this server's own pages)")
    edge.add_argument("--public-url", default=None, metavar="URL",
                      help="the address players reach this server at (https://games.example): "
                           "operators' launch addresses are built on it (default "
                           "$DEALERPOKER_PUBLIC_URL; else a launch answers a relative address)")
    edge.add_argument("--docs", action="store_true", default=None,
                      help="serve the OpenAPI description as a page at /docs (its assets from this server; "
                           "default off; /openapi.json is always served)")
    edge.add_argument("--rate-limit", action="append", default=[], metavar="NAME=LIMIT",
                      help="a rate limit, e.g. session=10/minute or request=off; repeatable "
                           "(names and defaults: docs/operations.md#rate-limits)")
    edge.add_argument("--rate-limit-exempt", action="append", default=[], metavar="ADDRESS",
                      help="a client address or network (10.0.0.7, 10.0.0.0/24) no rate limit applies to, "
                           "e.g. a load test's machine; repeatable (default: $DEALERPOKER_RATE_LIMIT_EXEMPT, "
                           "else none)")
    edge.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                      help="a reverse proxy (nginx) whose X-Forwarded-For names the client, for the rate "
                           "limits and logs; repeatable, * for any (default: $DEALERPOKER_TRUSTED_PROXIES, "
                           "else 127.0.0.1; docs/operations.md#behind-nginx)")
    parser.add_argument("--log-format", choices=("json", "text"), default="json",
                        help="log lines as JSON objects (default; each with the request_id of the request "
                             "being served) or as plain text")
    parser.add_argument("--access-log", action="store_true",
                        help="log one line per request (method, path, route, status, duration, client)")
    parser.add_argument("--log-level", default="info",
                        choices=("critical", "error", "warning", "info", "debug"))
    parser.set_defaults(func=run)


def cached_rtps(rules: Rules) -> Mapping[str, Fraction | None]:
    """Each field's exact RTP from the analysis cache (computed and cached on a miss)."""
    from dealerpoker.analysis.rtp import bet_rtps
    from dealerpoker.cli._analysis_cache import DiskCache

    return bet_rtps(rules, DiskCache())


#: How ``serve --workers N`` hands its options to the worker processes (JSON).
WORKER_OPTIONS = "DEALERPOKER_SERVE_WORKER_OPTIONS"
WORKER_HEALTHCHECK_SECONDS = 30
# The live tables' fan-out writes frames straight to the sockets (``server.frames``), uncompressed.
_UVICORN: dict[str, Any] = {"access_log": False, **UVICORN_WEBSOCKETS}


_PROFILE_OPTIONS = {"reality_check": "reality_check_minutes", "limit_cooling_off": "cooling_off_hours",
                    "session_gap": "session_gap_minutes", "min_round_seconds": "min_round_seconds",
                    "fast_play": "fast_play"}


def settings_of(args: argparse.Namespace, **overrides: Any) -> Settings:
    rules_files = {}
    for entry in args.rules:
        game, sep, path = entry.partition("=")
        if not sep or not path:
            raise SettingsError(f"--rules {entry!r}: expected GAME=FILE, e.g. texas-bonus=my-table.toml")
        rules_files[game] = path
    profile: dict[str, Any] = {name: getattr(args, option, None) for option, name in _PROFILE_OPTIONS.items()}
    profile = {name: value for name, value in profile.items() if value is not None}
    responsible = None
    if profile:
        try:
            responsible = replace(Settings.from_env().responsible_gaming, **profile)
        except InvalidLimitError as error:
            raise SettingsError(f"responsible gaming: {error}") from None
    ancestors = tuple(getattr(args, "frame_ancestor", None) or ()) or None
    rate_limits = None
    if getattr(args, "rate_limit", None):
        rate_limits = {**Settings.from_env().rate_limits, **parse_rate_limits(args.rate_limit)}
    return Settings.from_env(
        max_body_bytes=getattr(args, "max_body_bytes", None),
        max_frame_bytes=getattr(args, "max_frame_bytes", None),
        extra_frame_ancestors=ancestors, docs=getattr(args, "docs", None), rate_limits=rate_limits,
        public_url=getattr(args, "public_url", None),
        strategy_hint=getattr(args, "strategy_hint", None),
        redis_url=getattr(args, "redis", None),
        rate_limit_exempt=tuple(getattr(args, "rate_limit_exempt", None) or ()) or None,
        trusted_proxies=tuple(getattr(args, "trusted_proxy", None) or ()) or None,
        responsible_gaming=responsible,
        database_url=args.database,
        database_pool_size=getattr(args, "database_pool", None),
        database_pool_timeout_seconds=getattr(args, "database_pool_timeout", None),
        starting_balance=args.starting_balance,
        currencies_file=getattr(args, "currencies", None),
        jackpot_file=getattr(args, "jackpot", None),
        jackpot=False if getattr(args, "no_jackpot", False) else None,
        abandon_after_seconds=args.abandon_after,
        ledger_audit_interval_seconds=getattr(args, "ledger_audit_interval", None),
        verify_interval_seconds=getattr(args, "verify_interval", None),
        drain_seconds=getattr(args, "drain_seconds", None),
        signing_key_file=signing_key_file(getattr(args, "signing_key", None)),
        rules_files=rules_files or None,
        operators=load_operators(args.operators) if getattr(args, "operators", None) else None,
        **overrides,
    )


def software_verified() -> bool:
    """The installed critical files against the software manifest, before anything starts: a
    mismatch refuses to start, naming the files; a development checkout (no manifest) says so."""
    import sys

    from dealerpoker.certify.manifest import ManifestError, differences, load_manifest, package_root

    root = package_root()
    try:
        manifest = load_manifest(root)
    except ManifestError as error:
        print(f"dealerpoker serve: not starting: {error}", file=sys.stderr)
        return False
    if manifest is None:
        print("dealerpoker serve: development checkout: no software manifest, the installed files are not "
              "verified (`dealerpoker certify manifest` writes one; docs/certification.md)", file=sys.stderr)
        return True
    found = differences(root, manifest)
    if found:
        print(f"dealerpoker serve: not starting: {len(found)} critical file(s) differ from the software "
              f"manifest (build {manifest.get('build_id', '?')[:12]}): " + ", ".join(map(str, found)),
              file=sys.stderr)
        return False
    print(f"dealerpoker serve: software verified: {len(manifest['files'])} critical files match the "
          f"manifest (build {manifest.get('build_id', '?')[:12]})", file=sys.stderr)
    return True


def build_app(args: argparse.Namespace, **overrides: Any) -> Any:
    from dealerpoker.cli._analysis_cache import DiskCache
    from dealerpoker.server import create_app
    from dealerpoker.server.garbage import collect_less_often
    from dealerpoker.server.live.extension import live_extension_from

    app = create_app(settings_of(args, **overrides),
                     extensions=[live_extension_from(args.tables, args.redis)],
                     rtp_source=None if args.no_rtp else cached_rtps, analysis_cache=DiskCache())
    collect_less_often()  # a serve process only: thousands of sockets made full collections long
    return app


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from dealerpoker.server.db import is_sqlite

    if isinstance(args.workers, bool) or args.workers < 1:
        raise SettingsError(f"--workers: expected an integer >= 1, got {args.workers!r}")
    settings = settings_of(args)
    logs = log_config(args.log_level, getattr(args, "log_format", "json"),
                      access=getattr(args, "access_log", False))
    proxies: dict[str, Any] = {"forwarded_allow_ips": ",".join(settings.trusted_proxies)} \
        if settings.trusted_proxies else {}
    check_port_free(args.host, args.port)
    if not software_verified():
        return 2
    if args.tables:
        print(f"dealerpoker serve: live tables from {args.tables} only: the shipped example tables "
              "are not served", flush=True)
    if args.workers == 1:
        config = uvicorn.Config(build_app(args), host=args.host, port=args.port, log_level=args.log_level,
                                ws_max_size=settings.max_frame_bytes, log_config=logs, **proxies, **_UVICORN)
        announcing_server(config).run()
        return 0
    if is_sqlite(settings.database_url):
        raise SettingsError(f"--workers {args.workers}: several processes need a PostgreSQL database "
                            "(--database postgresql://...); SQLite has one writer, so one process "
                            "serves it best")
    if not (args.redis or os.environ.get("DEALERPOKER_REDIS_URL")):
        raise SettingsError(f"--workers {args.workers}: several processes need Redis (--redis URL) "
                            "to share the live tables")
    metrics_directory = None
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # /metrics sums the workers' values
        metrics_directory = tempfile.mkdtemp(prefix="dealerpoker-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_directory
    asyncio.run(prepare_database(settings))
    os.environ[WORKER_OPTIONS] = json.dumps({key: value for key, value in vars(args).items()
                                             if key != "func"})
    # uvicorn replaces a worker that does not answer its health check within the timeout (5 s by
    # default); a worker starved of CPU on a busy 2-core machine is not hung, and replacing it
    # would cut its players' connections.
    print(f"dealerpoker serve: starting {args.workers} processes serving {address(args.host, args.port)}",
          flush=True)
    try:
        uvicorn.run(f"{__name__}:worker_app", factory=True, workers=args.workers, host=args.host,
                    port=args.port, log_level=args.log_level, ws_max_size=settings.max_frame_bytes,
                    timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS, log_config=logs, **proxies,
                    **_UVICORN)
    finally:
        if metrics_directory is not None:
            shutil.rmtree(metrics_directory, ignore_errors=True)
    return 0


def address(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{'127.0.0.1' if host == '0.0.0.0' else shown}:{port}"


class PortInUseError(SettingsError):
    """The port ``serve`` was told to listen on is taken (by another ``serve``, such as ``make run``)."""


def check_port_free(host: str, port: int) -> None:
    """Refuse, in plain words, a port another process already listens on (rather than uvicorn's
    ``address already in use`` buried in JSON log lines)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as error:
            if error.errno != errno.EADDRINUSE:
                raise SettingsError(
                    f"--host {host} --port {port}: cannot listen there: {error.strerror}") from None
            raise PortInUseError(
                f"port {port} on {host} is already in use, perhaps by another dealerpoker serve (make run "
                f"serves on 8000): stop it, or serve on another port, e.g. --port {port + 1}") from None


def announcing_server(config: Any) -> Any:
    """A uvicorn server that says where it serves, in plain words on stdout, once it listens
    (whatever the log format: the log lines, JSON by default, go to stderr for machines)."""
    import uvicorn

    class Announcing(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started:
                where = address(config.host, config.port)
                print(f"dealerpoker serve: serving the casino at {where}/ (back office: {where}/admin/); "
                      "Ctrl+C stops it", flush=True)

    return Announcing(config)


def worker_app() -> Any:
    """The app of one ``serve --workers N`` process (uvicorn imports and calls this)."""
    args = argparse.Namespace(**json.loads(os.environ[WORKER_OPTIONS]))
    return build_app(args, run_migrations=False)  # the parent ran them once, before the workers


async def prepare_database(settings: Settings) -> None:
    """What every process would otherwise race to do at start: migrations, the rules documents."""
    import secrets

    from dealerpoker.server.app import load_offer
    from dealerpoker.server.clock import system_clock
    from dealerpoker.server.db import Database
    from dealerpoker.server.fairness import FairnessService
    from dealerpoker.server.signing import RecordSigner

    RecordSigner.from_file(settings.signing_key_file)  # created once, before the workers read it
    database = Database(settings.database_url)
    offer = load_offer(settings)
    try:
        await database.migrate(default_currency=offer.default_currency)
        await FairnessService(database, offer.games(), rng=secrets.SystemRandom(), clock=system_clock,
                              engines=offer.all_engines()).store_rules()
    finally:
        await database.dispose()
