"""The jurisdictions a paytable version is approved for, in the back office (issue 27): an admin
sees them on each version and asks for them to change on the games page; nothing changes until a
second admin approves there (the one who asked cannot); then a player of a jurisdiction the
version in force is not approved for is refused its rounds, naming the rule and the
jurisdiction, while a player of an approved one plays it."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.operator import operator_headers
from tests.support.operators_file import operator_entry, swedish_links

from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.server.operators.config import parse_operators

from .web_support import BackOffice, back_office, signed_in

pytestmark = pytest.mark.browser

SECRET = "approvals-web-secret-0123456789ab"
SECTION = "section.game[data-game='texas-bonus']"


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackOffice]:
    operators = parse_operators(operator_entry(
        "casino-a", secret=SECRET, wallet_url="http://127.0.0.1:9/wallet", currencies=["GBP", "SEK"],
        jurisdictions=["GB", "SE"], links=swedish_links("casino-a")) + """
""")
    with back_office(tmp_path_factory, {"ap-alice": "admin", "ap-bob": "admin"}, operators=tuple(operators),
                     analysis_cache=DiskCache()) as started:
        yield started


def player(office: BackOffice, jurisdiction: str, currency: str) -> dict[str, str]:
    """The headers of a demo player the operator launched into ``jurisdiction``."""
    raw = json.dumps({"player": f"ap-{uuid.uuid4().hex[:10]}", "mode": "demo", "currency": currency,
                      "game": "texas-bonus", "jurisdiction": jurisdiction}).encode()
    headers = operator_headers(SECRET, "POST", "/operator/v1/launch", raw, operator="casino-a",
                               now=time.time())
    launched = httpx.post(f"{office.url}/operator/v1/launch", content=raw, headers=headers, timeout=60)
    assert launched.status_code == 200, launched.text
    token = launched.json()["launch_token"]
    session = httpx.post(f"{office.url}/api/session", json={"launch": token}, timeout=60)
    assert session.status_code == 200, session.text
    return {"Authorization": f"Bearer {session.json()['token']}"}


def opening(office: BackOffice, headers: dict[str, str], ante: int) -> httpx.Response:
    return httpx.post(f"{office.url}/api/rounds", json={"game": "texas-bonus", "bets": {"ante": ante}},
                      headers=headers, timeout=60)


def test_an_admin_asks_and_a_second_approves_the_paytable_in_force_for_sweden_only(
        browser: Any, office: BackOffice) -> None:
    swede = player(office, "SE", "SEK")

    def briton() -> dict[str, str]:
        """A new British player (GB's least time between two rounds holds a player's next round)."""
        return player(office, "GB", "GBP")

    assert opening(office, briton(), 100).status_code == 200  # not restricted yet
    request = f"{SECTION} tr.jurisdiction-request"
    with signed_in(browser, office, "ap-alice") as page:
        page.goto(f"{office.url}/admin/#games")
        approvals = page.locator(f"{SECTION} details.approvals").first
        approvals.locator("summary").click()
        approvals.locator("input[name='unrestricted']").uncheck()
        approvals.locator("input[name='jurisdiction'][value='SE']").check()
        approvals.locator("button.save-approvals").click()
        page.locator(f"{request} td.asked").wait_for()
        assert page.locator(f"{request} td.asked").inner_text() == "SE"
        assert page.locator(f"{request} button.approve").count() == 0  # not hers to approve
        assert page.locator(f"{request} .note").inner_text() == "Another admin must approve your request."
    assert opening(office, briton(), 100).status_code == 200  # asked, not approved: nothing changed
    with signed_in(browser, office, "ap-bob") as page:
        page.goto(f"{office.url}/admin/#games")
        page.locator(f"{request} button.approve").click()
        page.locator(request).wait_for(state="detached")  # approved: the page loads again without it
        page.wait_for_load_state("load")
        in_force = page.locator(SECTION).get_attribute("data-fingerprint")
        shown = f"{SECTION} tr.version[data-fingerprint='{in_force}'] td.jurisdictions"
        page.locator(shown).wait_for()
        page.wait_for_function(f"document.querySelector(\"{shown}\").firstChild.textContent === 'SE'")
        assert page.locator(request).count() == 0
    refused = opening(office, briton(), 100)
    assert refused.status_code == 403, refused.text
    body = refused.json()
    assert (body["error"], body["rule"], body["jurisdiction"]) == ("jurisdiction", "paytables", "GB"), body
    assert "approved for: SE" in body["message"]
    assert opening(office, swede, 1000).status_code == 200
