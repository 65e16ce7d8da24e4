"""Take the screenshots of the README and docs/players.md from the real page.

Starts ``dealerpoker serve`` (the tables ``make run`` serves) on a free loopback port with a
throw-away SQLite database and drives Debian's Chromium (Playwright, headless) by clicking like a
player:

- ``texas-bonus``, ``casino-holdem``: plays solo rounds and saves the first settled round the
  player wins (the verdict and the winning cards lit) as ``docs/screenshots/<game>.png``, the
  screen a 1366x768 laptop shows;
- ``texas-bonus-phone``: the same on a 390x844 phone (touch), ``docs/screenshots/texas-bonus-phone.png``;
- ``live-table``: two players (two browser sessions) bet in the same betting window of the live
  table ``texas-1``, both bet pre-flop, and the first one's page is saved on the flop, its
  decision timer running: ``docs/screenshots/live-table.png``;
- ``dealer-console``: a second server with a studio table (``dealing = "studio"``); a player bets
  and bets pre-flop, the dealer deals the hole cards and the flop by clicking the console's card
  picker, and the console is saved as it asks for the turn: ``docs/screenshots/dealer-console.png``.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--only live-table]
"""

from __future__ import annotations

import argparse
import random
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: tests.support
from tests.support.browser import _wait_for_function
from tests.support.servers import ServeProcess

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
# Opening bets (chip values clicked onto each field) and the decision taken at each step.
PLAYS = {
    "texas-bonus": ({"ante": [1000], "bonus": [500]}, ["bet", "bet", "bet"]),
    "casino-holdem": ({"ante": [1000], "aa": [500]}, ["raise"]),
}
LIVE_TABLE = "texas-1"  # from the shipped src/dealerpoker/tables/tables.toml
# Each live player's opening bets (chip values clicked onto each field).
LIVE_BETS = ({"ante": [1000], "bonus": [500]}, {"ante": [2500]})
SHOTS = (*PLAYS, "texas-bonus-phone", "live-table", "dealer-console")
PHONE = {"width": 390, "height": 844}
STUDIO_TABLES = """[[tables]]
id = "studio-1"
title = "Live Poker — Studio 1"
game = "texas-bonus"
dealing = "studio"
betting_seconds = 8
decision_seconds = 60
[tables.studio]
dealer_key = "{key}"
deal_seconds = 120
"""


def place(page: Any, bets: dict[str, list[int]]) -> None:
    for field, chips in bets.items():
        for chip in chips:
            page.click(f".chip-tray .chip[data-chip='{chip}']")
            page.click(f".spot[data-field='{field}']")


def play_until_a_win(page: Any, url: str, game: str, out: Path, attempts: int, name: str = "") -> int:
    bets, decisions = PLAYS[game]
    page.goto(f"{url}/#/play/{game}")
    page.wait_for_selector(".chip-tray .chip")
    idle = "window.dealerpokerTable && !window.dealerpokerTable.busy"
    for attempt in range(1, attempts + 1):
        place(page, bets)
        page.click("#deal")
        page.wait_for_function(idle)
        for action in decisions:
            button = page.locator(f"#controls [data-action='{action}']")
            if button.count():
                button.click()
                page.wait_for_function(idle)
        page.wait_for_selector("#new-game")
        won = page.locator("#result").evaluate("r => r.classList.contains('is-win')")
        if won or attempt == attempts:
            page.mouse.move(0, 0)
            page.wait_for_timeout(600)  # let the dealt cards land
            page.screenshot(path=str(out / f"{name or game}.png"))  # the screen, as the player sees it
            return attempt
        page.click("#new-game")
    return attempts


def live_round_on_the_flop(browser: Any, url: str, out: Path, width: int, height: int) -> None:
    """Two players at the live table, both in on the flop; the first one's page is saved."""
    pages = [browser.new_context(viewport={"width": width, "height": height}).new_page() for _ in LIVE_BETS]
    for page in pages:  # as docs/players.md says: the lobby, then the table under "Live tables"
        page.set_default_timeout(90_000)  # a full round of the table's real timers, and more
        page.goto(f"{url}/#/")
        page.locator(f'[data-table="live-{LIVE_TABLE}"]').click()
        page.wait_for_url(f"**/live.html#/{LIVE_TABLE}")
    # A betting window with time enough for both to bet (else the next one, after a round).
    for page in pages:
        page.wait_for_function("document.querySelector('.table')?.dataset.phase === 'betting'"
                               " && window.dealerpokerLive.deadlineLeft() > 8")
    for page, bets in zip(pages, LIVE_BETS, strict=True):
        place(page, bets)
        page.wait_for_function(f"window.dealerpokerLive.seat?.bets?.ante === {bets['ante'][0]}")
    for page in pages:  # no more bets, the deal: both bet pre-flop, which opens the flop at once
        page.locator('#decisions [data-action="bet"]').click()
    for page in pages:
        page.wait_for_function("window.dealerpokerLive.state.point === 'flop'"
                               " && document.querySelector('#decisions [data-action=\"check\"]')")
    first = pages[0]
    first.mouse.move(0, 0)
    first.wait_for_timeout(2500)  # let the cards land and the countdown ring run down a little
    first.screenshot(path=str(out / "live-table.png"))


