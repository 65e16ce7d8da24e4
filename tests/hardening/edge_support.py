"""The edge tests' app: in process (an ASGI client with the lifespan), or served by uvicorn in a
thread with live tables (WebSockets)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from typing import Any

import httpx
from tests.live.conftest import FAST_TABLES
from tests.live.studio_support import STUDIO_TABLES
from tests.support.servers import serving

from dealerpoker.server import Settings, create_app
from dealerpoker.server.live.extension import live_extension
from dealerpoker.server.live.service import LiveSettings
from dealerpoker.tables.config import parse_tables


def edge_app(**settings: Any) -> Any:
    return create_app(Settings(**{"database_url": "sqlite://", **settings}))


@asynccontextmanager
async def client(app: Any, address: str = "127.0.0.1") -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of ``app`` (running, with its lifespan) from ``address``."""
    async with clients(app, address) as (http,):
        yield http


@asynccontextmanager
async def clients(app: Any, *addresses: str) -> AsyncIterator[tuple[httpx.AsyncClient, ...]]:
    """A client from each address, of one running ``app``."""
    async with app.router.lifespan_context(app), AsyncExitStack() as stack:
        yield tuple([await stack.enter_async_context(httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app, client=(address, 40000)), base_url="http://testserver"))
            for address in addresses])


async def session(http: httpx.AsyncClient) -> dict[str, Any]:
    response = await http.post("/api/session", json={})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@contextmanager
def live_edge_server(database_url: str, *, extra_tables: str = "", **settings: Any
                     ) -> Iterator[tuple[str, Any]]:
    """``(base_url, app)``: the app with the live tables ``texas-fast`` and ``casino-fast`` and
    the studio tables ``studio-texas`` and ``studio-casino``."""
    timers = {"betting": 15, "decision": 10, "pause": 5}
    tables = parse_tables((FAST_TABLES + STUDIO_TABLES + extra_tables).format(**timers))
    app = create_app(Settings(database_url=database_url, **settings),
                     extensions=[live_extension(LiveSettings(tables))])
    with serving(app) as server:
        yield server.url, app
