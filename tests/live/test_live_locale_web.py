"""The live table in the player's language (issue 17): a German player at a live table sees the
table's texts, amounts in euros written the German way, and the server's refusal of a bet (sent
over the WebSocket as a key and parameters) in German; the language switch changes it to Spanish.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.live.conftest import ManualClock, live_server
from tests.support.browser import ARTIFACTS
from tests.web.test_locale_web import english_left, settings_shown, table_settings

from dealerpoker.messages import catalogue, render

pytestmark = pytest.mark.browser


def test_a_german_player_at_a_live_table(browser: Any, tmp_path: Path) -> None:
    errors: list[str] = []
    with live_server(f"sqlite:///{tmp_path}/web.db", clock=ManualClock(), betting=600, decision=600,
                     pause=600) as (base, _app):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(60_000)
        de = catalogue("de")
        page.goto(f"{base}/live.html?lang=de#/texas-fast")
        page.wait_for_function("document.querySelector('#balance')?.textContent.includes('€')")
        assert page.evaluate("document.documentElement.lang") == "de"
        assert page.locator("#balance").inner_text() == "1.000,00\u00a0€"
        assert page.locator("#live-history-button").inner_text() == de["live.my_rounds_button"]
        assert page.locator("[data-minmax='ante']").inner_text().startswith("Min. 1,00\u00a0€")
        page.locator("#live-phase").filter(has_text=de["live.phase.betting"]).wait_for()

        # A Bonus without an Ante: the page says the field is closed, in German (issue 16 item 8);
        # the server's own refusal, its key and parameters, in German too.
        page.locator(".chip-tray .chip[data-chip='100']").click()
        page.locator(".spot[data-field='bonus']").click()
        closed = render("bet.closed_needs", {"field": de["field.bonus"], "needs": de["field.ante"]}, "de")
        page.locator("#message").filter(has_text=closed).wait_for()
        page.evaluate("window.dealerpokerLive.sendBets({ bonus: 100 })")
        refusal = render("error.bet.needs_main", {"field": de["field.bonus"], "main": de["field.ante"]}, "de")
        page.locator("#message").filter(has_text=refusal).wait_for()
        page.locator(".spot[data-field='ante']").click()
        page.wait_for_function("window.dealerpokerLive.seat?.bets?.ante === 100")
        page.locator("#total-bet").filter(has_text="1,00\u00a0€").wait_for()
        page.screenshot(path=str(ARTIFACTS / "i18n-de-live.png"))
        assert not english_left(page, "de")
        # The rules panel: the table's settings and its own timers in German.
        page.locator("#rules-button").click()
        page.locator("#rules-settings").wait_for()
        config, rules = page.evaluate("[window.dealerpokerLive.config, window.dealerpokerLive.game.rules]")
        assert settings_shown(page) == table_settings(rules, "de", config)
        assert render("rules.seconds", {"count": 600}, "de") in settings_shown(page)
        assert not english_left(page, "de")
        page.locator("#rules-panel .panel__close").click()
        # The limits panel: a session stake limit set here refuses the next bet over it, in German.
        page.locator("#limits-button").click()
        page.locator("#limit-stake_session").fill("1")
        page.locator("[data-set-limit='stake_session']").click()
        applies = page.locator("[data-limit='stake_session'] .limits__applies")
        applies.filter(has_text="1,00\u00a0€").wait_for()
        assert not english_left(page, "de")
        page.locator("#limits-panel .panel__close").click()
        # 2,00 € could stake 10,00 €: over the limit (the field's empty area: a click on its chips
        # would lift the stack, as the rule page says)
        page.locator(".spot[data-field='ante']").click(position={"x": 20, "y": 40})
        euros = {"at_stake": 1000, "left": 100, "limit": 100, "used": 0}
        refused = render("error.rg.stake_session", {name: f"{value // 100},{value % 100:02d}\u00a0€"
                                                    for name, value in euros.items()}, "de")
        page.locator("#message").filter(has_text=refused).wait_for()
        ante = page.evaluate("window.dealerpokerLive.seat?.bets?.ante")
        assert ante == 100, "the bet over the limit was not taken"

        # The switch: Spanish, remembered for the next page.
        with page.expect_navigation():
            page.locator("#language").select_option("es")
        page.locator("#live-phase").filter(has_text=catalogue("es")["live.phase.betting"]).wait_for()
        assert page.evaluate("document.documentElement.lang") == "es"
        page.goto(f"{base}/#/")
        page.locator(".lobby__intro").filter(has_text=catalogue("es")["lobby.intro"]).wait_for()
        context.close()
    assert not errors, errors
