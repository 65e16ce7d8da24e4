"""A studio table in a real browser: the dealer console dealing a whole round with the keyboard
alone, and the player page with the studio's video (or the plain table when it cannot play)
showing the cards street by street as the dealer reports them.

Debian's Chromium driven by Playwright (never a downloaded browser); skips, saying why, without
it. The table clock is a ``ManualClock``: a timer ends when the test moves the clock.
"""

from __future__ import annotations

import base64
import functools
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tests.live.conftest import LivePlayer, ManualClock, is_table, live_server, table_entry
from tests.live.studio_support import KEY, STUDIO, STUDIO_TABLES
from tests.support.browser import ARTIFACTS, until_delivered

from dealerpoker.cards import parse_cards
from dealerpoker.cards.encoding import card_to_index
from dealerpoker.games import get_game

pytestmark = pytest.mark.browser


def _page(browser: Any, errors: list[str]) -> Any:
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(60_000)
    return page


def _cards(page: Any, selector: str) -> list[str]:
    cards: list[str] = page.locator(f"{selector} .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
    return cards


def test_the_dealer_console_deals_a_whole_round_with_the_keyboard_alone(browser: Any, tmp_path: Path) -> None:
    errors: list[str] = []
    clock = ManualClock()
    with live_server(f"sqlite:///{tmp_path}/studio.db", clock=clock, betting=600, decision=600, pause=600,
                     extra_tables=STUDIO_TABLES) as (base, _app):
        player = LivePlayer(base, "studio-texas")
        page = _page(browser, errors)
        try:
            page.goto(f"{base}/dealer.html#/studio-texas")
            page.locator("#dealer-key").wait_for()
            assert page.evaluate("document.activeElement.id") == "dealer-key"
            assert page.locator("#console").is_hidden()  # nothing of the table before the key
            page.keyboard.type(KEY)
            page.keyboard.press("Enter")
            page.locator("#console").wait_for(state="visible")
            assert page.evaluate("document.activeElement.id") == "card-input"
            window = player.until(is_table("betting_open"))
            start = player.balance()
            assert player.reply({"type": "bet", "bets": {"ante": 100, "bonus": 100}})["type"] == "you"
            clock.reach(window)
            expect = page.locator("#dealer-expect")
            expect.filter(has_text="Deal 2 cards to the PLAYER").wait_for()
            page.locator("#dealer-stakes").filter(has_text="Bonus €1.00").wait_for()

            def report(cards: str) -> None:
                for card in cards.split():
                    before = page.locator("#reports .report").count()
                    page.keyboard.type(card)
                    page.keyboard.press("Enter")
                    page.wait_for_function("n => document.querySelectorAll('#reports .report').length > n",
                                           arg=before)

            report("9s Kd")
            page.keyboard.press("Tab")    # REPORT
            page.keyboard.press("Tab")    # VOID: Kd was a misread
            assert page.evaluate("document.activeElement.id") == "void"
            page.keyboard.press("Enter")
            page.locator('#reports .report[data-voided="true"][data-card="Kd"]').wait_for()
            page.keyboard.press("Shift+Tab")
            page.keyboard.press("Shift+Tab")
            assert page.evaluate("document.activeElement.id") == "card-input"
            report("9h")                  # the player's second card
            expect.filter(has_text="Deal 2 cards to the DEALER").wait_for()
            page.keyboard.type("9h")      # a duplicate: refused, nothing changes
            page.keyboard.press("Enter")
            page.locator("#message").filter(has_text="already in this round").wait_for()
            report("Qh Qc")
            decision = player.until(is_table("decision"))
            assert decision["player_cards"] == ["9s", "9h"] and decision["dealer_cards"] == []
            assert player.reply({"type": "decide", "action": "bet"})["type"] == "you"
            expect.filter(has_text="Deal 3 cards to the BOARD (flop)").wait_for()
            report("2c 7d 9d")
            clock.reach(player.until(lambda m: is_table("decision")(m) and m["point"] == "flop"))
            expect.filter(has_text="(turn)").wait_for()
            report("Js")
            clock.reach(player.until(lambda m: is_table("decision")(m) and m["point"] == "turn"))
            expect.filter(has_text="(river)").wait_for()
            report("3s")
            settled = player.until(lambda m: m["type"] == "you" and m["phase"] == "pause")["seat"]
            page.locator('#last-rounds tr[data-round="studio-texas/1"]').wait_for()
            row = page.locator('#last-rounds tr[data-round="studio-texas/1"]').inner_text()
            assert "settled" in row and "Qh Qc" in row and "2c 7d 9d Js 3s" in row
            expect.filter(has_text="Nothing to deal now").wait_for()
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "dealer-console.png"), full_page=True)
        finally:
            player.close()
        deck = [card_to_index(c) for c in parse_cards("9s 9h Qh Qc 2c 7d 9d Js 3s")]
        expected = get_game("texas-bonus").replay({"ante": 100, "bonus": 100}, deck,
                                                  ["bet", "check", "check"])[0].settlement
        assert settled["settlement"] == expected.to_dict()
        assert player.balance() == start + expected.net
        page.context.close()
    assert not errors, f"JavaScript errors on the dealer console: {errors}"


