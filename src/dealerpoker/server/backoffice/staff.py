"""Staff accounts of the back office: passwords, the optional second factor, lockout, sessions.

* A password is stored only as an argon2id hash (``argon2-cffi``: memory-hard, salted; a hash
  made with older parameters is rehashed at the next sign-in). ``create_user`` draws the first
  password and answers it once (``dealerpoker admin create-user`` prints it); it must be
  replaced at the first sign-in, before anything else is allowed.
* A TOTP second factor (RFC 6238, ``pyotp``) is optional per user.
* ``LOCK_AFTER`` failed sign-ins in a row for one name from one client address lock that name
  from that address for ``LOCK_MINUTES``; a success resets the count. The count is one atomic
  statement (``INSERT ... ON CONFLICT DO UPDATE ... RETURNING``), so failures sent at once all
  count. An unknown name is counted and locked alike and costs a hash verification as well, so
  neither the answers nor their timing tell a known name from an unknown one; and a stranger
  cannot lock a member out from another address.
* A session is a random token in an HttpOnly, SameSite=Strict cookie (stored here as its SHA-256)
  with its own CSRF token, which every change must send back in ``X-CSRF-Token``.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pyotp
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import and_, case, delete, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.backoffice import audit
from dealerpoker.server.backoffice.access import ROLES
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Connection
from dealerpoker.server.schema import staff_login_failures, staff_sessions, staff_users

LOCK_AFTER = 5
LOCK_MINUTES = 15
SESSION_HOURS = 8
MIN_PASSWORD = 12
_HASHER = PasswordHasher()


@functools.cache
def _dummy_hash() -> str:
    """What an unknown name's password is verified against, made at the process's first sign-in
    rather than at import (an argon2 hash: 0.2 s of CPU for every process that imports the server,
    a `serve` or a command, most of which never sign anyone in)."""
    return _HASHER.hash(secrets.token_urlsafe(16))


class StaffError(DealerPokerError, ValueError):
    """Bad input to a staff operation (an unknown role, a short password...)."""

    code = "invalid_request"
    status = 422


class LoginFailedError(DealerPokerError, ValueError):
    """Wrong name, password or second-factor code (which one is not said)."""

    code = "login_failed"
    status = 401


class LockedError(DealerPokerError, ValueError):
    """Too many failed sign-ins in a row: the account is locked for a while."""

    code = "account_locked"
    status = 429


@dataclass(frozen=True, slots=True)
class StaffUser:
    id: str
    name: str
    role: str
    must_change_password: bool
    totp: bool


@dataclass(frozen=True, slots=True)
class NewStaff:
    user: StaffUser
    password: str
    totp_uri: str | None


@dataclass(frozen=True, slots=True)
class Session:
    user: StaffUser
    token: str | None
    """The cookie's value (only when the session was just created)."""
    csrf: str


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _user(row: dict[str, object]) -> StaffUser:
    return StaffUser(str(row["id"]), str(row["name"]), str(row["role"]), bool(row["must_change_password"]),
                     row["totp_secret"] is not None)


async def create_user(connection: Connection, name: str, role: str, *, at: str, actor: str = "cli",
                      totp: bool = False) -> NewStaff:
    """A staff account with a one-time password (answered once, stored only as its hash)."""
    name = name.strip()
    if not name or len(name) > 64 or not name.isprintable():
        raise StaffError(f"staff name: expected 1-64 printable characters, got {name!r}")
    if role not in ROLES:
        raise StaffError(f"role: expected one of {', '.join(ROLES)}, got {role!r}")
    if await connection.scalar(select(staff_users.c.id).where(staff_users.c.name == name)) is not None:
        raise StaffError(f"staff name {name!r} is taken")
    password = secrets.token_urlsafe(15)
    secret = pyotp.random_base32() if totp else None
    user = StaffUser("s_" + secrets.token_hex(8), name, role, True, totp)
    await connection.execute(insert(staff_users).values(
        id=user.id, name=name, role=role, password_hash=_HASHER.hash(password), must_change_password=1,
        totp_secret=secret, created_at=at))
    await audit.record(connection, at=at, actor=actor, action="staff.create", target=name,
                       after={"role": role, "totp": totp})
    uri = None if secret is None else \
        pyotp.TOTP(secret).provisioning_uri(name=name, issuer_name="dealerpoker")
    return NewStaff(user, password, uri)


async def find(connection: Connection, name: str) -> dict[str, object] | None:
    """A staff member's row by name (a name longer than any stored is not looked up)."""
    if len(name) > 64:
        return None
    found = await connection.execute(select(staff_users).where(staff_users.c.name == name))
    row = found.mappings().first()
    return None if row is None else dict(row)


def check(row: dict[str, object] | None, password: str, code: str | None, *, now: datetime) -> bool:
    """Whether the password (and code) are right for ``row`` (None: an unknown name, which costs a
    verification too). Slow on purpose (argon2): run it off the event loop. Ask :func:`lock_of`
    first."""
    unknown = _dummy_hash()  # made here for a known name too: the first sign-in costs it either way
    if row is None:
        _verify(unknown, password)
        return False
    good = _verify(str(row["password_hash"]), password)
    if good and row["totp_secret"] is not None:
        good = code is not None and pyotp.TOTP(str(row["totp_secret"])).verify(code, for_time=now,
                                                                                valid_window=1)
    return good


_FAILURES = staff_login_failures.c


