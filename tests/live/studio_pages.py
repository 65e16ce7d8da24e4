"""Issue 16 on the live page: a served app with studio tables (the test deals the cards it needs as
the studio's dealer) on a ``ManualClock``, and pages that fail their test on any console error."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from tests.live.conftest import ManualClock, live_server
from tests.live.studio_support import STUDIO_TABLES, Dealer
from tests.support.waiting import until


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
        until(lambda: self.dealers[table].state().get("expect") is not None, f"{table} waits for a card")

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
        return self.wait_for_betting(page)

    def wait_for_betting(self, page: Any) -> Any:
        """Once the table in ``page`` (a page or a casino's frame) has a betting window open."""
        page.wait_for_function("['betting', 'pause', 'idle']"
                               ".includes(document.querySelector('.table')?.dataset.phase)")

        def betting() -> bool:
            if page.evaluate("window.dealerpokerLive.betting()"):
                return True
            deadline = page.evaluate("window.dealerpokerLive.state.deadline")
            if page.evaluate("window.dealerpokerLive.state.phase") == "pause" and deadline is not None:
                self.clock.reach({"deadline": deadline})
            else:
                self.clock.wake()
            return False

        until(betting, "the page shows an open betting window", interval=0.1)
        return page

    def decisions(self, page: Any, table: str, streets: Sequence[tuple[str, str | None]]) -> Iterator[str]:
        """Deal ``streets`` (each street's cards, then the decision taken after it, or ``None`` for
        the last) at ``table``; at each decision, yield its name ("decision 1"...) with its button
        shown, then press it."""
        for number, (cards, decision) in enumerate(streets, start=1):
            self.deal(table, cards)
            if decision is None:
                return
            button = page.locator(f'#decisions [data-action="{decision}"]')
            button.wait_for()
            yield f"decision {number}"
            button.click()
            page.wait_for_function("!document.querySelector('#decisions [data-action]')")

    def bet(self, page: Any, bets: dict[str, int]) -> None:
        """Click chips onto the fields (the tray's chip of each amount)."""
        for field, amount in bets.items():
            chips = page.locator("#chip-tray .chip").evaluate_all("cs => cs.map(c => Number(c.dataset.chip))")
            page.locator("#chip-tray .chip").nth(chips.index(amount)).click()
            page.locator(f'.spot[data-field="{field}"]').click()
            page.wait_for_function("([f, a]) => window.dealerpokerLive.seat?.bets?.[f] === a",
                                   arg=[field, amount])


# Rounds for the layout tests, one decision per decision point (each checked before it is taken):
# solo, the decisions by game; live, the studio table and the cards of each street with the decision
# taken after it.
SOLO_DECISIONS = {"texas-bonus": ["bet", "check", "bet"], "casino-holdem": ["raise"]}
LIVE_ROUNDS: dict[str, tuple[str, list[tuple[str, str | None]]]] = {
    "texas-bonus": ("studio-texas",
                    [("Ah Ad Kc 2d", "bet"), ("Ac 9s 9d", "check"), ("9h", "bet"), ("3c", None)]),
    "casino-holdem": ("studio-casino", [("Ah Ad Kc 2d Ac 9s 9d", "raise"), ("9h 3c", None)]),
}


@contextmanager
def studio_tables(tmp_path_factory: pytest.TempPathFactory, *, clock_start: datetime | None = None,
                  **settings: Any) -> Iterator[Studio]:
    """A served app with the studio tables on a ``ManualClock`` (long timers) and their dealers;
    ``clock_start``: the clock's first time (now, for an operator's signed launch: its signature
    must be within minutes of the server's clock); ``settings`` go to ``live_server`` and
    ``Settings`` (e.g. ``strategy_hint=True``)."""
    clock = ManualClock() if clock_start is None else ManualClock(clock_start)
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