def _studio_video(browser: Any, folder: Path) -> None:
    """A short WebM (one second of a changing colour) recorded by the browser itself."""
    page = browser.new_page()
    page.set_content("<canvas id=c width=160 height=90></canvas>")
    data = page.evaluate("""async () => {
      const canvas = document.getElementById('c'), paint = canvas.getContext('2d');
      const recorder = new MediaRecorder(canvas.captureStream(10), {mimeType: 'video/webm;codecs=vp8'});
      const chunks = [];
      recorder.ondataavailable = (event) => chunks.push(event.data);
      recorder.start();
      for (let i = 0; i < 10; i++) {
        paint.fillStyle = `rgb(${i * 25}, 90, 60)`;
        paint.fillRect(0, 0, 160, 90);
        await new Promise((done) => setTimeout(done, 100));
      }
      recorder.stop();
      await new Promise((done) => { recorder.onstop = done; });
      const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
      let text = '';
      for (const byte of bytes) text += String.fromCharCode(byte);
      return btoa(text);
    }""")
    page.close()
    (folder / "studio.webm").write_bytes(base64.b64decode(data))


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No access log on the test's output."""


@contextmanager
def _video_server(folder: Path) -> Iterator[str]:
    """The studio's stream: files served over loopback HTTP from ``folder``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_player_page_shows_the_video_and_the_cards_as_the_dealer_reports_them(browser: Any,
                                                                                  tmp_path: Path) -> None:
    errors: list[str] = []
    folder = tmp_path / "stream"
    folder.mkdir()
    _studio_video(browser, folder)
    clock = ManualClock()
    with _video_server(folder) as stream:
        tables = (table_entry("studio-video", "texas-bonus", f'video_url = "{stream}/studio.webm"{STUDIO}')
                  + table_entry("studio-broken", "casino-holdem",
                                f'video_url = "{stream}/missing.webm"{STUDIO}'))
        with live_server(f"sqlite:///{tmp_path}/studio.db", clock=clock, betting=600, decision=600, pause=600,
                         extra_tables=tables) as (base, _app):
            page, broken, console = _page(browser, errors), _page(browser, errors), _page(browser, errors)
            observer = LivePlayer(base, "studio-video")

            def pick(cards: str) -> None:
                """The dealer reports each card on the console with the mouse (its 52-card picker)."""
                for card in cards.split():
                    before = console.locator("#reports .report").count()
                    console.locator(f'.pick[data-card="{card}"]').click()
                    console.wait_for_function("n => document.querySelectorAll('#reports .report').length > n",
                                              arg=before)

            try:
                console.goto(f"{base}/dealer.html#/studio-video")
                console.locator("#dealer-key").fill(KEY)
                console.locator("#connect").click()
                console.locator("#console").wait_for(state="visible")
                # The lobby says which live tables a studio deals.
                page.goto(f"{base}/#/")
                entry = page.locator('[data-table="live-studio-video"]')
                entry.wait_for()
                assert "dealt by the studio" in entry.inner_text()
                rng_table = page.locator('[data-table="live-texas-fast"]')
                assert "dealt by the studio" not in rng_table.inner_text()
                page.goto(f"{base}/live.html#/studio-video")
                page.wait_for_function("document.querySelector('#studio-video video')?.readyState >= 2")
                page.locator('#studio-video[data-state="playing"]').wait_for()
                assert page.locator("#studio-video").is_visible()
                page.locator("#fairness-button").click()  # the FAIRNESS panel says who deals
                page.locator("#fairness").filter(has_text="Cards dealt by the studio").wait_for()
                page.locator("#fairness-button").click()
                # A stream that cannot play: the plain table.
                broken.goto(f"{base}/live.html#/studio-broken")
                broken.wait_for_function("document.querySelector('#studio-video')?.dataset.state === 'failed'"
                                         " && document.querySelector('#studio-video').hidden")
                broken.locator("#player-cards").wait_for(state="attached")
                assert broken.locator(".felt").is_visible()

                window = observer.until(lambda m: m["type"] == "table" and m["phase"] == "betting")
                page.wait_for_function("window.dealerpokerLive.betting()")
                page.locator("#chip-tray .chip").nth(0).click()
                page.locator('.spot[data-field="ante"]').click()
                page.wait_for_function("window.dealerpokerLive.seat?.bets?.ante === 100")
                clock.reach(window)
                page.locator("#live-phase").filter(has_text="Dealing the hole cards").wait_for()
                pick("Ah Kh 5c")
                assert console.locator('.pick[data-card="Kh"]').is_disabled()  # in the round: not again
                assert _cards(page, "#player-cards") == [] and _cards(page, "#dealer-cards") == []
                pick("5d")
                page.wait_for_function("document.querySelectorAll('#player-cards .card').length === 2")
                assert _cards(page, "#player-cards") == ["Ah", "Kh"]
                assert _cards(page, "#dealer-cards") == ["back", "back"]
                page.locator('#decisions [data-action="bet"]').click()
                try:
                    # The only seat deciding closes the point at once: "pending" may be gone before
                    # a poll sees it, and the Flop bet is then in the seat's fields.
                    page.wait_for_function("window.dealerpokerLive.seat?.pending === 'bet'"
                                           " || window.dealerpokerLive.seat?.fields?.flop > 0")
                except Exception as timeout:  # say what the page saw: a refusal, a reconnection
                    seen = page.evaluate("[document.querySelector('#message')?.textContent,"
                                         " JSON.stringify(window.dealerpokerLive.seat)]")
                    raise AssertionError(f"the Bet was not taken; the page showed {seen}") from timeout
                page.locator("#live-phase").filter(has_text="Dealing the flop").wait_for()
                pick("Qh Jh")
                assert _cards(page, "#board-cards") == ["back"] * 5  # nothing before the street is in
                pick("2s")
                page.wait_for_function("document.querySelector('#board-cards .card').dataset.card === 'Qh'")
                assert _cards(page, "#board-cards") == ["Qh", "Jh", "2s", "back", "back"]
                clock.reach(observer.until(lambda m: is_table("decision")(m) and m["point"] == "flop"))
                page.locator("#live-phase").filter(has_text="Dealing the turn").wait_for()
                pick("Th")
                page.wait_for_function("document.querySelectorAll('#board-cards .card')[3].dataset.card"
                                       " === 'Th'")
                assert _cards(page, "#dealer-cards") == ["back", "back"]
                clock.reach(observer.until(lambda m: is_table("decision")(m) and m["point"] == "turn"))
                page.locator("#live-phase").filter(has_text="Dealing the river").wait_for()
                pick("3c")
                page.locator("#result").wait_for(state="visible")
                assert _cards(page, "#dealer-cards") == ["5c", "5d"]
                assert _cards(page, "#board-cards") == ["Qh", "Jh", "2s", "Th", "3c"]
                assert page.locator("#result-headline").inner_text() == "You win"  # a royal flush
                # The round's record: the cards the dealer reported, in place of a seed check.
                page.locator("#verify-round").click()
                reports = page.locator('[data-studio="studio-video/1"] li[data-card]')
                reports.nth(8).wait_for()
                assert reports.evaluate_all("items => items.map(i => i.dataset.card)") == [
                    "Ah", "Kh", "5c", "5d", "Qh", "Jh", "2s", "Th", "3c"]
                studio_note = page.locator('[data-studio="studio-video/1"]').inner_text()
                assert "Cards dealt by the studio" in studio_note
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / "studio-table.png"), full_page=True)
            finally:
                observer.close()
            for open_page in (page, broken, console):
                open_page.context.close()
    assert not errors, f"JavaScript errors on the player pages: {errors}"


def test_the_player_page_and_the_dealer_console_reconnect_when_their_socket_closes(
    browser: Any, tmp_path: Path,
) -> None:
    """Each page opens a new socket after its own closed (``js/socket.js``: the wait grows with each
    attempt and a welcome ends the retries), and is welcomed again."""
    errors: list[str] = []
    with live_server(f"sqlite:///{tmp_path}/studio.db", clock=ManualClock(), betting=600, decision=600,
                     pause=600, extra_tables=STUDIO_TABLES) as (base, _app):
        pages = {"dealerpokerLive": _page(browser, errors), "dealerpokerDealer": _page(browser, errors)}
        welcomes: dict[str, list[str]] = {name: [] for name in pages}

        def watch(name: str, socket: Any) -> None:
            socket.on("framereceived", lambda text: welcomes[name].append(socket.url)
                      if json.loads(text).get("type") == "welcome" else None)

        for name, page in pages.items():
            page.on("websocket", functools.partial(watch, name))
        pages["dealerpokerLive"].goto(f"{base}/live.html#/studio-texas")
        dealer = pages["dealerpokerDealer"]
        dealer.goto(f"{base}/dealer.html#/studio-texas")
        dealer.locator("#dealer-key").fill(KEY)
        dealer.keyboard.press("Enter")
        for name, page in pages.items():
            for count in (1, 2):
                page.wait_for_function("o => window[o]?.socket?.readyState === WebSocket.OPEN"
                                       " && window[o].retries === 0", arg=name)
                until_delivered(page, lambda: len(welcomes[name]) >= count,  # noqa: B023 (looked at now)
                                f"{name} is welcomed {count} time(s)")
                if count == 1:
                    page.evaluate("o => window[o].socket.close()", name)
            assert welcomes[name][0] == welcomes[name][1], welcomes  # the same table's socket again
        dealer.locator("#connection").filter(has_text="Connected").wait_for()
        for page in pages.values():
            page.context.close()
    assert not errors, errors
