"""Fixtures for the server tests: every test runs on in-memory SQLite and, when
``DEALERPOKER_TEST_POSTGRES_URL`` is set, on a fresh PostgreSQL database of its own test session
(created here, dropped at the end, so parallel runs never collide)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio.from_thread
import httpx
import pytest
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database

from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.server import Settings, create_app


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """A PostgreSQL database for this test session only (URL), dropped afterwards."""
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    with fresh_database("server") as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> str:
    if request.param == "sqlite":
        return "sqlite://"  # in memory, one per test
    url: str = request.getfixturevalue("postgres_database")
    return url


class TestClient:
    """A synchronous client of an app running (with its lifespan) on its own event loop thread.

    Starlette's TestClient warns about httpx; this is the same idea on httpx's ASGI transport.
    """

    __test__ = False

    def __init__(self, app: Any) -> None:
        self.app = app
        self.portal: anyio.from_thread.BlockingPortal | None = None
        self._stack = ExitStack()
        self._client: httpx.AsyncClient | None = None

    def __enter__(self) -> TestClient:
        self.portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal())
        self._client = self._stack.enter_context(self.portal.wrap_async_context_manager(self._running()))
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    @asynccontextmanager
    async def _running(self) -> AsyncIterator[httpx.AsyncClient]:
        async with self.app.router.lifespan_context(self.app):
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
                yield client

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        assert self.portal is not None and self._client is not None, "use the client in a with block"
        client = self._client

        async def send() -> httpx.Response:
            return await client.request(method, path, **kwargs)

        return self.portal.call(send)

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", path, **kwargs)


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=1)
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


LONG_SESSIONS = {"session_idle_seconds": 1e9, "session_max_seconds": 1e9}
"""Sessions that outlive the tests' clock jumps (days of responsible gaming, abandoned rounds);
the sessions' own expiry is tested in ``tests/hardening/test_sessions_expire_and_end.py``."""


def make_client(database_url: str, clock: Any = None, seed: int = 7, rng: random.Random | None = None,
                **settings: Any) -> TestClient:
    """``rng``: the server's generator (default ``random.Random(seed)``; a
    ``tests.support.dealing.Dealer`` to deal chosen cards). The back office's exact analyses come
    from the disk cache, as ``dealerpoker serve``'s do (counting a game's cards again in every
    app would cost seconds of CPU each)."""
    settings = {**LONG_SESSIONS, **settings}
    app = create_app(Settings(database_url=database_url, **settings), rng=rng or random.Random(seed),
                     analysis_cache=DiskCache(), **({"clock": clock} if clock is not None else {}))
    return TestClient(app)


@pytest.fixture
def client(database_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with make_client(database_url, clock) as test_client:
        yield test_client


class Player:
    """A demo player driving the API through a test client."""

    def __init__(self, client: TestClient) -> None:
        response = client.post("/api/session", json={})
        assert response.status_code == 200, response.text
        body = response.json()
        self.client = client
        self.id: str = body["player_id"]
        self.token: str = body["token"]
        self.start_balance: int = body["balance"]
        self.headers = {"Authorization": f"Bearer {self.token}"}

    def post(self, path: str, body: Any) -> Any:
        return self.client.post(path, json=body, headers=self.headers)

    def get(self, path: str, **params: Any) -> Any:
        return self.client.get(path, params=params, headers=self.headers)

    def open(self, game: str, **bets: int) -> dict[str, Any]:
        response = self.post("/api/rounds", {"game": game, "bets": bets})
        assert response.status_code == 200, response.text
        view: dict[str, Any] = response.json()
        return view

    def act(self, round_id: str, action: str, step: int | None = None) -> dict[str, Any]:
        """``action`` as the round's next step (``step``: default, the round's len(steps) now)."""
        if step is None:
            step = len(self.get(f"/api/rounds/{round_id}").json()["steps"])
        response = self.post(f"/api/rounds/{round_id}/actions", {"action": action, "step": step})
        assert response.status_code == 200, response.text
        view: dict[str, Any] = response.json()
        return view

    def balance(self) -> int:
        balance: int = self.get("/api/balance").json()["balance"]
        return balance


@pytest.fixture
def player(client: TestClient) -> Player:
    return Player(client)


def audit(client: TestClient) -> Any:
    """The ledger audit of the app behind ``client`` (run on the app's own event loop)."""
    from dealerpoker.server import ledger

    services = client.app.state.services

    async def run() -> Any:
        return await ledger.audit_database(services.database)

    assert client.portal is not None
    return client.portal.call(run)


def play_out(player: Player, view: dict[str, Any], choose: Any = None) -> list[dict[str, Any]]:
    """Act until the round settles (``choose(view)`` picks the action; default the first legal)."""
    views = [view]
    rng = random.Random(view["id"])
    while view["status"] == "open":
        action = choose(view) if choose else rng.choice(view["legal_actions"])
        view = player.act(view["id"], action, len(view["steps"]))
        views.append(view)
    return views
