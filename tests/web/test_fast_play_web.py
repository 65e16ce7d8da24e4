"""Fast play and the pace on the solo table (issue 17): the page reads the responsible-gaming
profile. Without fast play (the default) the decisions a deal opens stay shut until the step's
animations have run, also with reduced motion (it removes the movement, not the time); with
``fast_play`` they open with the cards. The least time between rounds: REBET sooner is refused
by the page itself in the player's language, and nothing reaches the server.

Timing is read inside the page (a MutationObserver's ``performance.now()``), and only a lower
bound is asserted without fast play, so a loaded machine cannot make it fail.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealerpoker.messages import catalogue
from dealerpoker.server.responsible.policy import Profile

from .test_web_table import Table
from .web_support import LiveServer, start_server

pytestmark = pytest.mark.browser

STEP_MS = 420 + 3 * 60  # web/js/motion.js: a chip flight and the stagger of its last chip

WATCH = """() => {
  window.__decisions = { shownAt: null, enabledWhenShown: null, enabledAt: null };
  const seen = window.__decisions;
  new MutationObserver(() => {
    const buttons = [...document.querySelectorAll('#controls [data-action]')];
    if (!buttons.length) return;
    const enabled = buttons.some((button) => !button.disabled);
    if (seen.shownAt === null) { seen.shownAt = performance.now(); seen.enabledWhenShown = enabled; }
    if (enabled && seen.enabledAt === null) seen.enabledAt = performance.now();
  }).observe(document.body, { subtree: true, childList: true, attributes: true });
}"""


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[bool, LiveServer]]:
    started = {allowed: start_server(Path(tmp_path_factory.mktemp(f"fast-{allowed}")),
                                     responsible_gaming=Profile(fast_play=allowed, min_round_seconds=600))
               for allowed in (False, True)}
    yield started
    for server in started.values():
        server.stop()


@pytest.mark.parametrize("allowed", [False, True], ids=["fast-play-forbidden", "fast-play-allowed"])
def test_the_decisions_wait_for_the_deal_unless_fast_play_is_allowed(
        browser: Any, servers: dict[bool, LiveServer], allowed: bool) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(30_000)
    server = servers[allowed]
    table = Table(page, server).open("casino-holdem")
    table.idle()
    assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
    assert server.api("GET", "/api/responsible-gaming", table.token)["profile"]["fast_play"] is allowed
    table.select(100)
    table.place("ante")
    page.evaluate(WATCH)
    page.locator("#deal").click()
    page.wait_for_function("window.__decisions.enabledAt !== null")
    seen = page.evaluate("window.__decisions")
    if allowed:
        assert seen["enabledWhenShown"], seen
    else:
        assert not seen["enabledWhenShown"], seen
        assert seen["enabledAt"] - seen["shownAt"] >= STEP_MS - 20, seen  # timers may fire a frame early
    table.act("fold")

    # The pace (min_round_seconds 600): REBET at once is refused by the page, before any request.
    rounds = len(server.api("GET", "/api/rounds", table.token)["rounds"])
    balance = server.balance(table.token)
    table.idle()
    page.locator("#rebet").click()
    text = catalogue("en")
    waiting = re.escape(text["error.rg.too_fast"]).replace(re.escape("{seconds}"), r"\d+")
    refused = table.message()
    assert re.fullmatch(f"{re.escape(text['bet.rebet_refused'])}: {waiting}", refused), refused
    assert len(server.api("GET", "/api/rounds", table.token)["rounds"]) == rounds
    assert server.balance(table.token) == balance
    context.close()
    assert not errors, errors
