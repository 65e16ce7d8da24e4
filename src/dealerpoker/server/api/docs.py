"""``/docs``: the OpenAPI description in Swagger UI, every asset served by this server (the
Swagger UI bundle of the ``fastapi-offline`` package, the page and its start script from
``server/docs_page``), so the page passes ``Content-Security-Policy: script-src 'self'`` and
loads nothing from a CDN. Off unless ``Settings.docs`` (``serve --docs``); ``/openapi.json`` is
always served."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from dealerpoker.server.settings import SettingsError

PAGE_DIRECTORY = Path(__file__).parent.parent / "docs_page"


def swagger_ui_directory() -> Path:
    """Where the installed ``fastapi-offline`` keeps Swagger UI (found without importing it)."""
    spec = importlib.util.find_spec("fastapi_offline")
    if spec is None or spec.origin is None:
        raise SettingsError("docs: the /docs page needs the fastapi-offline package")
    return Path(spec.origin).parent / "static"


def install_docs(app: FastAPI) -> None:
    vendor = swagger_ui_directory()

    @app.get("/docs", include_in_schema=False)
    async def docs() -> FileResponse:
        return FileResponse(PAGE_DIRECTORY / "index.html")

    app.mount("/docs/assets", StaticFiles(directory=PAGE_DIRECTORY), name="docs-assets")
    app.mount("/docs/vendor", StaticFiles(directory=vendor), name="docs-vendor")
