"""The game server: the only I/O shell (HTTP, database, clock, RNG).

``create_app(settings, *, rng, clock)`` is the composition root; ``dealerpoker serve`` runs it.
The names below are imported on first use, so that ``dealerpoker.server.settings`` (read by the
command line) does not pull in the web framework and the database drivers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dealerpoker.server.app import EXTENSIONS, create_app
    from dealerpoker.server.settings import DEFAULT_DATABASE_URL, Settings

__all__ = ["DEFAULT_DATABASE_URL", "EXTENSIONS", "Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name in ("EXTENSIONS", "create_app"):
        from dealerpoker.server import app

        return getattr(app, name)
    if name in ("DEFAULT_DATABASE_URL", "Settings"):
        from dealerpoker.server import settings

        return getattr(settings, name)
    raise AttributeError(f"module 'dealerpoker.server' has no attribute {name!r}")
