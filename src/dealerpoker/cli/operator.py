"""`dealerpoker operator sign`: the signature headers of a request to dealerpoker's operator API
(or of a wallet call), made from the shell (``dealerpoker.operator_signature``'s scheme).

    DEMO_OPERATOR_SECRET=... dealerpoker operator sign --operator demo \
        --secret-env DEMO_OPERATOR_SECRET GET "/operator/v1/transactions?since=2026-12-03" \
        | curl -s -H @- "http://127.0.0.1:8001/operator/v1/transactions?since=2026-12-03"

It prints one ``Name: value`` header a line (``X-Operator-Id`` with ``--operator``), which
``curl -H @-`` reads from its input. The secret comes from an environment variable or a file,
never the command line (``ps`` shows a command line to every user of the machine). A request
with a body signs its exact bytes: ``--body FILE`` (``-`` for standard input), sent with
``curl --data-binary @FILE``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from dealerpoker.cli import SUBCOMMANDS

SECRET_ENV = "DEALERPOKER_OPERATOR_SECRET"
METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH")


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "operator", help=SUBCOMMANDS["operator"],
        description="Tools for a casino (operator) talking to dealerpoker (docs/operators.md#signatures).")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sign = actions.add_parser(
        "sign", help="print the signature headers of a request, one 'Name: value' a line (for curl -H @-)",
        description="Sign a request with the operator's shared secret (DP-HMAC-SHA256-2: method, path "
                    "with query, time, a fresh nonce, body hash) and print its headers, one "
                    "'Name: value' a line, for curl -H @-. Each run makes a new nonce: sign each "
                    "request once, just before sending it (the signature holds 300 s).")
    sign.add_argument("method", metavar="METHOD", help=f"the request's method ({', '.join(METHODS)})")
    sign.add_argument("target", metavar="TARGET",
                      help="the path exactly as sent, with ?query if any: "
                           "/operator/v1/rounds/wallet?round=r_1")
    sign.add_argument("--operator", metavar="ID", help="add X-Operator-Id: ID (requests to dealerpoker)")
    sign.add_argument("--secret-env", metavar="NAME", default=SECRET_ENV,
                      help=f"the environment variable holding the shared secret (default ${SECRET_ENV})")
    sign.add_argument("--secret-file", metavar="FILE", help="a file holding the shared secret instead")
    sign.add_argument("--body", metavar="FILE",
                      help="the request's body, signed byte for byte ('-': standard input; default none)")
    sign.set_defaults(func=run)


def _problem(args: argparse.Namespace) -> str | None:
    if args.method.upper() not in METHODS:
        return f"METHOD: expected one of {', '.join(METHODS)}, got {args.method!r}"
    if not args.target.startswith("/"):
        return f"TARGET: expected the path as sent, starting with /, got {args.target!r}"
    if any(ord(c) < 33 or ord(c) > 126 for c in args.target):
        return f"TARGET: expected the path as sent (URL-encoded, no spaces), got {args.target!r}"
    if args.operator is not None and not args.operator.strip():
        return "--operator: expected the operator's id"
    return None


def _secret(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """(the secret, or None and the problem)."""
    if args.secret_file:
        try:
            with open(args.secret_file, encoding="utf-8") as file:
                found = file.read().strip()
        except OSError as error:
            return None, f"--secret-file {args.secret_file}: cannot read it: {error.strerror}"
        return (found, None) if found else (None, f"--secret-file {args.secret_file}: the file is empty")
    found = os.environ.get(args.secret_env, "")
    if not found:
        return None, (f"the operator's shared secret is required: set ${args.secret_env} "
                      "(or name another variable with --secret-env, or give --secret-file FILE)")
    return found, None


def _body(args: argparse.Namespace) -> tuple[bytes, str | None]:
    if args.body is None:
        return b"", None
    if args.body == "-":
        return sys.stdin.buffer.read(), None
    try:
        with open(args.body, "rb") as file:
            return file.read(), None
    except OSError as error:
        return b"", f"--body {args.body}: cannot read it: {error.strerror}"


def run(args: argparse.Namespace) -> int:
    from dealerpoker.operator_signature import OPERATOR_HEADER, sign_request

    secret, problem = _secret(args)
    problem = _problem(args) or problem
    body, unread = _body(args) if problem is None else (b"", None)
    problem = problem or unread
    if problem is not None or secret is None:
        print(f"dealerpoker operator sign: error: {problem}", file=sys.stderr)
        return 2
    headers = sign_request(secret, args.method.upper(), args.target, body)
    if args.operator is not None:
        headers = {OPERATOR_HEADER: args.operator, **headers}
    for name, value in headers.items():
        print(f"{name}: {value}")
    return 0
