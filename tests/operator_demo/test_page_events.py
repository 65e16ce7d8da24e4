"""The game talks to the casino's page (issue 30): in the reference operator's page, which loads
dealerpoker's js/dealerpoker-frame.js, every page event of a solo table arrives (ready, balance,
round_started, round_ended with its net, error, reality_check, paused, resumed); ``pause`` sent
during a round lets the round finish and then holds the table; ``sound`` switches the table's
sound; ``lobby`` takes the whole window to the launch's lobby. The round played is one of the
casino's free rounds: the table shows "2 free rounds of ..." and the casino's ledger is debited
nothing for its ante."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.operator_demo.test_with_dealerpoker import Both, start_both
from tests.support.browser import _wait_for_function
from tests.support.waiting import until

from dealerpoker.server.responsible.policy import PlayerState

pytestmark = pytest.mark.browser

IDLE = ("window.dealerpokerTable && !window.dealerpokerTable.busy"
        " && window.dealerpokerTable.balance !== null")
SOUND = "document.querySelector('#sound-switch').getAttribute('aria-pressed') === '{}'"


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Both]:
    directory: Path = tmp_path_factory.mktemp("events")
    # A reality check after one minute of play (the test moves the session's start back).
    operator, game = start_both(directory, f"sqlite:///{directory}/casino.db",
                                responsible_gaming={"reality_check_minutes": 1})
    try:
        yield Both(operator, game)
    finally:
        game.stop()
        operator.stop()


def events(page: Any) -> list[dict[str, Any]]:
    """The events the casino's page logged, oldest first."""
    found = page.eval_on_selector_all("#events li", "items => items.map(li => li.textContent)")
    return [{"type": text.split(" ", 1)[0], **json.loads(text.split(" ", 1)[1])} for text in reversed(found)]


def wait_for_event(page: Any, kind: str, after: int = 0, timeout: float = 60) -> dict[str, Any]:
    """The first event of ``kind`` logged after the first ``after`` ones."""
    found: dict[str, Any] = until(lambda: next((e for e in events(page)[after:] if e["type"] == kind), None),
                                  f"a {kind} event after #{after}", timeout=timeout)
    return found


def started_session_minutes_ago(database: Path, player: str, minutes: int) -> None:
    """Move the start of ``player``'s play session ``minutes`` back in the game's database, as if
    they had played that long (their reality check is due after the round in play)."""
    with sqlite3.connect(database, timeout=30) as connection:
        (player_id, text), = connection.execute(
            "SELECT p.id, p.responsible_gaming FROM players p JOIN operator_players o ON o.player_id = p.id"
            " WHERE o.external_id = ?", (player,)).fetchall()
        state = PlayerState.from_json(text)
        started = datetime.fromisoformat(state.document["session_started_at"])
        moved = state.started_session(started - timedelta(minutes=minutes))
        connection.execute("UPDATE players SET responsible_gaming = ? WHERE id = ?",
                           (moved.to_json(), player_id))
    connection.close()


def play(page: Any, both: Both, player: str, target: str) -> Any:
    """The casino's page with ``player``'s ``target`` launched into its frame, idle: the frame."""
    page.goto(both.operator.url + "/")
    page.wait_for_selector(f"#player option[value={player}]", state="attached")
    page.select_option("#player", player)
    page.select_option("#target", target)
    page.click("#play")
    page.wait_for_function("document.querySelector('#game').src.includes('launch=')")
    frame = page.locator("#game").element_handle().content_frame()
    _wait_for_function(frame, IDLE, timeout=60_000)
    return frame


