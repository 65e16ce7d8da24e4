"""Change control on paytables in the browser (issue 33), as two admins: a paytable over 100% RTP
is refused; a valid one saved by the first admin is live only once the second approved it; an
earlier version is made live again with its own fingerprint, approved by the other admin."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from dealerpoker.cli._analysis_cache import DiskCache

from .web_support import BackOffice, back_office, signed_in

pytestmark = pytest.mark.browser

SECTION = "section.game[data-game='casino-holdem']"


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackOffice]:
    with back_office(tmp_path_factory, {"pt-alice": "admin", "pt-bob": "admin"},
                     analysis_cache=DiskCache()) as started:
        yield started


def straight_flush_pays(office: BackOffice) -> int:
    """What a player's table says a straight flush pays now (``GET /api/games``)."""
    games = httpx.get(f"{office.url}/api/games", timeout=30).json()["games"]
    rules = next(g for g in games if g["id"] == "casino-holdem")["rules"]
    pays: int = rules["ante_paytable"]["straight-flush"]
    return pays


def edit(page: Any, old: str, new: str) -> None:
    area = page.locator(f"{SECTION} .draft textarea")
    text = area.input_value()
    assert old in text
    area.fill(text.replace(old, new))


def games_page(page: Any, office: BackOffice) -> None:
    """The games page as it is now (reloaded: the other admin may have changed it)."""
    page.goto(f"{office.url}/admin/#games")
    page.reload()
    # The page waits for each game's exact figures, made from the cards the fixture counted first
    # (tests/support/analyses.py; 0.7 s alone, over 15 s once on a loaded VM): the deadline of the
    # other figures this file waits for.
    page.wait_for_selector(f"{SECTION} .draft textarea", timeout=60_000)


def test_two_admins_change_a_paytable_under_four_eyes(browser: Any, office: BackOffice) -> None:
    with signed_in(browser, office, "pt-alice") as alice, signed_in(browser, office, "pt-bob") as bob:
        games_page(alice, office)
        configured = alice.locator(SECTION).get_attribute("data-fingerprint")
        # a flush paying 3 to 1: RTP 100.27% per ante. Computed, it is flagged; saved, refused.
        edit(alice, '"flush": 2', '"flush": 3')
        alice.click(f"{SECTION} button.compute")
        warning = alice.wait_for_selector(f"{SECTION} .out-of-bounds", timeout=60_000)
        assert "100.27" in warning.inner_text() and "ante" in warning.inner_text()
        alice.click(f"{SECTION} button.save")
        refused = alice.wait_for_selector(f"{SECTION} .draft-result p.message", timeout=60_000)
        assert "RTP" in refused.inner_text() and "100.27" in refused.inner_text()
        assert alice.locator(f"{SECTION} tr.request").count() == 0
        # a straight flush paying 30 (RTP 98.10%): saved, waiting for bob
        edit(alice, '"flush": 3', '"flush": 2')
        edit(alice, '"straight-flush": 20', '"straight-flush": 30')
        alice.click(f"{SECTION} button.save")
        alice.wait_for_selector(f"{SECTION} tr.request", timeout=60_000)
        assert alice.locator(f"{SECTION} tr.request button.approve").count() == 0  # not her own
        assert "Another admin" in alice.locator(f"{SECTION} tr.request").inner_text()
        assert straight_flush_pays(office) == 20  # not live before approval
        games_page(bob, office)
        bob.click(f"{SECTION} tr.request button.approve")
        bob.wait_for_selector(f"{SECTION} tr.request", state="detached", timeout=60_000)
        bob.wait_for_selector(f"{SECTION} .draft textarea", timeout=60_000)
        assert straight_flush_pays(office) == 30
        live = bob.locator(SECTION).get_attribute("data-fingerprint")
        assert live != configured
        row = bob.locator(f"{SECTION} tr.version[data-fingerprint='{live}']")
        assert "pt-bob" in row.inner_text() and "pt-alice" in row.inner_text()  # approved by, saved by
        # the rules as first configured, made live again by bob, approved by alice
        bob.click(f"{SECTION} tr.version[data-fingerprint='{configured}'] button.restore")
        bob.wait_for_selector(f"{SECTION} tr.request")
        assert straight_flush_pays(office) == 30
        games_page(alice, office)
        alice.click(f"{SECTION} tr.request button.approve")
        alice.wait_for_selector(f"{SECTION} tr.request", state="detached", timeout=60_000)
        alice.wait_for_selector(f"{SECTION} .draft textarea", timeout=60_000)
        assert alice.locator(SECTION).get_attribute("data-fingerprint") == configured  # itself
        assert alice.locator(f"{SECTION} tr.version").count() == 2  # no third version
        assert straight_flush_pays(office) == 20
