"""Lifting the rate limits without editing code: an exempt address or network (a load test's
machine) meets no limit, per address or per account, while every other address keeps them; and
behind a trusted reverse proxy the limits count the client it names (``X-Forwarded-For``), not
the proxy."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from tests.hardening.edge_support import client, edge_app, session
from tests.support.servers import ServeProcess

from dealerpoker.server.settings import Settings, SettingsError


def test_an_exempt_network_meets_no_limit_and_others_still_do() -> None:
    async def run() -> None:
        app = edge_app(rate_limits={"session": "2/minute", "account": "3/minute", "request": "20/minute"},
                       rate_limit_exempt=("10.9.0.0/16",))
        async with client(app, "10.9.4.2") as exempt:
            tokens = [(await session(exempt))["token"] for _ in range(5)]  # over "session"
            headers = {"authorization": f"Bearer {tokens[0]}"}
            for _request in range(25):  # over "account" and "request"
                assert (await exempt.get("/api/balance", headers=headers)).status_code == 200
        async with client(app, "10.8.0.1") as other:
            await session(other)
            await session(other)
            refused = await other.post("/api/session", json={})
            assert refused.status_code == 429 and refused.json()["limit"] == "session"

    asyncio.run(run())


def test_exemptions_and_proxies_are_settings() -> None:
    settings = Settings.from_env({"DEALERPOKER_RATE_LIMIT_EXEMPT": "127.0.0.1, 10.0.0.0/8",
                                  "DEALERPOKER_TRUSTED_PROXIES": "10.1.2.3"})
    assert settings.rate_limit_exempt == ("127.0.0.1", "10.0.0.0/8")
    assert settings.trusted_proxies == ("10.1.2.3",)
    with pytest.raises(SettingsError, match="rate_limit_exempt: 'everyone' is not an IP address"):
        Settings(rate_limit_exempt=("everyone",))
    with pytest.raises(SettingsError, match="trusted_proxies: 'nginx' is not an IP address"):
        Settings(trusted_proxies=("nginx",))
    assert Settings(trusted_proxies=("*",)).trusted_proxies == ("*",)


@pytest.mark.slow
def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_count(tmp_path) -> None:  # type: ignore[no-untyped-def]
    server = ServeProcess(f"sqlite:///{tmp_path}/proxied.db", log=tmp_path / "serve.log",
                          extra=["--no-rtp", "--trusted-proxy", "127.0.0.1", "--rate-limit",
                                 "session=2/minute", "--rate-limit-exempt", "10.77.0.0/16"])
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            def create(forwarded: str) -> int:
                return http.post("/api/session", json={}, headers={"X-Forwarded-For": forwarded}).status_code

            assert [create("203.0.113.5") for _ in range(3)] == [200, 200, 429]
            assert create("203.0.113.6") == 200  # another client behind the same proxy
            assert {create("10.77.1.1") for _ in range(4)} == {200}  # an exempt client, through the proxy
    finally:
        server.stop()
