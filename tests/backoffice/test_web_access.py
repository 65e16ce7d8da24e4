"""The back office in the browser (issue 18): signing in, replacing the one-time password, the
pages each role sees, and the server's 403 for what a role may not do even when the page is
bypassed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .web_support import PASSWORD, BackOffice, back_office, signed_in

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackOffice]:
    with back_office(tmp_path_factory) as started:
        yield started


def test_a_new_member_replaces_the_one_time_password_then_reads_the_audit_log(browser: Any,
                                                                          office: BackOffice) -> None:
    first = office.create_staff("web-admin", "admin")
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{office.url}/admin/")
    page.fill("input[name=name]", "web-admin")
    page.fill("input[name=password]", "not the password")
    page.click("form.sign-in button[type=submit]")
    page.wait_for_selector("form.sign-in .message:has-text('Wrong name')")
    page.fill("input[name=password]", first)
    page.click("form.sign-in button[type=submit]")
    page.fill("input[name=current]", first)
    page.fill("input[name=new]", PASSWORD)
    page.click("form.password button[type=submit]")
    page.click("nav a[href='#audit']")
    page.wait_for_selector("#page-audit td:has-text('staff.password')")
    assert page.evaluate("document.cookie") == ""  # HttpOnly: the page cannot read the session
    context.close()


def test_a_support_member_sees_no_audit_log_and_the_server_refuses_it(browser: Any,
                                                                     office: BackOffice) -> None:
    office.member("web-support", "support")
    with signed_in(browser, office, "web-support") as page:
        assert page.locator("nav a[href='#audit']").count() == 0
        status = page.evaluate("fetch('/admin/api/audit').then((r) => r.status)")
        assert status == 403


def test_the_page_speaks_german(browser: Any, office: BackOffice) -> None:
    office.member("web-auditor", "auditor")
    with signed_in(browser, office, "web-auditor") as page:
        page.select_option("select.language", "de")
        page.wait_for_selector("nav a:has-text('Audit-Protokoll')")
        page.select_option("select.language", "en")
