"""A support agent's studio tasks in the browser, without training (issue 33): see a studio
table's dealer status on the live monitor (no dealer, then connected, then the deal's countdown
while the table waits for cards, then the misdeal among its last rounds), and find the misdeal
among the rounds and read it as one: void, by whom, why, every bet returned.

The studio table runs on a ``ManualClock`` (its betting window closes when the test says) and its
dealer is a real dealer WebSocket, as a card reader's or the dealer console's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from tests.live.conftest import LivePlayer, ManualClock, is_table, live_server
from tests.live.studio_support import STUDIO_TABLES, Dealer

from .web_support import BackOffice, signed_in

pytestmark = pytest.mark.browser
TABLE = "studio-texas"
REASON = "a flop card fell face up"


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BackOffice, ManualClock]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('studio-office') / 'office.db'}"
    clock = ManualClock()
    with live_server(url, clock=clock, extra_tables=STUDIO_TABLES) as (base, app):
        office = BackOffice(SimpleNamespace(url=base, app=app), url)  # type: ignore[arg-type]
        office.member("studio-sup", "support")
        yield office, clock


def test_a_support_agent_sees_the_dealer_status_and_finds_the_misdeal(
        browser: Any, studio: tuple[BackOffice, ManualClock]) -> None:
    office, clock = studio
    card = f"#page-monitor article[data-table='{TABLE}']"
    with signed_in(browser, office, "studio-sup") as page:
        page.wait_for_selector(f"{card} .studio-status[data-dealer='absent']")
        assert "No dealer connected" in page.locator(f"{card} .studio-status").inner_text()

        dealer = Dealer(office.url, TABLE)
        try:
            dealer.state()  # the dealer's socket is in: the monitor sees it within its next look
            page.wait_for_selector(f"{card} .studio-status[data-dealer='connected']")
            assert "Dealer connected" in page.locator(f"{card} p.dealer").inner_text()

            player = LivePlayer(office.url, TABLE)
            try:
                window = player.until(is_table("betting_open"))
                answer = player.reply({"type": "bet", "bets": {"ante": 500}})
                assert answer["type"] == "you" and answer["seat"] is not None, answer
                clock.reach(window)  # the betting window closes: the table waits for the dealer's cards
                player.until(lambda m: m["type"] == "table" and m.get("phase") == "dealing")
                page.wait_for_selector(f"{card} p.deal-countdown")  # 30 s on the table's clock, counting
                countdown = page.locator(f"{card} p.deal-countdown").inner_text()
                left = re.search(r"Waiting for the dealer's cards: (\d+) s left", countdown)
                assert left and 0 < int(left.group(1)) <= 30, countdown  # the page counts down from 30
                accepted = dealer.reply({"type": "misdeal", "reason": REASON})
                assert accepted["type"] == "accepted", accepted
                ended = player.until(lambda m: m["type"] == "table" and m.get("event") == "misdeal")
            finally:
                player.close()
        finally:
            dealer.close()
        page.wait_for_selector(f"{card} p.misdeals[data-misdeals='1']")
        assert page.locator(f"{card} p.deal-countdown").count() == 0

        # the misdeal among the rounds: the status filter alone finds it
        page.click("nav a[href='#rounds']")
        page.select_option("select[name=status]", "misdeal")
        page.click("form.filters button[type=submit]")
        row = page.locator("tr.misdeal")
        page.wait_for_selector("tr.misdeal")
        assert row.count() == 1
        assert str(ended["round"]) in row.inner_text() and "misdeal (void, bets returned)" in row.inner_text()
        row.locator("a[href^='#round/']").click()
        page.wait_for_selector("p.misdeal")
        label = page.locator("p.misdeal").inner_text()
        assert "dealer" in label and REASON in label
        assert "null" not in page.locator("#app").inner_text()
