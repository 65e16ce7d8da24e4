"""The studio's dealer console in German and in Spanish (issue 17): two consoles on one studio
table, one opened with ``?lang=de`` and one with ``?lang=es``, deal, void, are refused a duplicate
card and call a misdeal; each shows every text in its language (the catalogues' ``dealer.`` keys,
the server's refusal by its key), amounts in the table's currency the language's way, and no
English catalogue text is left on either. Screenshots: test-artifacts/i18n-{de,es}-dealer.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.live.conftest import LivePlayer, ManualClock, is_table, live_server
from tests.live.studio_support import KEY, STUDIO_TABLES
from tests.support.browser import ARTIFACTS
from tests.web.test_locale_web import english_left

from dealerpoker.messages import catalogue, render

pytestmark = pytest.mark.browser


def _console(browser: Any, base: str, language: str, errors: list[str]) -> Any:
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.set_default_timeout(60_000)
    page.goto(f"{base}/dealer.html?lang={language}#/studio-texas")
    page.locator("#dealer-key").wait_for()
    assert page.evaluate("document.documentElement.lang") == language
    assert page.locator("label[for='dealer-key']").inner_text().strip() == catalogue(language)["dealer.key"]
    assert not english_left(page, language)
    page.locator("#dealer-key").fill(KEY)
    page.locator("#connect").click()
    page.locator("#console").wait_for(state="visible")
    return page


def _expect(language: str, count: int, place: str, street: str) -> str:
    text = catalogue(language)
    return render("dealer.expect", {"count": count, "to": text[f"dealer.place.{place}"].upper(),
                                    "street": text[f"dealer.street.{street}"]}, language)


def test_the_dealer_console_in_german_and_spanish(browser: Any, tmp_path: Path) -> None:
    errors: list[str] = []
    clock = ManualClock()
    de, es = catalogue("de"), catalogue("es")
    with live_server(f"sqlite:///{tmp_path}/studio.db", clock=clock, betting=600, decision=600, pause=600,
                     extra_tables=STUDIO_TABLES) as (base, _app):
        player = LivePlayer(base, "studio-texas")
        try:
            german = _console(browser, base, "de", errors)
            spanish = _console(browser, base, "es", errors)
            window = player.until(is_table("betting_open"))
            assert player.reply({"type": "bet", "bets": {"ante": 100, "bonus": 100}})["type"] == "you"
            clock.reach(window)
            german.locator("#dealer-expect").filter(has_text=_expect("de", 2, "player", "hole")).wait_for()
            assert german.locator("#dealer-phase").inner_text() == de["dealer.phase.dealing"]
            stakes = "Ante 1,00\u00a0€ · Bonus 1,00\u00a0€"  # the table's euros, the German way
            in_play = render("dealer.in_play", {"stakes": stakes}, "de")
            assert german.locator("#dealer-stakes").inner_text() == in_play

            # German: two cards, the second voided (a misread), then a duplicate refused.
            for card in ("9s", "Kd"):
                german.locator("#card-input").fill(card)
                german.keyboard.press("Enter")
                reported = render("dealer.reported", {"card": card}, "de")
                german.locator("#message").filter(has_text=reported).wait_for()
            german.locator("#void").click()
            german.locator('#reports .report[data-voided="true"][data-card="Kd"]').wait_for()
            voided = render("dealer.voided", {"card": "Kd"}, "de")
            german.locator("#message").filter(has_text=voided).wait_for()
            german.locator("#card-input").fill("9s")
            german.keyboard.press("Enter")
            refused = render("error.studio.duplicate_card", {"card": "9s"}, "de")
            german.locator("#message").filter(has_text=refused).wait_for()
            report = german.locator('#reports .report[data-card="9s"]')
            assert report.locator(".report__to").inner_text() == de["dealer.place.player"]
            assert report.locator(".report__source").inner_text() == de["dealer.source.console"]
            assert not english_left(german, "de")
            german.screenshot(path=str(ARTIFACTS / "i18n-de-dealer.png"), full_page=True)

            # Spanish: the same table as the German console left it; a duplicate refused, a misdeal.
            spanish.locator("#dealer-expect").filter(has_text=_expect("es", 1, "player", "hole")).wait_for()
            spanish.locator("#card-input").fill("9s")
            spanish.keyboard.press("Enter")
            refused = render("error.studio.duplicate_card", {"card": "9s"}, "es")
            spanish.locator("#message").filter(has_text=refused).wait_for()
            assert not english_left(spanish, "es")
            spanish.locator("#misdeal").click()
            spanish.locator("#misdeal-confirm").click()
            spanish.locator("#message").filter(has_text=es["dealer.misdeal_called"]).wait_for()
            spanish.locator("#dealer-expect").filter(has_text=es["dealer.misdeal_cancelled"]).wait_for()
            for page, language in ((spanish, "es"), (german, "de")):
                row = page.locator('#last-rounds tr[data-round="studio-texas/1"]')
                row.wait_for()
                assert catalogue(language)["dealer.status.misdeal"] in row.inner_text()
                assert page.locator("#dealer-phase").inner_text() == catalogue(language)["dealer.phase.pause"]
                assert not english_left(page, language)
            spanish.screenshot(path=str(ARTIFACTS / "i18n-es-dealer.png"), full_page=True)
            assert player.until(lambda m: m["type"] == "you" and m["phase"] == "pause")
        finally:
            player.close()
        for page in (german, spanish):
            page.context.close()
    assert not errors, errors
