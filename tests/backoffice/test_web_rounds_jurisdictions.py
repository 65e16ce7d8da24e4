"""The back office's pages by jurisdiction (issue 27, part 5): players launched into Great Britain
and Malta and a demo player (the deployment's default profile) play a solo round each; the round
search filters by jurisdiction and names each round's profile, a round's page shows the profile
in force for it, and the report's rows roll up by jurisdiction and filter by one."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.operator import operator_headers
from tests.support.operators_file import operator_entry

from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.jurisdictions import shipped
from dealerpoker.server.operators.config import parse_operators

from .web_support import BackOffice, back_office, signed_in

pytestmark = pytest.mark.browser

SECRET = "rounds-web-juris-secret-0123456789"


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackOffice]:
    operators = parse_operators(operator_entry(
        "casino-r", secret=SECRET, wallet_url="http://127.0.0.1:9/wallet", currencies=["EUR", "GBP"],
        jurisdictions=["GB", "MT"]))
    with back_office(tmp_path_factory, {"rj-admin": "admin"}, operators=tuple(operators),
                     analysis_cache=DiskCache()) as started:  # the report's exact RTPs, computed once
        yield started


def launch_token(office: BackOffice, player: str, jurisdiction: str, currency: str) -> str:
    raw = json.dumps({"player": player, "mode": "demo", "currency": currency, "game": "texas-bonus",
                      "jurisdiction": jurisdiction}).encode()
    headers = operator_headers(SECRET, "POST", "/operator/v1/launch", raw, operator="casino-r",
                               now=time.time())
    answer = httpx.post(f"{office.url}/operator/v1/launch", content=raw, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["launch_token"])


@pytest.fixture(scope="module")
def played(office: BackOffice) -> dict[str, str]:
    """Each jurisdiction's one settled round: code -> round id."""
    rounds = {}
    for code, currency in (("GB", "GBP"), ("MT", "EUR")):
        _, ids = office.play(1, launch=launch_token(office, f"rj-{code.lower()}", code, currency))
        rounds[code] = ids[0]
    _, ids = office.play(1)  # the server's own demo player: the default profile
    rounds["default"] = ids[0]
    return rounds


def search(page: Any, jurisdiction: str) -> list[str]:
    """The round ids the search shows for ``jurisdiction``, once the rows follow it."""
    page.fill("#page-rounds form.filters input[name=jurisdiction]", jurisdiction)
    page.locator("#page-rounds form.filters button[type=submit]").click()
    expected = f"td.jurisdiction[data-jurisdiction='{jurisdiction}']"
    page.wait_for_function(f"""() => {{
        const rows = [...document.querySelectorAll('#page-rounds tbody tr')];
        return rows.length > 0 && rows.every((row) => row.querySelector("{expected}"));
    }}""")
    return page.locator("#page-rounds tbody tr td:first-child a").all_inner_texts()


def test_the_round_search_filters_by_jurisdiction_and_a_round_shows_its_profile(
        browser: Any, office: BackOffice, played: dict[str, str]) -> None:
    versions = {code: shipped()[code].version for code in played}
    with signed_in(browser, office, "rj-admin") as page:
        page.goto(f"{office.url}/admin/#rounds")
        page.wait_for_selector("#page-rounds tbody tr")
        for code in ("MT", "default", "GB"):  # GB last: its round is opened from the list
            assert search(page, code) == [played[code]]
            assert page.locator("#page-rounds tbody td.jurisdiction").inner_text() \
                == f"{code} ({versions[code]})"
        page.locator(f"#page-rounds a[href='#round/{played['GB']}']").click()
        profile = page.locator("div.profile[data-jurisdiction='GB']")
        profile.wait_for()
        assert profile.get_attribute("data-version") == versions["GB"]
        assert profile.locator("p.profile-line").inner_text() \
            == f"Played under the GB profile, version {versions['GB']}"
        profile.locator("summary").click()
        enforced = shipped()["GB"].enforced()
        assert profile.locator("dd[data-setting='games']").inner_text() == ", ".join(enforced["games"])
        assert profile.locator("dd[data-setting='modes']").inner_text() == ", ".join(enforced["modes"])


def test_the_report_rolls_up_and_filters_by_jurisdiction(browser: Any, office: BackOffice,
                                                         played: dict[str, str]) -> None:
    with signed_in(browser, office, "rj-admin") as page:
        page.goto(f"{office.url}/admin/#reports")
        page.wait_for_selector("#page-reports form.filters select[name=group]")
        page.select_option("#page-reports select[name=group]", "jurisdiction")
        page.locator("#page-reports form.filters button[type=submit]").click()
        column = "#page-reports tbody tr td:nth-child(6)"  # the jurisdiction column
        page.wait_for_function(f"document.querySelectorAll(\"{column}\").length === 3")
        assert sorted(page.locator(column).all_inner_texts()) == ["GB", "MT", "default"]
        page.fill("#page-reports input[name=jurisdiction]", "MT")
        page.locator("#page-reports form.filters button[type=submit]").click()
        page.wait_for_function(f"document.querySelectorAll(\"{column}\").length === 1")
        assert page.locator(column).all_inner_texts() == ["MT"]
        assert page.locator("#page-reports tbody tr td:nth-child(7)").all_inner_texts() == ["1"]  # rounds
