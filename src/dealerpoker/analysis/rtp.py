"""Each betting field's return to player (RTP) for a rules object, for the server's game list.

``bet_rtps(rules, cache)`` reads the analysis from an injected cache (the CLI's disk cache
implements :class:`AnalysisCache` and :class:`~dealerpoker.analysis.paytable.CountsStore`) and
computes it when absent: from the stored card counts in well under a second (a new paytable,
new limits), else by counting (seconds, once per deck and card rules). Main-game follow-up bets (flop, turn,
river, raise) have no RTP of their own: they are part of the ante's game and map to ``None``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Protocol

from cachetools import LRUCache

from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
from dealerpoker.analysis.figures import ALGORITHM_VERSION
from dealerpoker.analysis.paytable import CountsStore, Progress
from dealerpoker.analysis.pipeline import exact_analysis
from dealerpoker.games.rules import Rules


class AnalysisCache(Protocol):
    def load(self, key: str) -> dict[str, Any] | None: ...

    def save(self, key: str, document: dict[str, Any], tables: dict[str, Any]) -> None: ...


class MemoryCache:
    """Analyses and card counts kept in this process (when the server was given no cache):
    the most recently used, as many analyses as a back office drafts in a session and a few
    card counts (tens of megabytes each; counting them again takes seconds)."""

    def __init__(self, documents: int = 256, counts: int = 8) -> None:
        self.documents: LRUCache[str, dict[str, Any]] = LRUCache(documents)
        self.counts: LRUCache[str, Any] = LRUCache(counts)

    def load(self, key: str) -> dict[str, Any] | None:
        return self.documents.get(key)

    def save(self, key: str, document: dict[str, Any], tables: dict[str, Any]) -> None:
        self.documents[key] = document

    def load_counts(self, key: str) -> Any:
        return self.counts.get(key)

    def save_counts(self, key: str, arrays: Any) -> None:
        self.counts[key] = arrays


def cache_key(rules: Rules, deck: DeckSpec = FULL_DECK) -> str:
    on = "" if deck.is_full else f"-{deck.key()}"
    return f"{rules.game}-{rules.fingerprint()}{on}-a{ALGORITHM_VERSION}"


def analysis_document(rules: Rules, cache: AnalysisCache | None = None,
                      counts: CountsStore | None = None, *, deck: DeckSpec = FULL_DECK,
                      progress: Progress | None = None) -> dict[str, Any]:
    """The ``analyze --json`` document, from the cache or computed (and then cached): from the
    card counts in ``counts`` when there (well under a second), else by counting (seconds)."""
    key = cache_key(rules, deck)
    if cache is not None:
        document = cache.load(key)
        if document is not None:
            return document
    analysis = exact_analysis(rules, counts, deck=deck, progress=progress)
    document = analysis.to_json()
    if cache is not None:
        cache.save(key, document, analysis.tables)
    return document


def solver_tables(solver: object, tables: dict[str, Any]) -> dict[str, Any]:
    """The decision tables ``simulate`` needs (an analysis' tables carry their symmetry maps)."""
    return dict(tables)


def bet_rtps(rules: Rules, cache: AnalysisCache | None = None) -> dict[str, Fraction | None]:
    """RTP per betting field as an exact fraction (``None`` for follow-up bets)."""
    document = analysis_document(rules, cache, cache if isinstance(cache, CountsStore) else None)
    exact = document["rules"]["exact"]
    ante = 1 - Fraction(exact["house_edge"])
    if rules.game == "texas-bonus":
        bonus = 1 - Fraction(document["side_bets"]["bonus"]["exact"])
        return {"ante": ante, "bonus": bonus, "flop": None, "turn": None, "river": None}
    aa = document["side_bets"]["aa"]
    edge = aa["exact_settled_on_fold"] if aa["settles_on_fold"] else aa["exact_lost_on_fold"]
    return {"ante": ante, "aa": 1 - Fraction(edge), "raise": None}
