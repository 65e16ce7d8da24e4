"""Each betting field's return to player (RTP) for a rules object, for the server's game list.

``bet_rtps(rules, cache)`` reads the analysis from an injected cache (the CLI's disk cache
implements :class:`AnalysisCache`) and computes it when absent (about half a minute for the
full deck), so the server pays once per rules fingerprint. Main-game follow-up bets (flop, turn,
river, raise) have no RTP of their own: they are part of the ante's game and map to ``None``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Protocol

from dealerpoker.analysis.exact import ALGORITHM_VERSION, Solver
from dealerpoker.games.rules import Rules


class AnalysisCache(Protocol):
    def load(self, key: str) -> dict[str, Any] | None: ...

    def save(self, key: str, document: dict[str, Any], tables: dict[str, Any]) -> None: ...


def cache_key(rules: Rules) -> str:
    return f"{rules.game}-{rules.fingerprint()}-a{ALGORITHM_VERSION}"


def analysis_document(rules: Rules, cache: AnalysisCache | None = None,
                      solver: Solver | None = None) -> dict[str, Any]:
    """The ``analyze --json`` document, from the cache or computed (and then cached)."""
    key = cache_key(rules)
    if cache is not None:
        document = cache.load(key)
        if document is not None:
            return document
    solver = solver or Solver()
    analysis = solver.analyze(rules)
    document = analysis.to_json()
    if cache is not None:
        cache.save(key, document, solver_tables(solver, analysis.tables))
    return document


def solver_tables(solver: Solver, tables: dict[str, Any]) -> dict[str, Any]:
    """Decision tables plus the symmetry maps ``simulate`` needs to look them up."""
    sym = solver.symmetry
    return {**tables, "binom": sym.binom, "pair_perm": sym.pair_perm,
            "flop_id": sym.flops.id_of, "flop_perm": sym.flops.perm_of,
            "turn_id": sym.turns.id_of, "turn_perm": sym.turns.perm_of}


def bet_rtps(rules: Rules, cache: AnalysisCache | None = None) -> dict[str, Fraction | None]:
    """RTP per betting field as an exact fraction (``None`` for follow-up bets)."""
    document = analysis_document(rules, cache)
    exact = document["rules"]["exact"]
    ante = 1 - Fraction(exact["house_edge"])
    if rules.game == "texas-bonus":
        bonus = 1 - Fraction(document["side_bets"]["bonus"]["exact"])
        return {"ante": ante, "bonus": bonus, "flop": None, "turn": None, "river": None}
    aa = document["side_bets"]["aa"]
    edge = aa["exact_settled_on_fold"] if aa["settles_on_fold"] else aa["exact_lost_on_fold"]
    return {"ante": ante, "aa": 1 - Fraction(edge), "raise": None}
