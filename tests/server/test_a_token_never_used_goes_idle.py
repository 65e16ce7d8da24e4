"""A player's session token goes idle from when it was issued, not from its first use: a token
taken and never used expires after the idle limit like any other (on SQLite and PostgreSQL)."""

from __future__ import annotations

from tests.server.conftest import FakeClock, make_client

IDLE = 1800.0


def test_a_token_never_used_expires_after_the_idle_limit(database_url: str, clock: FakeClock) -> None:
    with make_client(database_url, clock, session_idle_seconds=IDLE, session_max_seconds=43_200.0) as client:
        unused = client.post("/api/session", json={}).json()["token"]
        used = client.post("/api/session", json={}).json()["token"]
        clock.advance(IDLE - 60)
        assert client.get("/api/balance", headers={"Authorization": f"Bearer {used}"}).status_code == 200
        clock.advance(120)  # IDLE + 60 after both were issued; 60 s after the other's last use
        late = client.get("/api/balance", headers={"Authorization": f"Bearer {unused}"})
        assert late.status_code == 401 and "idle" in late.json()["message"], late.text
        assert client.get("/api/balance", headers={"Authorization": f"Bearer {used}"}).status_code == 200
