"""Issue 15 item 11: `dealerpoker audit-ledger` runs the ledger invariants on a database and exits
non-zero on any finding, printing each; the server runs the audit periodically and logs each
finding at ERROR. Checked on SQLite and PostgreSQL with a deliberately corrupted ledger."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, update
from tests.support.waiting import until_async

from dealerpoker.games.currency import house_account
from dealerpoker.server import Settings, create_app, ledger
from dealerpoker.server import app as server_app
from dealerpoker.server.accounts import create_player
from dealerpoker.server.db import Database
from dealerpoker.server.ledger import audit_database
from dealerpoker.server.schema import accounts, ledger_entries

AT = "2026-01-01T00:00:00.000000Z"
COMMAND = str(Path(sys.executable).with_name("dealerpoker"))


def audit_ledger(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([COMMAND, "audit-ledger", "--database", url], capture_output=True, text=True,
                          timeout=120)


def sound_ledger(url: str) -> str:
    """A migrated database with two players who moved money to the house; returns one's id."""

    async def run() -> str:
        database = Database(url)
        try:
            await database.migrate()
            async with database.transaction() as connection:
                alice = (await create_player(connection, starting_balance=1_000, at=AT)).player_id
                bob = (await create_player(connection, starting_balance=2_000, at=AT)).player_id
                await ledger.post_transfer(connection, "t:1", alice, house_account("EUR"), 300, at=AT)
                await ledger.post_transfer(connection, "t:2", bob, house_account("EUR"), 50, at=AT)
            return alice
        finally:
            await database.dispose()

    return asyncio.run(run())


def corrupt(url: str, player: str) -> None:
    """What no code path may do: a balance edited by hand, and a lone entry without its pair."""

    async def run() -> None:
        database = Database(url)
        try:
            async with database.transaction() as connection:
                await connection.execute(update(accounts).where(accounts.c.id == player)
                                         .values(balance=accounts.c.balance + 500))
                await connection.execute(insert(ledger_entries).values(
                    txid="forged:1", account_id=house_account("EUR"), amount=-70, round_id=None,
                    memo="forged", created_at=AT))
        finally:
            await database.dispose()

    asyncio.run(run())


def test_audit_ledger_exits_1_naming_each_finding_on_a_corrupted_ledger(served_database: str) -> None:
    alice = sound_ledger(served_database)
    sound = audit_ledger(served_database)
    assert sound.returncode == 0, sound.stdout + sound.stderr
    assert "ledger audit: OK" in sound.stdout

    corrupt(served_database, alice)
    found = audit_ledger(served_database)
    assert found.returncode == 1, found.stdout + found.stderr
    lines = found.stdout.splitlines()
    assert "FINDING: currency EUR: players' balances plus the house's sum to 430, not 0" in lines
    assert "FINDING: transaction forged:1: its entries do not sum to zero" in lines
    assert f"FINDING: account {alice}: stored balance differs from the sum of its entries" in lines
    assert lines[-1] == "ledger audit: FAILED: 3 finding(s)"
    assert "Traceback" not in found.stderr


def test_the_server_audits_the_ledger_periodically_and_logs_findings_at_error(
    served_database: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = sound_ledger(served_database)
    app = create_app(Settings(database_url=served_database, ledger_audit_interval_seconds=0.05))
    audits: list[object] = []

    async def counted(database: Any) -> Any:
        report = await audit_database(database)
        audits.append(report)
        return report

    monkeypatch.setattr(server_app, "audit_database", counted)

    async def serve_a_while() -> None:
        async with app.router.lifespan_context(app):
            await until_async(lambda: len(audits) >= 2, "two audits of the sound ledger")
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
            await asyncio.to_thread(corrupt, served_database, alice)
            await until_async(lambda: any("LEDGER AUDIT FAILED" in r.getMessage() for r in caplog.records),
                              "the periodic audit logged the corrupted ledger")

    with caplog.at_level(logging.INFO, logger="dealerpoker.server"):
        asyncio.run(serve_a_while())
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert f"LEDGER AUDIT FINDING: account {alice}: stored balance differs from the sum of its entries" \
        in errors
    assert "LEDGER AUDIT FINDING: transaction forged:1: its entries do not sum to zero" in errors
    assert any(message.startswith("LEDGER AUDIT FAILED: 3 finding(s)") for message in errors)


@pytest.mark.slow
def test_a_database_that_cannot_be_audited_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = audit_ledger(f"sqlite:///{tmp_path}/nothing-here.db")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.count("\n") == 1 and "no such database file" in missing.stderr
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    not_ours = audit_ledger(f"sqlite:///{empty}")
    assert not_ours.returncode == 2 and not_ours.stderr.count("\n") == 1, not_ours.stderr
    assert "cannot audit" in not_ours.stderr
    unreachable = audit_ledger("postgresql://nobody@127.0.0.1:9599/none")
    assert unreachable.returncode == 2 and unreachable.stderr.count("\n") == 1, unreachable.stderr
