"""The live monitor page by jurisdiction (issue 27): players of two jurisdictions (and a demo
player, under the deployment's default) bet at the tables; each card lists its seated players
grouped by the jurisdiction they play under, and the page's filter shows only the tables serving
the chosen jurisdiction or seating its players -- in English and in Swedish.

The tables' betting windows last ten minutes, so the seats stay while the page is read (the
test is over long before: no race with the tables' timers)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from tests.live.conftest import LivePlayer, table_entry
from tests.support.operator import operator_headers
from tests.support.operators_file import operator_entry

from dealerpoker.server.operators.config import parse_operators

from .web_support import BackOffice, back_office, signed_in

pytestmark = pytest.mark.browser

SECRET = "monitor-web-juris-secret-0123456789"
GB_TABLE = table_entry("gb-casino", "casino-holdem", 'currency = "GBP"\njurisdictions = ["GB"]')


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackOffice]:
    operators = parse_operators(operator_entry(
        "casino-j", secret=SECRET, wallet_url="http://127.0.0.1:9/wallet", currencies=["EUR", "GBP"],
        jurisdictions=["GB", "MT"]))
    with back_office(tmp_path_factory, {"mj-admin": "admin"}, live=True, operators=tuple(operators),
                     extra_tables=GB_TABLE, timers={"betting": 600, "decision": 10, "pause": 5}) as started:
        yield started


def launched(office: BackOffice, player: str, jurisdiction: str, currency: str, table: str) -> LivePlayer:
    """The operator's player ``player`` launched into ``jurisdiction``, at ``table``."""
    raw = json.dumps({"player": player, "mode": "demo", "currency": currency, "table": table,
                      "jurisdiction": jurisdiction}).encode()
    headers = operator_headers(SECRET, "POST", "/operator/v1/launch", raw, operator="casino-j",
                               now=time.time())
    answer = httpx.post(f"{office.url}/operator/v1/launch", content=raw, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    session = httpx.post(f"{office.url}/api/session", json={"launch": answer.json()["launch_token"]},
                         timeout=60).json()
    same = SimpleNamespace(token=session["token"], id=session["player_id"])
    return LivePlayer(office.url, table, same_as=same)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def seated(office: BackOffice) -> Iterator[dict[str, str]]:
    """A Maltese and a demo player at texas-fast, a Briton at gb-casino, each with a bet in."""
    players = {"MT": launched(office, "mj-malta", "MT", "EUR", "texas-fast"),
               "default": LivePlayer(office.url, "texas-fast"),
               "GB": launched(office, "mj-britain", "GB", "GBP", "gb-casino")}
    try:
        for player in players.values():
            # the first to come opens the table's round; those after it find it betting
            player.until(lambda m: m["type"] == "table" and m.get("phase") == "betting")
            reply = player.reply({"type": "bet", "bets": {"ante": 100}})
            assert reply["type"] == "you" and reply["seat"] is not None, reply
        yield {code: player.id for code, player in players.items()}
    finally:
        for player in players.values():
            player.close()


def group(page: Any, table: str, jurisdiction: str) -> Any:
    return page.locator(f"#page-monitor article[data-table='{table}'] .seated-groups "
                        f"li[data-jurisdiction='{jurisdiction}']")


def test_the_monitor_groups_seated_players_by_jurisdiction_and_filters_by_one(
        browser: Any, office: BackOffice, seated: dict[str, str]) -> None:
    with signed_in(browser, office, "mj-admin") as page:
        page.wait_for_selector("#page-monitor article[data-table='gb-casino'] .seated-groups li")
        # texas-fast seats two jurisdictions: a group each, each naming its player and count
        for code in ("MT", "default"):
            shown = group(page, "texas-fast", code)
            assert shown.get_attribute("data-seated") == "1"
            assert shown.locator("a.player").all_inner_texts() == [seated[code]]
            assert "1 seated" in shown.inner_text()
        assert group(page, "texas-fast", "GB").count() == 0
        assert group(page, "gb-casino", "GB").locator("a.player").all_inner_texts() == [seated["GB"]]
        assert page.locator("article[data-table='gb-casino'] p.markets").inner_text() == "Serves GB"
        assert page.locator("article[data-table='casino-fast'] p.seated-groups.none").count() == 1

        # Malta: the tables serving every market are shown; gb-casino (GB only) is not
        page.select_option("#page-monitor select[name=jurisdiction]", "MT")
        page.wait_for_selector("#page-monitor .monitor-tables[data-jurisdiction='MT'] article")
        shown = page.locator("#page-monitor article").evaluate_all("cards => cards.map(c => c.dataset.table)")
        assert sorted(shown) == ["casino-fast", "texas-fast"]
        assert group(page, "texas-fast", "MT").locator("a.player").all_inner_texts() == [seated["MT"]]

        # Great Britain: gb-casino is back, with its British player
        page.select_option("#page-monitor select[name=jurisdiction]", "GB")
        page.wait_for_selector(
            "#page-monitor .monitor-tables[data-jurisdiction='GB'] article[data-table='gb-casino']")
        assert group(page, "gb-casino", "GB").get_attribute("data-seated") == "1"

        # every jurisdiction again
        page.select_option("#page-monitor select[name=jurisdiction]", "")
        page.wait_for_selector(
            "#page-monitor .monitor-tables[data-jurisdiction=''] article[data-table='gb-casino']")
        assert page.locator("#page-monitor article").count() == 3


def test_the_grouping_and_filter_speak_swedish(browser: Any, office: BackOffice,
                                               seated: dict[str, str]) -> None:
    with signed_in(browser, office, "mj-admin") as page:
        page.select_option("select.language", "sv")
        page.wait_for_selector("#page-monitor h4:has-text('Sittande per jurisdiktion')")
        assert "1 sittande" in group(page, "gb-casino", "GB").inner_text()
        assert page.locator("#page-monitor label.field:has(select[name=jurisdiction]) span").inner_text() \
            == "Jurisdiktion"
        assert page.locator("#page-monitor select[name=jurisdiction] option").first.inner_text() \
            == "alla jurisdiktioner"
        page.select_option("select.language", "en")
