"""The append-only logs (``admin_audit``: the back office's changes; ``rg_events``: the
responsible-gaming events) cannot be rewritten: the database refuses UPDATE, DELETE, SQLite's
``INSERT OR REPLACE`` and PostgreSQL's ``TRUNCATE``; and each row holds the hash of the row before
it, so a row edited or deleted behind the database's back (its triggers dropped) is found by
``dealerpoker audit-log verify`` and by the back office's check, naming the row."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest
from tests.backoffice.support import StaffMember
from tests.server.conftest import FakeClock, Player, TestClient, make_client
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database

from dealerpoker.cli import main
from dealerpoker.server.backoffice import audit
from dealerpoker.server.chained_log import GENESIS, row_hash

TABLES = ("admin_audit", "rg_events")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database of this test alone (the chains start empty)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'logs.db'}"
        return
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    with fresh_database("chain") as found:
        yield found


def sql(url: str, *statements: str) -> None:
    """Statements run straight on the database, as someone with its password would."""
    if url.startswith("sqlite"):
        with sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None) as connection:
            for statement in statements:
                connection.execute(statement)
        return

    async def run() -> None:
        connection = await asyncpg.connect(url)
        try:
            for statement in statements:
                await connection.execute(statement)
        finally:
            await connection.close()

    asyncio.run(run())


def record(client: TestClient, count: int) -> None:
    """``count`` back-office changes logged as the back office logs them, concurrently (on
    PostgreSQL each in its own transaction at once: the chain must not fork)."""
    services = client.app.state.services

    async def one(number: int) -> None:
        async with services.database.transaction() as connection:
            await audit.record(connection, at=services.now(), actor="ann", action="test.change",
                               target=f"thing {number}", before={"n": number}, after={"n": number + 1})

    async def run() -> None:
        await asyncio.gather(*(one(number) for number in range(count)))

    assert client.portal is not None
    client.portal.call(run)


@pytest.fixture
def filled(url: str, clock: FakeClock) -> Iterator[tuple[str, TestClient, StaffMember]]:
    with make_client(url, clock) as client:
        record(client, 12)
        player = Player(client)
        for day in (500, 400, 300):  # three responsible-gaming events
            changed = player.client.request("PUT", "/api/responsible-gaming/limits",
                                            json={"loss_day": day}, headers=player.headers)
            assert changed.status_code == 200, changed.text
        yield url, client, StaffMember(client, "auditor-1", "auditor")


def verify(url: str, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, str]:
    status = main(["audit-log", "verify", "--database", url, *options])
    return status, capsys.readouterr().out


def test_the_logs_refuse_every_rewrite(filled: tuple[str, TestClient, StaffMember]) -> None:
    url, _client, _staff = filled
    for table in TABLES:
        attempts = [f"UPDATE {table} SET at = 'x' WHERE id = 1", f"DELETE FROM {table} WHERE id = 1"]
        if url.startswith("sqlite"):
            columns = "id, at, actor, action, target" if table == "admin_audit" else \
                "id, player_id, at, by, kind, detail"
            values = "1, 'x', 'mallory', 'x', 'x'" if table == "admin_audit" else \
                "1, 'p', 'x', 'x', 'x', '{}'"
            attempts += [f"INSERT OR REPLACE INTO {table} ({columns}) VALUES ({values})",
                         f"REPLACE INTO {table} ({columns}) VALUES ({values})"]
        else:
            attempts += [f"TRUNCATE {table}", f"TRUNCATE {table} CASCADE"]
        for attempt in attempts:
            with pytest.raises((sqlite3.DatabaseError, asyncpg.PostgresError), match="append-only"):
                sql(url, attempt)


def test_an_intact_log_verifies_and_the_back_office_says_so(
        filled: tuple[str, TestClient, StaffMember], capsys: pytest.CaptureFixture[str]) -> None:
    url, _client, auditor = filled
    status, out = verify(url, capsys)
    assert status == 0, out
    assert "admin_audit: OK:" in out and "rg_events: OK: 3 rows" in out
    answer = auditor.get("/admin/api/audit/verify")
    assert answer.status_code == 200, answer.text
    logs = {log["table"]: log for log in answer.json()["logs"]}
    assert logs["rg_events"]["ok"] and logs["rg_events"]["rows"] == 3 and logs["admin_audit"]["ok"]
    assert logs["admin_audit"]["rows"] >= 12  # and the staff member's own creation


def _drop_guards(url: str, table: str) -> list[str]:
    if url.startswith("sqlite"):
        return [f"DROP TRIGGER {table}_no_update", f"DROP TRIGGER {table}_no_delete"]
    return [f"ALTER TABLE {table} DISABLE TRIGGER USER"]


@pytest.mark.parametrize("table", TABLES)
def test_an_edited_row_is_found_by_the_cli_and_the_back_office(
        filled: tuple[str, TestClient, StaffMember], capsys: pytest.CaptureFixture[str], table: str) -> None:
    url, _client, auditor = filled
    column = "target" if table == "admin_audit" else "detail"
    value = "'someone else'" if table == "admin_audit" else "'{\"loss_day\": 999999}'"
    sql(url, *_drop_guards(url, table), f"UPDATE {table} SET {column} = {value} WHERE id = 2")
    status, out = verify(url, capsys)
    assert status == 1 and f"{table} row 2: its content does not match its row_hash" in out, out
    logs = {log["table"]: log for log in auditor.get("/admin/api/audit/verify").json()["logs"]}
    assert not logs[table]["ok"] and any(f"{table} row 2" in problem for problem in logs[table]["problems"])


@pytest.mark.parametrize("table", TABLES)
def test_a_deleted_row_is_found_even_with_the_next_rows_hash_rewritten(
        filled: tuple[str, TestClient, StaffMember], capsys: pytest.CaptureFixture[str], table: str) -> None:
    url, _client, _auditor = filled
    sql(url, *_drop_guards(url, table), f"DELETE FROM {table} WHERE id = 2")
    status, out = verify(url, capsys)
    assert status == 1 and f"{table} row 3: its prev_hash is not the hash of the row before it" in out, out


def test_rows_removed_from_the_end_are_found_against_the_recorded_head(
        filled: tuple[str, TestClient, StaffMember], capsys: pytest.CaptureFixture[str]) -> None:
    url, _client, _auditor = filled
    status, out = verify(url, capsys, "--json")
    assert status == 0, out
    head = {log["table"]: log for log in json.loads(out)["logs"]}["rg_events"]
    anchor = f"rg_events={head['head_id']}:{head['head_hash']}"
    assert verify(url, capsys, "--expect-head", anchor)[0] == 0
    sql(url, *_drop_guards(url, "rg_events"), f"DELETE FROM rg_events WHERE id = {head['head_id']}")
    assert verify(url, capsys)[0] == 0  # what is left is a valid chain
    status, out = verify(url, capsys, "--expect-head", anchor)
    assert status == 1 and "the head recorded earlier) is missing" in out, out


def test_the_canonical_encoding_is_the_documented_one() -> None:
    """The hash of a row as docs/operations.md describes it, recomputed by hand."""
    import hashlib

    row = {"id": 1, "at": "2026-01-01T00:00:00.000000Z", "actor": "ann", "action": "x", "target": "é",
           "before": None, "after": '{"n":1}', "prev_hash": GENESIS, "row_hash": "ignored"}
    text = ('{"prev":"' + GENESIS + '","row":{"action":"x","actor":"ann","after":"{\\"n\\":1}",'
            '"at":"2026-01-01T00:00:00.000000Z","before":null,"target":"é"}}')
    assert row_hash(GENESIS, row) == hashlib.sha256(text.encode()).hexdigest()


def test_a_database_that_is_not_there_is_told_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    assert main(["audit-log", "verify", "--database", f"sqlite:///{tmp_path / 'none.db'}"]) == 2
    assert "no such database file" in capsys.readouterr().err
