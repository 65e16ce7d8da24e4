"""The reports and the games pages in the browser (issue 18, pages 4 and 5): the report's table,
chart and CSV; an admin's draft with its exact house edge; what the other roles are refused."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from dealerpoker.cli._analysis_cache import DiskCache

from .web_support import BackOffice, back_office, signed_in

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackOffice]:
    members = {"rep-admin": "admin", "rep-support": "support", "rep-auditor": "auditor"}
    with back_office(tmp_path_factory, members, analysis_cache=DiskCache()) as started:
        started.play(6)
        started.play(4, game="casino-holdem")
        yield started


def test_an_auditor_reads_the_report_with_its_chart_and_csv(browser: Any, office: BackOffice) -> None:
    with signed_in(browser, office, "rep-auditor") as page:
        page.click("nav a[href='#reports']")
        page.wait_for_selector("#page-reports table.grid tbody tr")
        assert page.locator("#page-reports tbody tr").count() == 2  # today, each game, solo, EUR
        assert page.locator("#page-reports svg.chart rect").count() >= 1
        total = page.locator("#page-reports tfoot tr.total").inner_text()  # the EUR totals: 10 rounds
        assert "Total" in total and "EUR" in total and "\t10\t" in total
        chart = page.locator("#page-reports svg.chart")  # both axes labelled, amounts in euros
        assert chart.locator("text.axis-title").all_text_contents() == ["GGR (EUR)", "Hold (%)", "Day (UTC)"]
        assert all(text.endswith(" EUR") for text in chart.locator("text.axis-money").all_text_contents())
        assert chart.locator("text.axis-day").count() == 1  # today
        assert "per unit staked" in page.locator("#page-reports").inner_text()  # the RTPs' basis
        href = page.locator("#page-reports a.csv").get_attribute("href")
        csv = page.evaluate("(url) => fetch(url).then((r) => r.text())", href)
        assert csv.startswith("period,game,table,currency,operator,rounds") and len(csv.splitlines()) == 4
        page.click("nav a[href='#games']")
        page.wait_for_selector("#page-games section.game")
        assert page.locator("#page-games .draft").count() == 0  # no drafts for an auditor


def test_a_support_member_has_no_reports(browser: Any, office: BackOffice) -> None:
    with signed_in(browser, office, "rep-support") as page:
        assert page.locator("nav a[href='#reports']").count() == 0
        assert page.evaluate("fetch('/admin/api/reports').then((r) => r.status)") == 403


def test_an_admin_sees_a_drafts_exact_house_edge(browser: Any, office: BackOffice) -> None:
    with signed_in(browser, office, "rep-admin") as page:
        page.goto(f"{office.url}/admin/#games")
        draft = page.locator("section.game[data-game='casino-holdem'] .draft")
        text = draft.locator("textarea").input_value().replace('"flush": 2', '"flush": 3')
        draft.locator("textarea").fill(text)
        draft.locator("button.compute").click()
        page.wait_for_selector("section.game[data-game='casino-holdem'] p.house-edge", timeout=60_000)
        shown = draft.locator("p.house-edge").inner_text()
        assert "House edge of the draft" in shown
        draft.locator("textarea").fill("{not json")
        draft.locator("button.compute").click()
        page.wait_for_selector("section.game[data-game='casino-holdem'] .draft-result p.message")
