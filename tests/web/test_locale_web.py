"""Issue 17 in Chromium: a player launched in JPY and German and one in EUR and Spanish see every
amount in their currency and every text in their language, a reality check after the configured
minutes (the server's clock moved on mid-round), and cannot exceed a limit they set on the page;
German words do not widen the page at 375 px. Screenshots: test-artifacts/i18n-*.png (copied to
docs/screenshots for players.md).

The expected texts are rendered here from the catalogues (``dealerpoker.messages``) and the amounts
by a second implementation of the locales' number formats, so a page that shows English, or
cents, or another currency, fails.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from dealerpoker.evaluator.api import evaluate
from dealerpoker.evaluator.categories import category_of, ranks_of
from dealerpoker.messages import PLACEHOLDER, catalogue, render
from dealerpoker.server.responsible.policy import Profile

from .test_web_table import Table
from .web_support import ARTIFACTS, LiveServer, start_server

pytestmark = pytest.mark.browser

EXPONENT = {"JPY": 0, "EUR": 2}
SYMBOL = {"JPY": "¥", "EUR": "€"}


def shown(minor: int, currency: str, language: str, *, signed: bool = False) -> str:
    """Intl.NumberFormat's currency format in German and Spanish: '1.234,50 €', '100.000 ¥';
    Spanish groups thousands from five digits on ('1000,00 €', '10.000,00 €')."""
    exponent = EXPONENT[currency]
    major, minor_part = divmod(abs(minor), 10 ** exponent)
    digits = str(major)
    if language == "de" or len(digits) >= 5:
        digits = f"{major:,}".replace(",", ".")
    number = digits + (f",{minor_part:0{exponent}d}" if exponent else "")
    sign = "-" if minor < 0 else "+" if signed and minor > 0 else ""
    return f"{sign}{number}\u00a0{SYMBOL[currency]}"


class ShiftedClock:
    """The server's clock: the real one, moved on by the test."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset


@pytest.fixture(scope="module")
def clock() -> ShiftedClock:
    return ShiftedClock()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, clock: ShiftedClock) -> Iterator[LiveServer]:
    started = start_server(tmp_path_factory.mktemp("i18n"), clock=clock,
                           responsible_gaming=Profile(reality_check_minutes=1, cooling_off_hours=24.0))
    yield started
    started.stop()


def new_page(browser: Any, width: int, errors: list[str]) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    # A refused bet is a 4xx the browser logs; the page's own errors are what count.
    page.on("console", lambda message: errors.append(message.text)
            if message.type == "error" and not message.text.startswith("Failed to load resource") else None)
    page.set_default_timeout(int(os.environ.get("DEALERPOKER_BROWSER_TIMEOUT_MS", "15000")))
    return page


def english_left(page: Any, language: str) -> list[str]:
    """English catalogue texts (their longest fixed part, 8 characters or more) the page still
    shows in ``language``: its visible text, labels and titles. Texts the language shares with
    English (names, "RTP") are not English left over."""
    english, other = catalogue("en"), catalogue(language)
    theirs = " ".join(other.values())
    shown = page.evaluate("""() => [document.body.innerText,
        ...[...document.querySelectorAll('[aria-label], [title]')].map((el) =>
            `${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('title') ?? ''}`)].join(' ')""")
    left = []
    for key, text in english.items():
        if key.startswith(("admin.", "error.code.")) or other.get(key) == text:
            continue
        chunk = max(PLACEHOLDER.split(text), key=len).strip()
        if len(chunk) >= 8 and chunk not in theirs and chunk in shown:
            left.append(f"{key}: {chunk}")
    return left


def hand_name(hand: dict[str, Any], language: str) -> str:
    """The hand's name from the catalogue, by the evaluator's deciding ranks."""
    value = int(evaluate(" ".join(hand["best_five"])).value)
    first, second = ranks_of(value)[:2]
    entries = catalogue(language)
    chars = "23456789TJQKA"
    return render(f"hand.{category_of(value).slug}", {
        "r1": entries[f"rank.{chars[first]}_one"], "r1s": entries[f"rank.{chars[first]}_other"],
        "r2s": entries[f"rank.{chars[second]}_other"]}, language)