def test_every_page_event_arrives_pause_holds_after_the_round_and_lobby_leaves(
        browser: Any, both: Both) -> None:
    operator = both.operator
    operator.create_player("eve", "EUR", 100_000)
    status, campaign = operator.admin("POST", "/admin/campaigns", {
        "campaign_id": "welcome", "games": ["casino-holdem"], "ante": {"EUR": 200}, "rounds": 2,
        "valid_from": "2020-01-01T00:00:00Z", "valid_until": "2100-01-01T00:00:00Z"})
    assert status == 200, campaign
    assert operator.admin("POST", f"/admin/campaigns/{campaign['id']}/grants", {"players": ["eve"]})[0] == 200
    page = browser.new_page(viewport={"width": 1400, "height": 950})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        frame = play(page, both, "eve", "game:casino-holdem")
        ready = wait_for_event(page, "ready")
        assert (ready["game"], ready["balance"]) == ("casino-holdem", 100_000)
        assert wait_for_event(page, "balance")["balance"] == 100_000
        offer = frame.locator("#free-rounds")
        offer.wait_for()
        assert offer.locator("#free-rounds-text").text_content().startswith("2 free rounds of")

        frame.locator("#free-round-button").click()
        started = wait_for_event(page, "round_started")
        assert (started["free"], started["stake"]) == (True, 0)  # the ante is the casino's
        assert operator.balance("eve") == 100_000
        _wait_for_function(frame, IDLE, timeout=60_000)
        count = len(events(page))
        page.click("#frame-pause")  # during the round: it finishes, then the table holds
        frame.locator("#controls [data-action='fold']").click()
        ended = wait_for_event(page, "round_ended", count)
        assert ended["round_id"] == started["round_id"] and ended["net"] == ended["returned"] - ended["stake"]
        assert ended["net"] == 0  # a fold of a free ante loses nothing of the player's
        wait_for_event(page, "paused", count)
        _wait_for_function(frame, "document.querySelector('[data-held=true]') !== null", timeout=30_000)
        _wait_for_function(frame, IDLE, timeout=60_000)
        held = len(events(page))
        frame.locator("#free-round-button").click()  # held: refused at the table, nothing dealt
        refused = wait_for_event(page, "error", held)
        assert "Paused by the casino" in refused["message"]
        assert not [e for e in events(page)[held:] if e["type"] == "round_started"]
        assert operator.admin("GET", f"/admin/campaigns/{campaign['id']}")[1]["rounds_used"] == 1
        page.click("#frame-resume")
        wait_for_event(page, "resumed", held)
        frame.locator("#free-round-button").click()
        wait_for_event(page, "round_started", held)

        page.click("#frame-sound-on")
        _wait_for_function(frame, SOUND.format("true"), timeout=30_000)
        page.click("#frame-sound-off")
        _wait_for_function(frame, SOUND.format("false"), timeout=30_000)
        _wait_for_function(frame, IDLE, timeout=60_000)
        # Two minutes of play, without waiting for them: the check is due once this round ends.
        started_session_minutes_ago(Path(both.game.database.removeprefix("sqlite:///")), "eve", 2)
        frame.locator("#controls [data-action='fold']").click()
        wait_for_event(page, "round_ended", held)
        check = wait_for_event(page, "reality_check", held)  # the round's end asks for the session
        assert check["minutes"] == 2
        frame.locator("#reality-continue").click()

        with page.expect_navigation(url=f"{operator.url}/", timeout=30_000):
            page.click("#frame-lobby")  # the whole window goes to the launch's lobby_url
        assert page.locator("#events li").count() == 0  # a new page: the casino's lobby
    finally:
        page.close()
    assert not errors, errors


def test_cashier_takes_the_window_to_the_casinos_cashier(
        browser: Any, both: Both) -> None:
    operator = both.operator
    operator.create_player("fay", "EUR", 50_000)
    page = browser.new_page(viewport={"width": 1400, "height": 950})
    try:
        play(page, both, "fay", "game:texas-bonus")
        wait_for_event(page, "ready")
        with page.expect_navigation(url=f"{operator.url}/cashier", timeout=30_000):
            page.click("#frame-cashier")
        assert page.locator("#cashier").text_content() == "Cashier"
    finally:
        page.close()


def test_a_live_table_posts_its_events_and_holds_when_paused(browser: Any, both: Both) -> None:
    operator = both.operator
    operator.create_player("gil", "EUR", 70_000)
    table = operator.admin("GET", "/tables")[1]["tables"][0]["id"]
    page = browser.new_page(viewport={"width": 1400, "height": 950})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(operator.url + "/")
        page.wait_for_selector("#player option[value=gil]", state="attached")
        page.select_option("#player", "gil")
        page.wait_for_selector(f"#target option[value='table:{table}']", state="attached")
        page.select_option("#target", f"table:{table}")
        page.click("#play")
        frame = page.locator("#game").element_handle().content_frame()
        ready = wait_for_event(page, "ready")
        assert (ready["table"], ready["balance"]) == (table, 70_000)
        assert wait_for_event(page, "balance")["balance"] == 70_000
        frame.wait_for_selector(".chip-tray .chip", timeout=60_000)
        count = len(events(page))
        page.click("#frame-pause")  # no round of this player's in play: the table holds at once
        wait_for_event(page, "paused", count)
        frame.locator(".chip-tray .chip").first.click()
        frame.locator(".spot[data-field='ante']").click(position={"x": 20, "y": 10})
        refused = wait_for_event(page, "error", count)
        assert "Paused by the casino" in refused["message"]
        page.click("#frame-resume")
        wait_for_event(page, "resumed", count)
    finally:
        page.close()
    assert not errors, errors
