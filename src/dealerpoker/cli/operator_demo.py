"""`dealerpoker operator-demo`: the reference operator (docs/operators.md#the-reference-operator)."""

from __future__ import annotations

import argparse
import os
import socket
import sys
from typing import Any

from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.errors import DealerPokerError


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "operator-demo", help=SUBCOMMANDS["operator-demo"],
        description="A casino's side of the seamless-wallet protocol: signed POST /balance, /bet, /win, "
                    "/rollback on its own SQLite ledger, fault injection, and a casino page (GET /) that "
                    "launches dealerpoker sessions into an iframe. Its administration (the page, /launch, "
                    "/admin/...) is unsigned and answers loopback clients only.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=9000,
                        help="TCP port (default 9000; 0: any free port, printed on start)")
    parser.add_argument("--db", metavar="FILE", default="operator-demo.db",
                        help="the operator's SQLite ledger (default operator-demo.db; created if missing)")
    parser.add_argument("--secret", default=None,
                        help="the secret shared with dealerpoker (default: $DEALERPOKER_OPERATOR_SECRET)")
    parser.add_argument("--operator-id", default="demo",
                        help="the operator's id at dealerpoker (default demo)")
    parser.add_argument("--game-url", default="http://127.0.0.1:8000",
                        help="dealerpoker's address, for launches (default http://127.0.0.1:8000)")
    parser.add_argument("--signature", choices=("request", "body-only"), default="request",
                        help="the signature scheme shared with dealerpoker: request (method, path, "
                             "timestamp, nonce, body; the default) or body-only (the old one, for an "
                             "operator set to it in dealerpoker's operators file)")
    faults = parser.add_argument_group("fault injection", "shares of all wallet calls (their sum at most 1)")
    faults.add_argument("--fail-rate", type=float, default=0.0, metavar="R",
                        help="answer ERROR without applying the call")
    faults.add_argument("--timeout-rate", type=float, default=0.0, metavar="R",
                        help="hold the call --timeout-seconds without applying it, then drop the connection")
    faults.add_argument("--drop-after-commit-rate", type=float, default=0.0, metavar="R",
                        help="apply the call, then drop the connection (the answer is lost)")
    faults.add_argument("--timeout-seconds", type=float, default=10.0, metavar="S",
                        help="how long a timed-out call is held (default 10, past the client's timeout)")
    faults.add_argument("--seed", type=int, default=None, metavar="N", help="seed of the fault draws")
    parser.add_argument("--log-level", default="info",
                        choices=("critical", "error", "warning", "info", "debug"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import logging

    import uvicorn

    from dealerpoker.operator_demo.app import asgi, create_app
    from dealerpoker.operator_demo.faults import Faults, FaultsError
    from dealerpoker.operator_demo.launch import Launcher
    from dealerpoker.operator_demo.ledger import Ledger

    secret = args.secret if args.secret is not None else os.environ.get("DEALERPOKER_OPERATOR_SECRET", "")
    if not secret:
        raise DealerPokerError(
            "give the secret shared with dealerpoker: --secret or $DEALERPOKER_OPERATOR_SECRET")
    if not 0 <= args.port <= 65535:
        raise DealerPokerError(f"--port {args.port} is not a TCP port")
    try:
        faults = Faults(fail_rate=args.fail_rate, timeout_rate=args.timeout_rate,
                        drop_after_commit_rate=args.drop_after_commit_rate,
                        timeout_seconds=args.timeout_seconds, seed=args.seed)
    except FaultsError as problem:
        raise DealerPokerError(str(problem).replace("_rate", "-rate").replace("_", "-")) from None
    try:
        ledger = Ledger(args.db)
    except Exception as problem:  # sqlite3.Error and OSError: the file cannot be a ledger
        raise DealerPokerError(f"--db {args.db}: {problem}") from None
    launcher = Launcher(args.game_url, args.operator_id, secret, signature=args.signature)
    app = create_app(ledger, secret=secret, faults=faults, launcher=launcher, signature=args.signature)
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as problem:
        raise DealerPokerError(f"cannot listen on {args.host}:{args.port}: {problem.strerror}") from None
    port = sock.getsockname()[1]
    logging.basicConfig(level=args.log_level.upper(), format="operator-demo %(levelname)s %(message)s")
    print(f"operator-demo: operator {args.operator_id!r} on http://{args.host}:{port}, ledger {args.db}, "
          f"dealerpoker at {args.game_url}", flush=True)
    # Idle connections kept 30 s, well past the game server's own keep-alive (it closes first: a
    # call sent on a connection this side is closing would get no answer).
    config = uvicorn.Config(asgi(app), log_level=args.log_level, access_log=False, lifespan="off",
                            timeout_keep_alive=30)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        ledger.close()
        sys.stdout.flush()
    return 0
