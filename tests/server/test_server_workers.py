"""``dealerpoker serve --workers N``: several processes behind one port on one PostgreSQL database."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.support.databases import REDIS_URL, fresh_database_beside_redis
from tests.support.databases import audit as audit_database
from tests.support.servers import ServeProcess, worker_pids

from dealerpoker.cli import main

PLAYS = {"casino-holdem": ["raise"], "texas-bonus": ["bet", "check", "check"]}


def test_several_workers_need_postgresql_and_redis(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DEALERPOKER_REDIS_URL", raising=False)
    monkeypatch.delenv("DEALERPOKER_DATABASE_URL", raising=False)
    assert main(["serve", "--workers", "2", "--database", "sqlite:///never-created.db"]) == 2
    assert "PostgreSQL" in capsys.readouterr().err
    assert main(["serve", "--workers", "2", "--database", "postgresql://nobody@127.0.0.1:9/none"]) == 2
    assert "Redis" in capsys.readouterr().err
    assert main(["serve", "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
    assert not Path("never-created.db").exists()


@pytest.fixture
def database() -> Iterator[str]:
    with fresh_database_beside_redis("workers") as url:
        yield url


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
def test_two_workers_play_rounds_on_one_database(tmp_path: Path, database: str) -> None:
    env = {**os.environ, "DEALERPOKER_REDIS_PREFIX": f"dptest:{secrets.token_hex(6)}:"}
    server = ServeProcess(database, log=tmp_path / "serve.log", env=env,
                          extra=["--workers", "2", "--redis", str(REDIS_URL), "--no-rtp"])
    try:
        token = httpx.post(f"{server.url}/api/session").json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        # A new connection per request, so both workers take some of them.
        for number in range(8):
            game = list(PLAYS)[number % 2]
            view = httpx.post(f"{server.url}/api/rounds", headers=headers, timeout=30,
                              json={"game": game, "bets": {"ante": 100}}).json()
            for action in PLAYS[game]:
                response = httpx.post(f"{server.url}/api/rounds/{view['id']}/actions", headers=headers,
                                      json={"action": action, "step": len(view["steps"])}, timeout=30)
                assert response.status_code == 200, response.text
                view = response.json()
            assert view["status"] == "settled"
        rounds = httpx.get(f"{server.url}/api/rounds", params={"limit": 100}, headers=headers,
                           timeout=30).json()["rounds"]
        balance = httpx.get(f"{server.url}/api/balance", headers=headers, timeout=30).json()["balance"]
        assert len(rounds) == 8
        assert balance == 100_000 - sum(r["total_stake"] for r in rounds) + sum(
            r["total_returned"] for r in rounds)
        assert len(worker_pids(server.process.pid)) == 2
    finally:
        server.stop()
    assert audit_database(database).ok
