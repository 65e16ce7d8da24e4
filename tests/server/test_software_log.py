"""Every software check goes to a hash-chained append-only log: `dealerpoker audit-log verify`
finds an edited or a deleted row of it (docs/certification.md)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.server.conftest import FakeClock, TestClient, make_client
from tests.support.operator import client_now, operator_headers
from tests.support.operators_file import operator_entry, operators_file

from dealerpoker.cli import main
from dealerpoker.server.operators.config import parse_operators

SECRET = "software-log-secret-0123456789abc"
OPERATORS = operators_file(operator_entry("casino-a", secret=SECRET, wallet_url="http://127.0.0.1:9399/wallet",
                                          currencies=["EUR"]))
PATH = "/operator/v1/software/verify"


@pytest.fixture
def url(tmp_path: Path, clock: FakeClock) -> Iterator[str]:
    """A SQLite database holding three on-demand checks."""
    found = f"sqlite:///{tmp_path / 'log.db'}"
    with make_client(found, clock, operators=parse_operators(OPERATORS)) as client:
        for seed in ("aa", "bbbb", "cccccc"):
            ask(client, seed)
    yield found


def ask(client: TestClient, seed: str) -> None:
    raw = json.dumps({"seed": seed}).encode()
    headers = operator_headers(SECRET, "POST", PATH, raw, operator="casino-a", now=client_now(client))
    assert client.post(PATH, content=raw, headers=headers).status_code == 200


def rows(url: str) -> list[tuple[int, str, str | None, str]]:
    with sqlite3.connect(url.removeprefix("sqlite:///")) as connection:
        return list(connection.execute("SELECT id, kind, seed, result FROM software_checks ORDER BY id"))


def verify(url: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["audit-log", "verify", "--database", url])
    return status, capsys.readouterr().out


def tamper(url: str, statement: str) -> None:
    with sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None) as connection:
        connection.execute("DROP TRIGGER software_checks_no_update")
        connection.execute("DROP TRIGGER software_checks_no_delete")
        connection.execute(statement)


def test_every_check_is_logged_and_the_log_verifies(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert [(kind, seed, result) for _, kind, seed, result in rows(url)] == [
        ("demand-hmac", "aa", "ok"), ("demand-hmac", "bbbb", "ok"), ("demand-hmac", "cccccc", "ok")]
    status, out = verify(url, capsys)
    assert status == 0 and "software_checks" in out, out
    with sqlite3.connect(url.removeprefix("sqlite:///")) as connection, \
            pytest.raises(sqlite3.DatabaseError, match="append-only"):
        connection.execute("UPDATE software_checks SET result = 'ok' WHERE id = 1")


def test_an_edited_row_is_found(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    tamper(url, "UPDATE software_checks SET seed = 'dd' WHERE id = 2")
    status, out = verify(url, capsys)
    assert status == 1 and "software_checks row 2: its content does not match its row_hash" in out, out


def test_a_deleted_row_is_found(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    tamper(url, "DELETE FROM software_checks WHERE id = 2")
    status, out = verify(url, capsys)
    assert status == 1, out
    assert "software_checks row 3: its prev_hash is not the hash of the row before it" in out, out
