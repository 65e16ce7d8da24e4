"""The game server: the only I/O shell (HTTP, database, clock, RNG).

``create_app(settings, *, rng, clock)`` is the composition root; ``dealerpoker serve`` runs it.
"""

from dealerpoker.server.app import EXTENSIONS, create_app
from dealerpoker.server.settings import DEFAULT_DATABASE_URL, Settings

__all__ = ["DEFAULT_DATABASE_URL", "EXTENSIONS", "Settings", "create_app"]
