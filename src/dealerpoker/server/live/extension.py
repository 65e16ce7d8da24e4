"""The live tables' extension for ``create_app(..., extensions=[...])``: builds ``LiveTables``
(``live/service.py``) once, installs its routes, and starts and stops its clocks with the app."""

from __future__ import annotations

import os
from typing import Any

from fastapi import FastAPI

from dealerpoker.server.live.advice import router as advice_router
from dealerpoker.server.live.records_api import install_live_records
from dealerpoker.server.live.routes import router
from dealerpoker.server.live.service import LiveSettings, LiveTables
from dealerpoker.server.services import Services
from dealerpoker.tables.config import load_tables


def live_extension(settings: LiveSettings) -> Any:
    """The extension for ``create_app(..., extensions=[...])`` serving ``settings.tables``."""

    def install(app: FastAPI, services: Services) -> None:
        live = LiveTables(settings, services)
        app.state.live = live
        app.include_router(router)
        app.include_router(advice_router)
        install_live_records(app, services, settings.tables)
        services.startup.append(live.start)
        services.shutdown.append(live.stop)

    return install


def live_extension_from(tables_file: str | None, redis_url: str | None) -> Any:
    """The extension for ``dealerpoker serve --tables FILE --redis URL`` (env: DEALERPOKER_REDIS_URL)."""
    redis_url = redis_url or os.environ.get("DEALERPOKER_REDIS_URL") or None
    prefix = os.environ.get("DEALERPOKER_REDIS_PREFIX") or "dealerpoker:"

    def install(app: FastAPI, services: Services) -> None:
        # Each table plays in its currency: that currency's limits and chips under the table's own.
        tables = load_tables(tables_file, environ=os.environ,
                             currency_overrides=services.offer.table_overrides,
                             rules_files=services.settings.rules_files)
        live_extension(LiveSettings(tables, redis_url=redis_url, redis_prefix=prefix))(app, services)

    return install