async def lock_of(connection: Connection, name: str, address: str, *, now: datetime) -> None:
    """``LockedError`` if ``name`` is locked from ``address`` (known name or not)."""
    found = await connection.execute(select(_FAILURES.locked_until).where(
        _FAILURES.name == name[:64], _FAILURES.address == address[:64],
        _FAILURES.locked_until > timestamp(now)))
    until = found.scalar()
    if until is not None:
        raise LockedError(f"too many failed sign-ins: locked until {until}")


async def failed(connection: Connection, name: str, address: str, *, now: datetime, known: bool) -> None:
    """Count a failed sign-in of ``name`` from ``address`` in one statement (failures sent at once
    all count); the ``LOCK_AFTER``-th in a row locks that name from that address (audited)."""
    at = timestamp(now)
    dialect: Any = postgresql if connection.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(staff_login_failures).values(
        name=name[:64], address=address[:64], failures=1, locked_until=None, updated_at=at)
    expired = and_(_FAILURES.locked_until.is_not(None), _FAILURES.locked_until <= at)
    statement = statement.on_conflict_do_update(
        index_elements=["name", "address"],
        set_={"failures": case((expired, 1), else_=_FAILURES.failures + 1),
              "locked_until": case((expired, None), else_=_FAILURES.locked_until), "updated_at": at},
    ).returning(_FAILURES.failures)
    failures = int((await connection.execute(statement)).scalar_one())
    if failures < LOCK_AFTER:
        return
    locked = timestamp(now + timedelta(minutes=LOCK_MINUTES))
    result = await connection.execute(update(staff_login_failures).where(
        _FAILURES.name == name[:64], _FAILURES.address == address[:64],
        or_(_FAILURES.locked_until.is_(None), _FAILURES.locked_until <= at)).values(
        locked_until=locked, failures=0))
    if result.rowcount:
        await audit.record(connection, at=at, actor=name[:64], action="staff.locked", target=name,
                           after={"locked_until": locked, "address": address, "known": known})


async def open_session(connection: Connection, row: dict[str, object], password: str, *, address: str,
                       now: datetime) -> Session:
    """A new session for a member whose credentials ``check`` accepted (their failures from that
    address forgotten), unless failures counted meanwhile locked them (``LockedError``)."""
    await lock_of(connection, str(row["name"]), address, now=now)
    await connection.execute(delete(staff_login_failures).where(
        _FAILURES.name == str(row["name"]), _FAILURES.address == address[:64]))
    if _HASHER.check_needs_rehash(str(row["password_hash"])):
        await connection.execute(update(staff_users).where(staff_users.c.id == row["id"]).values(
            password_hash=_HASHER.hash(password)))
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
    await connection.execute(insert(staff_sessions).values(
        token_hash=token_hash(token), user_id=row["id"], csrf=csrf, created_at=timestamp(now),
        expires_at=timestamp(now + timedelta(hours=SESSION_HOURS))))
    return Session(_user(row), token, csrf)


def _verify(hashed: str, password: str) -> bool:
    try:
        return bool(_HASHER.verify(hashed, password))
    except (VerificationError, InvalidHashError):
        return False


async def session_for(connection: Connection, token: str, *, now: datetime) -> Session | None:
    """The live session of a cookie's token, or None (unknown or expired)."""
    found = await connection.execute(
        select(staff_users, staff_sessions.c.csrf, staff_sessions.c.expires_at)
        .select_from(staff_sessions.join(staff_users, staff_users.c.id == staff_sessions.c.user_id))
        .where(staff_sessions.c.token_hash == token_hash(token)))
    row = found.mappings().first()
    if row is None or row["expires_at"] <= timestamp(now):
        return None
    return Session(_user(dict(row)), None, str(row["csrf"]))


async def sign_out(connection: Connection, token: str) -> None:
    await connection.execute(delete(staff_sessions).where(staff_sessions.c.token_hash == token_hash(token)))


def new_password_hash(hashed: str, current: str, new: str) -> str:
    """The hash of ``new`` if ``current`` is right and ``new`` long enough and new (slow: argon2)."""
    if not _verify(hashed, current):
        raise LoginFailedError("the current password is wrong")
    if len(new) < MIN_PASSWORD or len(new) > 200:
        raise StaffError(f"new password: expected {MIN_PASSWORD}-200 characters, got {len(new)}")
    if new == current:
        raise StaffError("new password: must differ from the current one")
    return _HASHER.hash(new)


async def password_hash(connection: Connection, user: StaffUser) -> str:
    found = await connection.scalar(select(staff_users.c.password_hash).where(staff_users.c.id == user.id))
    return str(found)


async def set_password(connection: Connection, user: StaffUser, hashed: str, *, at: str,
                       keep_token: str | None = None) -> int:
    """Store a new password hash (from ``new_password_hash``): the one-time password is gone, and
    every other session of the member ends (a session opened with the old password, perhaps by
    whoever learnt it); ``keep_token``: the session that changed it. The sessions ended."""
    await connection.execute(update(staff_users).where(staff_users.c.id == user.id).values(
        password_hash=hashed, must_change_password=0))
    others = delete(staff_sessions).where(staff_sessions.c.user_id == user.id)
    if keep_token is not None:
        others = others.where(staff_sessions.c.token_hash != token_hash(keep_token))
    ended = int((await connection.execute(others)).rowcount or 0)
    await audit.record(connection, at=at, actor=user.name, action="staff.password", target=user.name,
                       after={"other_sessions_ended": ended})
    return ended
