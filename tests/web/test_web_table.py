"""The casino table in a real browser (Chromium via Playwright) against the real server.

Every behaviour of issue 5 is driven by clicks and keys here, and after each round the balance
the page shows must equal the server's ledger (GET /api/balance).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from tests.support.browser import open_lobby

from .web_support import ARTIFACTS, LiveServer

pytestmark = pytest.mark.browser

YELLOW_RING = "rgb(255, 212, 0)"


def shown_money(minor: int) -> str:
    """123450 -> '€1,234.50', as the page shows amounts in euros and English."""
    return f"{'-' if minor < 0 else ''}€{abs(minor) // 100:,}.{abs(minor) % 100:02d}"


def money(text: str) -> int:
    """'€1,234.50' -> 123450 minor units."""
    match = re.fullmatch(r"(-?)€([\d,]+)\.(\d\d)", text.strip())
    assert match, f"not an amount: {text!r}"
    sign, major, cents = match.groups()
    value = int(major.replace(",", "")) * 100 + int(cents)
    return -value if sign else value


class Table:
    """The table page, seen and used the way a player does."""

    def __init__(self, page: Any, server: LiveServer) -> None:
        self.page = page
        self.server = server

    def open(self, game: str) -> Table:
        self.page.goto(f"{self.server.url}/#/play/{game}")
        self.page.wait_for_selector(".chip-tray .chip")
        self.idle()
        return self

    def idle(self) -> None:
        self.page.wait_for_function("window.dealerpokerTable && !window.dealerpokerTable.busy "
                                    "&& document.querySelector('#balance').textContent !== '—'")

    @property
    def token(self) -> str:
        token: str = self.page.evaluate("sessionStorage.getItem('dealerpoker.token')")
        assert token
        return token

    def chip(self, amount: int) -> Any:
        return self.page.locator(f".chip-tray .chip[data-chip='{amount}']")

    def select(self, amount: int) -> None:
        self.chip(amount).click()

    def spot(self, field: str) -> Any:
        return self.page.locator(f".spot[data-field='{field}']")

    def place(self, field: str, times: int = 1) -> None:
        """Clicks the field's empty area (above its stack): each click adds the selected chip."""
        spot = self.spot(field)
        box = spot.bounding_box()
        assert box, field
        for _ in range(times):
            spot.click(position={"x": box["width"] / 2, "y": box["height"] * 0.12})

    def amount(self, field: str) -> int:
        stack = self.page.locator(f"[data-spot='{field}'] .stack")
        if not stack.count():
            return 0
        return int(stack.get_attribute("data-amount") or 0)

    def stack(self, field: str) -> list[int]:
        """Chip values from the bottom of the stack up."""
        return [int(v) for v in self.page.locator(f"[data-spot='{field}'] .stack .chip").evaluate_all(
            "chips => chips.map(c => c.dataset.chip)")]

    def shown(self, meter: str) -> int:
        return money(self.page.locator(f"#{meter}").inner_text())

    def message(self) -> str:
        text: str = self.page.locator("#message").inner_text()
        return text

    def decisions(self) -> list[str]:
        actions: list[str] = self.page.locator("#controls [data-action]").evaluate_all(
            "buttons => buttons.map(b => b.dataset.action)")
        return actions

    def act(self, action: str) -> None:
        self.page.locator(f"#controls [data-action='{action}']").click()
        self.idle()

    def press(self, key: str) -> None:
        self.page.locator("body").press(key)
        self.idle()

    def cards(self, where: str) -> list[str]:
        found: list[str] = self.page.locator(f"#{where}-cards .card").evaluate_all(
            "cards => cards.map(c => c.dataset.card)")
        return found

    def deal(self) -> None:
        self.page.locator("#deal").click()
        self.idle()

    def assert_balance_matches_ledger(self) -> int:
        ledger = self.server.balance(self.token)
        assert self.shown("balance") == ledger, "the balance shown differs from the server's ledger"
        return ledger

    def screenshot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def test_lobby_offers_both_games_and_opens_a_session(desktop: Any, live_server: LiveServer) -> None:
    tables = open_lobby(desktop, live_server.url + "/")
    names = tables.evaluate_all("links => links.map(a => a.querySelector('.lobby__name').textContent)")
    assert names == ["Texas Hold'em Bonus", "Casino Hold'em"]
    token = desktop.evaluate("sessionStorage.getItem('dealerpoker.token')")
    assert token, "the first visit creates a session and keeps its token"
    desktop.locator(".lobby__table[data-table='casino-holdem']").click()
    desktop.wait_for_selector(".table--casino-holdem .chip-tray .chip")
    assert desktop.locator(".hud__title").inner_text() == "Casino Hold'em"
    desktop.reload()
    desktop.wait_for_selector(".chip-tray .chip")
    assert desktop.evaluate("sessionStorage.getItem('dealerpoker.token')") == token, "a reload keeps it"