def dealer_console(browser: Any, scratch: Path, out: Path, width: int) -> None:
    """A studio round dealt on the dealer console with the mouse, saved as it asks for the turn."""
    key = secrets.token_urlsafe(18)
    tables = scratch / "studio.toml"
    tables.write_text(STUDIO_TABLES.format(key=key))
    server = ServeProcess(f"sqlite:///{scratch}/studio.db", log=scratch / "studio.log",
                          extra=["--tables", str(tables)])
    try:
        console = browser.new_context(viewport={"width": width, "height": 760}).new_page()
        player = browser.new_context(viewport={"width": width, "height": 900}).new_page()
        for page in (console, player):
            page.set_default_timeout(90_000)
        console.goto(f"{server.url}/dealer.html#/studio-1")
        console.locator("#dealer-key").fill(key)
        console.locator("#connect").click()
        player.goto(f"{server.url}/live.html#/studio-1")
        player.wait_for_function("document.querySelector('.table')?.dataset.phase === 'betting'"
                                 " && window.dealerpokerLive.deadlineLeft() > 4")
        place(player, {"ante": [1000], "bonus": [500]})
        deck = random.sample([f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs"], 7)
        for position, card in enumerate(deck):
            if position == 4:  # the hole cards are in: the player bets pre-flop, the flop comes
                player.locator('#decisions [data-action="bet"]').click()
            console.locator("#dealer-expect").filter(has_text="Deal").wait_for()
            console.locator(f'.pick[data-card="{card}"]').click()
            console.wait_for_function("n => document.querySelectorAll('#reports .report').length === n",
                                      arg=position + 1)
        player.locator('#decisions [data-action="check"]').click()  # the flop is decided: the turn
        console.locator("#dealer-expect").filter(has_text="(turn)").wait_for()
        console.mouse.move(0, 0)
        console.screenshot(path=str(out / "dealer-console.png"), full_page=True)
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--only", choices=SHOTS, action="append", help="take only this one (repeatable)")
    parser.add_argument("--attempts", type=int, default=40, help="rounds to play looking for a win")
    parser.add_argument("--width", type=int, default=1366)
    parser.add_argument("--height", type=int, default=768)
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"screenshots: {CHROMIUM} is missing (make test installs Debian's chromium when root)",
              file=sys.stderr)
        return 2
    from playwright.sync_api import Page, sync_playwright

    # The pages' Content-Security-Policy (no 'unsafe-eval') refuses Playwright's own
    # wait_for_function: poll through page.evaluate, as the browser tests do.
    Page.wait_for_function = _wait_for_function  # type: ignore[method-assign,assignment]
    shots = args.only or list(SHOTS)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        server = ServeProcess(f"sqlite:///{scratch}/screenshots.db", log=Path(scratch) / "server.log")
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for game in (shot for shot in shots if shot in PLAYS):
                    page = browser.new_page(viewport={"width": args.width, "height": args.height})
                    rounds = play_until_a_win(page, server.url, game, args.out, args.attempts)
                    print(f"{args.out / (game + '.png')}: after {rounds} round(s)")
                if "texas-bonus-phone" in shots:
                    phone = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                                device_scale_factor=1).new_page()
                    rounds = play_until_a_win(phone, server.url, "texas-bonus", args.out, args.attempts,
                                              name="texas-bonus-phone")
                    print(f"{args.out / 'texas-bonus-phone.png'}: after {rounds} round(s)")
                if "live-table" in shots:
                    live_round_on_the_flop(browser, server.url, args.out, args.width, args.height)
                    print(f"{args.out / 'live-table.png'}: two players on the flop")
                if "dealer-console" in shots:
                    dealer_console(browser, Path(scratch), args.out, args.width)
                    print(f"{args.out / 'dealer-console.png'}: a studio round asking for the turn")
                browser.close()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
