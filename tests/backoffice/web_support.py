"""The back office in Debian's Chromium: a real server (uvicorn in a thread, a temporary SQLite
file), staff accounts created in its database, and a page signed in as one of them."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest
from tests.support.analyses import counted
from tests.support.servers import ThreadServer

from dealerpoker.server.backoffice import staff
from dealerpoker.server.clock import system_clock, timestamp
from dealerpoker.server.db import Database
from dealerpoker.server.frames import WS_PROTOCOL

PASSWORD = "correct horse battery staple"


class BackOffice:
    def __init__(self, server: ThreadServer, database_url: str) -> None:
        self.server = server
        self.url = server.url
        self.database_url = database_url
        self.app = server.app

    def create_staff(self, name: str, role: str) -> str:
        """A new member's one-time password."""

        async def create() -> str:
            database = Database(self.database_url)
            try:
                async with database.transaction() as connection:
                    made = await staff.create_user(connection, name, role, at=timestamp(system_clock()))
                    return made.password
            finally:
                await database.dispose()

        # Playwright's sync API runs an event loop in this thread: create on another one.
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, create()).result()

    def member(self, name: str, role: str) -> str:
        """A member whose one-time password is already replaced by ``PASSWORD`` (through the API)."""
        first = self.create_staff(name, role)
        with self.api(name, first) as http:
            http.post("/admin/api/password", json={"current": first, "new": PASSWORD}).raise_for_status()
        return PASSWORD

    @contextmanager
    def api(self, name: str, password: str = PASSWORD) -> Iterator[Any]:
        """An ``httpx.Client`` of the back office's API signed in as ``name`` (its session cookie,
        and its CSRF token on every request)."""
        import httpx

        with httpx.Client(base_url=self.url, timeout=60) as http:
            signed = http.post("/admin/api/session", json={"name": name, "password": password})
            signed.raise_for_status()
            http.headers["X-CSRF-Token"] = signed.json()["csrf"]
            yield http


    def play(self, rounds: int, game: str = "texas-bonus", *,
             launch: str | None = None) -> tuple[str, list[str]]:
        """A new demo player (or the player of an operator's ``launch`` token) and the ids of
        ``rounds`` settled rounds of theirs (the last legal action each step), through the
        players' API."""
        import httpx

        with httpx.Client(base_url=self.url, timeout=60) as http:
            answer = http.post("/api/session", json={} if launch is None else {"launch": launch})
            answer.raise_for_status()
            session = answer.json()
            headers = {"Authorization": f"Bearer {session['token']}"}
            ids = []
            for _ in range(rounds):
                opening = {"game": game, "bets": {"ante": 100}}
                view = http.post("/api/rounds", json=opening, headers=headers).json()
                while view["status"] == "open":
                    view = http.post(f"/api/rounds/{view['id']}/actions", headers=headers,
                                     json={"action": view["legal_actions"][-1],
                                           "step": len(view["steps"])}).json()
                ids.append(view["id"])
        return session["player_id"], ids


@contextmanager
def back_office(tmp_path_factory: pytest.TempPathFactory, members: Mapping[str, str] | None = None, *,
                live: bool = False, operators: tuple[Any, ...] = (), currencies_file: str | None = None,
                extra_tables: str = "", timers: Mapping[str, float] | None = None,
                **create_app_options: Any) -> Iterator[BackOffice]:
    """The server, serving until the block ends, with ``members`` (name: role) whose password is
    ``PASSWORD`` (with the two live tables of ``tests.live.conftest`` when ``live``, and
    ``extra_tables`` -- ``table_entry`` text -- beside them, the casinos of ``operators``
    launching their players here, and the currencies of ``currencies_file`` instead of the
    shipped ones); ``timers``: the tables' betting, decision and pause seconds (15, 10, 5)."""
    import random

    from tests.live.conftest import FAST_TABLES

    from dealerpoker.server import Settings, create_app
    from dealerpoker.server.live.extension import live_extension
    from dealerpoker.server.live.service import LiveSettings
    from dealerpoker.tables.config import parse_tables

    url = f"sqlite:///{tmp_path_factory.mktemp('backoffice') / 'backoffice.db'}"
    timers = dict(timers or {"betting": 15, "decision": 10, "pause": 5})
    if extra_tables:  # a table in another currency takes that currency's limits and chips
        from dealerpoker.server.currencies import load_currencies
        from dealerpoker.server.offer import Offer

        tables = parse_tables(FAST_TABLES.format(**timers) + extra_tables.format(**timers),
                              currency_overrides=Offer.build(load_currencies()).table_overrides)
    else:
        tables = parse_tables(FAST_TABLES.format(**timers))
    if create_app_options.get("analysis_cache") is not None:
        counted(create_app_options["analysis_cache"])
    extensions = [live_extension(LiveSettings(tables))]
    settings = Settings(database_url=url, operators=operators, currencies_file=currencies_file)
    rng = create_app_options.pop("rng", None) or random.Random(18)  # a Dealer deals chosen cards
    app = create_app(settings, rng=rng, extensions=extensions if live else [], **create_app_options)
    office = BackOffice(ThreadServer(app, ws=WS_PROTOCOL if live else "none").start(), url)
    try:
        for name, role in (members or {}).items():
            office.member(name, role)
        yield office
    finally:
        office.server.stop()


def fetch(page: Any, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """A request made from the signed-in page as its own script would (the session cookie, the
    CSRF token): (status, JSON answer). What a member gets when they bypass the page's buttons."""
    status, answer = page.evaluate("""async ([method, path, body]) => {
        const me = await (await fetch('/admin/api/session')).json();
        const answer = await fetch(path, {method, headers: {'Content-Type': 'application/json',
            'X-CSRF-Token': me.csrf}, body: body === null ? undefined : JSON.stringify(body)});
        const text = await answer.text();
        let parsed = null;
        try { parsed = JSON.parse(text); } catch { parsed = text; }
        return [answer.status, parsed];
    }""", [method, path, body])
    return int(status), answer


@contextmanager
def signed_in(browser: Any, office: BackOffice, name: str, password: str = PASSWORD) -> Iterator[Any]:
    """A page of the back office signed in as ``name``."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(int(os.environ.get("DEALERPOKER_BROWSER_TIMEOUT_MS", "15000")))
    page.goto(f"{office.url}/admin/")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password)
    page.click("form.sign-in button[type=submit]")
    page.wait_for_selector("header.bar")
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
