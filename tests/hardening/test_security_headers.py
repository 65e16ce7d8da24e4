"""Defect 5: no browser security headers (no CSP, no frame-ancestors or X-Frame-Options, no
nosniff, no Referrer-Policy, cacheable token responses) and ``/docs`` loading Swagger UI from a
CDN without integrity. Now every answer carries them, framing is allowed only to the configured
operator origins, the API is ``no-store``, and ``/docs`` is off by default and, when on, served
from this server's own assets."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from tests.hardening.edge_support import client, edge_app, live_edge_server


def _csp(response: httpx.Response) -> dict[str, str]:
    directives = [d.strip() for d in response.headers["content-security-policy"].split(";")]
    return {d.split(" ", 1)[0]: d.split(" ", 1)[1] if " " in d else "" for d in directives}


def _assert_hardened(response: httpx.Response, ancestors: str = "'self'") -> None:
    csp = _csp(response)
    assert csp["script-src"] == "'self'" and csp["default-src"] == "'self'", response.url
    assert csp["frame-ancestors"] == ancestors and csp["object-src"] == "'none'"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


async def _answers(http: httpx.AsyncClient) -> dict[str, httpx.Response]:
    created = await http.post("/api/session", json={})
    auth = {"authorization": f"Bearer {created.json()['token']}"}
    return {
        "session": created,
        "page": await http.get("/"),
        "games": await http.get("/api/games"),
        "balance": await http.get("/api/balance", headers=auth),
        "fast path": await http.post("/api/rounds", json={"game": "texas-bonus", "bets": {"ante": 100}},
                                     headers=auth),
        "401": await http.get("/api/balance", headers={"authorization": "Bearer nobody"}),
        "404": await http.get("/api/nothing"),
        "413": await http.post("/api/session", content=b"{" + b" " * 70_000 + b"}",
                               headers={"content-type": "application/json"}),
        "admin": await http.get("/admin/"),
    }


def test_security_headers_on_every_answer() -> None:
    async def run() -> None:
        async with client(edge_app()) as http:
            answers = await _answers(http)
            assert answers["fast path"].status_code == 200 and answers["413"].status_code == 413
            for name, response in answers.items():
                _assert_hardened(response)
                assert response.headers["x-frame-options"] == "SAMEORIGIN", name
            for name in ("session", "games", "balance", "fast path", "401", "404", "413"):
                assert answers[name].headers["cache-control"] == "no-store", name
            assert "no-store" not in answers["page"].headers.get("cache-control", "")

    asyncio.run(run())


def test_security_headers_frame_only_for_configured_origins() -> None:
    async def run() -> None:
        app = edge_app(extra_frame_ancestors=("https://casino.example", "https://other.example"))
        async with client(app) as http:
            page = await http.get("/")
            _assert_hardened(page, "'self' https://casino.example https://other.example")
            assert "x-frame-options" not in page.headers  # it cannot name an origin

    asyncio.run(run())


def test_security_headers_docs_off_by_default_and_local_when_on() -> None:
    async def run() -> None:
        async with client(edge_app()) as http:
            assert (await http.get("/docs")).status_code == 404
            assert (await http.get("/redoc")).status_code == 404
            assert "/api/rounds" in (await http.get("/openapi.json")).json()["paths"]
        async with client(edge_app(docs=True)) as http:
            page = await http.get("/docs")
            assert page.status_code == 200 and "cdn" not in page.text.lower()
            _assert_hardened(page)
            for asset in ("/docs/vendor/swagger-ui-bundle.js", "/docs/vendor/swagger-ui.css",
                          "/docs/assets/init.js"):
                assert asset in page.text and (await http.get(asset)).status_code == 200, asset

    asyncio.run(run())


def test_security_headers_studio_video_origin_is_allowed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.live.conftest import table_entry
    from tests.live.studio_support import STUDIO

    extra = table_entry("video", "texas-bonus", 'video_url = "https://stream.example:8443/a.m3u8"' + STUDIO)
    with live_edge_server(f"sqlite:///{tmp_path}/v.db", extra_tables=extra) as (base, _app):
        csp = _csp(httpx.get(f"{base}/live.html", timeout=60))
        assert csp["media-src"] == "'self' https://stream.example:8443 blob:"
        assert csp["frame-src"] == "'self' https://stream.example:8443"


@pytest.mark.browser
def test_security_headers_pages_run_without_console_errors(browser: Any, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with live_edge_server(f"sqlite:///{tmp_path}/b.db", docs=True) as (base, _app):
        token = httpx.post(f"{base}/api/session", json={}, timeout=60).json()["token"]
        assert token
        page = browser.new_page()
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        try:
            for path in ("/", "/live.html#/texas-fast", "/dealer.html", "/admin/", "/docs"):
                page.goto(f"{base}{path}")
                page.wait_for_load_state("networkidle")
            page.goto(f"{base}/docs")
            page.wait_for_selector(".swagger-ui .info", timeout=60_000)
            # a violation is a console error: an inline script is refused
            with page.expect_console_message(lambda m: "Content Security Policy" in m.text, timeout=60_000):
                page.evaluate("() => { const s = document.createElement('script'); s.textContent = '1';"
                              " document.body.append(s); }")
        finally:
            page.close()
        refused = [e for e in errors if "Content Security Policy" in e]
        assert len(refused) == 1 and "inline script" in refused[0], errors
        signed_out = "status of 401"  # the back office asks who is signed in: nobody
        assert [e for e in errors if e not in refused and signed_out not in e] == [], errors
