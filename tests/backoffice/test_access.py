"""Staff accounts, sessions and roles (issue 18, "Access"): argon2 hashes, the one-time password,
TOTP, lockout, HttpOnly SameSite=Strict cookies with CSRF, 403 from the server for every role's
refusals, and the append-only admin audit log."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyotp
import pytest
from sqlalchemy import select, text
from tests.support import passwords
from tests.support.servers import DEALERPOKER

from dealerpoker.cli import main
from dealerpoker.server.backoffice import staff
from dealerpoker.server.backoffice.access import PERMISSIONS, ROLES
from dealerpoker.server.db import Database
from dealerpoker.server.schema import admin_audit, staff_users

from .support import PASSWORD, StaffMember, create_staff, sign_in


def test_a_deployment_stores_argon2id_hashes_at_rfc_9106_parameters(tmp_path: Path) -> None:
    """What a real process stores (the tests' own hash cheaply: tests/support/passwords.py): a
    `dealerpoker admin create-user` process's hash is argon2id at 64 MiB, 3 passes, 4 lanes, and
    the one-time password it prints verifies against it."""
    hashed, once = _created_admin(tmp_path, os.environ)
    assert hashed.startswith("$argon2id$v=19$m=65536,t=3,p=4$"), hashed
    assert passwords.PRODUCTION.verify(hashed, once) and not passwords.PRODUCTION.check_needs_rehash(hashed)
    assert (passwords.PRODUCTION.memory_cost, passwords.PRODUCTION.time_cost) == (65536, 3)


def test_a_process_a_test_starts_with_the_cheap_site_hashes_at_argon2s_floor(tmp_path: Path) -> None:
    """``passwords.in_processes``: the same command, started by a test that asks for it, hashes
    with the tests' parameters (its own verification too)."""
    hashed, once = _created_admin(tmp_path, passwords.in_processes(os.environ))
    assert passwords.is_cheap(hashed), hashed
    assert passwords.CHEAP.verify(hashed, once)


def _created_admin(tmp_path: Path, env: Mapping[str, str]) -> tuple[str, str]:
    """The stored hash and the one-time password of an admin made by a `dealerpoker admin
    create-user` process with ``env``."""
    database = f"sqlite:///{tmp_path / 'staff.db'}"
    made = subprocess.run([DEALERPOKER, "admin", "create-user", "ida", "--role", "admin", "--database",
                           database], capture_output=True, text=True, timeout=120, check=True, env=env)
    once = next(line.split(": ", 1)[1] for line in made.stdout.splitlines()
                if line.startswith("one-time password"))

    async def stored() -> str:
        found = Database(database)
        try:
            async with found.transaction() as connection:
                return str(await connection.scalar(select(staff_users.c.password_hash)))
        finally:
            await found.dispose()

    return asyncio.run(stored()), once


def test_passwords_are_stored_as_argon2id_hashes_and_the_first_must_be_replaced(client: Any) -> None:
    made = create_staff(client, "ada", "admin")
    services = client.app.state.services

    async def stored() -> str:
        async with services.database.transaction() as connection:
            return str(await connection.scalar(select(staff_users.c.password_hash)))

    hashed = client.portal.call(stored)
    assert hashed.startswith("$argon2id$") and made.password not in hashed
    cookie, csrf = sign_in(client, "ada", made.password)
    headers = {"Cookie": f"dp_staff={cookie}", "X-CSRF-Token": csrf}
    me = client.get("/admin/api/session", headers=headers).json()
    assert me["must_change_password"] and me["role"] == "admin"
    refused = client.get("/admin/api/audit", headers=headers)
    assert refused.status_code == 403 and refused.json()["error"] == "password_change_required"
    short = client.post("/admin/api/password", json={"current": made.password, "new": "short"},
                        headers=headers)
    assert short.status_code == 422
    changed = client.post("/admin/api/password", json={"current": made.password, "new": PASSWORD},
                          headers=headers)
    assert changed.status_code == 200
    assert client.get("/admin/api/audit", headers=headers).status_code == 200
    wrong = client.post("/admin/api/session", json={"name": "ada", "password": made.password})
    assert wrong.status_code == 401 and wrong.json()["error"] == "login_failed"


def test_the_session_cookie_is_httponly_and_samesite_strict(client: Any) -> None:
    made = create_staff(client, "bea", "support")
    answer = client.post("/admin/api/session", json={"name": "bea", "password": made.password})
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/admin" in cookie
    client._client.cookies.clear()


def test_a_change_without_the_csrf_token_is_refused_and_changes_nothing(client: Any) -> None:
    member = StaffMember(client, "cy", "admin")
    change = {"current": PASSWORD, "new": "another long password"}
    refused = member.post("/admin/api/password", change, csrf=False)
    assert refused.status_code == 403 and refused.json()["error"] == "csrf_failed"
    sign_in(client, "cy", PASSWORD)  # still the old password
    assert member.delete("/admin/api/session", csrf=False).status_code == 403
    assert member.delete("/admin/api/session").status_code == 200
    assert member.get("/admin/api/session").status_code == 401


@pytest.mark.slow
def test_repeated_failures_lock_the_account_and_the_lock_is_audited(client: Any, clock: Any) -> None:
    member = StaffMember(client, "dee", "auditor")
    for _ in range(staff.LOCK_AFTER):
        failed = client.post("/admin/api/session", json={"name": "dee", "password": "wrong password!"})
        assert failed.status_code == 401
    locked = client.post("/admin/api/session", json={"name": "dee", "password": PASSWORD})
    assert locked.status_code == 429 and locked.json()["error"] == "account_locked"
    clock.advance(staff.LOCK_MINUTES * 60 + 1)
    sign_in(client, "dee", PASSWORD)
    entries = member.get("/admin/api/audit", action="staff.locked").json()["entries"]
    assert [entry["target"] for entry in entries if entry["target"].startswith("dee")] == ["dee"]


def test_an_unknown_name_is_refused_like_a_wrong_password(client: Any) -> None:
    answer = client.post("/admin/api/session", json={"name": "nobody", "password": "whatever it is"})
    assert answer.status_code == 401 and answer.json()["error"] == "login_failed"


def test_a_user_with_totp_needs_the_current_code(client: Any, clock: Any) -> None:
    made = create_staff(client, "eve", "admin", totp=True)
    assert made.totp_uri is not None
    secret = pyotp.parse_uri(made.totp_uri).secret
    without = client.post("/admin/api/session", json={"name": "eve", "password": made.password})
    assert without.status_code == 401
    wrong = client.post("/admin/api/session",
                        json={"name": "eve", "password": made.password, "code": "000000"})
    assert wrong.status_code == 401 or pyotp.TOTP(secret).at(clock.now) == "000000"
    code = pyotp.TOTP(secret).at(clock.now)
    sign_in(client, "eve", made.password, code)


@pytest.mark.parametrize("role", ROLES)
def test_each_role_reads_the_audit_log_only_if_allowed(client: Any, role: str) -> None:
    member = StaffMember(client, f"r-{role}", role)
    answer = member.get("/admin/api/audit")
    assert answer.status_code == (200 if "audit.view" in PERMISSIONS[role] else 403)


SIGN_IN = ("post", "/admin/api/session")  # the one back-office call made without a session
BODIES: list[Any] = [None, {}, {"a": "x" * 3, "n": 2**70}, [1, "x"]]  # (the edge refuses NUL first)


def test_without_a_session_every_back_office_call_is_401(client: Any) -> None:
    """Every operation of the back office the OpenAPI document names (but signing in), whatever its
    path parameters and body: 401 ``unauthorized``, before the body is read. (The schemathesis run
    without a staff session leaves these out: its generated cases met only this.)"""
    calls = [(method, path) for path, item in client.app.openapi()["paths"].items()
             if path.startswith("/admin/api/") for method in item if (method, path) != SIGN_IN]
    assert len(calls) >= 27, calls
    for method, path in calls:
        for body in BODIES if method != "get" else [None]:
            answer = client.request(method.upper(), path.replace("{", "x-").replace("}", ""), json=body)
            assert answer.status_code == 401, (method, path, body, answer.text)
            assert answer.json()["error"] == "unauthorized", (method, path, answer.text)


def test_the_audit_log_is_append_only_in_the_database(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'audit.db'}"
    assert main(["admin", "create-user", "fay", "--role", "admin", "--database", url]) == 0

    async def tamper() -> list[str]:
        database = Database(url)
        refusals = []
        try:
            for statement in ("UPDATE admin_audit SET actor = 'someone else'", "DELETE FROM admin_audit"):
                try:
                    async with database.transaction() as connection:
                        await connection.execute(text(statement))
                except Exception as error:  # the trigger's refusal
                    refusals.append(str(error))
            async with database.transaction() as connection:
                rows = (await connection.execute(select(admin_audit.c.actor, admin_audit.c.action))).all()
        finally:
            await database.dispose()
        assert [tuple(row) for row in rows] == [("cli", "staff.create")]
        return refusals

    refusals = asyncio.run(tamper())
    assert len(refusals) == 2 and all("append-only" in refusal for refusal in refusals)


def test_create_user_prints_a_one_time_password(tmp_path: Any, capsys: Any) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["admin", "create-user", "gus", "--role", "support", "--totp", "--database", url]) == 0
    printed = capsys.readouterr().out
    assert "one-time password: " in printed and "otpauth://totp/" in printed
    assert main(["admin", "create-user", "gus", "--role", "support", "--database", url]) == 2
    assert "taken" in capsys.readouterr().err
