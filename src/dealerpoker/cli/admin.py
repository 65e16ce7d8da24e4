"""`dealerpoker admin`: staff accounts of the back office (``/admin/`` in the browser), and
ending a player's sessions.

    dealerpoker admin create-user NAME --role admin|support|auditor [--totp] [--database URL]
    dealerpoker admin revoke-sessions PLAYER_ID [--database URL]

Prints the new account's one-time password once (it is stored only as its argon2 hash, and must
be replaced at the first sign-in); with ``--totp`` also the secret to scan into an authenticator
app (a code is then asked at every sign-in). The creation is written to the admin audit log.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.cli._records import add_database_option


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "admin", help=SUBCOMMANDS["admin"],
        description="Manage the staff accounts of the back office (/admin/ in the browser).")
    commands = parser.add_subparsers(dest="admin_command", metavar="ACTION", required=True)
    create = commands.add_parser("create-user", help="create a staff account; prints its one-time password")
    create.add_argument("name", help="the sign-in name (1-64 characters)")
    create.add_argument("--role", required=True, choices=("admin", "support", "auditor"),
                        help="admin: everything; support: read players and rounds; auditor: read-only, "
                             "records, reports and verification")
    create.add_argument("--totp", action="store_true", help="require a TOTP code (authenticator app) too")
    add_database_option(create)
    create.set_defaults(func=create_user)
    revoke = commands.add_parser("revoke-sessions", help="end every session (bearer token) of a player")
    revoke.add_argument("player", help="the player's id (p_...)")
    add_database_option(revoke)
    revoke.set_defaults(func=revoke_sessions)


def revoke_sessions(args: argparse.Namespace) -> int:
    """End every session of a player at once (a stolen token, a closed account); audited."""
    from dealerpoker.server.backoffice import audit
    from dealerpoker.server.clock import system_clock, timestamp
    from dealerpoker.server.db import Database
    from dealerpoker.server.sessions import end_all_sessions
    from dealerpoker.server.settings import Settings

    settings = Settings.from_env(database_url=args.database)

    async def revoke() -> int:
        database = Database(settings.database_url)
        try:
            await database.migrate()
            at = timestamp(system_clock())
            ended = await end_all_sessions(database, args.player, at=at)
            async with database.transaction() as connection:
                await audit.record(connection, at=at, actor="cli", action="sessions.revoke",
                                   target=args.player, after={"ended": ended})
            return ended
        finally:
            await database.dispose()

    print(f"ended {asyncio.run(revoke())} session(s) of {args.player}")
    return 0


def create_user(args: argparse.Namespace) -> int:
    from dealerpoker.server.backoffice import staff
    from dealerpoker.server.clock import system_clock, timestamp
    from dealerpoker.server.db import Database
    from dealerpoker.server.settings import Settings

    settings = Settings.from_env(database_url=args.database)

    async def create() -> staff.NewStaff:
        database = Database(settings.database_url)
        try:
            await database.migrate()
            async with database.transaction() as connection:
                return await staff.create_user(connection, args.name, args.role, totp=args.totp,
                                               at=timestamp(system_clock()))
        finally:
            await database.dispose()

    made = asyncio.run(create())
    print(f"created {made.user.role} {made.user.name!r}")
    print(f"one-time password: {made.password}")
    print("(shown once; it must be replaced at the first sign-in)")
    if made.totp_uri is not None:
        print(f"TOTP (scan into an authenticator app): {made.totp_uri}")
    return 0
