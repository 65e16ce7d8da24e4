"""The live monitor in the browser (issue 18, page 1): every live table's card, updated by the
table's messages; an admin pauses a table and resumes it; a support member has no buttons and
the server refuses the request with 403."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .web_support import BackOffice, back_office, signed_in

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackOffice]:
    members = {"mon-admin": "admin", "mon-support": "support"}
    with back_office(tmp_path_factory, members, live=True) as started:
        yield started


def test_an_admin_pauses_and_resumes_a_table(browser: Any, office: BackOffice) -> None:
    with signed_in(browser, office, "mon-admin") as page:
        page.wait_for_selector("#page-monitor article[data-table='texas-fast']")
        card = page.locator("article[data-table='texas-fast']")
        assert page.locator("#page-monitor article").count() == 2
        card.locator("button.pause").click()
        page.wait_for_selector("article[data-table='texas-fast'] p.state:has-text('paused after the round')")
        card.locator("button.resume").click()
        page.wait_for_selector("article[data-table='texas-fast'] button.pause:not([disabled])")
        page.fill("article[data-table='casino-fast'] input[name=betting_seconds]", "20")
        page.locator("article[data-table='casino-fast'] form.timers button").click()
        page.wait_for_selector("article[data-table='casino-fast'] p:has-text('betting 20 s')")


def test_a_support_member_watches_but_cannot_pause(browser: Any, office: BackOffice) -> None:
    with signed_in(browser, office, "mon-support") as page:
        page.wait_for_selector("#page-monitor article[data-table='texas-fast'] p.state")
        assert page.locator("#page-monitor button.pause").count() == 0
        status = page.evaluate("""async () => {
            const me = await (await fetch('/admin/api/session')).json();
            const answer = await fetch('/admin/api/tables/texas-fast/status', {method: 'POST',
                headers: {'Content-Type': 'application/json', 'X-CSRF-Token': me.csrf},
                body: JSON.stringify({status: 'paused'})});
            return answer.status;
        }""")
        assert status == 403
