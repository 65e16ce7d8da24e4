"""The table inside a casino's iframe (issue 28, item 11): in the reference operator's page the
frame takes the height the window leaves, and the table fits the frame it is given, down to
640x360: its status line (a refusal), the chips, DEAL, the timer, each decision and the result are
inside the frame's visible area, no two controls overlap and no text is cut
(tests/web/layout_support.py). Both games, solo and live, at each phase.

The solo tables are dealerpoker's `serve` process; the live tables are studio tables served in this
process on a clock the test moves (tests/live/studio_pages.py), so each phase stays up while it is
checked and the test deals the cards; the casino is the real reference operator either way."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.live.studio_pages import LIVE_ROUNDS, SOLO_DECISIONS, Studio, studio_tables
from tests.operator_demo.test_with_dealerpoker import SECRET, Both, start_both
from tests.support.browser import _wait_for_function
from tests.support.operator import OperatorDemo
from tests.support.operators_file import demo_entry
from tests.support.servers import free_port
from tests.web.layout_support import layout_problems

from dealerpoker.server.operators.config import load_operators

pytestmark = pytest.mark.browser

# The operator's window, then frames the casino might give the game (the smallest the table takes).
FRAMES = [(1000, 620), (640, 360)]


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Both]:
    directory: Path = tmp_path_factory.mktemp("frame")
    operator, game = start_both(directory, f"sqlite:///{directory}/casino.db")
    try:
        yield Both(operator, game)
    finally:
        game.stop()
        operator.stop()


@dataclass
class LiveCasino:
    """The reference operator whose players play the studio tables of ``studio``."""

    operator: OperatorDemo
    studio: Studio


@pytest.fixture
def live_casino(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveCasino]:
    """Per test: a round moves the server's clock past the window in which it accepts the
    operator's signed launch (minutes of real time), so each launch has a clock of its own."""
    directory: Path = tmp_path_factory.mktemp("frame-live")
    port = free_port()
    game_url = f"http://127.0.0.1:{port}"
    with OperatorDemo(directory, secret=SECRET, operator_id="demo", game_url=game_url) as operator:
        (directory / "operators.toml").write_text(demo_entry(operator))
        with studio_tables(tmp_path_factory, port=port, clock_start=datetime.now(UTC),
                           operators=load_operators(directory / "operators.toml")) as studio:
            yield LiveCasino(operator, studio)


def launch(page: Any, both: Both | LiveCasino, player: str, target: str, language: str = "en") -> Any:
    """The casino's page at 1400x950, ``target`` launched into its frame in ``language``; the frame."""
    both.operator.create_player(player, "EUR", 100_000)
    page.goto(both.operator.url + "/")
    page.select_option("#language", language)
    page.wait_for_selector(f"#player option[value={player}]", state="attached")
    page.select_option("#player", player)
    page.wait_for_selector(f"#target option[value='{target}']", state="attached")
    page.select_option("#target", target)
    page.click("#play")
    page.wait_for_function("document.querySelector('#game').src.includes('launch=')")
    frame = page.locator("#game").element_handle().content_frame()
    assert frame is not None
    frame.wait_for_selector(".chip-tray .chip", timeout=60_000)
    return frame


def problems_in_every_frame(page: Any, frame: Any, phase: str) -> list[str]:
    """The layout problems inside the casino's own frame, then in each of FRAMES (the frame's
    element resized by the casino's page); the frame's own box is inside the casino's window."""
    found = []
    box = page.locator("#game").bounding_box()
    bottom = page.viewport_size["height"]
    assert box and box["y"] + box["height"] <= bottom, f"the frame leaves the page: {box}"
    found += [f"{phase} in the casino's frame: {p}" for p in layout_problems(frame)]
    for width, height in FRAMES:
        page.evaluate("([w, h]) => Object.assign(document.querySelector('#game').style,"
                      " { width: `${w}px`, height: `${h}px`, minHeight: '0' })", [width, height])
        found += [f"{phase} in a {width}x{height} frame: {p}" for p in layout_problems(frame)]
    page.evaluate("Object.assign(document.querySelector('#game').style,"
                  " { width: '', height: '', minHeight: '' })")
    return found




# Each game and each language once (tests/web/test_table_fits_every_screen.py has every pair).
GAMES_IN_LANGUAGES = [("texas-bonus", "en"), ("casino-holdem", "de"), ("texas-bonus", "es")]


@pytest.mark.parametrize(("game", "language"), GAMES_IN_LANGUAGES)
def test_a_solo_table_fits_the_casinos_frame_at_each_phase(browser: Any, both: Both, game: str,
                                                           language: str) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 950})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        frame = launch(page, both, f"framed-{game}-{language}", f"game:{game}", language)
        idle = ("window.dealerpokerTable && !window.dealerpokerTable.busy"
                " && window.dealerpokerTable.balance !== null")
        _wait_for_function(frame, idle, timeout=60_000)
        frame.locator("#deal").click()  # no bets: refused, and the refusal is in view
        frame.locator("#message[data-kind='error']").wait_for()
        problems = problems_in_every_frame(page, frame, "a refusal")
        frame.locator(".chip-tray .chip[data-chip='500']").click()
        frame.locator(".spot[data-field='ante']").click(position={"x": 20, "y": 40})
        problems += problems_in_every_frame(page, frame, "bets placed")
        frame.locator("#deal").click()
        for number, action in enumerate(SOLO_DECISIONS[game], start=1):
            button = frame.locator(f"#controls [data-action='{action}']")
            button.wait_for()
            _wait_for_function(frame, idle, timeout=60_000)
            problems += problems_in_every_frame(page, frame, f"decision {number}")
            button.click()
            _wait_for_function(frame, idle, timeout=60_000)
        frame.locator("#result").wait_for()
        problems += problems_in_every_frame(page, frame, "the result")
        assert not problems, "\n".join(problems)
    finally:
        page.close()
    assert not errors, errors


@pytest.mark.parametrize(("game", "language"), [("casino-holdem", "en"), ("texas-bonus", "de"),
                                               ("casino-holdem", "es")])
def test_a_live_table_fits_the_casinos_frame_at_each_phase(browser: Any, live_casino: LiveCasino,
                                                           game: str, language: str) -> None:
    table, streets = LIVE_ROUNDS[game]
    studio = live_casino.studio
    page = browser.new_page(viewport={"width": 1400, "height": 950})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        frame = launch(page, live_casino, f"framed-{game}", f"table:{table}", language)
        assert frame.evaluate("document.documentElement.lang") == language
        studio.wait_for_betting(frame)
        problems = problems_in_every_frame(page, frame, "the betting window")
        assert frame.locator("#countdown-ring").is_visible()
        studio.bet(frame, {"ante": 500})
        problems += problems_in_every_frame(page, frame, "bets placed")
        studio.end_timer(frame)
        for decision in studio.decisions(frame, table, streets):
            problems += problems_in_every_frame(page, frame, decision)
        frame.locator("#result").wait_for(state="visible")
        problems += problems_in_every_frame(page, frame, "the result")
        assert not problems, "\n".join(problems)
    finally:
        page.close()
    assert not errors, errors
