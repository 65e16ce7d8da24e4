"""Issue 16 on the live page: a served app with studio tables (the test deals the cards it needs as
the studio's dealer) on a ``ManualClock``, and pages that fail their test on any console error."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from tests.live.conftest import WAIT, ManualClock, live_server
from tests.live.studio_support import STUDIO_TABLES, Dealer


@dataclass
class Studio:
    base: str
    clock: ManualClock
    dealers: dict[str, Dealer]

    def deal(self, table: str, cards: str) -> None:
        """The studio's dealer reports ``cards`` in dealing order (player, dealer, board), once the
        table waits for them."""
        self.wait_for_dealing(table)
        for card in cards.split():
            reply = self.dealers[table].reply({"type": "card", "card": card})
            assert reply["type"] == "accepted", reply

    def wait_for_dealing(self, table: str) -> None:
        end = time.monotonic() + WAIT
        while self.dealers[table].state().get("expect") is None:
            assert time.monotonic() < end, f"{table} waits for no card"
            time.sleep(0.05)

    def finish(self, table: str, cards: str) -> None:
        """Deal what the round still needs of ``cards`` (a round everyone folded needs none)."""
        for card in cards.split():
            reply = self.dealers[table].reply({"type": "card", "card": card})
            if reply["type"] == "error" and reply["error"] == "not_expected":
                return
            assert reply["type"] == "accepted", reply

    def end_timer(self, page: Any) -> None:
        """The timer the page shows runs out now."""
        # Only a betting window's or a decision's: the page may not show the street just dealt yet
        # (its deal timer's deadline would cancel the round as a misdeal).
        page.wait_for_function("now => ['betting', 'decision'].includes(window.dealerpokerLive.state.phase)"
                               " && window.dealerpokerLive.state.deadline > now", arg=self.clock.seconds())
        deadline = page.evaluate("window.dealerpokerLive.state.deadline")
        self.clock.reach({"deadline": deadline})
        page.wait_for_function("d => window.dealerpokerLive.state.deadline !== d", arg=deadline)

    def open(self, page: Any, table: str, language: str | None = None) -> Any:
        """The page at ``table`` (in ``language``: ``?lang=``), once a betting window is open (the
        last round's pause ended; the clock is shared by the tables, so another table's timers may
        have moved it past it)."""
        page.goto(f"{self.base}/live.html{f'?lang={language}' if language else ''}#/{table}")
        page.wait_for_function("['betting', 'pause', 'idle']"
                               ".includes(document.querySelector('.table')?.dataset.phase)")
        end = time.monotonic() + WAIT
        while not page.evaluate("window.dealerpokerLive.betting()"):
            assert time.monotonic() < end, page.evaluate("window.dealerpokerLive.state")
            deadline = page.evaluate("window.dealerpokerLive.state.deadline")
            if page.evaluate("window.dealerpokerLive.state.phase") == "pause" and deadline is not None:
                self.clock.reach({"deadline": deadline})
            else:
                self.clock.wake()
            time.sleep(0.1)
        return page

    def bet(self, page: Any, bets: dict[str, int]) -> None:
        """Click chips onto the fields (the tray's chip of each amount)."""
        for field, amount in bets.items():
            chips = page.locator("#chip-tray .chip").evaluate_all("cs => cs.map(c => Number(c.dataset.chip))")
            page.locator("#chip-tray .chip").nth(chips.index(amount)).click()
            page.locator(f'.spot[data-field="{field}"]').click()
            page.wait_for_function("([f, a]) => window.dealerpokerLive.seat?.bets?.[f] === a",
                                   arg=[field, amount])


@contextmanager
def studio_tables(tmp_path_factory: pytest.TempPathFactory, **settings: Any) -> Iterator[Studio]:
    """A served app with the studio tables on a ``ManualClock`` (long timers) and their dealers;
    ``settings`` go to ``Settings`` (e.g. ``strategy_hint=True``)."""
    clock = ManualClock()
    database = tmp_path_factory.mktemp("live16") / "live.db"
    with live_server(f"sqlite:///{database}", clock=clock, betting=600, decision=600, pause=600,
                     extra_tables=STUDIO_TABLES, **settings) as (base, _app):
        dealers = {table: Dealer(base, table) for table in ("studio-texas", "studio-casino")}
        try:
            yield Studio(base, clock, dealers)
        finally:
            for dealer in dealers.values():
                dealer.close()


def player_page(browser: Any, errors: list[str], width: int = 1280) -> Any:
    """A page of its own player (its own context: its own session) whose console errors are kept."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(f"{message.text} ({message.location.get('url')})")
            if message.type == "error" else None)
    page.set_default_timeout(int(os.environ.get("DEALERPOKER_BROWSER_TIMEOUT_MS", "60000")))
    return page


@contextmanager
def page_maker(browser: Any) -> Iterator[Any]:
    """``make(n)`` -> n player pages; any console error on them fails the test at the end."""
    errors: list[str] = []
    opened: list[Any] = []

    def make(count: int = 1, width: int = 1280) -> list[Any]:
        made = [player_page(browser, errors, width) for _ in range(count)]
        opened.extend(made)
        return made

    yield make
    for page in opened:
        page.context.close()
    assert not errors, f"errors on the page: {errors}"


@pytest.fixture
def pages(browser: Any) -> Iterator[Any]:
    """The ``page_maker`` of a test (import it into the test module)."""
    with page_maker(browser) as make:
        yield make
