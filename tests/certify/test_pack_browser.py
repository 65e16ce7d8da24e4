"""Every HTML page of a (small) certification pack renders in Chromium with no console error and
no external request; screenshots go to test-artifacts/ (docs/screenshots/certify-*.png are from them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.support.browser import ARTIFACTS

pytestmark = pytest.mark.browser

SHOTS = {"index.html": "certify-index.png", "par-texas-bonus": "certify-par-texas-bonus.png",
         "rng-battery.html": "certify-rng.png",
         "rules-casino-holdem-efc9c0b6ab41-de.html": "certify-rules-de.png"}


def test_every_page_renders_without_errors(browser: Any, small_pack: Path) -> None:
    pages = sorted(small_pack.glob("*.html"))
    assert len(pages) >= 1 + 3 + 1 + 9  # index, 3 PAR sheets, the RNG battery, 3 x 3 rules sheets
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        for path in pages:
            errors: list[str] = []
            outside: list[str] = []
            page = context.new_page()
            page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            page.on("request", lambda r, outside=outside: outside.append(r.url)
                    if not r.url.startswith("file://") else None)
            page.goto(path.as_uri())
            page.wait_for_load_state("load")
            assert errors == [], (path.name, errors)
            assert outside == [], (path.name, outside)   # no external asset
            assert page.locator("h1").count() == 1 and page.locator("table").count() >= 1, path.name
            for prefix, shot in SHOTS.items():
                if path.name.startswith(prefix):
                    page.screenshot(path=str(ARTIFACTS / shot), full_page=False)
            if path.name == "index.html":  # every part is linked from the index and opens
                links = page.locator("a[href$='.html']").evaluate_all(
                    "els => els.map(e => e.getAttribute('href'))")
                assert {p.name for p in pages} - {"index.html"} <= set(links)
            page.close()
    finally:
        context.close()
