"""The shipped games' card counts, counted before a browser page waits for figures made from them.

On a fresh machine the analysis cache is empty: the first request for a game's exact figures
counts its cards (5 s of a core, 40 s where numba has not compiled its kernels yet; one process
at a time, the others wait on ``DiskCache.counting``), and then any paytable's figures take well
under a second. A browser test
waits for a page, not for that counting: a fixture serving pages of figures calls ``counted``
before the first page, where no deadline runs.
"""

from __future__ import annotations

from typing import Any

from dealerpoker.analysis.rtp import analysis_document
from dealerpoker.games.rules import GAMES, load_rules


def counted(cache: Any) -> None:
    """Each game's shipped rules analysed into ``cache`` (counted only where it has no counts)."""
    for game in GAMES:
        analysis_document(load_rules(game), cache, cache)
