"""Exact analyses for the back office (``analysis.rtp.analysis_document``: from the cache, else
from the cached card counts in seconds, else counted), run in a worker thread so requests keep
being served, and each rules document's bets' moments for the reports."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import select

from dealerpoker.analysis.moments import Moments, bet_moments
from dealerpoker.analysis.rtp import MemoryCache, analysis_document, cache_key
from dealerpoker.games.rules import Rules, rules_from_document
from dealerpoker.server.db import Database
from dealerpoker.server.schema import rules_documents


class Analyses:
    def __init__(self, database: Database, cache: Any = None) -> None:
        self.database = database
        self.cache = cache if cache is not None else MemoryCache()
        self._moments: dict[str, Mapping[str, Moments]] = {}
        self._computing: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def document(self, rules: Rules) -> dict[str, Any]:
        """The ``analyze --json`` document of ``rules``. Requests for the same rules while it is
        computed (a page loaded twice, two staff members) share that one computation."""
        key = cache_key(rules)
        running = self._computing.get(key)
        if running is None:
            computing = asyncio.to_thread(analysis_document, rules, self.cache, self.cache)
            running = asyncio.ensure_future(computing)
            self._computing[key] = running
            running.add_done_callback(lambda _done: self._computing.pop(key, None))
        return await asyncio.shield(running)

    async def moments(self, fingerprints: Iterable[str]) -> dict[str, Mapping[str, Moments]]:
        """Each stored rules document's bets' moments (a fingerprint not stored is left out)."""
        wanted = sorted(set(fingerprints) - set(self._moments))
        if wanted:
            async with self.database.reading() as connection:
                query = select(rules_documents.c.fingerprint, rules_documents.c.document) \
                    .where(rules_documents.c.fingerprint.in_(wanted))
                rows = (await connection.execute(query)).all()
            for fingerprint, text in rows:
                rules = rules_from_document(json.loads(text))
                document = await self.document(rules)
                self._moments[str(fingerprint)] = await asyncio.to_thread(bet_moments, rules, document)
        return {f: self._moments[f] for f in fingerprints if f in self._moments}
