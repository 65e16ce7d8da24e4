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
from dealerpoker.analysis.rtp import analysis_document
from dealerpoker.games.rules import Rules, rules_from_document
from dealerpoker.server.db import Database
from dealerpoker.server.schema import rules_documents


class MemoryCache:
    """Analyses and card counts kept in this process (when the server was given no cache)."""

    def __init__(self) -> None:
        self.documents: dict[str, dict[str, Any]] = {}
        self.counts: dict[str, Any] = {}

    def load(self, key: str) -> dict[str, Any] | None:
        return self.documents.get(key)

    def save(self, key: str, document: dict[str, Any], tables: dict[str, Any]) -> None:
        self.documents[key] = document

    def load_counts(self, key: str) -> Any:
        return self.counts.get(key)

    def save_counts(self, key: str, arrays: Any) -> None:
        self.counts[key] = arrays


class Analyses:
    def __init__(self, database: Database, cache: Any = None) -> None:
        self.database = database
        self.cache = cache if cache is not None else MemoryCache()
        self._moments: dict[str, Mapping[str, Moments]] = {}

    async def document(self, rules: Rules) -> dict[str, Any]:
        """The ``analyze --json`` document of ``rules``."""
        return await asyncio.to_thread(analysis_document, rules, self.cache, self.cache)

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