def test_chips_ring_labels_stacks_and_removal(desktop: Any, live_server: LiveServer) -> None:
    table = Table(desktop, live_server).open("texas-bonus")
    chips = desktop.locator(".chip-tray .chip").evaluate_all("cs => cs.map(c => Number(c.dataset.chip))")
    games = live_server.api("GET", "/api/games", table.token)["games"]
    game = next(g for g in games if g["id"] == "texas-bonus")
    assert chips == game["chips"], "the configured denominations"
    limits = {field["name"]: field for field in game["fields"]}

    # The selection ring is yellow and moves from chip to chip.
    table.select(500)
    ring = table.chip(500).evaluate("c => getComputedStyle(c).outlineColor")
    assert ring == YELLOW_RING
    assert desktop.locator(".chip-tray .chip.is-selected").count() == 1
    table.select(2500)
    assert table.chip(2500).get_attribute("aria-checked") == "true"
    assert table.chip(500).get_attribute("aria-checked") == "false"
    assert table.chip(500).evaluate("c => getComputedStyle(c).outlineStyle") == "none"
    desktop.keyboard.press("1")
    assert table.chip(100).get_attribute("aria-checked") == "true", "number keys select chips"

    # Closed field: no bonus before an ante, with the reason shown.
    table.place("bonus")
    assert table.amount("bonus") == 0
    assert "Bonus is closed: place Ante first" in table.message()
    assert desktop.locator("#message").get_attribute("data-kind") == "error"

    # Hover label: the field's name, then name and value.
    table.spot("ante").hover()
    tip = desktop.locator("#tip-ante")
    assert tip.is_visible() and tip.inner_text() == "Ante"
    table.place("ante", 5)
    assert table.amount("ante") == 500
    assert table.stack("ante") == [500], "five 1.00 chips are drawn as the fewest chips: one 5.00"
    table.spot("ante").hover()
    assert tip.inner_text() == "Ante: €5.00"
    table.select(2500)
    table.place("ante")
    table.select(100)
    table.place("ante")
    assert table.stack("ante") == [2500, 500, 100], "largest at the bottom"
    assert table.shown("total-bet") == 3100

    # Ctrl+click takes back the chip placed last; right-click the lowest chip of the stack.
    table.select(1000)
    table.place("ante")                                   # 41.00: 25 + 10 + 5 + 1
    table.spot("ante").click(modifiers=["Control"])       # the 10.00 just placed
    assert table.amount("ante") == 3100
    table.spot("ante").click(button="right")              # the lowest chip: 1.00
    assert table.amount("ante") == 3000
    assert table.stack("ante") == [2500, 500]
    table.spot("ante").click(modifiers=["Control"])       # chip by chip: then the 25.00
    assert table.amount("ante") == 500

    # The bonus opens once there is an ante; removing the ante returns the bonus.
    table.place("bonus", 2)
    assert table.amount("bonus") == 2000
    assert table.spot("bonus").evaluate("s => s.classList.contains('is-open')")
    desktop.locator("#clear").click()
    assert table.amount("ante") == 0 and table.amount("bonus") == 0
    assert table.shown("total-bet") == 0

    # Limits come from the server: the ante max refuses the chip that would pass it.
    ante_max = limits["ante"]["max"]
    table.select(50000)
    table.place("ante", ante_max // 50000)
    assert table.amount("ante") == ante_max // 50000 * 50000
    table.place("ante")
    assert table.amount("ante") == ante_max // 50000 * 50000
    assert f"Ante max is {shown_money(ante_max)}" in table.message()
    table.spot("ante").click(button="right")
    assert table.amount("ante") == (ante_max // 50000 - 1) * 50000

    # Min/Max signs, with the paytable on hover.
    for field, first_row in (("ante", None), ("bonus", "Ace - Ace")):
        sign = desktop.locator(f".minmax[data-minmax='{field}']")
        assert f"Min {shown_money(limits[field]['min'])}" in sign.inner_text()
        assert f"Max {shown_money(limits[field]['max'])}" in sign.inner_text()
        sign.hover()
        pop = sign.locator(".minmax__pop")
        assert pop.is_visible()
        rows = pop.locator("tbody tr")
        assert rows.count() >= 1
        if first_row:
            assert rows.first.inner_text().startswith(first_row)
            assert "30 to 1" in rows.first.inner_text()

    # Every control carries a text label.
    unlabelled = desktop.locator("button, a").evaluate_all(
        "els => els.filter(e => !(e.innerText.trim() || e.getAttribute('aria-label'))).map(e => e.outerHTML)")
    assert unlabelled == []


def test_texas_bonus_full_rounds(desktop: Any, live_server: LiveServer) -> None:
    table = Table(desktop, live_server).open("texas-bonus")
    start = table.assert_balance_matches_ledger()
    table.select(500)
    table.place("ante")
    table.select(100)
    table.place("bonus")

    table.press("Enter")                                   # Enter deals
    assert table.decisions() == ["fold", "bet"]
    assert "BET €10.00" in desktop.locator("#controls [data-action='bet']").inner_text()
    assert len(table.cards("player")) == 2 and "back" not in table.cards("player")
    assert table.cards("dealer") == ["back", "back"]
    assert table.cards("board") == ["back"] * 5
    assert desktop.locator("#bonus-result").is_visible(), "the Bonus is settled straight after the deal"
    assert table.shown("total-bet") == 600
    table.assert_balance_matches_ledger()

    table.press("b")                                       # B: flop bet 2x ante
    board = table.cards("board")
    assert len([c for c in board if c != "back"]) == 3 and board[3:] == ["back", "back"]
    assert table.decisions() == ["check", "bet"]
    assert desktop.locator("#player-hand").inner_text(), "the player's hand is named once five cards show"
    flop = desktop.locator("#board-cards").bounding_box()
    you = desktop.locator("#player-cards").bounding_box()
    felt = desktop.locator(".felt").bounding_box()
    right_half = flop["x"] + flop["width"] / 2 > felt["x"] + felt["width"] / 2
    assert flop["x"] > you["x"] + you["width"] and right_half, "Live Poker deals the flop on the right side"
    assert desktop.locator("[data-spot='flop'] .stack").get_attribute("data-amount") == "1000"

    table.press("c")                                       # C: check the turn
    assert len([c for c in table.cards("board") if c != "back"]) == 4
    assert table.decisions() == ["check", "bet"]
    table.act("bet")                                       # bet the river by clicking
    assert table.decisions() == []
    assert "back" not in table.cards("dealer") and len(table.cards("dealer")) == 2
    assert desktop.locator("#result").is_visible()
    assert desktop.locator("#result-headline").inner_text()
    lines = desktop.locator("#result .lines tbody tr")
    assert lines.count() >= 4, "ante, bonus, flop and river lines"
    assert desktop.locator("#dealer-hand").inner_text()
    settled = live_server.api("GET", "/api/rounds", table.token, params={"status": "settled"})["rounds"][0]
    assert table.shown("last-win") == settled["settlement"]["total_returned"]
    end = table.assert_balance_matches_ledger()
    assert end == start + settled["settlement"]["net"]
    table.screenshot("texas-bonus-settled.png")

    # REBET: the same stakes, dealt at once; then fold with F.
    desktop.locator("#rebet").click()
    table.idle()
    assert table.decisions() == ["fold", "bet"]
    assert table.amount("ante") == 500 and table.amount("bonus") == 100
    table.press("f")
    # The Bonus was settled at the deal: the headline says its result too (issue 16, item 10).
    headline = desktop.locator("#result-headline").inner_text()
    assert re.fullmatch(r"You folded; Bonus (lost|wins €[\d,.]+)", headline)
    table.assert_balance_matches_ledger()

    # NEW GAME clears the chips and the cards.
    desktop.locator("#new-game").click()
    assert table.cards("player") == [] and table.cards("board") == [] and table.cards("dealer") == []
    assert table.amount("ante") == 0 and table.shown("total-bet") == 0
    assert desktop.locator("#result").is_hidden()
    table.assert_balance_matches_ledger()


def test_casino_holdem_full_rounds(desktop: Any, live_server: LiveServer) -> None:
    table = Table(desktop, live_server).open("casino-holdem")
    table.assert_balance_matches_ledger()
    table.place("aa")
    assert "AA is closed: place Ante first" in table.message()
    desktop.keyboard.press("2")                            # the 5.00 chip
    table.place("ante")
    desktop.keyboard.press("1")
    table.place("aa")
    table.deal()
    assert table.decisions() == ["fold", "raise"]
    assert "RAISE €10.00" in desktop.locator("#controls [data-action='raise']").inner_text()
    assert len([c for c in table.cards("board") if c != "back"]) == 3, "the flop is dealt with the hands"
    assert table.cards("dealer") == ["back", "back"]
    assert desktop.locator("#player-hand").inner_text()
    table.press("r")                                       # R: raise 2x ante
    assert table.decisions() == []
    assert len(table.cards("board")) == 5 and "back" not in table.cards("board")
    assert "back" not in table.cards("dealer")
    assert desktop.locator("[data-spot='raise'] .stack").get_attribute("data-amount") == "1000"
    assert desktop.locator("#result .lines tbody tr").count() == 3
    table.assert_balance_matches_ledger()
    table.screenshot("casino-holdem-settled.png")

    desktop.locator("#rebet").click()
    table.idle()
    assert table.decisions() == ["fold", "raise"]
    table.act("fold")
    assert desktop.locator("#result-headline").inner_text() == "You folded; AA lost"
    table.assert_balance_matches_ledger()
    desktop.keyboard.press("n")                            # N: new game
    assert table.cards("player") == []


def test_refusals_leave_the_table_consistent(desktop: Any, server_factory: Any) -> None:
    server = server_factory(starting_balance=1000)         # 10.00
    table = Table(desktop, server).open("casino-holdem")
    assert table.shown("balance") == 1000

    # The server refuses a raise the balance cannot cover; the round stays open and playable.
    table.select(500)
    table.place("ante")
    table.deal()
    table.act("raise")
    assert table.message() == "RAISE refused: insufficient funds: €10.00 needed, balance is €5.00", \
        "the server's refusal in the catalogue's words, amounts in the player's currency"
    assert desktop.locator("#message").get_attribute("data-kind") == "error"
    assert table.decisions() == ["fold", "raise"]
    assert table.shown("balance") == table.assert_balance_matches_ledger() == 500
    table.act("fold")
    assert table.assert_balance_matches_ledger() == 500

    # REBET until the balance no longer allows it: refused with a message, nothing changes.
    desktop.locator("#rebet").click()
    table.idle()
    table.act("fold")
    assert table.assert_balance_matches_ledger() == 0
    rounds_before = len(server.api("GET", "/api/rounds", table.token)["rounds"])
    desktop.locator("#rebet").click()
    table.idle()
    assert "REBET refused" in table.message() and "balance" in table.message()
    assert desktop.locator("#result-headline").inner_text() == "You folded", "the last result stays shown"
    assert len(server.api("GET", "/api/rounds", table.token)["rounds"]) == rounds_before
    desktop.locator("#new-game").click()
    table.select(100)
    table.place("ante")
    assert "Not enough balance" in table.message() and table.amount("ante") == 0


def test_lost_connection_and_reload_restore_the_round(desktop: Any, live_server: LiveServer) -> None:
    table = Table(desktop, live_server).open("texas-bonus")
    table.select(100)
    table.place("ante", 2)
    table.deal()
    cards = table.cards("player")

    desktop.route("**/api/rounds/**", lambda route: route.abort())
    table.act("bet")
    assert "Lost connection" in table.message()
    assert table.decisions() == ["fold", "bet"], "the table still shows the state the server confirmed"
    desktop.unroute("**/api/rounds/**")
    desktop.locator("#reconnect").click()
    table.idle()
    assert table.decisions() == ["fold", "bet"]
    table.act("bet")
    assert table.decisions() == ["check", "bet"]
    board = table.cards("board")

    desktop.reload()                                       # mid-round: the open round comes back
    table.idle()
    desktop.wait_for_selector("#controls [data-action]")
    assert "restored" in table.message()
    assert table.cards("player") == cards and table.cards("board") == board
    assert table.amount("ante") == 200 and table.amount("flop") == 400
    table.act("check")
    table.act("check")
    assert desktop.locator("#result").is_visible()
    table.assert_balance_matches_ledger()


def test_rules_panel_history_and_replay(desktop: Any, live_server: LiveServer) -> None:
    table = Table(desktop, live_server).open("casino-holdem")
    table.select(100)
    table.place("ante")
    table.deal()
    table.act("raise")
    desktop.locator("#new-game").click()
    table.place("ante")
    table.deal()
    table.act("fold")

    desktop.locator("#rules-button").click()
    panel = desktop.locator("#rules-panel")
    panel.locator(".limits").wait_for()
    games = live_server.api("GET", "/api/games", table.token)["games"]
    game = next(g for g in games if g["id"] == "casino-holdem")
    opening = {field["name"] for field in game["fields"]}
    for field, rtp in game["rtp"].items():
        unknown = "not published yet" if field in opening else "in the Ante's RTP"
        shown = panel.locator(f"tr[data-rtp='{field}'] .rtp").inner_text()
        assert shown == (unknown if rtp is None else f"{rtp * 100:.2f}%")
    assert panel.locator(".paytable[data-paytable='ante']").inner_text().count("to 1") >= 10
    assert panel.locator(".paytable[data-paytable='aa']").is_visible()
    desktop.keyboard.press("Escape")
    assert panel.is_hidden()

    desktop.locator("#history-button").click()
    history = desktop.locator("#history-panel")
    entries = history.locator("[data-round]")
    entries.first.wait_for()
    assert entries.count() == 2
    entries.last.click()                                   # the older round: deal, raise
    replay = history.locator(".replay")
    replay.wait_for()
    steps = replay.locator(".replay__steps li")
    assert steps.count() == 2
    def replay_cards(where: str) -> list[str]:
        found: list[str] = replay.locator(f"[data-replay='{where}'] .card").evaluate_all(
            "cards => cards.map(c => c.dataset.card)")
        return found

    assert replay.locator(".replay__step").inner_text().startswith("Step 1 of 2: DEAL")
    assert replay_cards("dealer") == ["back", "back"], "at the deal the dealer's cards were hidden"
    assert replay_cards("board")[3:] == ["back", "back"] and "back" not in replay_cards("board")[:3]
    replay.get_by_role("button", name="NEXT STEP ▶").click()
    assert replay.locator(".replay__step").inner_text().startswith("Step 2 of 2: RAISE (stake €2.00)")
    assert "back" not in replay_cards("dealer") + replay_cards("board")
    assert replay.locator(".lines tbody tr").count() == 2, "ante and raise"
    replay.get_by_role("button", name="◀ PREV STEP").click()
    assert replay.locator(".replay__step").inner_text().startswith("Step 1 of 2")
    desktop.keyboard.press("Escape")
    assert history.is_hidden()


def test_phone_width(browser: Any, live_server: LiveServer, page_errors: list[str]) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 740}, has_touch=False)
    page = context.new_page()
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    try:
        table = Table(page, live_server).open("texas-bonus")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"the table is {width}px wide at phone width"
        for selector in ("#balance", "#total-bet", "#last-win", ".chip-tray", "#deal", "[data-field=ante]"):
            assert page.locator(selector).is_visible(), selector
        table.select(100)
        table.place("ante")
        table.deal()
        table.act("fold")
        assert page.locator("#result").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        table.assert_balance_matches_ledger()
        table.screenshot("texas-bonus-375px.png")
    finally:
        context.close()
    assert not page_errors, page_errors