def table_settings(rules: dict[str, Any], language: str, table: dict[str, Any] | None = None) -> list[str]:
    """The rules panel's "Table settings" as the catalogue words them: each entry's meaning and its
    value ("Croupier qualifiziert sich mit", "Vierer oder besser"), then a live table's timers."""
    text = catalogue(language)
    rows = []
    if "ante_qualifier" in rules:
        category = text[f"category.{rules['ante_qualifier']}"]
        rows += [text["rules.setting.ante_qualifier"],
                 render("paytable.or_better", {"category": category}, language)]
    for name in ("dealer_qualifier", "aa_min_pair"):
        if name in rules:
            rank = text[f"rank.{rules[name][0]}_other"]
            rows += [text[f"rules.setting.{name}"],
                     render("paytable.pair_or_better", {"rank_plural": rank}, language)]
    if "aa_settles_on_fold" in rules:
        answer = text["rules.yes" if rules["aa_settles_on_fold"] else "rules.no"]
        rows += [text["rules.setting.aa_settles_on_fold"], answer]
    for point, action in (table or rules)["timeout_actions"].items():
        rows += [render("rules.setting.timeout_action", {"point": text[f"phase.{point}"]}, language),
                 text[f"action.{action}"]]
    for name in ("betting_seconds", "decision_seconds", "deal_seconds", "pause_seconds"):
        if table and table.get(name) is not None:
            rows += [text[f"rules.setting.{name}"], render("rules.seconds", {"count": table[name]}, language)]
    return rows


def settings_shown(page: Any) -> list[str]:
    items = page.locator("#rules-settings > *")
    shown: list[str] = items.evaluate_all("items => items.map(i => i.textContent)")
    return shown


CASES = [
    pytest.param("de", "JPY", "texas-bonus", ["bet", "check", "check"], id="german-yen"),
    pytest.param("es", "EUR", "casino-holdem", ["raise"], id="spanish-euro"),
]


@pytest.mark.parametrize(("language", "currency", "game", "decisions"), CASES)
def test_a_player_in_their_currency_and_language(browser: Any, server: LiveServer, clock: ShiftedClock,
                                                 language: str, currency: str, game: str,
                                                 decisions: list[str]) -> None:
    errors: list[str] = []
    page = new_page(browser, 1280, errors)
    text = catalogue(language)
    table = Table(page, server)
    page.goto(f"{server.url}/?lang={language}&currency={currency}#/play/{game}")
    page.wait_for_selector(".chip-tray .chip")
    table.idle()
    assert page.evaluate("document.documentElement.lang") == language
    account = server.api("GET", "/api/balance", table.token)
    assert account["currency"] == currency
    start = account["balance"]
    assert page.locator("#balance").inner_text() == shown(start, currency, language)
    assert page.locator("#deal").inner_text() == text["btn.deal"]
    assert page.locator("#balance-label").inner_text().lower() == text["meter.balance"].lower()
    games = server.api("GET", f"/api/games?currency={currency}", table.token)["games"]
    limits = {f["name"]: f for f in games[0]["fields"]}
    ante_min = limits["ante"]["min"]
    assert text["spot.min"].replace("{amount}", shown(ante_min, currency, language)) in \
        page.locator("[data-minmax='ante']").inner_text()

    # A round: the stakes, the result and the hand names in the player's currency and language.
    table.select(ante_min)
    table.place("ante")
    table.page.locator("#deal").click()
    table.idle()
    clock.offset += timedelta(minutes=2)  # the session's first minutes pass while the round is open
    for action in decisions:
        if table.decisions():
            table.act(action)
    rounds = server.api("GET", "/api/rounds", table.token,
                        params={"status": "settled", "limit": 1})["rounds"]
    settlement = rounds[0]["settlement"]
    net = shown(settlement["net"], currency, language, signed=True)
    amount = render("result.returned", {"returned": shown(settlement["total_returned"], currency, language),
                                        "stake": shown(settlement["total_stake"], currency, language),
                                        "net": net}, language)
    assert page.locator("#result-amount").inner_text() == amount
    assert page.locator("#player-hand").inner_text() == hand_name(settlement["player_hand"], language)
    assert page.locator("#balance").inner_text() == shown(server.balance(table.token), currency, language)

    # The reality check, between rounds: the session's time, stakes and net; continue.
    dialog = page.locator("#reality-check")
    dialog.wait_for(state="visible")
    assert page.locator("#reality-title").inner_text() == text["rg.reality_title"]
    minutes = render("rg.minutes_other", {"count": 2}, language)
    assert page.locator("#reality-minutes").inner_text() == minutes
    staked = shown(settlement["total_stake"], currency, language)
    assert page.locator("#reality-staked").inner_text() == staked
    assert page.locator("#reality-net").inner_text() == net
    page.screenshot(path=str(ARTIFACTS / f"i18n-{language}-{currency.lower()}-reality-check.png"))
    page.locator("#reality-continue").click()
    dialog.wait_for(state="detached")
    assert not server.api("GET", "/api/responsible-gaming", table.token)["session"]["reality_check_due"]

    # A stake limit set on the page: the next round could stake more than is left, so it is refused.
    used = settlement["total_stake"]
    limit = used + 2 * ante_min
    page.locator("#limits-button").click()
    typed = shown(limit, currency, language).replace("\u00a0" + SYMBOL[currency], "").replace(".", "")
    page.locator("#limit-stake_session").fill(typed)
    page.locator("[data-set-limit='stake_session']").click()
    page.locator("[data-limit='stake_session'] .limits__applies").filter(
        has_text=shown(limit, currency, language)).wait_for()
    status = server.api("GET", "/api/responsible-gaming", table.token)
    assert status["limits"]["stake_session"]["applies"] == limit
    # A higher limit waits for the cooling-off; the lower one stays.
    page.locator("#limit-stake_session").fill("1000")
    page.locator("[data-set-limit='stake_session']").click()
    page.locator("[data-limit='stake_session'] .limits__pending").filter(has_text="1").wait_for()
    assert "{" not in page.locator("#limits-message").inner_text()
    page.screenshot(path=str(ARTIFACTS / f"i18n-{language}-{currency.lower()}-limits.png"))
    page.keyboard.press("Escape")

    before = server.balance(table.token)
    page.locator("#new-game").click()
    table.select(ante_min)
    table.place("ante")
    page.locator("#deal").click()
    table.idle()
    at_stake = ante_min * (5 if game == "texas-bonus" else 3)
    reason = render("error.rg.stake_session", {
        "at_stake": shown(at_stake, currency, language), "left": shown(limit - used, currency, language),
        "limit": shown(limit, currency, language), "used": shown(used, currency, language)}, language)
    assert table.message() == f"{text['bet.deal_refused']}: {reason}"
    assert server.balance(table.token) == before
    page.screenshot(path=str(ARTIFACTS / f"i18n-{language}-{currency.lower()}-refused.png"))
    assert not english_left(page, language)
    # The panels too: rules (RTP, hand ranking, the rules' version) and the history's replay.
    page.locator("#rules-button").click()
    page.locator("#rules-version").wait_for()
    rules = next(g for g in games if g["id"] == game)["rules"]
    assert settings_shown(page) == table_settings(rules, language)
    assert not english_left(page, language)
    page.locator("#rules-panel [data-panel-tab='history']").click()
    page.locator("#history-panel [data-round]").first.click()
    page.locator("#history-panel .replay").wait_for()
    assert not english_left(page, language)
    # The fairness check of that round: each check (seeds, cards, signature, rules) in the language.
    page.locator("#history-panel [data-verify]").click()
    verdict = page.locator("#history-panel .fair__result[data-ok='true']")
    verdict.wait_for()
    assert text["fair.verified"] in verdict.inner_text()
    key_id = server.api("GET", "/api/fairness/public-key", table.token)["key_id"]
    signed = render("fair.check.signature_ok", {"key_id": key_id}, language)
    assert f"{text['fair.subject.signature']}: {signed}" in verdict.inner_text()
    assert not english_left(page, language)
    verdict.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"i18n-{language}-{currency.lower()}-fairness.png"))
    page.context.close()
    assert not errors, errors


def test_german_words_keep_the_phone_layout(browser: Any, server: LiveServer) -> None:
    """At 375 px in German no element reaches past the screen's edge (the page never scrolls sideways)."""
    errors: list[str] = []
    page = new_page(browser, 375, errors)
    for path in ("#/", "#/play/texas-bonus", "#/play/casino-holdem"):
        page.goto(f"{server.url}/?lang=de&currency=JPY{path}")
        page.wait_for_function("document.querySelector('#balance')?.textContent.length > 1")
        page.screenshot(path=str(ARTIFACTS / f"i18n-de-375{path.replace('#/', '-').replace('/', '-')}.png"),
                        full_page=True)
        panels = [None] if path == "#/" else [None, "#limits-button", "[data-panel-tab='rules']"]
        for button in panels:
            if button:
                page.locator(button).click()
                page.locator(".panel:not([hidden]) h2").wait_for()
            wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
                .filter((el) => el.getClientRects().length && el.getBoundingClientRect().right > 375.5)
                .map((el) => `${el.tagName}.${el.className}: ${el.textContent.slice(0, 40)}`)""")
            assert page.evaluate("document.documentElement.scrollWidth") <= 375, (button, wide)
            assert not wide, (button, wide)
    page.context.close()
    assert not errors, errors
